'use strict';
// Reductions: gpuarray.max / argmax / sum / dot (built in, NumPy's dtypes), and PyCUDA's
// ReductionKernel dot product (demo: pycuda.reduction), each compared with the CPU: max and
// argmax exactly, float sums within their rounding. Run with `node examples/reductions.js`.
const cuda = require('nodecuda');
const { gpuarray, random, ReductionKernel } = cuda;

if (!cuda.isAvailable()) {
  console.log('nodecuda: no CUDA driver or GPU found on this machine; nothing to run here.');
  process.exit(0);
}

function fail(message) {
  console.error(`MISMATCH: ${message}`);
  process.exit(1);
}
function close(label, got, want, relTol) {
  const rel = Math.abs(got - want) / Math.abs(want);
  console.log(`${label.padEnd(34)} ${String(got).padEnd(22)} CPU ${want}  (relative error ${rel.toExponential(2)})`);
  if (!(rel <= relTol)) fail(`${label}: relative error ${rel} > ${relTol}`);
}

random.seed(3);
const n = (1 << 22) + 3;
const a = random.rand(n); // float32 in [0, 1)
const b = random.rand(n);
const ha = a.get();
const hb = b.get();

// --- max and argmax: exact ------------------------------------------------------------------
let cpuMax = -Infinity;
let cpuArg = -1;
for (let i = 0; i < n; i++) if (ha[i] > cpuMax) { cpuMax = ha[i]; cpuArg = i; } // first index of the max
const gpuMax = gpuarray.max(a).item();
const gpuArg = a.argmax().item(); // int64: a bigint
console.log(`${'gpuarray.max(a)'.padEnd(34)} ${gpuMax}  CPU ${cpuMax}`);
console.log(`${'a.argmax()'.padEnd(34)} ${gpuArg}  CPU ${cpuArg}`);
if (gpuMax !== cpuMax) fail(`max: got ${gpuMax}, expected ${cpuMax}`);
if (gpuArg !== BigInt(cpuArg)) fail(`argmax: got ${gpuArg}, expected ${cpuArg}`);
console.log('max and argmax: OK');

// --- sums and dot products (CPU in float64) ------------------------------------------------
// Compensated (Neumaier) summation in float64: the reference is accurate to a few 2^-53.
function accurateSum(n, term) {
  let sum = 0;
  let c = 0;
  for (let i = 0; i < n; i++) {
    const t = term(i);
    const s = sum + t;
    c += Math.abs(sum) >= Math.abs(t) ? (sum - s) + t : (t - s) + sum;
    sum = s;
  }
  return sum + c;
}
const cpuSum = accurateSum(n, (i) => ha[i]);
const cpuDot = accurateSum(n, (i) => ha[i] * hb[i]); // products of two float32 are exact in float64
// float32 accumulation (per-thread runs, then a tree): relative errors far below 1e-4.
close('a.sum()            (float32)', a.sum().item(), cpuSum, 1e-4);
close('gpuarray.dot(a, b) (float32)', gpuarray.dot(a, b).item(), cpuDot, 1e-4);
const a64 = a.astype('float64');
const b64 = b.astype('float64');
close('gpuarray.dot(a, b) (float64)', gpuarray.dot(a64, b64).item(), cpuDot, 1e-12);
close("dot(a, b, { dtype: 'float64' })", gpuarray.dot(a, b, { dtype: 'float64' }).item(), cpuDot, 1e-12);

// PyCUDA's ReductionKernel dot product: map x[i]*y[i], reduce a+b.
const dot = new ReductionKernel('float32', {
  neutral: '0', reduceExpr: 'a + b', mapExpr: 'x[i] * y[i]', arguments: 'const float *x, const float *y',
});
close('ReductionKernel dot (float32)', dot(a, b).item(), cpuDot, 1e-4);
// The same reduction along an axis: one dot product per row of a [4, n/4] view.
const rows = 4;
const cols = Math.floor(n / rows);
const a2 = a.index(`:${rows * cols}`).reshape(rows, cols);
const b2 = b.index(`:${rows * cols}`).reshape(rows, cols);
const perRow = dot(a2, b2, { axis: 1 }).get();
for (let r = 0; r < rows; r++) {
  const want = accurateSum(cols, (j) => ha[r * cols + j] * hb[r * cols + j]);
  close(`ReductionKernel dot, row ${r}`, perRow[r], want, 1e-4);
}
console.log('sum and dot: OK');

for (const x of [a, b, a64, b64]) x.dispose();
console.log('All checks passed.');
