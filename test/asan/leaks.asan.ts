/**
 * A launch that fails leaves no array behind: the functions that allocate their result (or a
 * temporary) and then launch (elementwise operators, copy/astype, ones, arange, linspace, the
 * reductions, ReductionKernel, a reshape that must copy) or memset (zeros) dispose what they allocated and rethrow the CudaError; an `out`
 * of the caller is never disposed. The double fails the N-th launch (FAKECUDA_FAIL_LAUNCH=N). With
 * NODECUDA_LAUNCH_QUEUE=0 every launch is made on the calling thread, so its failure is thrown by
 * the launch itself; zeros launches nothing, so its case keeps the launch queue on and makes a
 * queued launch fail, which the memset (the next driver call on that thread) reports.
 */
import { checkBuilt, expectClean, runFake } from './fake';

beforeAll(checkBuilt);

// run(f, keep): calls f, disposes its result unless it is `keep` (the caller's out), and notes the
// error (if any) and the allocations left behind.
const PRELUDE = `
  const nc = require(process.env.NODECUDA_DIST);
  const g = nc.gpuarray;
  const live = () => nc.memory().liveAllocations;
  const a = g.toGpu(Float32Array.from({ length: 16 }, (_, i) => i), { shape: [4, 4] }); // a copy: no launch
  const run = (f, keep) => {
    const before = live();
    let err = null;
    try {
      const r = f();
      if (r !== keep) r.dispose();
    } catch (e) {
      err = { name: e.name, code: typeof e.code, call: e.call, memset: /memset/.test(e.stack) };
    }
    return { err, leaked: live() - before };
  };
`;
const SYNC = { NODECUDA_LAUNCH_QUEUE: '0' };
const FAILED = { name: 'CudaError', code: 'string', call: 'cuLaunchKernel', memset: false };

// [case, setup, call (fails the first time), env]: the first call fails, the same call again works.
test.each([
  ['elementwise: its result', '', 'g.add(a, a)', { FAKECUDA_FAIL_LAUNCH: '1' }],
  ['elementwise: the temporary for an out that overlaps an input', 'const o = a.T;', 'g.add(a, 1, { out: o })',
    { FAKECUDA_FAIL_LAUNCH: '1' }],
  ['copy (copyOf)', '', 'a.T.copy()', { FAKECUDA_FAIL_LAUNCH: '1' }],
  ['ones', '', 'g.ones([4, 4], "float32")', { FAKECUDA_FAIL_LAUNCH: '1' }],
  ['arange', '', 'g.arange(16)', { FAKECUDA_FAIL_LAUNCH: '1' }],
  ['linspace: its endpoint fill (the 2nd launch)', '', 'g.linspace(0, 1, 5)', { FAKECUDA_FAIL_LAUNCH: '2' }],
  ['sum over an axis', '', 'g.sum(a, { axis: 0 })', { FAKECUDA_FAIL_LAUNCH: '1' }],
  ['sum into a strided out: the temporary', 'const big = g.empty([8], "float32"), o = big.index("::2");',
    'g.sum(a, { axis: 0, out: o })', { FAKECUDA_FAIL_LAUNCH: '1' }],
  ['ReductionKernel over an axis', 'const rk = new nc.ReductionKernel("float32", { neutral: "0", reduceExpr: "a+b", ' +
    'mapExpr: "x[i]", arguments: "const float *x" });', 'rk(a, { axis: 0 })', { FAKECUDA_FAIL_LAUNCH: '1' }],
  ['reshape that copies (ravel of a transposed view)', '', 'a.T.ravel()', { FAKECUDA_FAIL_LAUNCH: '1' }],
])('%s', (_name, setup, call, env) => {
  const r = runFake(PRELUDE + `
    ${setup}
    const keep = typeof o === 'undefined' ? undefined : o;
    const first = run(() => ${call}, keep);
    const again = run(() => ${call}, keep);
    const alive = !a.disposed && (keep === undefined || !keep.disposed);
    console.log(JSON.stringify({ first, again, alive }));
  `, { ...SYNC, ...env });
  expectClean(r);
  expect(r.out).toEqual({ first: { err: FAILED, leaked: 0 }, again: { err: null, leaked: 0 }, alive: true });
});

test('zeros: a queued launch failure reported by its memset', () => {
  // The launcher is kept busy so that the run's 10th launch is queued, not made in place; the 4-element block
  // is in the pool before, so zeros' only driver call is its memset. memory() is a driver call too:
  // the count before is taken before the run.
  const r = runFake(PRELUDE + `
    const { native } = require(process.env.NODECUDA_DIST + '/cuda/native');
    g.empty([4], 'float32').dispose();
    const before = live(), q0 = native.launchQueueStats()[0];
    for (let i = 0; i < 30; i++) a.add(1, { out: a });
    const queued = native.launchQueueStats()[0] - q0;
    let err = null;
    try {
      g.zeros([4], 'float32').dispose();
    } catch (e) {
      err = { name: e.name, code: typeof e.code, call: e.call, memset: /memset/.test(e.stack) };
    }
    const first = { err, leaked: live() - before };
    const again = run(() => g.zeros([4], 'float32'));
    const z = g.zeros([4], 'float32');
    console.log(JSON.stringify({ queued, first, again, values: Array.from(z.get()) }));
  `, { FAKECUDA_LAUNCH_DELAY_US: '5000', FAKECUDA_FAIL_LAUNCH: '10' });
  expectClean(r);
  expect(r.out.queued).toBeGreaterThanOrEqual(20); // the failing launch was queued
  expect(r.out.first).toEqual({ err: { ...FAILED, memset: true }, leaked: 0 });
  expect(r.out.again).toEqual({ err: null, leaked: 0 });
  expect(r.out.values).toEqual([0, 0, 0, 0]);
});
