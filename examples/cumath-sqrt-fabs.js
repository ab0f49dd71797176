'use strict';
// cumath (pycuda.cumath): sqrt(fabs(x)) on a GPUArray of normal random numbers, with special
// values (-0, ±Infinity, NaN) appended. fabs and sqrt are exact in float32 (correctly rounded),
// so the GPU must match Math.fround(Math.sqrt(Math.abs(x))) bit for bit: max error 0. Then the
// same in place with { out }. Run with `node examples/cumath-sqrt-fabs.js`.
const cuda = require('nodecuda');
const { gpuarray, cumath, random } = cuda;

if (!cuda.isAvailable()) {
  console.log('nodecuda: no CUDA driver or GPU found on this machine; nothing to run here.');
  process.exit(0);
}

random.seed(7);
const n = 1 << 20;
const normal = random.randn(n); // float32, standard normal
const specials = gpuarray.toGpu(new Float32Array([0, -0, 1, -1, 4, -4, 1e-45, -3.4e38, Infinity, -Infinity, NaN]));
const x = gpuarray.concatenate([normal, specials]); // float32, n + 11 elements
const host = x.get();

// PyCUDA: cumath.sqrt(cumath.fabs(x))
const y = cumath.sqrt(cumath.fabs(x));
console.log(`x: ${x.size} ${x.dtype.name} values; y = sqrt(fabs(x)): ${y.dtype.name}`);

function check(label, got) {
  let maxError = 0;
  let bad = -1;
  for (let i = 0; i < host.length; i++) {
    const want = Math.fround(Math.sqrt(Math.abs(host[i])));
    if (Object.is(got[i], want)) continue; // also NaN === NaN and 0 vs -0
    const err = Math.abs(got[i] - want);
    maxError = Number.isNaN(err) ? Infinity : Math.max(maxError, err);
    if (bad < 0) bad = i;
  }
  console.log(`  max error ${maxError}`);
  if (bad >= 0) {
    const want = Math.fround(Math.sqrt(Math.abs(host[bad])));
    console.error(`MISMATCH in ${label} at ${bad}: x = ${host[bad]}, got ${got[bad]}, expected ${want}`);
    process.exit(1);
  }
  console.log(`${label}: OK`);
}

const got = y.get();
console.log('x tail :', Array.from(host.subarray(host.length - 11)).join(', '));
console.log('y tail :', Array.from(got.subarray(got.length - 11)).join(', '));
check('cumath.sqrt(cumath.fabs(x))', got);

// In place: no temporaries.
cumath.fabs(x, { out: x });
cumath.sqrt(x, { out: x });
check('fabs then sqrt with { out: x }', x.get());

for (const a of [normal, specials, x, y]) a.dispose();
console.log('All checks passed.');
