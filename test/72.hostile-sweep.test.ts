/**
 * A hostile user on the GPU: use after dispose, disposal while work is in flight, detached host
 * buffers, impossible shapes and launch configurations, wrong operands (also to sort, unique,
 * searchsorted, topk, partition, the quantiles, matmul and fft). Every scenario must end
 * either normally (with the right values where it says so) or with a typed error (TypeError,
 * RangeError, CudaError or NvrtcError carrying a string `code`) — never a crash, an untyped error
 * or a poisoned context. All scenarios run in one child process, so a crash fails this test with
 * its stderr instead of killing Jest; a final computation checks the process still works.
 */
import { describeGpu, runChild } from './helpers';

/** Expectation per scenario: 'ok' must not throw; 'throws' must throw a typed error; 'either' may. */
const SCRIPT = String.raw`
  const cuda = require(process.env.NODECUDA_DIST);
  const { driver, gpuarray, SourceModule, ElementwiseKernel, ReductionKernel, random, fft } = cuda;
  const SPIN = '__global__ void spin(long long ns) { long long t0, t; ' +
    'asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0)); ' +
    'do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < ns); }';
  const mod = new SourceModule(SPIN + ' __global__ void twice(float* x, int n) { int i = threadIdx.x; if (i < n) x[i] *= 2; }');
  const spin = mod.getFunction('spin');
  const twice = mod.getFunction('twice');
  const detached = () => { const h = new Float32Array(16); structuredClone(h.buffer, { transfer: [h.buffer] }); return h; };
  const sortedCopy = (h) => Array.from(h).sort((x, y) => x - y);
  const eq = (a, b) => { if (JSON.stringify(Array.from(a)) !== JSON.stringify(Array.from(b))) throw new Error('WRONG ' + Array.from(a).slice(0, 8) + ' != ' + Array.from(b).slice(0, 8)); };
  const S = [
    ['use after dispose: add', 'throws', () => { const a = gpuarray.zeros([4], 'float32'); a.dispose(); a.add(1); }],
    ['use after dispose: get', 'throws', () => { const a = gpuarray.zeros([4], 'float32'); a.dispose(); a.get(); }],
    ['use after dispose: as kernel argument', 'throws', () => { const a = gpuarray.zeros([4], 'float32'); a.dispose(); twice(a, 4, { block: [4] }); }],
    ['double dispose', 'ok', () => { const a = gpuarray.zeros([4], 'float32'); a.dispose(); a.dispose(); }],
    ['view of a disposed array', 'throws', () => { const a = gpuarray.zeros([4], 'float32'); a.dispose(); a.reshape(2, 2).get(); }],
    ['stream disposed with a kernel pending, then synchronize', 'ok', () => { const s = new driver.Stream(); spin(20e6, { block: [1], stream: s }); s.dispose(); driver.Context.synchronize(); }],
    ['disposed stream used for an op', 'throws', () => { const s = new driver.Stream(); s.dispose(); gpuarray.zeros([4], 'float32').add(1, { stream: s }); }],
    ['disposed event recorded', 'throws', () => { const e = new driver.Event(); e.dispose(); e.record(); }],
    ['disposed event waited on by a stream', 'throws', () => { const e = new driver.Event(); e.record(); e.dispose(); new driver.Stream().waitForEvent(e); }],
    ['getAsync, then dispose before it settles', 'ok', async () => {
      const s = new driver.Stream(); const a = gpuarray.arange(0, 1 << 18, 1, 'float32');
      spin(30e6, { block: [1], stream: s }); const p = a.getAsync(undefined, { stream: s }); a.dispose();
      const r = await p; if (r[12345] !== 12345) throw new Error('WRONG ' + r[12345]); }],
    ['setAsync from a host array changed right after the call', 'ok', async () => {
      const h = new Float32Array(1 << 19).fill(7); const a = gpuarray.empty([1 << 19], 'float32'); const s = new driver.Stream();
      spin(20e6, { block: [1], stream: s }); const p = a.setAsync(h, { stream: s }); h.fill(-1); await p;
      if (a.get()[100] !== 7) throw new Error('WRONG ' + a.get()[100]); }],
    ['toGpu of a detached ArrayBuffer', 'throws', () => gpuarray.toGpu(detached())],
    ['set() from a detached buffer', 'throws', () => gpuarray.zeros([16], 'float32').set(detached())],
    ['memcpyDtoh of more bytes than the allocation holds', 'throws', () => { const d = driver.memAlloc(16); driver.memcpyDtoh(new Uint8Array(64), d); }],
    ['memcpyDtoh into a smaller buffer copies its length', 'ok', () => { const d = driver.memAlloc(64); driver.memsetD8(d, 5, 64); const h = new Uint8Array(16); driver.memcpyDtoh(h, d); eq(h, new Uint8Array(16).fill(5)); }],
    ['memcpyHtod from a too large buffer', 'throws', () => { const d = driver.memAlloc(16); driver.memcpyHtod(d, new Uint8Array(64)); }],
    ['memsetD32 past the allocation', 'throws', () => { const d = driver.memAlloc(16); driver.memsetD32(d, 1, 1000); }],
    ['memsetD8 with a value out of range', 'throws', () => { const d = driver.memAlloc(16); driver.memsetD8(d, 300, 16); }],
    ['zeros with a negative dimension', 'throws', () => gpuarray.zeros([-1], 'float32')],
    ['zeros with a NaN dimension', 'throws', () => gpuarray.zeros([NaN], 'float32')],
    ['zeros with a fractional dimension', 'throws', () => gpuarray.zeros([2.5], 'float32')],
    ['empty of 2^53 elements', 'throws', () => gpuarray.empty([2 ** 53], 'float32')],
    ['empty larger than the device', 'throws', () => gpuarray.empty([2 ** 45], 'float64')],
    ['reshape to a wrong size', 'throws', () => gpuarray.zeros([6], 'float32').reshape(4, 2)],
    ['index out of bounds', 'throws', () => gpuarray.zeros([6], 'float32').index(6)],
    ['concatenate of mismatched shapes', 'throws', () => gpuarray.concatenate([gpuarray.zeros([2, 3]), gpuarray.zeros([2, 4])], 0)],
    ['bitwise and of float arrays', 'throws', () => gpuarray.zeros([4], 'float32').and(gpuarray.zeros([4], 'float32'))],
    ['out of the wrong shape', 'throws', () => gpuarray.zeros([4], 'float32').add(1, { out: gpuarray.zeros([5], 'float32') })],
    ['out that cannot hold the result type', 'throws', () => gpuarray.zeros([4], 'float32').add(1.5, { out: gpuarray.zeros([4], 'int32') })],
    ['dot of different lengths', 'throws', () => gpuarray.dot(gpuarray.zeros([4]), gpuarray.zeros([5]))],
    ['random.rand with a negative shape', 'throws', () => random.rand([-3])],
    ['block of 2048 threads', 'throws', () => twice(gpuarray.zeros([4], 'float32'), 4, { block: [2048] })],
    ['grid of zero blocks', 'throws', () => twice(gpuarray.zeros([4], 'float32'), 4, { block: [4], grid: [0] })],
    ['dynamic shared memory of 1 GiB', 'throws', () => twice(gpuarray.zeros([4], 'float32'), 4, { block: [4], shared: 2 ** 30 })],
    ['kernel argument of the wrong kind (Symbol)', 'throws', () => twice(Symbol('x'), 4, { block: [4] })],
    ['too few kernel arguments', 'throws', () => twice(gpuarray.zeros([4], 'float32'), { block: [4] })],
    ['int parameter given 2^31', 'throws', () => twice(gpuarray.zeros([4], 'float32'), 2 ** 31, { block: [4] })],
    ['ElementwiseKernel with a missing argument', 'throws', () => new ElementwiseKernel('float *x, float a', 'x[i] = a')(gpuarray.zeros([4], 'float32'))],
    ['ReductionKernel given a non-array', 'throws', () => new ReductionKernel('float32', { neutral: '0', reduceExpr: 'a+b', mapExpr: 'x[i]', arguments: 'const float *x' })(42)],
    ['SourceModule that does not compile', 'throws', () => new SourceModule('__global__ void k() { nope; }')],
    ['moduleFromBuffer of garbage', 'throws', () => driver.moduleFromBuffer(new Uint8Array(1000).fill(0x7f))],
    ['getFunction of a missing name', 'throws', () => mod.getFunction('missing')],
    ['Device(99)', 'throws', () => new driver.Device(99).name()],
    ['useDevice(-1)', 'throws', () => driver.useDevice(-1)],
    ['unregisterHostMemory of a buffer never registered', 'either', () => driver.unregisterHostMemory(new Float32Array(16))],
    ['registerHostMemory twice', 'either', () => { const h = new Float32Array(1024); driver.registerHostMemory(h); driver.registerHostMemory(h); }],
    ['pagelocked array used after unregister', 'ok', () => { const h = driver.pagelockedEmpty([256], 'float32'); h.fill(3); driver.unregisterHostMemory(h); const a = gpuarray.toGpu(h); eq(a.get().slice(0, 2), [3, 3]); }],
    ['1000 getAsync in flight, all dropped to the collector', 'ok', async () => {
      const a = gpuarray.arange(0, 64, 1, 'float32'); const ps = []; for (let i = 0; i < 1000; i++) ps.push(a.getAsync());
      global.gc(); const rs = await Promise.all(ps); if (rs[999][63] !== 63) throw new Error('WRONG'); }],
    ['tidy returning a disposed array', 'either', () => cuda.tidy(() => { const a = gpuarray.zeros([4]); a.dispose(); return a; })],
    // Sorting, products and transforms: the same rules as every other operation.
    ['sort of a disposed array', 'throws', () => { const a = gpuarray.toGpu(new Float32Array([3, 1, 2])); a.dispose(); gpuarray.sort(a); }],
    ['sort into a disposed out', 'throws', () => { const o = gpuarray.zeros([3], 'float32'); o.dispose(); gpuarray.sort(gpuarray.toGpu(new Float32Array([3, 1, 2])), { out: o }); }],
    ['sort into an out of another dtype', 'throws', () => gpuarray.sort(gpuarray.toGpu(new Float32Array([3, 1, 2])), { out: gpuarray.zeros([3], 'int32') })],
    ['sort along axis 5 of a 2-D array', 'throws', () => gpuarray.sort(gpuarray.zeros([2, 3], 'float32'), { axis: 5 })],
    ['sort of a reversed view in place', 'ok', () => {
      const h = Float32Array.from({ length: 5001 }, (_, i) => (i * 7919) % 5003 - 2500); const a = gpuarray.toGpu(h);
      const r = a.index(cuda.slice(null, null, -1)); gpuarray.sort(r, { out: r }); eq(r.get(), sortedCopy(h)); }],
    ['argsort of a transposed view along its strided axis', 'ok', () => {
      const h = Int32Array.from({ length: 12 }, (_, i) => (i * 5) % 7); const t = gpuarray.toGpu(h).reshape(3, 4).T; // t[j][i] = h[4i + j]
      const idx = Array.from(gpuarray.argsort(t, { axis: 1 }).get(), Number);
      for (let j = 0; j < 4; j++) { const row = [h[j], h[4 + j], h[8 + j]]; eq(idx.slice(3 * j, 3 * j + 3), [0, 1, 2].sort((x, y) => row[x] - row[y] || x - y)); } }],
    ['unique of a disposed array', 'throws', () => { const a = gpuarray.toGpu(new Int32Array([1, 1])); a.dispose(); gpuarray.unique(a); }],
    ['unique on a disposed stream', 'throws', () => { const s = new driver.Stream(); s.dispose(); gpuarray.unique(gpuarray.toGpu(new Int32Array([1, 1])), { stream: s }); }],
    ['unique with NODECUDA_UNIQUE_COUNTING=maybe', 'throws', () => {
      process.env.NODECUDA_UNIQUE_COUNTING = 'maybe';
      try { gpuarray.unique(gpuarray.zeros([1 << 16], 'int32')); } finally { delete process.env.NODECUDA_UNIQUE_COUNTING; } }],
    ['unique of a broadcast view with inverse and counts', 'ok', () => {
      const b = gpuarray.toGpu(new Int32Array([5, -1, 5])).broadcastTo([4, 3]);
      const r = gpuarray.unique(b, { returnInverse: true, returnCounts: true });
      eq(r.values.get(), [-1, 5]); eq(Array.from(r.counts.get(), Number), [4, 8]); eq(Array.from(r.inverse.get(), Number), [1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1]); }],
    ['unique of 2^17 int32 in a small range (counted), then with a huge outlier (sorted)', 'ok', () => {
      const h = Int32Array.from({ length: 1 << 17 }, (_, i) => i % 300); eq(gpuarray.unique(gpuarray.toGpu(h)).get(), Array.from({ length: 300 }, (_, i) => i));
      h[77] = 2 ** 31 - 1; const u = gpuarray.unique(gpuarray.toGpu(h)).get(); if (u.length !== 301 || u[300] !== 2 ** 31 - 1 || u[299] !== 299) throw new Error('WRONG'); }],
    ['topk, partition and median of a long row on a stream disposed while they are queued', 'ok', () => {
      const h = Float32Array.from({ length: 100000 }, (_, i) => (i * 7919) % 100003); // distinct integers
      const x = gpuarray.toGpu(h); const s = new driver.Stream();
      spin(20e6, { block: [1], stream: s });
      const t = gpuarray.topk(x, 5, { stream: s }); const p = gpuarray.partition(x, 50000, { stream: s });
      const m = gpuarray.median(x, { stream: s }); const q = gpuarray.quantile(x, [0, 1], { stream: s });
      s.dispose(); driver.Context.synchronize();
      const want = sortedCopy(h);
      eq(t.values.get(), want.slice(-5).reverse()); if (p.get()[50000] !== want[50000]) throw new Error('WRONG partition');
      if (m.item() !== (want[49999] + want[50000]) / 2) throw new Error('WRONG median ' + m.item()); eq(q.get(), [want[0], want[99999]]); }],
    ['partition in place of a broadcast view', 'throws', () => gpuarray.zeros([3], 'float32').broadcastTo([2, 3]).partition(1)],
    ['median into a broadcast out', 'throws', () => gpuarray.median(gpuarray.zeros([2, 3], 'float32'), { axis: 1, out: gpuarray.zeros([1], 'float32').broadcastTo([2]) })],
    ['quantile with a GPUArray q', 'throws', () => gpuarray.quantile(gpuarray.zeros([3], 'float32'), gpuarray.zeros([2], 'float64'))],
    ['median on a disposed stream', 'throws', () => { const s = new driver.Stream(); s.dispose(); gpuarray.median(gpuarray.zeros([3], 'float32'), { stream: s }); }],
    // One element more than a sort handles (uint32 payloads and look-back counts): a broadcast view
    // of 2^32 uint8 (refused before the contiguous copy a sort makes of a view: nothing allocated);
    // topk, partition and the quantiles too.
    ['sort, argsort, unique, topk, partition and quantiles of 2^32 elements', 'ok', () => {
      const big = gpuarray.zeros([1], 'uint8').broadcastTo([2 ** 32]);
      const before = cuda.memory().liveAllocations;
      for (const f of [() => gpuarray.sort(big), () => gpuarray.argsort(big), () => gpuarray.unique(big), () => gpuarray.sort(big, { axis: null }),
        () => gpuarray.topk(big, 5), () => gpuarray.partition(big, 7), () => gpuarray.argpartition(big, 7), () => gpuarray.median(big),
        () => gpuarray.quantile(big, [0.5, 0.9])]) {
        let code = null; try { f(); } catch (e) { code = e instanceof RangeError ? e.code : 'untyped ' + e; }
        if (code !== 'ERR_OUT_OF_RANGE') throw new Error('WRONG ' + code);
      }
      if (cuda.memory().liveAllocations !== before) throw new Error('LEAK'); }],
    ['searchsorted with a sorter of out-of-range indices', 'either', () => {
      const a = gpuarray.toGpu(new Float32Array([1, 2, 3])); gpuarray.searchsorted(a, gpuarray.toGpu(new Float32Array([2.5])), { sorter: gpuarray.toGpu(new BigInt64Array([7n, -9n, 2n ** 40n])) }).get(); }],
    ['searchsorted with a float sorter', 'throws', () => gpuarray.searchsorted(gpuarray.zeros([3]), 1, { sorter: gpuarray.zeros([3]) })],
    ['matmul of a disposed operand', 'throws', () => { const a = gpuarray.ones([4, 4], 'float32'); a.dispose(); gpuarray.matmul(a, gpuarray.ones([4, 4], 'float32')); }],
    ['matmul again after an operand of a memoized plan was disposed', 'throws', () => {
      const a = gpuarray.ones([8, 8], 'float32'), b = gpuarray.ones([8, 8], 'float32'), o = gpuarray.empty([8, 8], 'float32');
      gpuarray.matmul(a, b, { out: o }); gpuarray.matmul(a, b, { out: o }); b.dispose(); gpuarray.matmul(a, b, { out: o }); }],
    ['matmul into an out that is one of its operands', 'ok', () => {
      const a = gpuarray.toGpu(new Float32Array([1, 2, 3, 4])).reshape(2, 2), b = gpuarray.toGpu(new Float32Array([5, 6, 7, 8])).reshape(2, 2);
      gpuarray.matmul(a, b, { out: a }); eq(a.get(), [19, 22, 43, 50]); }],
    ['matmul of int32 matrices', 'throws', () => gpuarray.matmul(gpuarray.ones([2, 2], 'int32'), gpuarray.ones([2, 2], 'int32'))],
    ['matmul with inner dimensions 3 and 4', 'throws', () => gpuarray.matmul(gpuarray.ones([2, 3]), gpuarray.ones([4, 2]))],
    ['fft of a disposed array', 'throws', () => { const a = gpuarray.zeros([8], 'complex64'); a.dispose(); fft.fft(a); }],
    ['fft with n = 0', 'throws', () => fft.fft(gpuarray.zeros([8], 'complex64'), { n: 0 })],
    ['fft along axis 3 of a 1-D array', 'throws', () => fft.fft(gpuarray.zeros([8], 'complex64'), { axis: 3 })],
    ['fft with norm "sideways"', 'throws', () => fft.fft(gpuarray.zeros([8], 'complex64'), { norm: 'sideways' })],
    ['irfft of a disposed array after its plan was cached', 'throws', () => {
      const x = gpuarray.zeros([9], 'complex64'); fft.irfft(x).dispose(); x.dispose(); fft.irfft(x); }],
    ['fft on a stream disposed with a kernel pending', 'ok', () => {
      const s = new driver.Stream(); spin(20e6, { block: [1], stream: s }); const y = fft.fft(gpuarray.ones([64], 'complex64'), { stream: s }); s.dispose();
      driver.Context.synchronize(); const r = y.get(); eq(r.slice(0, 4), [64, 0, 0, 0]); }], // interleaved re, im
    // Reductions and scans.
    ['sum of a disposed array', 'throws', () => { const a = gpuarray.ones([8], 'float32'); a.dispose(); gpuarray.sum(a); }],
    ['sum over axis 2 of a 2-D array', 'throws', () => gpuarray.ones([2, 3], 'float32').sum({ axis: 2 })],
    ['sum over the same axis twice', 'throws', () => gpuarray.ones([2, 3], 'float32').sum({ axis: [1, -1] })],
    ['sum into an out of the wrong shape', 'throws', () => gpuarray.ones([2, 3], 'float32').sum({ axis: 1, out: gpuarray.zeros([3], 'float32') })],
    ['sum into a disposed out', 'throws', () => { const o = gpuarray.zeros([2], 'float32'); o.dispose(); gpuarray.ones([2, 3], 'float32').sum({ axis: 1, out: o }); }],
    ['sum over axis 0 into an out that is a row of its input', 'ok', () => {
      const a = gpuarray.toGpu(new Float32Array([1, 2, 3, 4, 5, 6])).reshape(2, 3); a.sum({ axis: 0, out: a.index(0) }); eq(a.get(), [5, 7, 9, 4, 5, 6]); }],
    ['max of an empty array', 'throws', () => gpuarray.max(gpuarray.zeros([0], 'float32'))],
    ['cumsum of a disposed array', 'throws', () => { const a = gpuarray.ones([8], 'float32'); a.dispose(); gpuarray.cumsum(a); }],
    ['cumsum into itself', 'ok', () => { const a = gpuarray.toGpu(new Int32Array([1, 2, 3, 4])); gpuarray.cumsum(a, { out: a }); eq(a.get(), [1, 3, 6, 10]); }],
    ['cumsum into a reversed view of itself', 'ok', () => {
      const a = gpuarray.toGpu(new Int32Array([1, 2, 3, 4])); gpuarray.cumsum(a, { out: a.index(cuda.slice(null, null, -1)) }); eq(a.get(), [10, 6, 3, 1]); }],
    ['cumsum along axis -3 of a 2-D array', 'throws', () => gpuarray.cumsum(gpuarray.ones([2, 2], 'float32'), { axis: -3 })],
    ['ReductionKernel on a stream disposed with a kernel pending', 'ok', () => {
      const k = new ReductionKernel('float32', { neutral: '0', reduceExpr: 'a+b', mapExpr: 'x[i]', arguments: 'const float *x' });
      const s = new driver.Stream(); spin(20e6, { block: [1], stream: s }); const r = k(gpuarray.ones([1 << 20], 'float32'), { stream: s }); s.dispose();
      driver.Context.synchronize(); if (r.get()[0] !== 1 << 20) throw new Error('WRONG ' + r.get()[0]); }],
    ['a kernel writing in place while the same array is read by get()', 'ok', () => { const a = gpuarray.toGpu(new Float32Array([1, 2, 3, 4])); twice(a, 4, { block: [4] }); eq(a.get(), [2, 4, 6, 8]); }],
  ];
  (async () => {
    const results = [];
    for (const [name, expect, fn] of S) {
      let outcome;
      try { await fn(); outcome = { ok: true }; }
      catch (e) {
        const typed = (e instanceof TypeError || e instanceof RangeError || e instanceof cuda.CudaError || e instanceof cuda.NvrtcError ||
          e instanceof cuda.CublasError || e instanceof cuda.CufftError) && typeof e.code === 'string';
        outcome = { ok: false, typed, error: e && e.name, code: e && e.code, message: String(e && e.message).slice(0, 200) };
      }
      results.push({ name, expect, ...outcome });
    }
    // The process and its context still work.
    const health = gpuarray.arange(0, 1000, 1, 'float32').mul(2).sum().item();
    console.log(JSON.stringify({ ok: true, results, health }));
  })().catch((e) => console.log(JSON.stringify({ ok: false, error: String(e && e.stack) })));
`;

interface Outcome { name: string; expect: 'ok' | 'throws' | 'either'; ok: boolean; typed?: boolean; error?: string; code?: string; message?: string }

describeGpu('hostile sweep on the GPU', () => {
  test('every scenario ends normally or with a typed error; the context stays healthy', () => {
    const { status, out, stderr } = runChild(SCRIPT, ['--expose-gc']);
    if (!out.ok) throw new Error(`child failed (status ${status}): ${String(out.error ?? '')}\n${stderr}`);
    expect(status).toBe(0);
    const bad = (out.results as Outcome[]).filter((r) =>
      (r.expect === 'ok' && !r.ok) || (r.expect === 'throws' && r.ok) || (!r.ok && !r.typed));
    expect(bad).toEqual([]);
    expect(out.health).toBe(999000);
  });
});
