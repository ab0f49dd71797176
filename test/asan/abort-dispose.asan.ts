/**
 * Issue 17 on the CPU driver double: `{ signal }` aborting a GPUArray transfer while its copy is
 * in flight (FAKECUDA_SYNC_DELAY_MS makes every queued operation take that long), and Module
 * dispose() with launches still queued (FAKECUDA_LAUNCH_DELAY_US keeps the launch queue busy).
 * The Promise must reject at once with an AbortError while the copy still lands and its buffers
 * stay alive; a disposed module's functions must throw ERR_USE_AFTER_DISPOSE while the queued
 * launches still run. Any use-after-free shows up as an AddressSanitizer or fakecuda report.
 */
import { checkBuilt, expectClean, runFake } from './fake';

beforeAll(checkBuilt);

const SLOW = { FAKECUDA_SYNC_DELAY_MS: '200' };

const PRELUDE = `
  const nc = require(process.env.NODECUDA_DIST);
  const { driver, gpuarray, SourceModule } = nc;
  const out = {};
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  // How a Promise settles, and how many ms after \`t0\` it did.
  const settle = async (p, t0) => {
    try { await p; return { resolved: true, ms: Date.now() - t0 }; }
    catch (e) { return { name: e.name, code: e.code, cause: String(e.cause), ms: Date.now() - t0 }; }
  };
  // Waits (up to 5 s) until \`done()\`: a copy that was aborted still lands in the background.
  const eventually = async (done) => { for (let i = 0; i < 250 && !done(); i++) await sleep(20); return done(); };
  const same = (a, b) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
  const collect = async () => { for (let i = 0; i < 5; i++) { global.gc(); await sleep(20); } };
`;

describe('{ signal } on GPUArray transfers, aborted while the copy is in flight', () => {
  test('getAsync: rejects at once; the copy still fills `out`; a temporary source is freed safely', () => {
    const r = runFake(PRELUDE + `
      (async () => {
        const n = 4099, h = Float32Array.from({ length: n }, (_, i) => i % 1000);
        const x = gpuarray.toGpu(h);
        const base = nc.memory().liveArrays;
        const early = new Float32Array(n).fill(-1);
        out.early = await settle(x.getAsync(early, { signal: AbortSignal.abort('early') }), Date.now());
        await sleep(300);
        out.earlyUntouched = early.every((v) => v === -1); // nothing was queued
        out.bad = await settle(x.getAsync(undefined, { signal: {} }), Date.now());
        for (const [name, src, len] of [['contiguous', x, n], ['strided', x.index('::2'), (n + 1) / 2]]) {
          const o = new Float32Array(len).fill(-1);
          const ac = new AbortController();
          const p = src.getAsync(o, { signal: ac.signal });
          await sleep(20);
          const t0 = Date.now();
          ac.abort('late');
          out[name] = await settle(p, t0);
          // The strided view's contiguous temporary is disposed on abort (its free waits for the copy).
          out[name].live = nc.memory().liveArrays - base;
          out[name].landed = await eventually(() => o.every((v) => v !== -1));
          if (src === x) out[name].values = same(o, h);
        }
        driver.Context.synchronize();
        await collect();
        out.ok = true;
        console.log(JSON.stringify(out));
      })();
    `, SLOW);
    expectClean(r);
    expect(r.out.early).toMatchObject({ name: 'AbortError', code: 'ABORT_ERR', cause: 'early' });
    expect(r.out.earlyUntouched).toBe(true);
    expect(r.out.bad).toMatchObject({ name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
    for (const k of ['contiguous', 'strided']) {
      expect(r.out[k]).toMatchObject({ name: 'AbortError', code: 'ABORT_ERR', cause: 'late', live: 0, landed: true });
      expect((r.out[k] as { ms: number }).ms).toBeLessThan(150); // not after the 200 ms copy
    }
    expect(r.out.contiguous).toMatchObject({ values: true });
    expect(r.out.ok).toBe(true);
  });

  test.each([['pageable', 'Float32Array.from({ length: n }, (_, i) => i)'],
    ['page-locked', "driver.pagelockedEmpty(n, 'float32'); h.forEach((_, i) => { h[i] = i; })"]])(
    'toGpuAsync from a %s source: rejects at once and disposes the new array; setAsync: the copy still lands', (_kind, make) => {
      const r = runFake(PRELUDE + `
        (async () => {
          const n = 4099;
          const h = ${make};
          const base = nc.memory();
          const ac = new AbortController();
          const p = gpuarray.toGpuAsync(h, { signal: ac.signal });
          await sleep(20);
          const t0 = Date.now();
          ac.abort('late');
          out.toGpu = await settle(p, t0);
          out.liveArrays = nc.memory().liveArrays - base.liveArrays;
          driver.Context.synchronize();
          out.liveBytes = nc.memory().liveBytes - base.liveBytes;

          const x = gpuarray.zeros(n, 'float32');
          const s = new driver.Stream();
          const ac2 = new AbortController();
          const q = x.setAsync(h, { stream: s, signal: ac2.signal });
          await sleep(20);
          const t1 = Date.now();
          ac2.abort();
          out.set = await settle(q, t1);
          s.synchronize();
          out.setLanded = same(x.get(), Float32Array.from(h));
          out.setEarly = await settle(x.setAsync(h, { signal: AbortSignal.abort() }), Date.now());
          x.dispose(); s.dispose();
          await collect();
          driver.Context.synchronize();
          out.ok = true;
          console.log(JSON.stringify(out));
        })();
      `, SLOW);
      expectClean(r);
      expect(r.out.toGpu).toMatchObject({ name: 'AbortError', code: 'ABORT_ERR', cause: 'late' });
      expect((r.out.toGpu as { ms: number }).ms).toBeLessThan(150);
      expect(r.out).toMatchObject({ liveArrays: 0, liveBytes: 0, setLanded: true, ok: true });
      expect(r.out.set).toMatchObject({ name: 'AbortError', code: 'ABORT_ERR' });
      expect(r.out.setEarly).toMatchObject({ name: 'AbortError', code: 'ABORT_ERR' });
    });
});

describe('Module dispose()', () => {
  test('with launches queued: its functions throw ERR_USE_AFTER_DISPOSE, the queued launches still run, no crash', () => {
    const r = runFake(PRELUDE + `
      (async () => {
        const code = (f) => { try { f(); return 'no error'; } catch (e) { return e.code; } };
        const src = '__global__ void k(float *a, int n) { if (n < 0) a[0] = 1; }\\n__device__ float g[4];';
        const a = driver.memAlloc(1024);
        let m1 = new SourceModule(src);
        const h1 = m1.handle;
        let k = m1.getFunction('k');
        k(a, 0, { block: [64], grid: [1] }); // in place: later launches of this shape are queued
        for (let i = 0; i < 2000; i++) k(a, i, { block: [64], grid: [1] });
        let [glob] = m1.getGlobal('g');
        m1.dispose();
        m1.dispose();
        out.disposed = m1.disposed;
        out.launch = code(() => k(a, 1, { block: [64], grid: [1] }));
        out.attribute = code(() => k.numRegs);
        out.getFunction = code(() => m1.getFunction('k'));
        out.getGlobal = code(() => m1.getGlobal('g'));
        // A global got before dispose() holds the native module: it stays valid until freed.
        driver.memcpyHtod(glob, new Float32Array([1, 2, 3, 4]));
        const back = new Float32Array(4);
        driver.memcpyDtoh(back, glob);
        out.global = Array.from(back);
        // The only SourceModule of its source let go of the cached module: the next one loads it again;
        // a second holder keeps it cached when the first of two is disposed.
        const m2 = new SourceModule(src);
        out.reloaded = m2.handle !== h1;
        const m3 = new SourceModule(src);
        out.shared = m3.handle === m2.handle;
        m2.dispose();
        const m4 = new SourceModule(src);
        out.kept = m4.handle === m3.handle;
        // Drop every hold on the first module while its launches may still be queued.
        glob.free(); glob = null; k = null; m1 = null;
        await collect();
        driver.Context.synchronize();
        m4.getFunction('k')(a, 1, { block: [64], grid: [1] });
        m4[Symbol.dispose]();
        out.afterUsing = code(() => m4.getFunction('k'));
        out.m3 = code(() => m3.getFunction('k')(a, 1, { block: [64], grid: [1] }));
        driver.Context.synchronize();
        a.free();
        out.ok = true;
        console.log(JSON.stringify(out));
      })();
    `, { FAKECUDA_LAUNCH_DELAY_US: '100' });
    expectClean(r);
    expect(r.out).toEqual({
      disposed: true, launch: 'ERR_USE_AFTER_DISPOSE', attribute: 'ERR_USE_AFTER_DISPOSE',
      getFunction: 'ERR_USE_AFTER_DISPOSE', getGlobal: 'ERR_USE_AFTER_DISPOSE', global: [1, 2, 3, 4],
      reloaded: true, shared: true, kept: true, afterUsing: 'ERR_USE_AFTER_DISPOSE', m3: 'no error', ok: true,
    });
  });

  test('moduleFromBuffer: dispose() then use throws ERR_USE_AFTER_DISPOSE; collecting it unloads safely', () => {
    const r = runFake(PRELUDE + `
      (async () => {
        const code = (f) => { try { f(); return 'no error'; } catch (e) { return e.code; } };
        const img = (await nc.compiler.compileAsync('extern "C" __global__ void z(int n) {}')).image;
        let m = driver.moduleFromBuffer(img);
        let z = m.getFunction('z');
        for (let i = 0; i < 500; i++) z(nc.int32(i), { block: [1] });
        m.dispose();
        out.launch = code(() => z(nc.int32(1), { block: [1] }));
        out.prepared = code(() => z.prepare('i').preparedCall([1], [1], 1));
        out.name = z.functionName;
        z = null; m = null;
        await collect();
        driver.Context.synchronize();
        out.ok = true;
        console.log(JSON.stringify(out));
      })();
    `, { FAKECUDA_LAUNCH_DELAY_US: '100' });
    expectClean(r);
    expect(r.out).toEqual({ launch: 'ERR_USE_AFTER_DISPOSE', prepared: 'ERR_USE_AFTER_DISPOSE', name: 'z', ok: true });
  });
});
