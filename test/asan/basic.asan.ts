/**
 * The native paths without a GPU: the sanitized addon (build-asan/) against the CPU driver double
 * (test/fakecuda), each script in a child process so an AddressSanitizer/UBSan report fails the
 * test with the report in its message. Kernels do not run on the double: only data that needs
 * no kernel is checked for values.
 */
import { checkBuilt, expectClean, runFake } from './fake';

beforeAll(checkBuilt);

const PRELUDE = `
  const assert = require('assert');
  const nc = require(process.env.NODECUDA_DIST);
  const { driver, gpuarray, SourceModule } = nc;
  const { native } = require(process.env.NODECUDA_DIST + '/cuda/native');
  const fill = (n, k = 1) => Float32Array.from({ length: n }, (_, i) => (i * k) % 1000);
  const same = (a, b) => assert.deepStrictEqual(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength));
  const code = (f) => { try { f(); } catch (e) { return e.code; } return null; };
  const out = {};
`;

test('device, memory, copies of both sizes, page-locked memory, memset', () => {
  const r = runFake(PRELUDE + `
    (async () => {
      out.available = nc.isAvailable();
      out.name = new driver.Device(0).name();
      for (const n of [1000, 1 << 20, (1 << 20) + 3]) {  // 4 KB direct, 4 MB staged (pageable)
        const h = fill(n, 7), a = driver.memAllocLike(h), o = new Float32Array(n);
        driver.memcpyHtod(a, h); driver.memcpyDtoh(o, a); same(o, h);
        const b = driver.memAlloc(n * 4); driver.memcpyDtod(b, a, n * 4);
        const o2 = new Float32Array(n); driver.memcpyDtoh(o2, b); same(o2, h);
        const s = new driver.Stream();
        const h2 = fill(n, 3), o3 = new Float32Array(n);
        await driver.memcpyHtodAsync(a, h2, s); await driver.memcpyDtohAsync(o3, a, s); same(o3, h2);
        const p = driver.pagelockedEmpty(n, 'float32'), q = driver.pagelockedZeros(n, 'float32');
        p.set(h); await driver.memcpyHtodAsync(b, p, s); await driver.memcpyDtohAsync(q, b, s); same(q, h);
        driver.memsetD32(a, 0x3f800000, n); driver.memcpyDtoh(o, a); assert(o.every((x) => x === 1));
        await driver.memsetD8Async(b, 2, n * 4, s); driver.memcpyDtoh(o, b); assert(new Uint8Array(o.buffer).every((x) => x === 2));
        driver.memsetD16(b, 0x0101, n * 2); driver.memcpyDtoh(o, b); assert(new Uint8Array(o.buffer).every((x) => x === 1));
        s.dispose(); a.free(); b.free();
      }
      const reg = driver.registerHostMemory(new Uint8Array(1 << 16));
      out.unregistered = driver.unregisterHostMemory(reg);
      out.info = driver.memGetInfo().length;
      // The double bounds-checks raw addresses as the driver does for unmapped ones (3 MiB: not
      // rounded up by nodecuda's small-block cache).
      const a = driver.memAlloc(3 << 20);
      out.oob = code(() => driver.memcpyHtod(a.ptr + BigInt((3 << 20) - 32), new Uint8Array(64)));
      out.ok = true;
      console.log(JSON.stringify(out));
    })();
  `);
  expectClean(r);
  expect(r.out).toMatchObject({ available: true, name: 'nodecuda fake device', unregistered: true, oob: 'CUDA_ERROR_INVALID_VALUE', ok: true });
});

test('streams and events: ordering, queries, waits, timing', () => {
  const r = runFake(PRELUDE + `
    (async () => {
      const s1 = new driver.Stream(), s2 = new driver.Stream(driver.streamFlags.NON_BLOCKING);
      const n = 1 << 18, h = fill(n, 5), a = driver.memAlloc(n * 4), b = driver.memAlloc(n * 4);
      const start = new driver.Event().record(s1);
      const p1 = driver.memcpyHtodAsync(a, h, s1);
      const e = new driver.Event().record(s1);
      s2.waitForEvent(e);                        // b <- a on s2 only after the upload on s1
      const p2 = driver.memcpyDtodAsync(b, a, n * 4, s2);
      const o = new Float32Array(n);
      await Promise.all([p1, p2, s2.synchronizeAsync(), e.synchronizeAsync()]);
      driver.memcpyDtoh(o, b); same(o, h);
      const end = new driver.Event().record(s1);
      end.synchronize();
      out.elapsed = end.timeSince(start) >= 0;
      out.query = e.query() && s1.isDone();
      s1.synchronize(); driver.Context.synchronize(); await driver.Context.synchronizeAsync();
      e.dispose(); e.dispose(); s1.dispose(); s2.dispose();
      out.ok = true;
      console.log(JSON.stringify(out));
    })();
  `, { FAKECUDA_SYNC_DELAY_MS: '5' });
  expectClean(r);
  expect(r.out).toMatchObject({ elapsed: true, query: true, ok: true });
});

test('compile, load, launch (a no-op on the double), the launch queue, GPUArray transfers', () => {
  const r = runFake(PRELUDE + `
    (async () => {
      const mod = new SourceModule('__global__ void k(float *a, int n, double x, char c) { if (n < 0) a[0] = x + c; }\\n__device__ float g[10];');
      const k = mod.getFunction('k');
      const a = driver.memAlloc(1024);
      k(a, 5, 1.5, 7, { block: [128], grid: [4] });
      const [q0] = native.launchQueueStats();
      for (let i = 0; i < 3000; i++) k(a, i, 0.5, 1, { block: [256], grid: [8] });
      driver.Context.synchronize();
      out.queued = native.launchQueueStats()[0] - q0;
      out.tooBig = code(() => k(a, 1, 1, 1, { block: [2048] }));
      out.global = mod.getGlobal('g')[1];
      out.regs = k.numRegs > 0;
      const h = fill(4097, 11);
      const x = gpuarray.toGpu(h);
      same(x.get(), h);
      same(await x.getAsync(), h);
      const big = fill((1 << 20) + 5, 13), y = gpuarray.toGpu(big);
      same(await y.getAsync(new Float32Array(big.length)), big);
      same(gpuarray.zeros(1000, 'float32').get(), new Float32Array(1000));
      const img = (await nc.compiler.compileAsync('extern "C" __global__ void z() {}')).image;
      driver.moduleFromBuffer(img).getFunction('z')({ block: [1] });
      driver.Context.synchronize();
      out.ok = true;
      console.log(JSON.stringify(out));
    })();
  `);
  expectClean(r);
  expect(r.out).toMatchObject({ global: 40, regs: true, ok: true });
  expect(r.out.queued).toBeGreaterThan(2000); // the launcher thread submitted most of them
  expect(r.out.tooBig).toMatch(/CUDA_ERROR_INVALID_VALUE|ERR_/);
});

test('a sticky fault (FAKECUDA_FAULT_LAUNCH) poisons the context with clear errors, no crash', () => {
  const r = runFake(PRELUDE + `
    const k = new SourceModule('__global__ void k(int *p) { p[0] = 1; }').getFunction('k');
    const a = driver.memAlloc(64);
    k(a, { block: [1] });
    out.sync = code(() => driver.Context.synchronize());
    out.after = code(() => driver.memAlloc(16));
    out.ok = true;
    console.log(JSON.stringify(out));
  `, { FAKECUDA_FAULT_LAUNCH: '1' });
  expectClean(r);
  expect(r.out.sync).toBe('CUDA_ERROR_ILLEGAL_ADDRESS');
  expect(r.out.after).toBeTruthy();
});
