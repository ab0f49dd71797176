// ESLint flat config (npm run lint): @eslint/js + typescript-eslint recommended for the
// TypeScript library and tests, and the CommonJS scripts in bench/ and examples/.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/** Node's globals for the plain-JS files (the `globals` package is not a dependency). */
const nodeGlobals = Object.fromEntries([
  'require', 'module', 'exports', '__dirname', '__filename', 'process', 'console', 'Buffer', 'global',
  'globalThis', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate',
  'clearImmediate', 'queueMicrotask', 'structuredClone', 'performance', 'URL', 'URLSearchParams',
  'TextEncoder', 'TextDecoder', 'AbortController', 'AbortSignal', 'WebAssembly', 'fetch',
].map((name) => [name, 'readonly']));

export default defineConfig(
  { ignores: ['dist/**', 'build/**', 'prebuilds/**', 'docs/api/**', 'node_modules/**', 'scratch/**'] },
  {
    files: ['lib/**/*.ts', 'test/**/*.ts', 'types/**/*.d.ts'],
    extends: [js.configs.recommended, tseslint.configs.recommended],
    rules: {
      // Unused arguments and caught errors are common in callbacks and typed overloads; unused
      // variables and imports are real findings.
      '@typescript-eslint/no-unused-vars': ['error', {
        args: 'none', caughtErrors: 'none', varsIgnorePattern: '^_', ignoreRestSiblings: true,
      }],
      // The addon's declarations use `Function` for the error constructors it receives.
      '@typescript-eslint/no-unsafe-function-type': 'off',
      // types/addon.d.ts declares the addon as a global namespace, referenced by path.
      '@typescript-eslint/triple-slash-reference': ['error', { path: 'always', types: 'prefer-import', lib: 'always' }],
      // `namespace NativeAddon` is the ambient declaration of the addon's exports.
      '@typescript-eslint/no-namespace': ['error', { allowDeclarations: true, allowDefinitionFiles: true }],
    },
  },
  {
    files: ['**/*.mjs'],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: 'module', globals: nodeGlobals },
    rules: {
      'no-unused-vars': ['error', { args: 'none', caughtErrors: 'none', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['bench/**/*.js', 'examples/**/*.js', '.ci/**/*.js', '*.config.js'],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: 'commonjs', globals: nodeGlobals },
    rules: {
      'no-unused-vars': ['error', { args: 'none', caughtErrors: 'none', varsIgnorePattern: '^_' }],
    },
  },
);
