/**
 * Hostile arguments found by a review (2026-11-28), on the CPU driver double (test/fakecuda): an
 * options getter that disposes the input (sort, argsort, unique, searchsorted read their options
 * before they check the input), holes and non-arrays where axes are expected, an fftfreq too long
 * for the host, a non-contiguous `out` of the wrong dtype for an N-D dot/inner, a JS number past
 * int64 searched in an integer array, and the plan cache limit's message. Every error is typed,
 * nothing stays allocated, and the process goes on working. Kernels do not run on the double: no
 * values are checked here (test/91 checks searchsorted's on a GPU).
 */
import { checkBuilt, expectClean, runFake } from './fake';

beforeAll(checkBuilt);

test('hostile arguments: typed errors before any launch, nothing leaked', () => {
  const r = runFake(`
    const nc = require(process.env.NODECUDA_DIST);
    const { gpuarray: g, linalg, fft } = nc;
    const err = (f) => { try { f(); return null; } catch (e) { return { name: e.name, code: e.code, message: String(e.message) }; } };
    const live = () => nc.memory().liveAllocations;
    const out = {};
    const keep = [];
    const k = (x) => (keep.push(x), x);
    // A getter of an option disposes the input: the call sees a disposed array, not freed memory.
    const disposing = (name) => {
      const a = k(g.toGpu(new Float32Array([3, 1, 2, 5])));
      const opts = { get stream() { a.dispose(); return null; } };
      const before = live();
      const e = err(() => name === 'searchsorted' ? g.searchsorted(a, 2, opts) : g[name](a, opts));
      return { e, leaked: live() - before + 1 }; // the getter freed the input
    };
    for (const name of ['sort', 'argsort', 'unique', 'searchsorted']) out['getter_' + name] = disposing(name);
    const m = k(g.zeros([3, 4], 'float32'));
    const x3 = k(g.zeros([2, 3, 4], 'float64')), y3 = k(g.zeros([5, 4, 6], 'float64')), w = k(g.zeros([5, 4], 'float64'));
    const oi = k(g.zeros([6, 5, 3, 2], 'int32')).T, ob = k(g.zeros([6, 5, 3, 2], 'bool')).T, oj = k(g.zeros([5, 3, 2], 'int32')).T;
    const v = k(g.zeros([4], 'float32'));
    const z = k(g.zeros([4], 'float32')), z1 = k(g.zeros([1], 'float32')), b = k(g.zeros([8, 4], 'float32'));
    const before = live(); // every array the calls below get is made (and kept) before it
    out.normAxis = [1n, true, {}, 'x', [, 1]].map((axis) => err(() => linalg.norm(m, 2, { axis })));
    out.freq = [err(() => fft.fftfreq(2 ** 40)), err(() => fft.rfftfreq(2 ** 40))];
    // n past the safe integers: named as n, with the bound (it read "shape[0] must be a non-negative integer").
    out.fftN = ['fft', 'ifft', 'rfft', 'irfft'].map((f) => err(() => fft[f](m, { n: 2 ** 53 })));
    out.holes = [
      err(() => fft.fftshift(m, { axes: [, 1] })), err(() => fft.fft2(m, { axes: [, 1] })),
      err(() => fft.irfftn(m, { axes: [, 1] })), err(() => fft.fftn(m, { s: [, 4] })),
    ];
    out.dotOut = [err(() => linalg.dot(x3, y3, { out: oi })), err(() => linalg.dot(x3, y3, { out: ob })),
      err(() => linalg.inner(x3, w, { out: oj }))];
    out.uniqueAxis = [err(() => g.unique(m, { axis: 0 })), err(() => k(g.unique(m, { axis: null })))];
    out.cacheLimit = [err(() => fft.setPlanCacheLimit(-1)), err(() => fft.setPlanCacheLimit(0))];
    // An option another library reads is refused, not dropped (torch's descending would sort ascending).
    out.unknownOpts = [err(() => g.sort(v, { descending: true })), err(() => g.argsort(v, { out: v })), err(() => v.sort({ out: v })),
      err(() => g.unique(v, { sorted: false })), err(() => g.searchsorted(v, 1, { sorter: undefined, right: true })),
      err(() => g.sort(v, { kind: 'bogus' })), err(() => g.argsort(v, { kind: 1 }))];
    // An out where none is taken is refused, and a broadcast view (stride 0) is not written.
    out.outs = [err(() => fft.fft(v, { out: v })), err(() => fft.fft2(m, { out: m })), err(() => g.take(v, [0], 0, { out: v })),
      err(() => g.add(b, 1, { out: z.broadcastTo([8, 4]) })), err(() => z.broadcastTo([8, 4]).set(b)),
      err(() => g.sum(b, { axis: 1, out: z1.broadcastTo([8]) })), err(() => g.cumsum(b, { axis: 0, out: z.broadcastTo([8, 4]) }))];
    // NumPy keywords that change the result are refused, not dropped.
    out.numpyKw = [err(() => g.add(v, 1, { out: v, where: v })), err(() => v.mul(2, { dtype: 'float64' })), err(() => g.sum(v, { initial: 5 })),
      err(() => g.max(v, { where: v })), err(() => g.var(v, { correction: 1 })), err(() => g.argmax(v, { out: v, dtype: 'int64' })),
      err(() => g.cumsum(v, { where: v })), err(() => nc.cumath.sin(v, { dtype: 'float64' })), err(() => nc.cumath.modf(v, { fastMath: true })),
      err(() => g.apply('add', [v, 1], null).dispose()), err(() => g.sum(v, null).dispose()), err(() => nc.cumath.sin(v, null).dispose()),
      err(() => nc.cumath.modf(v, null).forEach((x) => x.dispose()))];
    out.leaked = live() - before;
    // NumPy's kinds and unknown keys set to undefined run.
    out.kinds = ['stable', 'quicksort', 'mergesort', 'heapsort', null, undefined].map((kind) => err(() => k(g.sort(v, { kind, descending: undefined }))));
    // Past int64, a JS number is searched as the double it is (float64), not stored as int64.
    const i8 = k(g.zeros([4], 'int8'));
    const s = [2 ** 64, -(2 ** 64), 2 ** 63].map((v) => err(() => k(g.searchsorted(i8, v))));
    out.bigNumber = s;
    out.after = [...g.sort(k(g.zeros([5], 'float32'))).shape];
    console.log(JSON.stringify(out));
  `);
  expectClean(r);
  const o = r.out as Record<string, unknown>;
  for (const name of ['sort', 'argsort', 'unique', 'searchsorted']) {
    expect([name, o['getter_' + name]]).toEqual([name, { e: expect.objectContaining({ name: 'TypeError', code: 'ERR_USE_AFTER_DISPOSE' }), leaked: 0 }]);
  }
  for (const e of o.normAxis as unknown[]) expect(e).toMatchObject({ name: 'TypeError' });
  expect((o.normAxis as Array<{ code: string }>).map((e) => e.code)).toEqual(['ERR_INVALID_ARG_TYPE', 'ERR_INVALID_ARG_TYPE',
    'ERR_INVALID_ARG_TYPE', 'ERR_INVALID_ARG_TYPE', 'ERR_INVALID_ARG_TYPE']);
  for (const e of o.freq as unknown[]) expect(e).toMatchObject({ name: 'RangeError', code: 'ERR_OUT_OF_RANGE' });
  expect(o.fftN).toEqual(['fft', 'ifft', 'rfft', 'irfft'].map((f) => ({ name: 'RangeError', code: 'ERR_OUT_OF_RANGE',
    message: `${f}: n must be at most 2^53 - 1. Received 9007199254740992` })));
  for (const e of o.holes as unknown[]) expect(e).toMatchObject({ name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
  for (const e of o.dotOut as unknown[]) expect(e).toMatchObject({ name: 'TypeError', code: 'ERR_INVALID_DTYPE' });
  expect(o.cacheLimit).toEqual([expect.objectContaining({ name: 'RangeError', code: 'ERR_OUT_OF_RANGE', message: expect.stringContaining('at least 1') }),
    expect.objectContaining({ name: 'RangeError', code: 'ERR_OUT_OF_RANGE', message: expect.stringContaining('at least 1') })]);
  expect(o.bigNumber).toEqual([null, null, null]);
  // NumPy's unique with an axis finds unique rows: refused here rather than flattened silently.
  expect(o.uniqueAxis).toEqual([expect.objectContaining({ name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' }),
    expect.objectContaining({ name: 'RangeError', code: 'ERR_OUT_OF_RANGE' })]); // axis null runs (the double's count is invalid)
  expect(o.unknownOpts).toEqual([
    ...['sort: unknown option "descending"', 'argsort: unknown option "out"', 'GPUArray.sort(): unknown option "out"',
      'unique: unknown option "sorted"', 'searchsorted: unknown option "right"'].map((m) => expect.objectContaining({
      name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE', message: expect.stringContaining(m) })),
    ...['sort', 'argsort'].map((f) => expect.objectContaining({ name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE',
      message: expect.stringMatching(new RegExp(`^${f}: kind must be one of 'stable', 'quicksort', 'mergesort', 'heapsort'`)) }))]);
  expect(o.outs).toEqual([
    ...['fft: unknown option "out"', 'fft2: unknown option "out"', 'take: unknown option "out"'].map((m) => expect.objectContaining({
      name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE', message: expect.stringContaining(m) })),
    ...['add', 'set()', 'sum', 'cumsum'].map((f) => expect.objectContaining({ name: 'TypeError', code: 'ERR_READ_ONLY',
      message: expect.stringContaining(`${f}: the output is a broadcast view (stride 0 along axis 0)`) }))]);
  expect(o.numpyKw).toEqual([['add', 'where'], ['mul', 'dtype'], ['sum', 'initial'], ['max', 'where'], ['var', 'correction'], ['argmax', 'dtype'],
    ['cumsum', 'where'], ['cumath.sin', 'dtype'], ['cumath.modf', 'fastMath']].map(([f, k]) => expect.objectContaining({
    name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE', message: expect.stringContaining(`${f}: unknown option "${k}"`) })).concat([null, null, null, null]));
  expect(o.kinds).toEqual([null, null, null, null, null, null]);
  expect(o.leaked).toBe(0);
  expect(o.after).toEqual([5]);
});

test('a stream of another context: TypeError ERR_DEVICE_MISMATCH at the launch, not a deferred CudaError', () => {
  const r = runFake(`
    const { driver, gpuarray, ElementwiseKernel } = require(process.env.NODECUDA_DIST);
    const a = gpuarray.zeros([3], 'float32');
    new driver.Device(0).makeContext();
    let s;
    try { s = new driver.Stream(); } finally { driver.Context.pop(); }
    const k = new ElementwiseKernel('float *x', 'x[i] = x[i] * 2', 'twice_other_ctx');
    let e = null;
    try { k(a, { stream: s }); } catch (x) { e = { name: x.name, code: x.code, message: x.message }; }
    k(a);
    driver.Context.synchronize();
    s.dispose();
    console.log(JSON.stringify({ e }));
  `);
  expectClean(r);
  expect((r.out as { e: unknown }).e).toEqual({ name: 'TypeError', code: 'ERR_DEVICE_MISMATCH',
    message: expect.stringMatching(/^launch: the stream belongs to another context of device 0/) });
});

test('comparisons with a JS integer: the plan and scalar each call gets (exact mixed-sign, ±2^65 only against integers)', () => {
  const r = runFake(`
    const path = require('path');
    const nc = require(process.env.NODECUDA_DIST);
    const eng = require(path.join(process.env.NODECUDA_DIST, 'engine', 'elementwise.js'));
    const run = eng.runElementwise;
    let last;
    eng.runElementwise = function (spec, shape, outs, ins, ...rest) { last = { spec, ins }; return run.call(this, spec, shape, outs, ins, ...rest); };
    const g = nc.gpuarray;
    const seen = (f) => { f().dispose(); const s = last.ins.find((i) => i.scalar);
      return [last.spec.body, last.spec.inputs.map((i) => i.compute.name).join(','), String(s.value)]; };
    const i64 = g.toGpu(new BigInt64Array([2n ** 63n - 1n])), f32 = g.toGpu(new Float32Array([2 ** 66]));
    // The order matters: a plan made for one range of the scalar must not serve another.
    const out = [seen(() => i64.lt(2n ** 63n)), seen(() => i64.lt(2n ** 70n)), seen(() => i64.lt(2n ** 63n)), seen(() => i64.lt(5)),
      seen(() => i64.gt(-(2n ** 63n) - 1n)), seen(() => f32.lt(2n ** 70n)), seen(() => f32.eq(1e30))];
    i64.dispose(); f32.dispose();
    console.log(JSON.stringify({ out }));
  `);
  expectClean(r);
  const exact = ['r0 = x0 < 0 ? true : ((unsigned long long)x0 < x1);', 'int64,uint64', '9223372036854775808'];
  expect(r.out.out).toEqual([exact, ['r0 = x0 < x1;', 'float64,float64', String(2 ** 65)], exact, ['r0 = x0 < x1;', 'int64,int64', '5'],
    ['r0 = x0 > x1;', 'float64,float64', String(-(2 ** 65))], ['r0 = x0 < x1;', 'float32,float32', '1180591620717411303424'],
    ['r0 = x0 == x1;', 'float32,float32', '1e+30']]);
});

test('broadcast outputs of generic kernels and random fills are refused before anything runs; dot and subset* check options', () => {
  const r = runFake(`
    const nc = require(process.env.NODECUDA_DIST);
    const { gpuarray: g, ElementwiseKernel, random } = nc;
    const err = (f) => { try { f(); return null; } catch (e) { return { name: e.name, code: e.code, message: String(e.message) }; } };
    const a = g.zeros([4], 'float32'), one = g.zeros([1], 'float32'), idx = g.zeros([2], 'int64');
    const k = ElementwiseKernel.generic('T x', 'T z', 'z = x + 1', 'inc_bcast');
    const before = nc.memory().liveAllocations;
    const out = [err(() => k(a, one.broadcastTo([4]))), err(() => k(a, a.index('0:1').broadcastTo([4]))),
      err(() => new random.Generator({ seed: 1 }).fillUniform(one.broadcastTo([4]))), err(() => g.subsetSum(idx, a, { where: a })), err(() => g.dot(a, a, { axis: 0 })),
      err(() => g.any(a, { dtype: 'int32' })), err(() => a.all({ dtype: 'float32' })), err(() => g.subsetMin(idx, a, { dtype: 'float64' }))];
    // any/all take dtype 'bool' (their result's); subsetSum and subsetDot take an accumulation dtype.
    const taken = [err(() => g.any(a, { dtype: 'bool' }).dispose()), err(() => g.subsetSum(idx, a, { dtype: 'float64' }).dispose()),
      err(() => g.subsetDot(idx, a, a, { dtype: 'float64' }).dispose())];
    nc.driver.Context.synchronize();
    console.log(JSON.stringify({ out, taken, leaked: nc.memory().liveAllocations - before }));
  `);
  expectClean(r);
  const o = r.out as { out: unknown[]; taken: unknown[]; leaked: number };
  expect(o.leaked).toBe(0);
  expect(o.taken).toEqual([null, null, null]);
  expect(o.out.slice(0, 3)).toEqual([0, 1, 2].map(() => expect.objectContaining({ name: 'TypeError', code: 'ERR_READ_ONLY' })));
  expect(o.out.slice(3)).toEqual(['subsetsum: unknown option "where"', 'dot: unknown option "axis"', 'any returns bool and does not take another dtype',
    'all returns bool and does not take another dtype', 'min does not take a dtype'].map((m) => expect.objectContaining({
    name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE', message: expect.stringContaining(m) })));
});

test('options other libraries use are refused by name before anything is allocated: joins, *Like, array methods, linalg, fftshift, random, kernel calls', () => {
  const r = runFake(`
    (async () => {
      const nc = require(process.env.NODECUDA_DIST);
      const { gpuarray: g, linalg, fft, random, ElementwiseKernel, InclusiveScanKernel, GenericScanKernel } = nc;
      const fail = (e) => ({ name: e.name, code: e.code, message: String(e.message) });
      const err = (f) => { try { f(); return null; } catch (e) { return fail(e); } };
      const rejected = async (p) => { try { await p; return null; } catch (e) { return fail(e); } };
      const live = () => nc.memory().liveAllocations;
      const v = g.zeros([4], 'float32'), m = g.zeros([2, 2], 'float32');
      const k = ElementwiseKernel.generic('T x', 'T z', 'z = x + 1', 'opt_names');
      const scan = new InclusiveScanKernel('float32', 'a + b');
      const gscan = new GenericScanKernel({ dtype: 'int32', arguments: 'const float *x, int *y', inputExpr: 'x[i] > 0 ? 1 : 0',
        scanExpr: 'a + b', neutral: 0, outputStatement: 'y[i] = item;' });
      const y = g.zeros([4], 'int32');
      const gen = new random.Generator({ seed: 1 });
      const before = live(); // every array the calls below could get is made before it
      const refused = [
        err(() => g.concatenate([v, v], 0, { out: v })), err(() => g.stack([v, v], 0, { dtype: 'float64' })),
        err(() => g.put(v, [0], v, { mode: 'clip' })), err(() => g.emptyLike(v, 'float32', { order: 'K' })),
        err(() => g.zerosLike(v, undefined, { requires_grad: true })), err(() => g.onesLike(v, undefined, { subok: false })),
        err(() => v.fill(1, { where: v })), err(() => v.astype('float64', { casting: 'safe' })), err(() => v.copy({ order: 'F' })),
        err(() => v.to(0, { non_blocking: true })), err(() => v.copyTo(v, { non_blocking: true })),
        err(() => g.matmul(m, m, { dtype: 'float64' })), err(() => m.matmul(m, { casting: 'no' })), err(() => linalg.dot(m, m, { axes: 1 })),
        err(() => linalg.inner(m, m, { out: undefined, dtype: 'float64' })), err(() => linalg.outer(v, v, { precision: 'tf32' })),
        err(() => linalg.vdot(v, v, { axis: 0 })), err(() => linalg.norm(m, 2, { ord: 2 })),
        err(() => fft.fftshift(m, { axis: 0 })), err(() => fft.ifftshift(m, { axes: 0, inverse: true })),
        err(() => gen.fillUniform(v, { size: 4 })), err(() => gen.normal(4, { loc: 0 })), err(() => gen.integers(4, 0, 9, 'int32', { endpoint: true })),
        err(() => k(v, { block_size: 128 })), err(() => scan(v, { out: v })), err(() => gscan(v, y, { block: [256] })),
        await rejected(v.getAsync(undefined, { non_blocking: true })), await rejected(v.setAsync(new Float32Array(4), { async_: true })),
      ];
      const leaked = live() - before;
      // The known names, and an unknown name set to undefined, pass the check.
      const passed = [err(() => g.concatenate([v, v], 0, { stream: null, out: undefined }).dispose()),
        err(() => g.zerosLike(v, undefined, { device: 0, order: undefined }).dispose()), err(() => v.astype('float64', { stream: undefined }).dispose()),
        err(() => g.toGpu([1, 2], { shape: [2], dtype: 'float32', stream: null, device: 0 }).dispose()),
        err(() => g.linspace(0, 1, 5, { endpoint: false, dtype: 'float32', stream: null, device: 0 }).dispose()),
        err(() => linalg.norm(m, null, { axis: null, keepdims: true, stream: null }).dispose()), err(() => v.fill(0, null)),
        await rejected(v.getAsync(undefined, { stream: null, signal: undefined }))];
      // PyCUDA's positional stream in the options' place: refused, and the message says what to pass.
      const stream = new nc.driver.Stream();
      const positional = err(() => v.astype('float64', stream));
      stream.dispose();
      console.log(JSON.stringify({ refused, leaked, passed, positional }));
    })();
  `);
  expectClean(r);
  const o = r.out as { refused: unknown[]; leaked: number; passed: unknown[]; positional: unknown };
  expect(o.refused).toEqual([['concatenate', 'out'], ['stack', 'dtype'], ['put', 'mode'], ['emptyLike', 'order'], ['zerosLike', 'requires_grad'],
    ['onesLike', 'subok'], ['GPUArray.fill()', 'where'], ['GPUArray.astype()', 'casting'], ['GPUArray.copy()', 'order'],
    ['GPUArray.to()', 'non_blocking'], ['GPUArray.copyTo()', 'non_blocking'], ['matmul', 'dtype'], ['matmul', 'casting'], ['dot', 'axes'],
    ['inner', 'dtype'], ['outer', 'precision'], ['vdot', 'axis'], ['norm', 'ord'], ['fftshift', 'axis'], ['ifftshift', 'inverse'],
    ['Generator.fillUniform()', 'size'], ['Generator.normal()', 'loc'], ['Generator.integers()', 'endpoint'], ['opt_names()', 'block_size'],
    ['InclusiveScanKernel', 'out'], ['GenericScanKernel', 'block'], ['GPUArray.getAsync()', 'non_blocking'], ['GPUArray.setAsync()', 'async_'],
  ].map(([f, key]) => ({ name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE', message: expect.stringMatching(new RegExp(
    `^${f.replace(/[.()]/g, '\\$&')}: unknown option "${key}" \\(known: `)) })));
  expect(o.leaked).toBe(0);
  expect(o.passed).toEqual([null, null, null, null, null, null, null, null]);
  expect(o.positional).toEqual({ name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE',
    message: expect.stringMatching(/^GPUArray\.astype\(\): unknown option "device" .*; the options must be a plain object such as \{ stream \}, not an instance of Stream$/) });
});

test('launch options are checked by name: PyCUDA\'s time_kernel and misspelt keys are refused before the launch', () => {
  const r = runFake(`
    const nc = require(process.env.NODECUDA_DIST);
    const fn = new nc.SourceModule('__global__ void k(float *p) { p[threadIdx.x] = 1.0f; }').getFunction('k');
    const a = nc.driver.memAlloc(64);
    const err = (f) => { try { f(); return null; } catch (e) { return { name: e.name, code: e.code, message: e.message }; } };
    const refused = [err(() => fn(a, { block: [16], time_kernel: true })), err(() => fn(a, { block: [16], timeKernel: true })),
      err(() => fn(a, { block: [16], grids: [1] })), err(() => fn(a, { block: [16], sharedMem: 128 }))];
    const passed = [err(() => fn(a, { block: [16], grid: [1], shared: 0, stream: null })), err(() => fn(a, { block: [16], grids: undefined })),
      err(() => { fn.prepare('P'); fn.preparedCall([1], [16], a); })];
    nc.driver.Context.synchronize();
    console.log(JSON.stringify({ refused, passed }));
  `);
  expectClean(r);
  const o = r.out as { refused: Array<{ name: string; code: string; message: string }>; passed: unknown[] };
  expect(o.refused.map((e) => [e.name, e.code])).toEqual(Array(4).fill(['TypeError', 'ERR_INVALID_ARG_VALUE']));
  expect(o.refused[0].message).toMatch(/^k\(\): time_kernel is not supported: record a driver\.Event/);
  expect(o.refused[2].message).toMatch(/^k\(\): unknown option "grids" \(known: block, grid, shared, stream\)$/);
  expect(o.refused[3].message).toMatch(/^k\(\): unknown option "sharedMem"/);
  expect(o.passed).toEqual([null, null, null]);
});

test('option names of kernel builders, synchronizeAsync, Memcpy2D/3D objects, async copies, texture objects, SourceModule and nccl.Communicator: misspelt refused, known taken', () => {
  const r = runFake(`
    (async () => {
      const nc = require(process.env.NODECUDA_DIST);
      const { gpuarray: g, driver, ElementwiseKernel: EK, ReductionKernel, InclusiveScanKernel, ExclusiveScanKernel, GenericScanKernel } = nc;
      const fail = (e) => ({ name: e.name, code: e.code, message: String(e.message) });
      const err = (f) => { try { f(); return null; } catch (e) { return fail(e); } };
      const rejected = async (p) => { try { await p; return null; } catch (e) { return fail(e); } };
      const src = '__global__ void k(float *p) { p[threadIdx.x] = 1.0f; }';
      const R = { neutral: 0, reduceExpr: 'a + b', arguments: 'const float *x', name: 'r', preamble: '' };
      const G = { dtype: 'int32', arguments: 'const float *x, int *y', inputExpr: 'x[i] > 0 ? 1 : 0', scanExpr: 'a + b', neutral: 0,
        outputStatement: 'y[i] = item;' };
      const ek = new EK('float *x', 'x[i] = 1', 'ek', { preamble: '', loopPrep: '', afterLoop: '', options: [], keep: true });
      const v = g.zeros([4], 'float32'), y = g.zeros([4], 'int32'), h = new Float32Array(16);
      const s = new driver.Stream(), ev = new driver.Event().record(s), dv = driver.memAlloc(64), dv2 = driver.memAlloc(64);
      const copy = (C, extra) => { const c = new C(); c.setSrcHost(h); c.setDstHost(h); return Object.assign(c, extra); };
      const refused = [
        err(() => new EK('float *x', 'x[i] = 1', 'ek', { loop_prep: '' })), err(() => ek(v, { rnage: [0, 2] })),
        err(() => EK.generic('T x', 'T y', 'y = x', 'gk', { no_return: true })),
        err(() => new ReductionKernel('float32', { ...R, map_expr: 'x[i]' })),
        err(() => new InclusiveScanKernel('float32', 'a + b', 0, { options: [] })), err(() => new ExclusiveScanKernel('float32', 'a + b', 0, { keep: true })),
        err(() => new GenericScanKernel({ ...G, input_expr: 'x[i]' })),
        await rejected(Promise.resolve().then(() => s.synchronizeAsync({ timeout: 5 }))),
        await rejected(Promise.resolve().then(() => ev.synchronizeAsync({ sginal: AbortSignal.abort() }))),
        err(() => copy(driver.Memcpy2D, { width_in_bytes: 16 }).call()), await rejected(Promise.resolve().then(() => copy(driver.Memcpy3D, { Depth: 1 }).callAsync(s))),
        err(() => new nc.SourceModule(src, { no_extern_c: true })),
        err(() => new nc.nccl.Communicator(1, new Uint8Array(128), 0, { cgaClusterSize: 1, timeout: 5 })),
        err(() => driver.memcpyHtodAsync(dv, h, s, { sigal: AbortSignal.abort() })), err(() => driver.memcpyDtohAsync(h, dv, null, { non_blocking: true })),
        err(() => driver.memcpyDtodAsync(dv2, dv, 64, s, { timeout: 1 })),
        err(() => new driver.TextureObject({ linear: dv, format: 'float32' }, { filter_mode: 'linear' })),
        err(() => new driver.TextureObject({ linear: dv, format: 'float32', numchannels: 2 })),
        err(() => new driver.TextureObject({ pitch2D: dv, format: 'float32', width: 4, height: 1, pitch: 16 })),
      ];
      // Every known name is taken (and an unknown one set to undefined).
      const ac = new AbortController();
      const passed = [
        err(() => ek(v, { range: [0, 2], stream: s, slice: undefined })), err(() => ek(v, { slice: [0, 4, 2] })),
        err(() => EK.generic('T x', 'T y', 'y = x + 1', 'gk', { preamble: '', options: [] })(v, { stream: s, size: undefined }).dispose()),
        err(() => new ReductionKernel('float32', { ...R, mapExpr: 'x[i] * 2', junk: undefined })(v, { axis: null, keepdims: false, stream: s }).dispose()),
        err(() => new InclusiveScanKernel('float32', 'a + b', 0, { preamble: '' })(v, { stream: s })),
        err(() => new ExclusiveScanKernel('float32', 'a + b', 0, null)(v, v)),
        err(() => new GenericScanKernel({ ...G, isSegmentStartExpr: 'false', preamble: '' })(v, y, { size: 4, stream: s })),
        await rejected(s.synchronizeAsync({ signal: ac.signal })), await rejected(ev.synchronizeAsync({ signal: undefined })),
        await rejected(driver.Context.synchronizeAsync(null)),
        err(() => new nc.SourceModule(src, { options: ['-lineinfo'], target: 'cubin', noExternC: false, includeDirs: [], nameExpressions: [],
          cacheDir: undefined }).dispose()),
        await rejected(nc.SourceModule.compileAsync(src, { signal: ac.signal, options: [] }).then((m) => m.dispose())),
        await rejected(nc.compiler.compileAsync(src, { arch: 'sm_90', signal: ac.signal })),
        await rejected(driver.memcpyHtodAsync(dv, h, s, { signal: ac.signal })), await rejected(driver.memcpyDtohAsync(h, dv, s, { signal: undefined })),
        await rejected(driver.memcpyDtodAsync(dv2, dv, 64, s, null)),
      ];
      // A texture's known names get past the name check to the driver (the double has no texture objects).
      const texKnown = err(() => new driver.TextureObject({ linear: dv, format: 'float32', numChannels: 1, sizeInBytes: 64 },
        { addressMode: 'clamp', filterMode: 'point', normalizedCoords: false, readMode: 'elementType', sRGB: false, borderColor: [0, 0, 0, 0],
          maxAnisotropy: 0 }).dispose());
      // Without NCCL's library the known names get past the name check to NCCL_NOT_FOUND.
      const ncclKnown = nc.nccl.isAvailable() ? null
        : err(() => new nc.nccl.Communicator(1, new Uint8Array(128), 0, { device: 0, timeoutMs: 10, blocking: true, cgaClusterSize: 1 }));
      driver.Context.synchronize();
      s.dispose();
      dv.free();
      dv2.free();
      console.log(JSON.stringify({ refused, passed, ncclKnown, texKnown }));
    })();
  `);
  expectClean(r);
  const o = r.out as { refused: unknown[]; passed: unknown[]; ncclKnown: { code?: string } | null; texKnown: { code?: string } | null };
  const D = 'addressMode, filterMode, normalizedCoords, readMode, sRGB, borderColor, maxAnisotropy';
  const C = 'arch, options, target, noExternC, includeDirs, nameExpressions, cacheDir';
  const M = 'src, dst, widthInBytes, height, srcPitch, dstPitch, srcXInBytes, srcY, dstXInBytes, dstY';
  expect(o.refused).toEqual([
    ['ElementwiseKernel', 'loop_prep', 'preamble, loopPrep, afterLoop, options, keep'], ['ek()', 'rnage', 'range, slice, stream'],
    ['ElementwiseKernel.generic', 'no_return', 'preamble, options'],
    ['ReductionKernel', 'map_expr', 'neutral, reduceExpr, mapExpr, arguments, name, preamble'],
    ['InclusiveScanKernel', 'options', 'preamble'], ['ExclusiveScanKernel', 'keep', 'preamble'],
    ['GenericScanKernel', 'input_expr', 'dtype, arguments, inputExpr, scanExpr, neutral, outputStatement, isSegmentStartExpr, preamble'],
    ['Stream.synchronizeAsync()', 'timeout', 'signal'], ['Event.synchronizeAsync()', 'sginal', 'signal'],
    ['Memcpy2D.call()', 'width_in_bytes', M], ['Memcpy3D.callAsync()', 'Depth', `${M}, depth, srcHeight, dstHeight, srcZ, dstZ`],
    ['SourceModule', 'no_extern_c', C],
    ['nccl.Communicator', 'timeout', 'device, timeoutMs, blocking'], // the @internal cgaClusterSize: taken, not listed
    ['memcpyHtodAsync', 'sigal', 'signal'], ['memcpyDtohAsync', 'non_blocking', 'signal'], ['memcpyDtodAsync', 'timeout', 'signal'],
    ['TextureObject desc', 'filter_mode', D], ['TextureObject linear resource', 'numchannels', 'linear, format, numChannels, sizeInBytes'],
    ['TextureObject pitch2D resource', 'pitch', 'pitch2D, format, numChannels, width, height, pitchInBytes'],
  ].map(([f, key, known]) => ({ name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE', message: `${f}: unknown option "${key}" (known: ${known})` })));
  expect(o.passed).toEqual(Array(16).fill(null));
  expect(o.texKnown).toMatchObject({ name: 'CudaError' });
  if (o.ncclKnown !== null) expect(o.ncclKnown.code).toBe('NCCL_NOT_FOUND');
});
