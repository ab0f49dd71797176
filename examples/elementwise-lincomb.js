'use strict';
// ElementwiseKernel (pycuda.elementwise): PyCUDA's linear combination z = a*x + b*y, and its
// demo's variant with a preamble (a __device__ helper), on float32 inputs drawn by
// random.rand (pycuda.curandom.rand). Results are compared with the CPU within float32 rounding.
// Run with `node examples/elementwise-lincomb.js`.
const cuda = require('nodecuda');
const { ElementwiseKernel, gpuarray, random, slice } = cuda;

if (!cuda.isAvailable()) {
  console.log('nodecuda: no CUDA driver or GPU found on this machine; nothing to run here.');
  process.exit(0);
}

function fail(message) {
  console.error(`MISMATCH: ${message}`);
  process.exit(1);
}

random.seed(42);
const n = 1_000_003; // not a multiple of any block size
const x = random.rand(n); // float32 in [0, 1)
const y = random.rand(n);
const z = gpuarray.emptyLike(x);
const xs = x.get();
const ys = y.get();

// 1. The linear combination. Arguments are C declarations; `i` is the element index.
const linComb = new ElementwiseKernel(
  'float a, float *x, float b, float *y, float *z',
  'z[i] = a*x[i] + b*y[i]',
  'linear_combination');
linComb(5, x, 6, y, z);
let got = z.get();
// float32 rounding (and a possible fused multiply-add): a few units of 2^-24 of |a x| + |b y| <= 11.
let maxError = 0;
for (let i = 0; i < n; i++) maxError = Math.max(maxError, Math.abs(got[i] - (5 * xs[i] + 6 * ys[i])));
console.log(`z = 5x + 6y: z[0..3] = ${Array.from(got.subarray(0, 3), (v) => v.toFixed(6)).join(', ')}; max error ${maxError.toExponential(2)}`);
if (!(maxError <= 1e-5)) fail(`z = 5x + 6y: max error ${maxError} > 1e-5`);
console.log('linear_combination: OK');

// The same kernel on every third element only (PyCUDA's slice=...); the others keep their value.
z.fill(-1);
linComb(5, x, 6, y, z, { slice: slice(0, null, 3) });
got = z.get();
for (let i = 0; i < n; i++) {
  const want = i % 3 === 0 ? 5 * xs[i] + 6 * ys[i] : -1;
  if (!(Math.abs(got[i] - want) <= 1e-5)) fail(`slice(0, null, 3) at ${i}: got ${got[i]}, expected ${want}`);
}
console.log('linear_combination on slice(0, null, 3): OK');

// 2. PyCUDA's demo_elementwise: a helper function in the preamble.
const linCombSin = new ElementwiseKernel(
  'float a, float *x, float b, float *y, float *z',
  'z[i] = my_f(a*x[i], b*y[i])',
  'linear_combination_sin',
  { preamble: '__device__ float my_f(float x, float y) { return sinf(x * y); }' });
linCombSin(5, x, 6, y, z);
got = z.get();
maxError = 0;
for (let i = 0; i < n; i++) {
  const arg = Math.fround(Math.fround(5 * xs[i]) * Math.fround(6 * ys[i])); // as the GPU rounds it
  maxError = Math.max(maxError, Math.abs(got[i] - Math.sin(arg)));
}
console.log(`z = sin(5x * 6y): max error ${maxError.toExponential(2)}`);
if (!(maxError <= 1e-6)) fail(`z = sin(5x * 6y): max error ${maxError} > 1e-6`); // sinf: 2 ulp
console.log('linear_combination_sin: OK');

for (const a of [x, y, z]) a.dispose();
console.log('All checks passed.');
