'use strict';
// OpenGL interop: map+unmap round trip of a registered GL buffer, and a kernel's write bandwidth
// into a mapped GL buffer against the same kernel on plain device memory (goal: ≥ 95 % of it).
// Needs a headless EGL context on the GPU (docs/gl.md); the cases report an error without one.
// Case format: see the header of bench/run.js.

const { gl, driver, SourceModule } = require('../..');

const MiB = 1 << 20;
const BYTES = 256 * MiB;
const ROUND_TRIPS = 1000;
const N = BYTES / 16;
const SRC = `__global__ void fill4(float4 *a, unsigned n, float v) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    a[i] = make_float4(v, v + 1.0f, v + 2.0f, v + 3.0f);
}`;

let shared = null;
// One context, buffer and registration for all cases (made on first use).
function glSetup() {
  if (!shared) {
    const ctx = gl.createHeadlessContext();
    const buf = ctx.createBuffer(BYTES);
    const reg = new gl.RegisteredBuffer(buf, gl.graphicsRegisterFlags.WRITE_DISCARD);
    const fill = new SourceModule(SRC).getFunction('fill4');
    const sms = new driver.Device(0).getAttribute('multiprocessorCount');
    shared = { ctx, buf, reg, fill, grid: [sms * 8] };
  }
  return shared;
}

module.exports = [
  {
    op: 'GL buffer map+unmap',
    size: '256 MiB buffer',
    unit: 'us',
    iters: ROUND_TRIPS,
    setup: glSetup,
    run: ({ reg }) => {
      for (let i = 0; i < ROUND_TRIPS; i++) reg.map().unmap();
    },
  },
  {
    op: 'kernel write into mapped GL buffer',
    size: '256 MiB',
    unit: 'GBs',
    bytes: BYTES,
    setup: () => {
      const s = glSetup();
      return { ...s, m: s.reg.map() };
    },
    run: ({ m, fill, grid }) => fill(m.devicePtrAndSize()[0], N, 1.5, { block: [256], grid }),
    teardown: ({ m }) => m.unmap(),
  },
  {
    op: 'same kernel into device memory',
    size: '256 MiB',
    unit: 'GBs',
    bytes: BYTES,
    setup: () => ({ ...glSetup(), dev: driver.memAlloc(BYTES) }),
    run: ({ dev, fill, grid }) => fill(dev, N, 1.5, { block: [256], grid }),
    teardown: ({ dev }) => dev.free(),
  },
];
