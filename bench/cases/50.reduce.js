'use strict';
// Reductions and scans (issue: ReductionKernel/scans targets). Reductions count bytes read;
// scans count bytes read + written.

const cuda = require('../..');
const { gpuarray, ReductionKernel } = cuda;

const N = 2 ** 28;
const SIDE = 16384;
const SMALL = 1024;
const SMALL_ITERS = 10_000;

const dispose = (ctx) => { for (const v of Object.values(ctx)) if (v && typeof v.dispose === 'function') v.dispose(); };
const data = (n, dtype) => gpuarray.arange(0, n, 1, 'float32').mul(1 / n).astype(dtype);
// The same data with every 16th element NaN (peers.py: x[::16] = nan).
const withNaN = (n) => {
  const x = data(n, 'float32');
  x.index('::16').fill(NaN);
  return x;
};

function reduce(op, label, bytes, target, setup, run) {
  return {
    op: label, size: op.startsWith('axis') ? `${SIDE}^2` : '2^28', unit: 'GBs', bytes, target,
    peer: { kind: 'reduce', op, n: N, side: SIDE }, setup, run: (ctx) => run(ctx).dispose(), teardown: dispose,
  };
}

let sumsq;
module.exports = [
  reduce('sum', 'sum f32', N * 4, 4400, () => ({ x: data(N, 'float32') }), ({ x }) => x.sum()),
  reduce('max', 'max f32', N * 4, 4400, () => ({ x: data(N, 'float32') }), ({ x }) => x.max()),
  reduce('nansum', 'nansum f32 (1/16 NaN)', N * 4, 4400, () => ({ x: withNaN(N) }), ({ x }) => gpuarray.nansum(x)),
  reduce('nanmean', 'nanmean f32 (1/16 NaN)', N * 4, 4400, () => ({ x: withNaN(N) }), ({ x }) => gpuarray.nanmean(x)),
  reduce('axis0', 'sum axis 0 f32', N * 4, 4200, () => ({ x: data(N, 'float32').reshape(SIDE, SIDE) }), ({ x }) => x.sum({ axis: 0 })),
  reduce('axis1', 'sum axis 1 f32', N * 4, 4200, () => ({ x: data(N, 'float32').reshape(SIDE, SIDE) }), ({ x }) => x.sum({ axis: 1 })),
  reduce('sumsq', 'ReductionKernel sum of squares f32', N * 4, 4000, () => {
    sumsq = sumsq ?? new ReductionKernel('float32', { neutral: 0, reduceExpr: 'a + b', mapExpr: 'x[i] * x[i]', arguments: 'const float *x' });
    return { x: data(N, 'float32') };
  }, ({ x }) => sumsq(x)),
  reduce('dot', 'dot f32', N * 8, 4300, () => ({ x: data(N, 'float32'), y: data(N, 'float32') }), ({ x, y }) => x.dot(y)),
  ...['float32', 'int32'].map((dtype) => ({
    op: `cumsum ${dtype}`, size: '2^28', unit: 'GBs', bytes: N * 8, target: 2600,
    peer: { kind: 'scan', dtype, n: N },
    setup: () => ({ x: data(N, dtype), z: gpuarray.empty([N], dtype) }),
    run: ({ x, z }) => gpuarray.cumsum(x, { out: z, dtype }),
    teardown: dispose,
  })),
  {
    op: 'sum (small)', size: `${SMALL} elements`, unit: 'us', iters: SMALL_ITERS, target: 8,
    peer: { kind: 'reduce', op: 'small', n: SMALL, iters: SMALL_ITERS },
    setup: () => ({ x: data(SMALL, 'float32') }),
    run: ({ x }) => { for (let i = 0; i < SMALL_ITERS; i++) x.sum(); },
    teardown: dispose,
  },
];
