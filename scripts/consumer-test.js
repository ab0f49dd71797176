#!/usr/bin/env node
// The package as a user gets it (CI: .ci/run). Packs nodecuda and this machine's platform package
// (npm/<platform>/nodecuda.node must be built: npm run build:platform), installs both tarballs
// into fresh projects with npm's default settings and with --strict-allow-scripts, with no
// compiler or CMake on PATH, then: CommonJS require, ESM import (the addon comes from the platform
// package), a strict TypeScript project with `types: []` and `lib: ["es2022"]`, and
// @arethetypeswrong/cli on the main tarball. Exits 1 on the first failure, saying which.
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');
const PLATFORM = `${process.platform}-${process.arch}-gnu`;
const main = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nodecuda-consumer-'));
// PATH for the consumer: node, npm and sh only, so no install script could find a compiler.
const bin = path.join(tmp, 'bin');
fs.mkdirSync(bin);
fs.symlinkSync(process.execPath, path.join(bin, 'node'));
fs.symlinkSync('/bin/sh', path.join(bin, 'sh'));
const npmCli = fs.realpathSync(spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim());
fs.writeFileSync(path.join(bin, 'npm'), `#!/bin/sh\nexec '${process.execPath}' '${npmCli}' "$@"\n`, { mode: 0o755 });

function env(extra = {}) {
  const e = {};
  for (const [k, v] of Object.entries(process.env)) {
    // The loader overrides and npm's variables for the script running this would describe this repository.
    if (/^NODECUDA_(BINARY|ADDON)$/.test(k) || /^npm_/i.test(k)) continue;
    e[k] = v;
  }
  return { ...e, PATH: bin, NODECUDA_CACHE_DIR: path.join(tmp, 'cache'), ...extra };
}

let step = '';
function run(cmd, args, cwd, extraEnv) {
  const r = spawnSync(cmd, args, { cwd, env: cwd === ROOT || cwd.startsWith(path.join(ROOT, 'npm')) ? { ...env(extraEnv), PATH: process.env.PATH } : env(extraEnv), encoding: 'utf8', timeout: 300000, maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${step}: ${cmd} ${args.join(' ')} (in ${cwd}) exited with ${r.status ?? r.error}\n${r.stdout}\n${r.stderr}`);
  return r.stdout + r.stderr;
}
function expect(cond, what) {
  if (!cond) throw new Error(`${step}: ${what}`);
}
function pack(dir) {
  // prepack's precompiled kernels take minutes to build; this test checks the install, not them.
  const out = run(path.join(bin, 'npm'), ['pack', '--json', '--pack-destination', tmp], dir, { NODECUDA_SKIP_KERNELS: '1' });
  const json = JSON.parse(out.slice(out.search(/^\[\s*$/m), out.lastIndexOf(']') + 1));
  return { file: path.join(tmp, json[0].filename), files: json[0].files.map((f) => f.path), size: json[0].size };
}

const CONSUMER_TS = `
import * as cuda from 'nodecuda';
import { GPUArray, gpuarray, SourceModule, ElementwiseKernel, random, isAvailable, CudaError } from 'nodecuda';
import type { DTypeName, CompileResult } from 'nodecuda';

export function demo(): number {
  if (!isAvailable()) return 0;
  const a: GPUArray = gpuarray.toGpu(new Float32Array([1, 2, 3]));
  const b: GPUArray = gpuarray.zeros([3], 'float32');
  const mod = new SourceModule('__global__ void k(float *x) { x[0] = 1; }');
  mod.getFunction('k')(a, { block: [1], grid: [1] });
  new ElementwiseKernel('float *x, float *y', 'y[i] = 2 * x[i]', 'twice')(a, b);
  cuda.driver.memcpyHtod(a, new Float32Array(3));
  const r: GPUArray = random.rand([4]);
  const name: DTypeName = a.dtype.name;
  const img: Promise<CompileResult> = cuda.compiler.compileAsync('', { arch: 'sm_90' });
  void img;
  {
    using buf = cuda.driver.memAlloc(16);
    void buf;
  }
  const e: unknown = null;
  if (e instanceof CudaError) void e.code;
  // @ts-expect-error the typings are real: an unknown export is an error, not any
  cuda.notAnExport();
  return r.size + b.size + name.length;
}
`;

const started = Date.now();
try {
  step = 'pack';
  const platformDir = path.join(ROOT, 'npm', PLATFORM);
  expect(fs.existsSync(path.join(platformDir, 'nodecuda.node')), `${platformDir}/nodecuda.node is missing: run "npm run build:platform" first`);
  const mainTgz = pack(ROOT);
  const platTgz = pack(platformDir);
  for (const f of ['package.json', 'LICENSE', 'README.md', 'CMakeLists.txt', 'dist/index.js', 'dist/index.mjs', 'dist/index.d.ts',
    'dist/index.d.mts', 'dist/cuda/native.js', 'types/addon.d.ts', 'src/addon.cc', 'bin/nodecuda-build.js']) {
    expect(mainTgz.files.includes(f), `the main tarball lacks ${f}`);
  }
  const unwanted = mainTgz.files.filter((f) => /\.node$|^(prebuilds|build|test|bench|examples|lib|scripts|npm|node_modules|\.ci)\//.test(f) ||
    (/\.map$|\.tgz$|\.ts$/.test(f) && !/\.d\.m?ts$/.test(f)) || /^(tsconfig.*|jest\.config\.js|eslint\.config\.mjs|typedoc\.json|package-lock\.json)$/.test(f));
  expect(unwanted.length === 0, `the main tarball has files a user does not need: ${unwanted.join(', ')}`);
  expect(platTgz.files.sort().join() === 'nodecuda.node,package.json', `the platform tarball holds ${platTgz.files.join(', ')}`);
  const scripts = Object.keys(main.scripts || {}).filter((s) => /^(pre|post)?install$|^prepare$/.test(s));
  expect(scripts.length === 0, `the main package has install scripts: ${scripts.join(', ')}`);
  for (const dep of ['cmake-js', 'node-addon-api']) expect(!main.dependencies?.[dep], `${dep} is a runtime dependency`);

  for (const mode of ['default', 'strict-allow-scripts']) {
    step = `install (${mode})`;
    const app = path.join(tmp, `app-${mode}`);
    fs.mkdirSync(app);
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
    const flags = ['--no-audit', '--no-fund', '--prefer-offline', ...(mode === 'default' ? [] : ['--strict-allow-scripts'])];
    const out = run(path.join(bin, 'npm'), ['install', ...flags, mainTgz.file, platTgz.file], app);
    expect(!/install-scripts|ESTRICTALLOWSCRIPTS/.test(out), `npm warned about install scripts:\n${out}`);
    const installed = fs.readdirSync(path.join(app, 'node_modules')).filter((d) => !d.startsWith('.'));
    expect(installed.sort().join() === '@nodecuda,nodecuda', `the consumer got ${installed.join(', ')} (expected nodecuda and @nodecuda only)`);
    expect(!fs.existsSync(path.join(app, 'node_modules', 'nodecuda', 'build')), 'a build/ directory appeared: something compiled at install');

    step = `CommonJS (${mode})`;
    const cjs = JSON.parse(run(path.join(bin, 'node'), ['-e', `
      const cuda = require('nodecuda');
      const n = require(require.resolve('nodecuda').replace(/index\\.js$/, 'cuda/native.js'));
      const c = cuda.compiler.compile('extern "C" __global__ void k(float *a) { a[0] = 1; }', { arch: 'sm_90' });
      console.log(JSON.stringify({ available: typeof cuda.isAvailable(), addon: n.addonPath, version: cuda.version().nodecuda, image: c.image.length > 0 }));`], app));
    expect(cjs.available === 'boolean', 'isAvailable() is not a boolean');
    expect(cjs.addon === path.join(app, 'node_modules', '@nodecuda', PLATFORM, 'nodecuda.node'), `the addon came from ${cjs.addon}, not the platform package`);
    expect(cjs.version === main.version, `version() says ${cjs.version}`);
    console.log(`consumer-test (${mode}): require ok, addon from @nodecuda/${PLATFORM}, NVRTC compile ${cjs.image ? 'ok' : 'gave an empty image'}`);

    step = `ESM (${mode})`;
    fs.writeFileSync(path.join(app, 'named.mjs'), `
      import cuda, { isAvailable, gpuarray, GPUArray, SourceModule, random, driver } from 'nodecuda';
      console.log(JSON.stringify({ a: typeof isAvailable(), same: cuda.GPUArray === GPUArray,
        kinds: [typeof gpuarray.toGpu, typeof SourceModule, typeof random.rand, typeof driver.memAlloc] }));`);
    const esm = JSON.parse(run(path.join(bin, 'node'), ['named.mjs'], app));
    expect(esm.a === 'boolean' && esm.same && esm.kinds.every((k) => k === 'function'), `ESM named imports: ${JSON.stringify(esm)}`);
  }

  step = 'npx nodecuda-build without build tools';
  {
    const app = path.join(tmp, 'app-default');
    const r = spawnSync(path.join(bin, 'node'), [path.join(app, 'node_modules', '.bin', 'nodecuda-build')], { cwd: app, env: env(), encoding: 'utf8' });
    expect(r.status === 1, `exit ${r.status}, expected 1:\n${r.stdout}${r.stderr}`);
    expect(/missing CMake >= 3\.18[^\n]*; a C\+\+17 compiler[^\n]*cmake-js and node-addon-api/.test(r.stderr), `the paragraph does not name CMake, the compiler and the build packages:\n${r.stderr}`);
    expect(r.stderr.trim().split('\n').length === 1, `more than one paragraph:\n${r.stderr}`);
    console.log('consumer-test: npx nodecuda-build with no tools says in one paragraph what is missing');
  }

  step = 'TypeScript (strict, nodenext, types: [], lib: es2022)';
  const app = path.join(tmp, 'app-default');
  const tsVersion = require('typescript/package.json').version;
  run(path.join(bin, 'npm'), ['install', '--no-audit', '--no-fund', '--prefer-offline', `typescript@${tsVersion}`], app);
  fs.writeFileSync(path.join(app, 'consumer.ts'), CONSUMER_TS);
  fs.writeFileSync(path.join(app, 'consumer.mts'), CONSUMER_TS);
  fs.writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, skipLibCheck: false, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', types: [], lib: ['es2022'] },
    files: ['consumer.ts', 'consumer.mts'],
  }));
  run(path.join(bin, 'node'), [path.join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], app);
  console.log('consumer-test: strict TypeScript (CommonJS and ESM files) compiles against the published declarations');

  step = 'are the types wrong (attw)';
  const attw = path.join(ROOT, 'node_modules', '@arethetypeswrong', 'cli', 'dist', 'index.js');
  console.log(run(path.join(bin, 'node'), [attw, mainTgz.file, '--profile', 'node16', '--format', 'ascii'], tmp).trim());
  console.log(`consumer-test: passed in ${((Date.now() - started) / 1000).toFixed(0)} s (main ${(mainTgz.size / 1e3).toFixed(0)} kB, ` +
    `@nodecuda/${PLATFORM} ${(platTgz.size / 1e6).toFixed(1)} MB packed)`);
} catch (e) {
  console.error(`consumer-test: FAILED at ${e.message}`);
  process.exitCode = 1;
} finally {
  if (!process.env.NODECUDA_KEEP_CONSUMER) fs.rmSync(tmp, { recursive: true, force: true });
  else console.log(`kept ${tmp}`);
}
