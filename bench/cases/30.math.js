'use strict';
// cumath throughput (issue 5 targets): rows count bytes read + written. sin f32 is held to a fixed
// 4200 GB/s; exp/log f64 to 95 % of a float64 copy measured in the row's setup (untimed), so the
// target follows the machine's memory bandwidth.

const cuda = require('../..');
const { gpuarray, cumath } = cuda;

const N = 2 ** 28;
const SPAN = 100; // inputs in (0, SPAN]: ordinary arguments (sin's fast range reduction, finite exp)

function inputs(dtype) {
  // i * (SPAN / N) + SPAN / N: no zeros (log), computed on the device.
  const x = gpuarray.arange(0, N, 1, dtype);
  x.mul(SPAN / N, { out: x }).add(SPAN / N, { out: x });
  return x;
}

function dispose(ctx) {
  for (const v of Object.values(ctx)) if (v && typeof v.dispose === 'function') v.dispose();
}

function copyGBs(x, z) {
  const sync = () => cuda.driver.Context.synchronize();
  const times = [];
  for (let i = 0; i < 7; i++) {
    const t0 = process.hrtime.bigint();
    gpuarray.apply('copy', [x], { out: z });
    sync();
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  times.sort((a, b) => a - b);
  return (2 * x.nbytes) / times[3] / 1e9;
}

function mathCase(fn, dtype, fixedTarget) {
  const size = dtype === 'float64' ? 8 : 4;
  return {
    op: `${fn} ${dtype}`,
    size: '2^28',
    unit: 'GBs',
    bytes: 2 * N * size,
    target: fixedTarget,
    peer: { kind: 'math', op: fn, dtype, n: N, span: SPAN },
    // run.js calls setup as a method of its copy of this case: `this` is the row it reports.
    setup() {
      const ctx = { x: inputs(dtype), z: gpuarray.empty([N], dtype) };
      // 95 % of copy, measured here (rounded down to 10 GB/s).
      if (fixedTarget === undefined) this.target = Math.floor((0.95 * copyGBs(ctx.x, ctx.z)) / 10) * 10;
      return ctx;
    },
    run: ({ x, z }) => cumath[fn](x, { out: z }),
    teardown: dispose,
  };
}

module.exports = [
  mathCase('sin', 'float32', 4200),
  mathCase('exp', 'float64'),
  mathCase('log', 'float64'),
];
