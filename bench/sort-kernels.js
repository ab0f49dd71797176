#!/usr/bin/env node
'use strict';
// The radix sort and unique, kernel by kernel (docs/sorting.md's "Measured" tables):
//   node bench/sort-kernels.js                       one process, the default tuning
//   SWEEP=NODECUDA_SORT_PREP_COPIES VALS=4,1,16 node bench/sort-kernels.js
//                                                    one child process per value of a tuning variable
//   OTHER=1 node bench/sort-kernels.js               also uint8, float16 and float64 keys
//   NODECUDA_DIST=path/to/dist node bench/sort-kernels.js   another build (its kernels JIT-compile
//                                                    unless its dist/kernel-images came along)
// Each process prints, on one line: wall time (median of 7, each call followed by a context
// synchronize) of sort and argsort of 2^28 uniform float32, unique and sort of 2^26 int32 in
// [0, 1000) and in [0, 2^30) (float64 draws, as bench/cases/80.sort.js; UW32=1: float32 draws, whose
// low byte is mostly a multiple of 64), then CUDA event times of every kernel of one call of each
// ("grid:ms", in launch order), then a check against CPU references ('checks ok').
const { spawnSync } = require('node:child_process');
const { bracketLaunches, median, timeCalls } = require('./timing');

if (process.env.SWEEP && process.argv[2] !== 'child') {
  const name = process.env.SWEEP;
  for (const v of (process.env.VALS || '').split(',').filter(Boolean)) {
    const r = spawnSync(process.execPath, [__filename, 'child'], { env: { ...process.env, [name]: v }, encoding: 'utf8' });
    process.stdout.write(`${name}=${v}: ${r.stdout}${r.status === 0 ? '' : r.stderr.split('\n').slice(-4).join('\n')}\n`);
  }
  process.exit(0);
}

// NODECUDA_DIST: another build's dist directory, for an A/B against an earlier commit in one device
// call: build it in a worktree (build:ts, build:kernels) and copy its dist/ to a path git does not
// ignore (the device gets untracked files, not ignored ones: not */dist/ or */build/), e.g.
// bench-base/lib, and run with NODECUDA_DIST=bench-base/lib NODECUDA_BINARY=build/Release/nodecuda.node.
const DIST = process.env.NODECUDA_DIST ? require('node:path').resolve(process.env.NODECUDA_DIST) : '../dist';
const cuda = require(DIST);
const { native } = require(`${DIST}/cuda/native`);
const { gpuarray, random } = cuda;
const sync = () => cuda.driver.Context.synchronize();

random.seed(80);
const x = random.rand([2 ** 28], 'float32');
const small = random.rand([2 ** 26], 'float32').mul(1000).astype('int32');
const wide = random.rand([2 ** 26], process.env.UW32 ? 'float32' : 'float64').mul(2 ** 30).astype('int32');
const k20 = random.rand([2 ** 20], 'float32');

const CASES = [
  ['sort 2^28 f32', () => gpuarray.sort(x)],
  ['argsort 2^28 f32', () => gpuarray.argsort(x)],
  ['unique i32 [0, 1000)', () => gpuarray.unique(small)],
  ['unique i32 [0, 2^30)', () => gpuarray.unique(wide)],
  ['sort i32 [0, 1000)', () => gpuarray.sort(small)],
  ['sort i32 [0, 2^30)', () => gpuarray.sort(wide)],
];
// OTHER=1: also 1-, 2- and 8-byte keys, which keep 256-thread scatter tiles unless
// NODECUDA_SORT_BLOCK=512 (docs/sorting.md: the 512-thread tiles were measured on 4-byte keys only).
const other = process.env.OTHER ? {
  u8: random.rand([2 ** 28], 'float32').mul(256).astype('uint8'),
  f16: random.rand([2 ** 28], 'float32').astype('float16'),
  f64: random.rand([2 ** 27], 'float64'),
} : null;
if (other) {
  CASES.push(['sort 2^28 u8', () => gpuarray.sort(other.u8)], ['sort 2^28 f16', () => gpuarray.sort(other.f16)],
    ['argsort 2^28 f16', () => gpuarray.argsort(other.f16)], ['sort 2^27 f64', () => gpuarray.sort(other.f64)],
    ['argsort 2^27 f64', () => gpuarray.argsort(other.f64)]);
}

const wall = (fn) => median(timeCalls(fn, { reps: 7, sync, dispose: (r) => r.dispose() })).toFixed(2);

const out = CASES.map(([label, fn]) => `${label} ${wall(fn)} ms`);

// Per-kernel event times: every launch of one call bracketed by two events.
const events = [];
const restore = bracketLaunches(native, (cfg, a, b) => events.push([cfg[0], a, b]));
for (const [label, fn] of CASES) {
  events.length = 0;
  fn().dispose();
  sync();
  out.push(`${label} kernels (grid:ms) ${events.map(([g, a, b]) => `${g}:${native.eventElapsed(a, b).toFixed(3)}`).join(' ')}`);
}
restore();

// Checks of this variant against CPU references.
let bad = 0;
{
  const h = k20.get();
  const ref = Float32Array.from(h).sort();
  const got = gpuarray.sort(k20).get();
  const idx = gpuarray.argsort(k20).get();
  for (let i = 0; i < ref.length; i++) {
    const stable = i === 0 || h[Number(idx[i])] !== h[Number(idx[i - 1])] || idx[i] > idx[i - 1];
    if (got[i] !== ref[i] || h[Number(idx[i])] !== ref[i] || !stable) bad++;
  }
  const hw = wide.get().slice(0, 1 << 22);
  const sw = Int32Array.from(hw).sort();
  const uref = sw.filter((v, i) => i === 0 || v !== sw[i - 1]);
  const ug = gpuarray.unique(gpuarray.toGpu(hw)).get();
  if (ug.length !== uref.length || ug.some((v, i) => v !== uref[i])) bad++;
  // The GPU sort of host values `h` against the CPU's (a copy of the typed array, sorted).
  const sortsLikeCpu = (h) => {
    const want = h.slice().sort();
    return gpuarray.sort(gpuarray.toGpu(h)).get().every((v, i) => v === want[i]);
  };
  if (!sortsLikeCpu(small.get())) bad++;
  if (other && !sortsLikeCpu(other.f64.get().slice(0, 1 << 20))) bad++;
  if (other && !sortsLikeCpu(other.u8.get().slice(0, 1 << 20))) bad++;
  const big = gpuarray.sort(x).get();
  for (let i = 1; i < big.length; i++) if (!(big[i - 1] <= big[i])) { bad++; break; }
}
out.push(bad ? `CHECK FAILED (${bad})` : 'checks ok');
console.log(out.join(' | '));
