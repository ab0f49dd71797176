#!/usr/bin/env node
'use strict';
// Host time of one gpuarray.matmul call, back to back (tiny float32 products: the GPU work is
// negligible, so this is nodecuda's JS planning + the N-API call + cuBLAS's own launch path).
// Best and median of 5 rounds of N calls each, in µs per call.
//   node bench/matmul-host.js [--n=100000]            on a GPU: the whole call
//   node bench/matmul-host.js --js-only               cublasGemm replaced by a no-op: JS alone
// Without a GPU: NODECUDA_LIBCUDA=build-fake/Release/libfakecuda.so (the CPU driver double:
// npx cmake-js compile -O build-fake --CDNODECUDA_FAKECUDA=ON) and --js-only; or, for the native
// side too, NODECUDA_CUBLAS pointing at a stand-in libcublas whose entry points return 0.
const { native } = require('../dist/cuda/native');
const { gpuarray } = require('..');

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const N = Number(args.n ?? 100000);
if ('js-only' in args) native.cublasGemm = () => {};

function bench(label, call) {
  for (let i = 0; i < Math.min(N, 20000); i++) call();
  const us = [];
  for (let r = 0; r < 5; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < N; i++) call();
    us.push(Number(process.hrtime.bigint() - t0) / N / 1e3);
  }
  us.sort((a, b) => a - b);
  console.log(`${label.padEnd(40)} best ${us[0].toFixed(2)} µs  median ${us[2].toFixed(2)} µs`);
}

const zeros = (shape) => gpuarray.zeros(shape, 'float32');
const [a2, b2, c2] = [zeros([16, 16]), zeros([16, 16]), zeros([16, 16])];
const [a3, b3, c3] = [zeros([64, 16, 16]), zeros([64, 16, 16]), zeros([64, 16, 16])];
const bT = b2.T;
bench('2-D 16x16, out', () => gpuarray.matmul(a2, b2, { out: c2 }));
bench('batched 64x16x16, out', () => gpuarray.matmul(a3, b3, { out: c3 }));
bench('2-D 16x16 (b transposed view), out', () => gpuarray.matmul(a2, bT, { out: c2 }));
bench('2-D 16x16, new result (disposed)', () => gpuarray.matmul(a2, b2).dispose());
bench('batched 64x16x16, new result (disposed)', () => gpuarray.matmul(a3, b3).dispose());
