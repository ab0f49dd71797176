'use strict';
// PyCUDA's tutorial, step by step: a 4x4 float32 array is copied to the GPU with memAlloc +
// memcpyHtod, doubled in place by a SourceModule kernel launched on one 4x4 block, and copied
// back with memcpyDtoh. The result is checked against the CPU (doubling is exact: max error 0).
// Run with `node examples/double-array.js`. Next: double-array-inout.js (the same with
// In/Out/InOut) and double-array-gpuarray.js (with GPUArray).
const cuda = require('nodecuda');
const { driver, SourceModule } = cuda;

if (!cuda.isAvailable()) {
  console.log('nodecuda: no CUDA driver or GPU found on this machine; nothing to run here.');
  process.exit(0);
}

// A small seeded generator, so every run doubles the same numbers (numpy.random.randn in PyCUDA).
function normals(n, seed) {
  let s = seed >>> 0;
  const uniform = () => {
    s = (s + 0x6d2b79f5) >>> 0; // mulberry32
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 2 ** 32; // (0, 1)
  };
  return Float32Array.from({ length: n }, () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform()));
}

const show = (label, m) => {
  console.log(`${label}:`);
  for (let r = 0; r < 4; r++) console.log(`  [${Array.from(m.subarray(4 * r, 4 * r + 4), (x) => x.toFixed(5).padStart(9)).join(' ')}]`);
};

// a = numpy.random.randn(4, 4).astype(numpy.float32)
const a = normals(16, 2024);
show('a', a);

// a_gpu = cuda.mem_alloc(a.nbytes); cuda.memcpy_htod(a_gpu, a)
const aGpu = driver.memAlloc(a.byteLength);
driver.memcpyHtod(aGpu, a);

const mod = new SourceModule(`
__global__ void doublify(float *a)
{
  int idx = threadIdx.x + threadIdx.y * 4;
  a[idx] *= 2;
}
`);
const doublify = mod.getFunction('doublify');
doublify(aGpu, { block: [4, 4, 1] }); // grid defaults to [1]

// a_doubled = numpy.empty_like(a); cuda.memcpy_dtoh(a_doubled, a_gpu)
const aDoubled = new Float32Array(16);
driver.memcpyDtoh(aDoubled, aGpu);
aGpu.free();
show('a doubled on the GPU', aDoubled);

let maxError = 0;
for (let i = 0; i < 16; i++) maxError = Math.max(maxError, Math.abs(aDoubled[i] - 2 * a[i]));
console.log(`max error ${maxError}`);
if (maxError !== 0) {
  console.error('MISMATCH: the GPU result differs from 2 * a');
  process.exit(1);
}
console.log('doublify with memAlloc/memcpyHtod/memcpyDtoh: OK');
console.log('All checks passed.');
