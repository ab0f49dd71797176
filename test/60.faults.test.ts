/**
 * Sticky faults and threads, each in a child process so a broken context never leaks into the
 * rest of the suite: a faulting kernel poisons the context (fast, clear errors) until
 * device.reset(); four worker_threads compile and launch at once.
 * @gpu-order faults-last (an MMU fault affects GL in later processes: test/setup/sequencer.js)
 */
import * as fs from 'fs';
import * as path from 'path';
import { DIST, describeGpu, runChild } from './helpers';

beforeAll(() => {
  if (!fs.existsSync(path.join(DIST, 'index.js'))) throw new Error('dist/ is not built: run npm run build:ts');
});

describeGpu('sticky faults', () => {
  // NVIDIA drivers keep a sticky fault (illegal address, trap, launch failure) until the process
  // exits (cuda.h, CUDA_ERROR_ILLEGAL_ADDRESS). What nodecuda guarantees: a clear CudaError, fast
  // failure of every later call with one explanation, reset() reporting the driver's refusal as a
  // CudaError, and no crash or hang, including at exit.
  test('illegal address poisons the context: fast, clear errors; reset() says to restart', () => {
    const script = `
      const cuda = require(process.env.NODECUDA_DIST);
      const { driver, SourceModule } = cuda;
      const out = {};
      const capture = (f) => { try { f(); return null; } catch (e) { return { name: e.name, code: e.code, poisoned: e.poisoned, message: e.message }; } };
      const bad = new SourceModule('__global__ void bad(int *p) { p[threadIdx.x] = 1; }').getFunction('bad');
      const a = driver.memAlloc(64);
      bad(0xdead0000n, { block: [32] });
      out.sync = capture(() => driver.Context.synchronize());
      const t0 = process.hrtime.bigint();
      out.alloc = capture(() => driver.memAlloc(16));
      out.allocNs = Number(process.hrtime.bigint() - t0);
      out.copy = capture(() => driver.memcpyHtod(a, new Uint8Array(64)));
      out.compile = capture(() => new SourceModule('__global__ void ok2(int *p) { p[0] = 2; }'));
      out.freeAfterPoison = capture(() => a.free());
      out.reset = capture(() => new driver.Device(0).reset());
      out.afterReset = capture(() => driver.memAlloc(16));
      out.available = cuda.isAvailable();
      out.ok = true;
      console.log(JSON.stringify(out));
    `;
    const { status, out, stderr } = runChild(script);
    if (!out.ok) throw new Error(`child failed: ${stderr}`);
    expect(status).toBe(0); // exits normally: finalizers at exit do not crash
    const sync = out.sync as { name: string; code: string; poisoned: boolean };
    expect(sync.name).toBe('CudaError');
    expect(sync.code).toBe('CUDA_ERROR_ILLEGAL_ADDRESS');
    expect(sync.poisoned).toBe(true);
    for (const key of ['alloc', 'copy', 'compile', 'afterReset']) {
      const e = out[key] as { name: string; code: string; poisoned: boolean; message: string };
      expect(e.name).toBe('CudaError');
      expect(e.code).toBe('CUDA_ERROR_ILLEGAL_ADDRESS');
      expect(e.poisoned).toBe(true);
      expect(e.message).toMatch(/restart the process/);
    }
    expect(out.allocNs as number).toBeLessThan(5e6); // fails fast, no device round trip
    expect(out.freeAfterPoison).toBeNull(); // freeing never throws
    const reset = out.reset as { name: string; code: string; message: string };
    expect(reset.name).toBe('CudaError');
    expect(reset.message).toMatch(/Restart the process/);
  });

  test('a fault while a run of operations is queued: CudaErrors, no crash or hang', () => {
    // The kernel faults after ~50 ms of spinning, while the launcher thread is submitting a run
    // of additions: its launches fail, the JS thread's next call throws.
    const script = `
      const { driver, SourceModule, gpuarray } = require(process.env.NODECUDA_DIST);
      const { native } = require(process.env.NODECUDA_DIST + '/cuda/native');
      const a = gpuarray.arange(0, 64, 1, 'float32');
      a.add(1).get();
      const bad = new SourceModule(
        '__global__ void bad(int *p, long long cycles) { long long t = clock64(); while (clock64() - t < cycles) {} p[threadIdx.x] = 1; }',
      ).getFunction('bad');
      const q0 = native.launchQueueStats()[0];
      bad(0xdead0000n, 100000000, { block: [32] });
      let ops = 0, first = null;
      for (; ops < 1000000 && !first; ops++) {
        try { a.add(1); } catch (e) { first = { name: e.name, code: e.code, poisoned: e.poisoned }; }
      }
      const queued = native.launchQueueStats()[0] - q0;
      const capture = (f) => { try { f(); return null; } catch (e) { return { name: e.name, code: e.code, poisoned: e.poisoned }; } };
      const sync = capture(() => driver.Context.synchronize());
      const after = capture(() => a.add(1).get());
      console.log(JSON.stringify({ ops, first, queued, sync, after, ok: true }));
    `;
    const { status, out, stderr } = runChild(script);
    if (!out.ok) throw new Error(`child failed: ${stderr}`);
    expect(status).toBe(0);
    expect(out.queued as number).toBeGreaterThan(1000); // the run went through the queue
    const fault = { name: 'CudaError', code: 'CUDA_ERROR_ILLEGAL_ADDRESS', poisoned: true };
    expect(out.first).toEqual(fault); // a later operation reported the fault
    expect(out.sync).toEqual(fault);
    expect(out.after).toEqual(fault);
  });

  test('a device-side trap is a sticky CudaError', () => {
    const script = `
      const { driver, SourceModule } = require(process.env.NODECUDA_DIST);
      const f = new SourceModule('__global__ void boom(int x) { if (x == 1) __trap(); }').getFunction('boom');
      f(1, { block: [1] });
      let code = null, poisoned = null;
      try { driver.Context.synchronize(); } catch (e) { code = e.code; poisoned = e.poisoned; }
      let next = null;
      try { driver.memAlloc(4); } catch (e) { next = e.code; }
      console.log(JSON.stringify({ code, poisoned, next }));
    `;
    const { out, stderr } = runChild(script);
    if (out.code === undefined) throw new Error(`child failed: ${stderr}`);
    expect(['CUDA_ERROR_ILLEGAL_INSTRUCTION', 'CUDA_ERROR_LAUNCH_FAILED']).toContain(out.code);
    expect(out.poisoned).toBe(true);
    expect(out.next).toBe(out.code);
  });

  test('reset() on a healthy device frees its memory and the device keeps working', () => {
    const script = `
      const cuda = require(process.env.NODECUDA_DIST);
      const { driver, SourceModule } = cuda;
      const k = new SourceModule('__global__ void sq(int *p, int n) { int i = threadIdx.x; if (i < n) p[i] = i * i; }').getFunction('sq');
      const big = driver.memAlloc(1 << 30);
      cuda.gpuarray.arange(0, 100, 1, 'float32').dispose(); // a block left in the small-block cache
      new driver.Device(0).reset();
      // Pool memory belongs to the device and outlives the reset: free() must still return it.
      const usedBefore = cuda.memory().poolUsedBytes;
      big.free();
      driver.Context.synchronize();
      const poolFreed = usedBefore - cuda.memory().poolUsedBytes;
      const h = new Int32Array(8);
      const k2 = new SourceModule('__global__ void sq(int *p, int n) { int i = threadIdx.x; if (i < n) p[i] = i * i; }').getFunction('sq');
      k2(driver.Out(h), 8, { block: [32] });
      let stale = null;
      try { k(driver.Out(h), 8, { block: [32] }); } catch (e) { stale = e.code; }
      const small = Array.from(cuda.gpuarray.arange(0, 100, 1, 'float32').mul(2).get()).slice(0, 4);
      console.log(JSON.stringify({ values: Array.from(h), poolFreed, stale, small }));
    `;
    const { out, stderr } = runChild(script);
    if (!out.values) throw new Error(`child failed: ${stderr}`);
    expect(out.values).toEqual([0, 1, 4, 9, 16, 25, 36, 49]);
    expect(out.poolFreed).toBe(2 ** 30);
    expect(out.stale).toBe('CUDA_ERROR_CONTEXT_IS_DESTROYED'); // a function from before the reset
    expect(out.small).toEqual([0, 2, 4, 6]); // allocations after the reset (cached blocks dropped)
  });
});

describeGpu('worker_threads', () => {
  test('four workers compile and launch at once', () => {
    const script = `
      const { Worker } = require('worker_threads');
      const body = \`
        const { workerData, parentPort } = require('worker_threads');
        const { driver, SourceModule } = require(process.env.NODECUDA_DIST);
        const k = new SourceModule('__global__ void fill(float *a, float v, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] = v + i; }').getFunction('fill');
        const n = 100000, out = new Float32Array(n);
        let bad = 0;
        for (let r = 0; r < 20; r++) {
          k(driver.Out(out), workerData.id * 1000 + r, n, { block: [256], grid: [Math.ceil(n / 256)] });
          for (let i = 0; i < n; i += 997) if (out[i] !== workerData.id * 1000 + r + i) bad++;
        }
        parentPort.postMessage({ id: workerData.id, bad });
      \`;
      const results = [];
      let done = 0;
      for (let id = 0; id < 4; id++) {
        const w = new Worker(body, { eval: true, workerData: { id } });
        w.on('message', (m) => results.push(m));
        w.on('error', (e) => results.push({ id, error: String(e) }));
        w.on('exit', () => { if (++done === 4) console.log(JSON.stringify({ results })); });
      }
    `;
    const { out, stderr } = runChild(script);
    const results = out.results as Array<{ id: number; bad?: number; error?: string }>;
    if (!results) throw new Error(`child failed: ${stderr}`);
    expect(results).toHaveLength(4);
    for (const r of results) {
      expect(r.error).toBeUndefined();
      expect(r.bad).toBe(0);
    }
  });

  test('the main thread keeps working while a worker exits', () => {
    const script = `
      const { Worker } = require('worker_threads');
      const { driver } = require(process.env.NODECUDA_DIST);
      const a = driver.memAlloc(1024);
      const w = new Worker("const { driver } = require(process.env.NODECUDA_DIST); const b = driver.memAlloc(4096); driver.memcpyHtod(b, new Uint8Array(4096));", { eval: true });
      w.on('exit', (code) => {
        const h = new Uint8Array(1024).fill(9); driver.memcpyHtod(a, h);
        const back = new Uint8Array(1024); driver.memcpyDtoh(back, a);
        console.log(JSON.stringify({ code, ok: back.every((x) => x === 9) }));
      });
    `;
    const { out, stderr } = runChild(script);
    if (out.ok === undefined) throw new Error(`child failed: ${stderr}`);
    expect(out.code).toBe(0);
    expect(out.ok).toBe(true);
  });
});
