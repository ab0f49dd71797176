'use strict';
// PyCUDA's tutorial with the argument handlers instead of explicit copies:
//   1. driver.InOut(a): `a` is copied to the GPU before the launch and back into `a` after it;
//   2. driver.In(a) + driver.Out(b): `a` is only read on the GPU, `b` is only written.
// Device memory for each wrapped array is allocated for the launch and freed after it, and the
// call returns once the results are in the host arrays. Both results are checked against the CPU.
// Run with `node examples/double-array-inout.js`.
const cuda = require('nodecuda');
const { driver, SourceModule } = cuda;

if (!cuda.isAvailable()) {
  console.log('nodecuda: no CUDA driver or GPU found on this machine; nothing to run here.');
  process.exit(0);
}

const mod = new SourceModule(`
__global__ void doublify(float *a)
{
  int idx = threadIdx.x + threadIdx.y * 4;
  a[idx] *= 2;
}

__global__ void double_into(float *dst, const float *src)
{
  int idx = threadIdx.x + threadIdx.y * 4;
  dst[idx] = 2 * src[idx];
}
`);
const doublify = mod.getFunction('doublify');
const doubleInto = mod.getFunction('double_into');

const a = Float32Array.from({ length: 16 }, (_, i) => (i - 7.5) / 3); // a 4x4 matrix, row-major
const original = a.slice();
const want = a.map((x) => 2 * x);
const fmt = (m) => `[${Array.from(m, (x) => +x.toFixed(4)).join(', ')}]`;

function check(label, got) {
  let maxError = 0;
  for (let i = 0; i < want.length; i++) maxError = Math.max(maxError, Math.abs(got[i] - want[i]));
  console.log(`  max error ${maxError}`);
  if (maxError !== 0 || got.length !== want.length) {
    console.error(`MISMATCH in ${label}: got ${fmt(got)}, expected ${fmt(want)}`);
    process.exit(1);
  }
  console.log(`${label}: OK`);
}

console.log(`a                 = ${fmt(a)}`);

// 1. InOut: cuda.InOut(a) in PyCUDA.
const b = a.slice();
doublify(driver.InOut(b), { block: [4, 4, 1] });
console.log(`after InOut(b)   b = ${fmt(b)}`);
check('doublify with driver.InOut', b);

// 2. In + Out: the source stays untouched, the destination needs no initial copy.
const c = new Float32Array(16).fill(NaN); // whatever is in it is overwritten
doubleInto(driver.Out(c), driver.In(a), { block: [4, 4, 1] });
console.log(`In(a) -> Out(c)  c = ${fmt(c)}`);
check('double_into with driver.In/driver.Out', c);
if (a.some((x, i) => x !== original[i])) {
  console.error('MISMATCH: driver.In(a) changed a');
  process.exit(1);
}
console.log('In(a) left a unchanged: OK');
console.log('All checks passed.');
