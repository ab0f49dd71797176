'use strict';
// One fresh process: times the first use of each built-in family (and the context before them).
// Run by bench/coldstart.js with an empty, warm or prebuilt kernel cache; prints one JSON line
// { rows: [[label, ms], ...], total_ms }. Works against the CPU driver double too
// (NODECUDA_LIBCUDA=build-fake/Release/libfakecuda.so): NVRTC is real there, launches are not.
const t0 = process.hrtime.bigint();
const cuda = require(process.env.NODECUDA_DIST || '../../dist');
const { gpuarray, cumath, random, ElementwiseKernel } = cuda;
const ms = (a, b) => Number(b - a) / 1e6;
const sync = () => cuda.driver.Context.synchronize();
const rows = [];
// --trace: each step's native calls of 20 µs or more, and the rest (JavaScript) on stderr.
const trace = process.argv.includes('--trace')
  ? require('../native-trace')(require(`${process.env.NODECUDA_DIST || '../../dist'}/cuda/native`).native) : null;
function step(label, fn) {
  const a = process.hrtime.bigint();
  trace?.start();
  const r = fn();
  sync();
  const total = ms(a, process.hrtime.bigint());
  const rec = trace?.stop();
  rows.push([label, total]);
  if (rec) {
    const inNative = rec.reduce((s, [, x, y]) => s + ms(x, y), 0);
    const long = rec.filter(([, x, y]) => ms(x, y) >= 0.02).map(([k, x, y]) => `${k} ${ms(a, x).toFixed(2)}+${ms(x, y).toFixed(2)}`);
    process.stderr.write(`${label}: ${total.toFixed(2)} ms, ${rec.length} native calls ${inNative.toFixed(2)} ms: ${long.join(', ')}\n`);
  }
  return r;
}
const n = 1 << 20;
const a = step('first array (context)', () => gpuarray.zeros([n], 'float32'));
step('a.add(a)', () => a.add(a));
step('a.mul(2).add(1)', () => a.mul(2).add(1));
step('sum(a)', () => gpuarray.sum(a));
step('max(a)', () => gpuarray.max(a));
step('cumath.sin(a)', () => cumath.sin(a));
step('cumsum(a)', () => gpuarray.cumsum(a));
step('random.rand', () => random.rand([n]));
step('random.randn', () => random.randn([n]));
step('f64 a.add(a)', () => { const d = gpuarray.zeros([n], 'float64'); return d.add(d); });
step('i32 sum', () => gpuarray.sum(gpuarray.zeros([n], 'int32')));
// Whether a built-in family opened NVRTC (shipped kernels should spare it; Linux only).
let nvrtcBeforeUser = null;
try {
  nvrtcBeforeUser = require('node:fs').readFileSync('/proc/self/maps', 'utf8').includes('libnvrtc');
} catch {
  // not Linux
}
step('ElementwiseKernel', () => {
  const k = new ElementwiseKernel('float a, float *x, float *y, float *z', 'z[i] = a*x[i] + y[i]', 'axpy');
  const z = gpuarray.empty([n], 'float32');
  k(2, a, a, z);
  return z;
});
const total = ms(t0, process.hrtime.bigint());
process.stdout.write(JSON.stringify({ rows, total_ms: total, nvrtcBeforeUser }) + '\n');
