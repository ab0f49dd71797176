#!/usr/bin/env node
'use strict';
// npm run build:kernels: precompiles the built-in kernels for the package (dist/kernel-images/<arch>.bin,
// read by lib/cuda/prebuilt.ts). Needs the CUDA toolkit's NVRTC, no GPU:
//  1. scripts/kernel-catalog.js runs the built-in operations against the CPU driver double
//     (build-fake/Release/libfakecuda.so, built here when missing) and records every generated
//     kernel exactly as the engines make it;
//  2. each recorded kernel is compiled with NVRTC for every target below (off the main thread,
//     one compile per core; the disk cache in build-fake/kernel-cache makes a rebuild cheap);
//  3. one archive per target: brotli-compressed images indexed by the prebuilt key
//     (NODECUDA_KERNEL_CODEC=z: zlib, faster to build, ~20% larger).
// NODECUDA_KERNEL_ARCHS overrides the targets (comma-separated, e.g. sm_90,compute_120);
// NODECUDA_SKIP_KERNELS=1 skips the build (a package made so compiles every kernel with NVRTC).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
const ARCHS = (process.env.NODECUDA_KERNEL_ARCHS || 'sm_75,sm_80,sm_86,sm_89,sm_90,sm_100,sm_120,compute_120')
  .split(',').map((s) => s.trim()).filter(Boolean);
const FAKE = path.join(ROOT, 'build-fake', 'Release', 'libfakecuda.so');
const CACHE = path.join(ROOT, 'build-fake', 'kernel-cache');
const CATALOG = path.join(ROOT, 'build-fake', 'kernels.jsonl');
const OUT = path.join(DIST, 'kernel-images');

function run(cmd, args, env) {
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal})`);
}

async function main() {
  if (process.env.NODECUDA_SKIP_KERNELS === '1') {
    console.log('build:kernels: skipped (NODECUDA_SKIP_KERNELS=1): no precompiled kernels in dist/kernel-images');
    return;
  }
  const t0 = Date.now();
  if (!fs.existsSync(path.join(DIST, 'cuda', 'prebuilt.js'))) throw new Error('dist/ is missing: run npm run build:ts first');
  if (!fs.existsSync(FAKE)) run('npx', ['cmake-js', 'compile', '-O', 'build-fake', '--CDNODECUDA_FAKECUDA=ON']);
  fs.mkdirSync(CACHE, { recursive: true, mode: 0o700 });
  run(process.execPath, [path.join(__dirname, 'kernel-catalog.js'), CATALOG],
    { NODECUDA_LIBCUDA: FAKE, NODECUDA_CACHE_DIR: CACHE, NODECUDA_DIST: DIST });
  const seen = new Set();
  const kernels = [];
  const { prebuiltKey, packArchive } = require(path.join(DIST, 'cuda', 'prebuilt.js'));
  for (const line of fs.readFileSync(CATALOG, 'utf8').split('\n').filter(Boolean)) {
    const k = JSON.parse(line);
    const key = prebuiltKey(k.source, k.options);
    if (!seen.has(key)) kernels.push({ ...k, key }), seen.add(key);
  }
  process.env.NODECUDA_CACHE_DIR = CACHE;
  const { compileAsync } = require(path.join(DIST, 'cuda', 'compiler.js'));
  const { native } = require(path.join(DIST, 'cuda', 'native.js'));
  const nvrtc = native.nvrtcVersion().slice(0, 2).join('.');
  fs.mkdirSync(OUT, { recursive: true });
  for (const f of fs.readdirSync(OUT)) if (/^(sm|compute)_\d+\.bin$/.test(f)) fs.rmSync(path.join(OUT, f));
  const workers = Math.max(1, os.cpus().length);
  let total = 0;
  for (const arch of ARCHS) {
    const ta = Date.now();
    const images = new Map();
    let next = 0;
    const worker = async () => {
      while (next < kernels.length) {
        const k = kernels[next++];
        const r = await compileAsync(k.source, { arch, noExternC: true, options: k.options });
        images.set(k.key, r.image);
      }
    };
    await Promise.all(Array.from({ length: workers }, worker));
    const file = packArchive(arch, nvrtc, images, process.env.NODECUDA_KERNEL_CODEC || 'br');
    fs.writeFileSync(path.join(OUT, `${arch}.bin`), file);
    const raw = [...images.values()].reduce((s, b) => s + b.byteLength, 0);
    total += file.length;
    console.log(`build-kernels: ${arch}: ${images.size} kernels, ${(raw / 2 ** 20).toFixed(2)} MiB → ` +
      `${(file.length / 2 ** 20).toFixed(2)} MiB, ${((Date.now() - ta) / 1000).toFixed(1)} s`);
  }
  console.log(`build-kernels: ${kernels.length} kernels × ${ARCHS.length} targets, ${(total / 2 ** 20).toFixed(2)} MiB in ` +
    `dist/kernel-images (NVRTC ${nvrtc}), ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

main().catch((e) => {
  console.error(`build-kernels: ${e.message}`);
  process.exit(1);
});
