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

/**
 * The house plan of lib/ (docs/design/layout.md): each folder imports only the folders below it,
 * and only lib/cuda/ (and lib/gl/ and lib/nccl/, capabilities with their own bindings) imports the addon (`native`);
 * everything else reaches it through lib/cuda/door.ts. Type-only imports may point upward.
 */
const LAYERS = {
  base: ['cuda', 'engine', 'array', 'kernels', 'random', 'gl', 'nccl', 'linalg', 'fft'],
  cuda: ['engine', 'array', 'kernels', 'random', 'gl', 'nccl', 'linalg', 'fft'],
  engine: ['array', 'kernels', 'random', 'gl', 'nccl', 'linalg', 'fft'],
  array: ['kernels', 'random', 'gl', 'nccl', 'linalg', 'fft'],
  kernels: ['random', 'gl', 'nccl', 'linalg', 'fft'],
  random: ['kernels', 'gl', 'nccl', 'linalg', 'fft'],
  gl: ['engine', 'kernels', 'random', 'nccl', 'linalg', 'fft'],
  nccl: ['gl', 'linalg', 'fft'],
  linalg: ['kernels', 'random', 'gl', 'nccl', 'fft'],
  fft: ['kernels', 'random', 'gl', 'nccl', 'linalg'],
};
const NATIVE = { regex: '(^|/)cuda/native$', message: 'Only lib/cuda/ imports the addon: use lib/cuda/door.ts (or a lib/cuda/ module).' };
const layerRule = (folder) => ['error', {
  patterns: [
    ...(folder === 'cuda' || folder === 'gl' || folder === 'nccl' ? [] : [NATIVE]),
    ...(LAYERS[folder] ?? []).length ? [{
      regex: `^(\\.\\./)+(${LAYERS[folder].join('|')})(/|$)`, allowTypeImports: true,
      message: `lib/${folder}/ sits below these folders (docs/design/layout.md); import downward only.`,
    }] : [],
  ],
}];

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
  // Lines of at most 140 characters. Template literals are CUDA C source (wrapping them changes the
  // generated kernels); tests may also keep long string literals (expected messages, child scripts).
  { files: ['lib/**/*.ts'], rules: { 'max-len': ['error', { code: 140, ignoreUrls: true, ignoreTemplateLiterals: true }] } },
  {
    files: ['test/**/*.ts'],
    rules: { 'max-len': ['error', { code: 140, ignoreUrls: true, ignoreTemplateLiterals: true, ignoreStrings: true, ignoreRegExpLiterals: true }] },
  },
  { files: ['lib/*.ts'], rules: { '@typescript-eslint/no-restricted-imports': layerRule('root') } },
  ...Object.keys(LAYERS).map((folder) => ({
    files: [`lib/${folder}/**/*.ts`],
    rules: { '@typescript-eslint/no-restricted-imports': layerRule(folder) },
  })),
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
