'use strict';
// PyCUDA's tutorial with GPUArray: no kernel to write. gpuarray.toGpu copies a 4x4 float32 array
// to the GPU, a.mul(2) runs an elementwise kernel (float32 stays float32: a JS number is a weak
// scalar, as in NumPy 2), and get() copies the result back. Also in place: a.mul(2, { out: a }).
// Both are checked against the CPU (doubling is exact: max error 0).
// Run with `node examples/double-array-gpuarray.js`.
const { inspect } = require('node:util');
const cuda = require('nodecuda');
const { gpuarray } = cuda;

if (!cuda.isAvailable()) {
  console.log('nodecuda: no CUDA driver or GPU found on this machine; nothing to run here.');
  process.exit(0);
}

const host = Float32Array.from({ length: 16 }, (_, i) => Math.sin(i) * 10);
const want = host.map((x) => 2 * x);

function check(label, got) {
  let maxError = 0;
  for (let i = 0; i < want.length; i++) maxError = Math.max(maxError, Math.abs(got[i] - want[i]));
  console.log(`  max error ${maxError}`);
  if (maxError !== 0 || got.length !== want.length || !(got instanceof Float32Array)) {
    console.error(`MISMATCH in ${label}`);
    process.exit(1);
  }
  console.log(`${label}: OK`);
}

// a_gpu = gpuarray.to_gpu(numpy.random.randn(4, 4).astype(numpy.float32))
const a = gpuarray.toGpu(host, { shape: [4, 4] });
console.log('a =', inspect(a));

// a_doubled = (2 * a_gpu).get()
const doubled = a.mul(2);
console.log('a.mul(2) =', inspect(doubled));
console.log(`dtype ${doubled.dtype.name}, shape [${doubled.shape}]`);
check('a.mul(2).get()', doubled.get());

// In place: the result is written into a itself.
a.mul(2, { out: a });
check('a.mul(2, { out: a })', a.get());

doubled.dispose();
a.dispose();
console.log('All checks passed.');
