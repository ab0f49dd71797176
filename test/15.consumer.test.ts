/**
 * Layer 15: the package as a user gets it, without packing it. The ESM wrapper (lib/esm.mjs →
 * dist/index.mjs) must re-export exactly the CommonJS build's names, and package.json must
 * declare no install script, the platform packages and the repository. The packed tarballs
 * installed into fresh projects: scripts/consumer-test.js (CI). No GPU, no network.
 */
import { spawnSync, SpawnSyncReturns } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { pathToFileURL } from 'url';

const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
const STEP_MS = 10 * 60 * 1000;

/**
 * The environment for child processes: without the loader overrides (the consumer must find its
 * own binary) and without the variables npm sets for the script running Jest (`npm test`), which
 * would describe this package instead of the one being packed or installed.
 */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k === 'NODECUDA_BINARY' || k === 'NODECUDA_ADDON') continue;
    if (/^npm_(package_|lifecycle_|config_local_prefix$|command$)/i.test(k)) continue;
    env[k] = v;
  }
  return env;
}

function run(cmd: string, args: string[], cwd: string, timeout = STEP_MS): SpawnSyncReturns<string> {
  const r = spawnSync(cmd, args, { cwd, env: childEnv(), encoding: 'utf8', timeout, maxBuffer: 64 << 20 });
  if (r.error) throw new Error(`${cmd} ${args.join(' ')}: ${r.error.message}`);
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited with ${r.status}:\n${r.stdout}\n${r.stderr}`);
  }
  return r;
}

/** Runs `node args…` in `cwd` and parses the last line of its output as JSON. */
function nodeJson(args: string[], cwd: string): Record<string, unknown> {
  const r = run(process.execPath, args, cwd, 60000);
  return JSON.parse(r.stdout.trim().split('\n').pop() as string);
}

describe('the ESM wrapper (dist/index.mjs)', () => {
  beforeAll(() => {
    for (const f of ['index.js', 'index.mjs']) {
      if (!fs.existsSync(path.join(DIST, f))) throw new Error(`${DIST}/${f} is missing: run "npm run build:ts" first.`);
    }
  });

  test('the built copies are the sources, lib/esm.mjs and lib/esm.d.mts', () => {
    expect(fs.readFileSync(path.join(DIST, 'index.mjs'), 'utf8')).toBe(fs.readFileSync(path.join(ROOT, 'lib', 'esm.mjs'), 'utf8'));
    expect(fs.readFileSync(path.join(DIST, 'index.d.mts'), 'utf8')).toBe(fs.readFileSync(path.join(ROOT, 'lib', 'esm.d.mts'), 'utf8'));
  });

  test('exports exactly the names of the CommonJS build (plus default), each the same object', () => {
    const out = nodeJson(['--input-type=module', '-e', `
      import * as esm from ${JSON.stringify(path.join(DIST, 'index.mjs'))};
      import { createRequire } from 'module';
      const cjs = createRequire(import.meta.url)(${JSON.stringify(path.join(DIST, 'index.js'))});
      const names = Object.keys(esm).filter((k) => k !== 'default').sort();
      const same = names.filter((k) => esm[k] === cjs[k]);
      console.log(JSON.stringify({ esm: names, cjs: Object.keys(cjs).filter((k) => k !== '__esModule').sort(), same,
        defaultIsCjs: esm.default === cjs }));`], ROOT);
    expect(out.esm).toEqual(out.cjs);
    expect(out.same).toEqual(out.cjs);
    expect(out.defaultIsCjs).toBe(true);
    expect(out.cjs).toEqual(expect.arrayContaining(['isAvailable', 'gpuarray', 'GPUArray', 'SourceModule', 'driver']));
  });

  test('package.json "exports": import gives the wrapper, require the CommonJS build (self-reference)', () => {
    const out = nodeJson(['--input-type=module', '-e', `
      import * as esm from 'nodecuda';
      import { createRequire } from 'module';
      const require = createRequire(${JSON.stringify(path.join(ROOT, 'package.json'))});
      console.log(JSON.stringify({ resolved: require.resolve('nodecuda'), same: esm.GPUArray === require('nodecuda').GPUArray,
        importMeta: import.meta.resolve('nodecuda') }));`], ROOT);
    expect(out.resolved).toBe(path.join(DIST, 'index.js'));
    expect(out.importMeta).toBe(pathToFileURL(path.join(DIST, 'index.mjs')).href);
    expect(out.same).toBe(true);
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    // Each condition has its own declarations: index.d.mts for import (attw: not "masquerading as CJS").
    expect(pkg.exports['.']).toEqual({
      import: { types: './dist/index.d.mts', default: './dist/index.mjs' },
      require: { types: './dist/index.d.ts', default: './dist/index.js' },
    });
  });
});

describe('package.json: what a consumer installs', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

  test('no install script (nothing runs at install; npm --strict-allow-scripts accepts it) and no build tools at run time', () => {
    expect(Object.keys(pkg.scripts).filter((s) => /^(pre|post)?install$|^prepare$/.test(s))).toEqual([]);
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(pkg.devDependencies).toEqual(expect.objectContaining({ 'cmake-js': expect.any(String), 'node-addon-api': expect.any(String) }));
    expect(pkg.peerDependenciesMeta).toEqual({ 'cmake-js': { optional: true }, 'node-addon-api': { optional: true } });
  });

  test('every platform package in npm/ is an optional dependency at nodecuda\'s version, with os, cpu and libc', () => {
    const dirs = fs.readdirSync(path.join(ROOT, 'npm')).sort();
    expect(dirs).toEqual(['linux-arm64-gnu', 'linux-x64-gnu']);
    const names: string[] = [];
    for (const d of dirs) {
      const p = JSON.parse(fs.readFileSync(path.join(ROOT, 'npm', d, 'package.json'), 'utf8'));
      names.push(p.name);
      expect(p).toEqual(expect.objectContaining({ name: `@nodecuda/${d}`, version: pkg.version, os: ['linux'], libc: ['glibc'], files: ['nodecuda.node'] }));
      expect(p.cpu).toEqual([d.split('-')[1]]);
      expect(p.scripts).toBeUndefined();
    }
    expect(pkg.optionalDependencies).toEqual(Object.fromEntries(names.map((n) => [n, pkg.version])));
  });

  test('no prebuilds/ in the tarball and no npm pre-hook of build (npm run build must not write prebuilds/)', () => {
    expect(pkg.files).not.toContain('prebuilds');
    expect(pkg.scripts.prebuild).toBeUndefined();
    // The package ships precompiled kernels (dist/kernel-images), built at pack time.
    expect(pkg.scripts.prepack).toBe('npm run build:ts && npm run build:kernels');
  });

  test('repository, homepage and bugs point at the repository', () => {
    expect(pkg.repository.url).toContain('github.com/nodecuda/nodecuda');
    expect(pkg.homepage).toMatch(/^https:\/\/github\.com\/nodecuda\/nodecuda/);
    expect(pkg.bugs.url).toBe('https://github.com/nodecuda/nodecuda/issues');
  });
});

describe('README.md: the registry page', () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

  test('links work on the registry page: absolute, and into the repository (the tarball has no examples/)', () => {
    const links = [...readme.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]);
    expect(links.length).toBeGreaterThan(20);
    expect(links.filter((l) => !/^(https:\/\/|#)/.test(l))).toEqual([]);
    // Each repository link names a file of this repository.
    const prefix = 'https://github.com/nodecuda/nodecuda/blob/main/';
    const missing = links.filter((l) => l.startsWith(prefix)).map((l) => l.slice(prefix.length).split('#')[0])
      .filter((f) => !fs.existsSync(path.join(ROOT, f)));
    expect(missing).toEqual([]);
  });

  test('a consumer section comes first: npm install nodecuda, requirements, platforms (arm64 untested said plainly)', () => {
    const install = readme.indexOf('npm install nodecuda');
    expect(install).toBeGreaterThan(0);
    expect(install).toBeLessThan(readme.indexOf('**Features.**'));
    expect(readme).toMatch(/glibc >= 2\.28/);
    expect(readme).toMatch(/R525/);
    expect(readme).toMatch(/linux-arm64[^\n]*untested on arm64 hardware/);
    expect(readme).toContain('npx nodecuda-build');
  });
});

// Packing and installing the tarballs into fresh projects (default npm settings and
// --strict-allow-scripts, no compiler on PATH, CJS/ESM/strict TypeScript, attw) is
// scripts/consumer-test.js, run by CI after the platform package is built: it needs the npm
// registry and minutes, so `npm test` does not run it.
