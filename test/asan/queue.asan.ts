/**
 * Failures of queued launches (src/launch_queue.cc, src/context.cc): a launch deferred to the
 * launcher thread that fails is reported to the thread that queued it, on that context, by its
 * next driver call, exactly once; never to another worker, another context or an unrelated
 * Promise. A real GPU cannot make a queued launch fail without a sticky fault, so the double does:
 * FAKECUDA_FAIL_LAUNCH=N,.. makes those launches (of kernels named like FAKECUDA_FAIL_KERNEL)
 * return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, and FAKECUDA_LAUNCH_DELAY_US keeps the launcher
 * busy so that every launch of a run after the first few is queued, not launched in place.
 */
import { checkBuilt, expectClean, runFake } from './fake';

beforeAll(checkBuilt);

const BUSY = { FAKECUDA_LAUNCH_DELAY_US: '5000' };
const PRELUDE = `
  const { driver, gpuarray, SourceModule } = require(process.env.NODECUDA_DIST);
  const { native } = require(process.env.NODECUDA_DIST + '/cuda/native');
  const errs = [];
  const note = (where, e) => errs.push({ where, name: e.name, code: e.code, call: e.call, poisoned: e.poisoned });
  const step = (where, f) => { try { f(); } catch (e) { note(where, e); } };
  const stepAsync = async (where, f) => { try { await f(); } catch (e) { note(where, e); } };
  const queued = () => native.launchQueueStats()[0];
`;
const LAUNCH_FAILED = { name: 'CudaError', code: 'CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES', call: 'cuLaunchKernel' };

describe('a failed queued launch on the main thread', () => {
  // The run: a user Function (queued once launched in place in the same configuration) or
  // nodecuda's own elementwise kernel; the 10th launch fails while queued. The next call reports
  // it, a blocking one by throwing, a Promise-returning one by rejecting; later calls succeed.
  test.each([
    ['user Function, next call blocking', 'k(a, i, { block: [32] })', 'step("next", () => driver.memsetD8(a, 1, 64))'],
    ['user Function, next call a Promise', 'k(a, i, { block: [32] })',
      'await stepAsync("next", () => driver.memcpyDtohAsync(new Uint8Array(64), a))'],
    ['elementwise x.add(1, { out: x })', 'x.add(1, { out: x })', 'await stepAsync("next", () => x.getAsync())'],
  ])('%s', (_name, launch, next) => {
    const r = runFake(PRELUDE + `
      (async () => {
        const k = new SourceModule('__global__ void k(int *p, int i) { if (i < 0) p[0] = i; }').getFunction('k');
        const a = driver.memAlloc(64), x = gpuarray.zeros(1000, 'float32');
        const q0 = queued();
        step('run', () => { for (let i = 0; i < 30; i++) ${launch}; });
        const inRun = queued() - q0;
        ${next};
        const reported = errs.length;
        // Work goes on: calls, another run of launches, copies with their values.
        step('memset', () => driver.memsetD8(a, 5, 64));
        step('run2', () => { for (let i = 0; i < 30; i++) ${launch}; });
        step('sync', () => driver.Context.synchronize());
        const h = new Uint8Array(64);
        await stepAsync('read', () => driver.memcpyDtohAsync(h, a));
        step('zeros', () => gpuarray.zeros(10, 'float32').get());
        console.log(JSON.stringify({ ok: true, inRun, reported, errs, value: h[63] }));
      })();
    `, { ...BUSY, FAKECUDA_FAIL_LAUNCH: '10' });
    expectClean(r);
    expect(r.out.inRun).toBeGreaterThanOrEqual(20); // the failing launch was queued, not direct
    expect(r.out.errs).toEqual([{ where: 'next', ...LAUNCH_FAILED, poisoned: false }]);
    expect(r.out.value).toBe(5);
  });
});

// Worker A queues a run of launches of bad_k whose 10th fails, then blocks (Atomics.wait) until
// worker B has made its calls, launches and Promises: with the failure kept process-wide, B's
// first driver call took it (and A never saw it). B uses the same primary context as A (same
// Context, another thread) or a context of its own (makeContext). B's calls drain A's queue.
describe('a failed queued launch in one worker is never seen by another', () => {
  test.each([['the primary context', false], ['its own context', true]])('worker B on %s', (_name, own) => {
    const common = `${PRELUDE}
      const { parentPort, workerData } = require('worker_threads');
      const flag = new Int32Array(workerData.sab);
    `;
    const A = `${common}
      const k = new SourceModule('__global__ void bad_k(int *p, int i) { if (i < 0) p[0] = i; }').getFunction('bad_k');
      const a = driver.memAlloc(64);
      const q0 = queued();
      step('run', () => { for (let i = 0; i < 20; i++) k(a, i, { block: [32] }); });
      parentPort.postMessage({ inRun: queued() - q0 });
      Atomics.wait(flag, 0, 0, 60000); // until B is done (or has failed: the main thread signals)
      step('next', () => driver.memsetD8(a, 1, 64));
      step('then', () => driver.memsetD8(a, 2, 64));
      step('run2', () => { for (let i = 0; i < 20; i++) k(a, i, { block: [32] }); driver.Context.synchronize(); });
      const h = new Uint8Array(64);
      step('read', () => driver.memcpyDtoh(h, a));
      parentPort.postMessage({ errs, value: h[63] });
    `;
    const B = `${common}
      (async () => {
       try {
        const ctx = workerData.own ? new driver.Device(0).makeContext() : null;
        const k = new SourceModule('__global__ void good_k(int *p, int i) { if (i < 0) p[0] = i; }').getFunction('good_k');
        const a = driver.memAlloc(64), s = new driver.Stream(), h = new Uint8Array(64);
        step('memset', () => driver.memsetD8(a, 7, 64));
        step('launches', () => { for (let i = 0; i < 20; i++) k(a, i, { block: [32] }); });
        await stepAsync('dtohAsync', () => driver.memcpyDtohAsync(h, a, s));
        await stepAsync('streamSyncAsync', () => s.synchronizeAsync());
        await stepAsync('toGpuAsync', () => gpuarray.toGpuAsync(new Float32Array(100)));
        await stepAsync('ctxSyncAsync', () => driver.Context.synchronizeAsync());
        step('sync', () => driver.Context.synchronize());
        step('alloc', () => driver.memAlloc(128).free());
        if (ctx) driver.Context.pop();
        parentPort.postMessage({ errs, value: h[0] });
       } finally {
        Atomics.store(flag, 0, 1);
        Atomics.notify(flag, 0);
       }
      })();
    `;
    const r = runFake(`
      const { Worker } = require('worker_threads');
      const sab = new SharedArrayBuffer(4), res = {};
      const fail = (who) => (e) => {
        console.error(who, e);
        process.exitCode = 1;
        Atomics.store(new Int32Array(sab), 0, 1); // A must not wait for a B that died
        Atomics.notify(new Int32Array(sab), 0);
      };
      const a = new Worker(${JSON.stringify(A)}, { eval: true, workerData: { sab } });
      a.on('error', fail('A'));
      a.on('message', (m) => {
        if (m.inRun === undefined) { res.A = m; return; }
        res.inRun = m.inRun;
        const b = new Worker(${JSON.stringify(B)}, { eval: true, workerData: { sab, own: ${own} } });
        b.on('error', fail('B'));
        b.on('message', (m2) => { res.B = m2; });
      });
      process.on('beforeExit', () => console.log(JSON.stringify({ ok: true, ...res })));
    `, { ...BUSY, FAKECUDA_FAIL_LAUNCH: '10', FAKECUDA_FAIL_KERNEL: 'bad_k' });
    expectClean(r);
    expect(r.out.inRun).toBeGreaterThanOrEqual(15); // A's failing launch was queued
    expect(r.out.B).toEqual({ errs: [], value: 7 });
    expect(r.out.A).toEqual({ errs: [{ where: 'next', ...LAUNCH_FAILED, poisoned: false }], value: 2 });
  });
});

test('a failure is reported once: two in one run are one report, a later run reports its own', () => {
  // Launches 1..20 are the first run (8 and 12 fail), 21..40 the second (40 fails).
  const r = runFake(PRELUDE + `
    (async () => {
      const k = new SourceModule('__global__ void k(int *p, int i) { if (i < 0) p[0] = i; }').getFunction('k');
      const a = driver.memAlloc(64), s = new driver.Stream();
      const calls = async (tag) => {
        for (let j = 0; j < 3; j++) {
          step(tag + ' memset', () => driver.memsetD8(a, j, 64));
          await stepAsync(tag + ' dtohAsync', () => driver.memcpyDtohAsync(new Uint8Array(64), a, s));
          step(tag + ' sync', () => driver.Context.synchronize());
          await stepAsync(tag + ' syncAsync', () => driver.Context.synchronizeAsync());
        }
      };
      step('run1', () => { for (let i = 0; i < 20; i++) k(a, i, { block: [32] }); });
      await calls('after1');
      step('run2', () => { for (let i = 0; i < 20; i++) k(a, i, { block: [32] }); });
      await calls('after2');
      console.log(JSON.stringify({ ok: true, errs }));
    })();
  `, { ...BUSY, FAKECUDA_FAIL_LAUNCH: '8,12,40' });
  expectClean(r);
  expect(r.out.errs).toEqual([
    { where: 'after1 memset', ...LAUNCH_FAILED, poisoned: false },
    { where: 'after2 memset', ...LAUNCH_FAILED, poisoned: false },
  ]);
});

test('a sticky fault in a queued run (FAKECUDA_FAULT_LAUNCH) still poisons the context', () => {
  const r = runFake(PRELUDE + `
    const k = new SourceModule('__global__ void k(int *p, int i) { if (i < 0) p[0] = i; }').getFunction('k');
    const a = driver.memAlloc(64);
    const q0 = queued();
    step('run', () => { for (let i = 0; i < 20; i++) k(a, i, { block: [32] }); });
    const inRun = queued() - q0;
    step('sync', () => driver.Context.synchronize());
    step('later', () => driver.memAlloc(16));
    console.log(JSON.stringify({ ok: true, inRun, errs }));
  `, { ...BUSY, FAKECUDA_FAULT_LAUNCH: '10' });
  expectClean(r);
  expect(r.out.inRun).toBeGreaterThanOrEqual(15);
  const errs = r.out.errs as Array<Record<string, unknown>>;
  expect(errs.map((e) => e.where)).toEqual(['sync', 'later']);
  expect(errs[0]).toMatchObject({ code: 'CUDA_ERROR_ILLEGAL_ADDRESS', poisoned: true });
  expect(errs[1]).toMatchObject({ poisoned: true });
});
