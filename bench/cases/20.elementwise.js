'use strict';
// GPUArray elementwise throughput and small-op latency (issue: GPUArray targets).
// Throughput rows count bytes read + written; the copy row is the ceiling the others are held to.

const cuda = require('../..');
const { gpuarray, ElementwiseKernel } = cuda;
const { elementwise } = require('../../dist/array/operators');

const N = 2 ** 28;
const SIDE = 16384;
const TINY = 16;
const TINY_ITERS = 10_000;

function fill(dtype, shape) {
  return gpuarray.arange(0, shape.reduce((a, b) => a * b, 1), 1, dtype).reshape(shape);
}

function dispose(ctx) {
  for (const v of Object.values(ctx)) if (v && typeof v.dispose === 'function') v.dispose();
}

function throughput(op, dtype, bytesPerElem) {
  const size = dtype === 'float64' ? 8 : dtype === 'float16' ? 2 : dtype === 'uint8' ? 1 : 4;
  return {
    op: `${op} ${dtype}`,
    size: '2^28',
    unit: 'GBs',
    bytes: N * size * bytesPerElem,
    target: 4300,
    peer: { kind: 'ew', op, dtype, n: N },
    setup: () => ({ x: fill(dtype, [N]), y: fill(dtype, [N]), z: gpuarray.empty([N], dtype) }),
    run: ({ x, y, z }) => {
      if (op === 'copy') gpuarray.apply('copy', [x], { out: z });
      else if (op === 'add') x.add(y, { out: z });
      else elementwise('axpy', 'r0 = x0 * x1 + x2;', [{ value: 2 }, { arr: x }, { arr: y }],
        [x.dtype, x.dtype, x.dtype], x.dtype, x.dtype, { out: z });
    },
    teardown: dispose,
  };
}

function tiny(op, run) {
  return {
    op: `tiny ${op}`,
    size: `${TINY} elements`,
    unit: 'us',
    iters: TINY_ITERS,
    target: op === 'a+b' ? 4 : op === 'a*2+1' ? 8 : 25,
    peer: { kind: 'tiny', op, n: TINY },
    setup: () => ({ a: fill('float32', [TINY]), b: fill('float32', [TINY]), host: new Float32Array(TINY).fill(1) }),
    run: (ctx) => {
      for (let i = 0; i < TINY_ITERS; i++) run(ctx);
    },
    teardown: dispose,
  };
}

module.exports = [
  throughput('copy', 'float32', 2),
  ...['float32', 'float16', 'uint8', 'float64'].map((d) => throughput('add', d, 3)),
  throughput('axpy', 'float32', 3),
  {
    // The PyCUDA spelling (issue 18: 0.80× torch's a*x+y by events on an H200): a user kernel,
    // one element per thread, no vector loads (the operation is opaque).
    ...throughput('axpy', 'float32', 3),
    op: 'ElementwiseKernel axpy float32',
    setup: () => {
      const k = new ElementwiseKernel('float a, float *x, float *y, float *z', 'z[i] = a*x[i]+y[i]', 'bench_axpy');
      return { k, x: fill('float32', [N]), y: fill('float32', [N]), z: gpuarray.empty([N], 'float32') };
    },
    run: ({ k, x, y, z }) => k(2, x, y, z),
  },
  {
    op: 'broadcast add float32',
    size: `${SIDE}^2 + ${SIDE}`,
    unit: 'GBs',
    bytes: 2 * SIDE * SIDE * 4 + SIDE * 4,
    target: 4000,
    peer: { kind: 'ew', op: 'bcast', dtype: 'float32', n: SIDE },
    setup: () => ({ x: fill('float32', [SIDE, SIDE]), y: fill('float32', [SIDE]), z: gpuarray.empty([SIDE, SIDE], 'float32') }),
    run: ({ x, y, z }) => x.add(y, { out: z }),
    teardown: dispose,
  },
  {
    op: 'transpose copy float32',
    size: `${SIDE}^2`,
    unit: 'GBs',
    bytes: 2 * SIDE * SIDE * 4,
    target: 2500,
    peer: { kind: 'ew', op: 'transpose', dtype: 'float32', n: SIDE },
    setup: () => ({ x: fill('float32', [SIDE, SIDE]), z: gpuarray.empty([SIDE, SIDE], 'float32') }),
    run: ({ x, z }) => gpuarray.apply('copy', [x.T], { out: z }),
    teardown: dispose,
  },
  tiny('a+b', ({ a, b }) => a.add(b)),
  tiny('a*2+1', ({ a }) => a.mul(2).add(1)),
  tiny('toGpu, x2, get', ({ host }) => gpuarray.toGpu(host).mul(2).get()),
];
