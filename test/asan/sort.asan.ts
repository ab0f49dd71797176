/**
 * sort/argsort/unique/searchsorted end to end against the CPU driver double (NVRTC real, launches
 * no-ops): every dtype, axes 0/1/2/-1/null, transposed, broadcast, empty, 0-d, out, in place,
 * streams: kernel parameters packed to each kernel's declared size (the double checks it), shapes
 * and dtypes of the results, and no allocation left behind. The double runs no kernel, so the
 * device holds nothing unique reads back: its count (a uint32) is stubbed to 3, and the range of
 * its counting path (the min and max, two int64 or uint64; for 4- and 8-byte integers the sort's
 * probe, three uint64: least and greatest key, count) to [0, 1], valid for every integer dtype and
 * bool, which takes that path for 2^16 elements or more (counted: every such call reads the range
 * once); the count read after a range is 2 (the most two values can have).
 */
import { checkBuilt, expectClean, runFake } from './fake';

beforeAll(checkBuilt);

test('sorting: every dtype and layout launches with well-formed parameters and frees its temporaries', () => {
  const r = runFake(`
    const cuda = require(process.env.NODECUDA_DIST);
    const { gpuarray, DTYPES, GPUArray } = cuda;
    const item = GPUArray.prototype.item;
    let count = 3;
    GPUArray.prototype.item = function () {
      if (this.dtype.name !== 'uint32' || this.size !== 1) return item.call(this);
      const k = count;
      count = 3;
      return k;
    };
    const get = GPUArray.prototype.get;
    let ranges = 0;
    GPUArray.prototype.get = function (o) {
      // The min/max kernel's [min, max] (1- and 2-byte dtypes, bool), or the sort's probe of 4- and
      // 8-byte integers, uint64 [least key, greatest key, run count]: a range of two values either way.
      const probe = this.size === 3 && this.dtype.name === 'uint64';
      if (o !== undefined || !(probe || (this.size === 2 && this.dtype.name.endsWith('int64')))) return get.call(this, o);
      ranges++;
      count = 2;
      return new this.dtype.array(probe ? [0n, 1n, 0n] : [0n, 1n]);
    };
    const countable = Object.keys(DTYPES).filter((d) => 'biu'.includes(DTYPES[d].kind)).length;
    const out = { ok: 0, errs: [], dtypes: Object.keys(DTYPES).length, countable };
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
        run(d + ' unique of 100002 (integers and bool: counts)', () => {
          const big = gpuarray.zeros([100002], d);
          const k = 'biu'.includes(DTYPES[d].kind) ? 2 : 3;
          eq([...gpuarray.unique(big).shape], [k], 'unique');
          const u = gpuarray.unique(big.reshape([6, 16667, 1]), { returnIndex: true, returnInverse: true, returnCounts: true });
          eq([u.values.shape, u.indices.shape, u.inverse.shape, u.counts.shape].map((s) => [...s]), [[k], [k], [6, 16667, 1], [k]], 'shapes');
          eq([u.values.dtype.name, u.indices.dtype.name, u.inverse.dtype.name, u.counts.dtype.name], [d, 'int64', 'int64', 'int64'], 'dtypes');
          const inv = gpuarray.unique(big, { returnInverse: true });
          eq(Object.keys(inv).filter((k) => k !== 'values' && inv[k] !== undefined), ['inverse'], 'keys');
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
        gpuarray.unique(gpuarray.zeros([70000], 'int32'), { stream: s, returnInverse: true });
        s.synchronize();
      });
    });
    cuda.driver.Context.synchronize();
    global.gc();
    out.leaked = cuda.memory().liveAllocations - before;
    out.ranges = ranges;
    console.log(JSON.stringify(out));
  `);
  expectClean(r);
  expect(r.out.errs).toEqual([]);
  expect(r.out.ok).toBe((r.out.dtypes as number) * 21 + 2); // 21 cases a dtype, 2 more
  expect(r.out.countable).toBe(9); // bool and the 8 integer dtypes
  expect(r.out.ranges).toBe((r.out.countable as number) * 3 + 1); // three counted uniques each, one on the stream
  expect(r.out.leaked).toBe(0);
});

test('unique of a 4-byte integer array whose sort buffers do not fit: the range is read first instead (no sort)', () => {
  // 100 MiB of device memory: the 64 MiB input fits, the probe's sort (values and two key buffers,
  // 192 MiB) does not. The double runs no kernel: the min/max read is stubbed to [0, 1] (counted),
  // and a probe read would be [0, 1, 0].
  const script = `
    const cuda = require(process.env.NODECUDA_DIST);
    const { gpuarray, GPUArray } = cuda;
    const get = GPUArray.prototype.get, item = GPUArray.prototype.item;
    let probes = 0, ranges = 0, count = 3;
    GPUArray.prototype.item = function () { return this.dtype.name === 'uint32' && this.size === 1 ? count : item.call(this); };
    GPUArray.prototype.get = function (o) {
      if (o === undefined && this.size === 3 && this.dtype.name === 'uint64') { probes++; count = 2; return new BigUint64Array([0n, 1n, 0n]); }
      if (o === undefined && this.size === 2 && this.dtype.name === 'int64') { ranges++; count = 2; return new BigInt64Array([0n, 1n]); }
      return get.call(this, o);
    };
    const out = {};
    cuda.tidy(() => {
      out.small = [...gpuarray.unique(gpuarray.zeros([1 << 16], 'int32')).shape]; // fits: probed
      out.smallReads = [probes, ranges];
      const big = gpuarray.zeros([1 << 24], 'int32');
      out.big = [...gpuarray.unique(big).shape];
      out.bigReads = [probes, ranges];
    });
    global.gc();
    out.leaked = cuda.memory().liveAllocations;
    console.log(JSON.stringify(out));
  `;
  const r = runFake(script, { FAKECUDA_MEM_MB: '100' });
  expectClean(r);
  expect(r.out).toEqual({ small: [2], smallReads: [1, 0], big: [2], bigReads: [1, 1], leaked: 0 });
});

// topk, sort, partition and the quantiles with their device allocations refused from each one on
// (the short-row kernel, topk's, partition's and the median's selection of long rows and the radix
// sort, the axis moved or not): CUDA_ERROR_OUT_OF_MEMORY or a result, and nothing left allocated
// once the results are disposed.
test('topk, sort, partition and the quantiles free what they allocated when an allocation fails', () => {
  const r = runFake(`
    const cuda = require(process.env.NODECUDA_DIST);
    const { gpuarray } = cuda;
    const { native } = require(process.env.NODECUDA_DIST + '/cuda/native');
    const real = native.memAlloc;
    const calls = [
      () => gpuarray.topk(x1, 3), () => gpuarray.topk(x1, 3, { axis: 0 }), () => gpuarray.topk(x2, 3), () => gpuarray.topk(x2, 3, { axis: null }),
      () => gpuarray.topk(x2, 2000), () => gpuarray.argpartition(x2, 100), () => gpuarray.sort(x1, { axis: 0 }), () => gpuarray.argpartition(x2, 1, { axis: 0 }),
      () => gpuarray.median(x2, { axis: 1 }), () => gpuarray.quantile(x2, [0.1, 0.5, 0.9], { axis: 0 }), () => gpuarray.nanmedian(x1),
    ];
    let x1, x2;
    const out = { refused: [], leaked: [], ok: 0 };
    global.gc();
    const before = cuda.memory().liveAllocations;
    x1 = gpuarray.zeros([6, 100], 'float32');   // short rows
    x2 = gpuarray.zeros([3, 5000], 'float32');  // topk's selection (k <= 1250) and partition's, else the radix sort
    for (const f of calls) { const r = f(); for (const v of Object.values(r.values ? r : { r })) v.dispose(); } // kernels, workspaces made
    const base = cuda.memory().liveAllocations;
    calls.forEach((f, c) => {
      for (let refuse = 0; ; refuse++) {
        let n = 0, hit = false;
        native.memAlloc = function (...a) { // refuses the refuse-th allocation and every later one (a retry too)
          if (n++ >= refuse) { hit = true; throw new cuda.CudaError('out of memory', { code: 'CUDA_ERROR_OUT_OF_MEMORY', status: 2, call: 'cuMemAllocAsync' }); }
          return real.apply(this, a);
        };
        let r;
        try { r = f(); } catch (e) { if (e.code !== 'CUDA_ERROR_OUT_OF_MEMORY') out.refused.push(c + ': ' + e.code + ' ' + e.message); }
        native.memAlloc = real;
        if (r) { out.ok++; for (const v of Object.values(r.values ? r : { r })) v.dispose(); }
        const live = cuda.memory().liveAllocations - base;
        if (live !== 0) out.leaked.push([c, refuse, live]);
        if (!hit) break;
      }
    });
    x1.dispose(); x2.dispose();
    console.log(JSON.stringify({ ...out, before: before >= 0 }));
  `);
  expectClean(r);
  expect(r.out).toEqual({ refused: [], leaked: [], ok: 11, before: true }); // ok: each call once, when nothing is refused
});
