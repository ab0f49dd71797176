'use strict';
// One bench row's operation for bench/ncu/rows.sh: setup, two warm-up calls, a marker kernel
// (nc_marker), then the profiled call. OP=<name>; see OPS below (the same sizes as bench/cases).
const cuda = require('../..');
const { gpuarray, cumath, random, ElementwiseKernel, SourceModule } = cuda;
const N = 2 ** 28;
const SIDE = 16384;
const ramp = (n, dtype) => gpuarray.arange(0, n, 1, 'float32').mul(1 / n).add(1 / n).astype(dtype);
const axpy = new ElementwiseKernel('float a, float *x, float *y, float *z', 'z[i] = a*x[i] + y[i]', 'axpy');
const OPS = {
  'copy f32': () => { const x = ramp(N, 'float32'), z = gpuarray.empty([N], 'float32'); return () => gpuarray.apply('copy', [x], { out: z }); },
  'add f32': () => { const x = ramp(N, 'float32'), z = gpuarray.empty([N], 'float32'); return () => x.add(x, { out: z }); },
  'add u8': () => { const x = ramp(N, 'uint8'), z = gpuarray.empty([N], 'uint8'); return () => x.add(x, { out: z }); },
  'add f16': () => { const x = ramp(N, 'float16'), z = gpuarray.empty([N], 'float16'); return () => x.add(x, { out: z }); },
  'add f64': () => { const x = ramp(N, 'float64'), z = gpuarray.empty([N], 'float64'); return () => x.add(x, { out: z }); },
  // x and y distinct: the same array twice (non-const pointers that overlap) takes the plain loop.
  'axpy f32': () => { const x = ramp(N, 'float32'), y = ramp(N, 'float32'), z = gpuarray.empty([N], 'float32'); return () => axpy(2, x, y, z); },
  'log f64': () => { const x = ramp(N, 'float64'), z = gpuarray.empty([N], 'float64'); return () => cumath.log(x, { out: z }); },
  'sin f32': () => { const x = ramp(N, 'float32'), z = gpuarray.empty([N], 'float32'); return () => cumath.sin(x, { out: z }); },
  'normal f32': () => { const g = new random.Generator({ seed: 1 }), z = gpuarray.empty([N], 'float32'); return () => g.fillNormal(z); },
  'sum f32': () => { const x = ramp(N, 'float32'); return () => gpuarray.sum(x); },
  'sum axis0 f32': () => { const x = ramp(N, 'float32').reshape([SIDE, SIDE]); return () => x.sum({ axis: 0 }); },
  'sum axis1 f32': () => { const x = ramp(N, 'float32').reshape([SIDE, SIDE]); return () => x.sum({ axis: 1 }); },
};
if (require.main === module) {
  const op = OPS[process.env.OP];
  if (!op) throw new Error(`OP must be one of: ${Object.keys(OPS).join(', ')}`);
  const run = op();
  run(); run();
  cuda.driver.Context.synchronize();
  new SourceModule('__global__ void nc_marker() {}').getFunction('nc_marker')({ block: [1], grid: [1] });
  run();
  cuda.driver.Context.synchronize();
}
module.exports = { OPS };
