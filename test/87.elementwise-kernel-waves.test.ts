/**
 * ElementwiseKernel's capped grid (NODECUDA_EK_WAVES, a launch-shape sweep knob): with the grid
 * capped at one wave of resident blocks each thread loops over many elements; results must match
 * the CPU for odd sizes, the range form and n smaller than one block.
 */
import { spawnSync } from 'child_process';
import { DIST, describeGpu } from './helpers';

const SCRIPT = `
const cuda = require(process.env.NODECUDA_DIST);
const { gpuarray, ElementwiseKernel } = cuda;
const k = new ElementwiseKernel('float a, float *x, float *y, float *z', 'z[i] = a*x[i]+y[i]', 'waves_axpy');
const out = {};
for (const n of [1, 255, 1000003, 3 << 20]) {
  const xs = Float32Array.from({ length: n }, (_, i) => (i % 1000) - 500);
  const ys = Float32Array.from({ length: n }, (_, i) => i % 7);
  const z = gpuarray.zeros([n], 'float32');
  k(3, gpuarray.toGpu(xs), gpuarray.toGpu(ys), z);
  const zs = z.get();
  let bad = 0;
  for (let i = 0; i < n; i++) if (zs[i] !== Math.fround(3 * xs[i] + ys[i])) bad++;
  const r = gpuarray.zeros([n], 'float32');
  k(3, gpuarray.toGpu(xs), gpuarray.toGpu(ys), r, { range: [0, n, 2] });
  const rs = r.get();
  for (let i = 0; i < n; i++) if (rs[i] !== (i % 2 ? 0 : Math.fround(3 * xs[i] + ys[i]))) bad++;
  out[n] = bad;
}
console.log(JSON.stringify(out));
`;

describeGpu('ElementwiseKernel with a capped grid', () => {
  test.each(['0', '1', '8'])('NODECUDA_EK_WAVES=%s: every element once', (w) => {
    const r = spawnSync(process.execPath, ['-e', SCRIPT], {
      encoding: 'utf8', timeout: 120000, env: { ...process.env, NODECUDA_DIST: DIST, NODECUDA_EK_WAVES: w },
    });
    expect(r.status).toBe(0);
    const line = r.stdout.trim().split('\n').pop() ?? '{}';
    expect(JSON.parse(line)).toEqual({ 1: 0, 255: 0, 1000003: 0, [3 << 20]: 0 });
  });
});
