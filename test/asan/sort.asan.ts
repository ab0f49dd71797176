/**
 * sort/argsort/unique/searchsorted end to end against the CPU driver double (NVRTC real, launches
 * no-ops): every dtype, axes 0/1/2/-1/null, transposed, broadcast, empty, 0-d, out, in place,
 * streams: kernel parameters packed to each kernel's declared size (the double checks it), shapes
 * and dtypes of the results, and no allocation left behind. unique's count read back (a uint32) is
 * stubbed to 3 (the double runs no kernel, so the device holds no count).
 */
import { checkBuilt, expectClean, runFake } from './fake';

beforeAll(checkBuilt);

test('sorting: every dtype and layout launches with well-formed parameters and frees its temporaries', () => {
  const r = runFake(`
    const cuda = require(process.env.NODECUDA_DIST);
    const { gpuarray, DTYPES, GPUArray } = cuda;
    const item = GPUArray.prototype.item;
    GPUArray.prototype.item = function () { return this.dtype.name === 'uint32' && this.size === 1 ? 3 : item.call(this); };
    const out = { ok: 0, errs: [], dtypes: Object.keys(DTYPES).length };
    const run = (label, f) => { try { f(); out.ok++; } catch (e) { out.errs.push(label + ': ' + e.code + ' ' + e.message.slice(0, 200)); } };
    const eq = (x, y, what) => { if (JSON.stringify(x) !== JSON.stringify(y)) throw new Error(what + ' ' + JSON.stringify(x)); };
    global.gc();
    const before = cuda.memory().liveAllocations;
    cuda.tidy(() => {
      for (const d of Object.keys(DTYPES)) {
        const a = gpuarray.zeros([5, 7, 3], d);
        for (const axis of [0, 1, 2, -1, null, undefined]) {
          run(d + ' sort ' + axis, () => eq([...gpuarray.sort(a, { axis }).shape], axis === null ? [105] : [5, 7, 3], 'shape'));
          run(d + ' argsort ' + axis, () => eq(gpuarray.argsort(a, { axis }).dtype.name, 'int64', 'dtype'));
        }
        run(d + ' transposed', () => gpuarray.sort(a.transpose([2, 0, 1])));
        run(d + ' large', () => { gpuarray.sort(gpuarray.zeros([100003], d)); gpuarray.argsort(gpuarray.zeros([100003], d)); });
        run(d + ' out', () => { const o = gpuarray.empty([5, 7, 3], d); eq(gpuarray.sort(a, { axis: 1, out: o }) === o, true, 'out'); });
        run(d + ' in place', () => { eq(a.sort() === a, true, 'this'); a.sort({ axis: 0 }); });
        run(d + ' broadcast', () => gpuarray.sort(gpuarray.zeros([3], d).broadcastTo([4, 3]), { axis: 0 }));
        run(d + ' unique', () => {
          eq([...gpuarray.unique(a).shape], [3], 'unique');
          const u = gpuarray.unique(a, { returnIndex: true, returnInverse: true, returnCounts: true });
          eq([u.values.shape, u.indices.shape, u.inverse.shape, u.counts.shape].map((s) => [...s]), [[3], [3], [5, 7, 3], [3]], 'shapes');
        });
        run(d + ' searchsorted', () => {
          eq([...gpuarray.searchsorted(gpuarray.zeros([10], d), a).shape], [5, 7, 3], 'shape');
          gpuarray.searchsorted(gpuarray.zeros([10], d), a, { side: 'right', sorter: gpuarray.zeros([10], 'int64') });
        });
        run(d + ' empty, 0-d, 1', () => {
          gpuarray.sort(gpuarray.zeros([0], d)); gpuarray.argsort(gpuarray.zeros([3, 0], d), { axis: 0 });
          gpuarray.sort(gpuarray.zeros([], d), { axis: null }); gpuarray.unique(gpuarray.zeros([0], d), { returnCounts: true });
          gpuarray.sort(gpuarray.zeros([1], d));
        });
      }
      run('scalars', () => { gpuarray.searchsorted(gpuarray.zeros([10], 'int32'), 3); gpuarray.searchsorted(gpuarray.zeros([10], 'float32'), 2.5); });
      run('stream', () => {
        const s = new cuda.driver.Stream();
        gpuarray.sort(gpuarray.zeros([5000], 'float32'), { stream: s });
        gpuarray.unique(gpuarray.zeros([5000], 'int32'), { stream: s, returnCounts: true });
        s.synchronize();
      });
    });
    cuda.driver.Context.synchronize();
    global.gc();
    out.leaked = cuda.memory().liveAllocations - before;
    console.log(JSON.stringify(out));
  `);
  expectClean(r);
  expect(r.out.errs).toEqual([]);
  expect(r.out.ok).toBe((r.out.dtypes as number) * 20 + 2); // 20 cases a dtype, 2 more
  expect(r.out.leaked).toBe(0);
});
