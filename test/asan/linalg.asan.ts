/**
 * matmul's native path without a GPU: real GPUArrays on the CPU driver double (test/fakecuda) and
 * the real libcublas, whose runtime finds no usable driver. The argument errors are typed, the
 * cuBLAS failure is a CublasError (no crash, no sanitizer report) and every temporary is freed.
 * Kernels do not run on the double, so no values are checked (test/91 checks them on a GPU).
 */
import { checkBuilt, expectClean, runFake } from './fake';

beforeAll(checkBuilt);

test('matmul on the driver double: typed argument errors, a CublasError from cuBLAS, no leaks', () => {
  const r = runFake(`
    const nc = require(process.env.NODECUDA_DIST);
    const { gpuarray, linalg } = nc;
    const err = (f) => { try { f(); return null; } catch (e) {
      return { name: e.name, code: e.code, cublas: e instanceof nc.CublasError, message: String(e.message).split('\\n')[0] }; } };
    const out = {};
    // Every array made before the count stays referenced (keep): one the GC finalized during the
    // counted calls would show as a negative leak (seen once in CI: -5).
    const keep = [];
    const k = (x) => (keep.push(x), x);
    const a = gpuarray.zeros([4, 3], 'float32'), b = gpuarray.zeros([3, 5], 'float32');
    const live = () => nc.memory().liveAllocations;
    out.shape = err(() => gpuarray.matmul(a, a));
    out.dtype = err(() => gpuarray.matmul(k(a.astype('int32')), k(b.astype('int32'))));
    out.scalar = err(() => gpuarray.matmul(k(gpuarray.zeros([], 'float32')), b));
    out.outShape = err(() => gpuarray.matmul(a, b, { out: k(gpuarray.zeros([4, 4], 'float32')) }));
    out.empty = [...k(gpuarray.matmul(k(gpuarray.zeros([0, 3], 'float32')), b)).shape];
    out.k0 = [...k(gpuarray.matmul(k(gpuarray.zeros([4, 0], 'float32')), k(gpuarray.zeros([0, 5], 'float32')))).shape];
    out.status = linalg.cublasStatus().found;
    // Through cuBLAS: its runtime finds no driver it can use here.
    // Each failing call frees what it made (its result, converted and copied operands) itself.
    const a64 = a.astype('float64'), bs = b.index(':', '::2'), z = a.astype('complex64'), s = new nc.driver.Stream();
    const before = live();
    out.gemm = err(() => gpuarray.matmul(a, b));
    out.gemmStrided = err(() => gpuarray.matmul(a64, bs, { stream: s }));
    out.vdot = err(() => linalg.vdot(z, z));
    out.leaked = live() - before;
    out.kept = keep.length;
    console.log(JSON.stringify(out));
  `);
  expectClean(r);
  const o = r.out as Record<string, { name: string; code: string; cublas: boolean; message: string } | unknown>;
  expect(o.shape).toMatchObject({ name: 'RangeError', code: 'ERR_SHAPE_MISMATCH' });
  expect(o.dtype).toMatchObject({ name: 'TypeError', code: 'ERR_INVALID_DTYPE' });
  expect(o.scalar).toMatchObject({ name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' });
  expect(o.outShape).toMatchObject({ name: 'RangeError', code: 'ERR_SHAPE_MISMATCH' });
  expect([o.empty, o.k0]).toEqual([[0, 5], [4, 5]]);
  for (const k of ['gemm', 'gemmStrided', 'vdot']) {
    const e = o[k] as { name: string; code: string; cublas: boolean };
    expect([k, e.name, e.cublas]).toEqual([k, 'CublasError', true]);
    expect(e.code).toMatch(o.status ? /^CUBLAS_STATUS_/ : /^CUBLAS_NOT_FOUND$/);
  }
  expect(o.leaked).toBe(0);
});

test('matmul plans memoized by layout: a repeated product plans once, fails as the first did, and the memo stays bounded', () => {
  const r = runFake(`
    const nc = require(process.env.NODECUDA_DIST);
    const { productPlans_: plans } = require(process.env.NODECUDA_DIST + '/linalg/matmul.js');
    const { gpuarray } = nc;
    const err = (f) => { try { f(); return null; } catch (e) { return { name: e.name, code: e.code, message: e.message }; } };
    const out = {};
    plans.clear();
    const a = gpuarray.zeros([4, 3], 'float32'), b = gpuarray.zeros([3, 5], 'float32'), c = gpuarray.zeros([4, 5], 'float32');
    // cuBLAS fails here (no usable driver) after the plan is made: the same CublasError each time.
    out.gemm = [1, 2, 3].map(() => err(() => gpuarray.matmul(a, b, { out: c })));
    out.size1 = plans.size;
    const a2 = gpuarray.zeros([4, 3], 'float32');
    out.sameArrays = err(() => gpuarray.matmul(a2, b, { out: c }));
    a2.dispose(); // disposed, not left to the GC: the leak count below must not see a finalizer
    out.size2 = plans.size; // equal layouts: the same plan
    out.noOut = err(() => gpuarray.matmul(a, b));
    const bt = gpuarray.zeros([5, 3], 'float32');
    out.transposed = err(() => gpuarray.matmul(a, bt.T, { out: c }));
    bt.dispose();
    out.size3 = plans.size;
    // Checks the layouts do not decide still run on a hit, in the same order.
    out.badStream = err(() => gpuarray.matmul(a, b, { out: c, stream: 3 }));
    out.badPrecision = err(() => gpuarray.matmul(a, b, { out: c, precision: 'fast' }));
    const d = gpuarray.zeros([4, 5], 'float32');
    err(() => gpuarray.matmul(a, b, { out: d }));
    d.dispose();
    out.disposedOut = err(() => gpuarray.matmul(a, b, { out: d }));
    const live = () => nc.memory().liveAllocations;
    const xs = [];
    for (let n = 1; n <= 40; n++) xs.push(gpuarray.zeros([n, 3], 'float32'));
    const before = live();
    for (const x of xs) err(() => gpuarray.matmul(x, b)); // each failing call frees its result itself
    out.leaked = live() - before;
    out.size4 = plans.size;
    console.log(JSON.stringify(out));
  `);
  expectClean(r);
  const o = r.out as Record<string, unknown>;
  const gemm = o.gemm as Array<{ name: string }>;
  expect(gemm[0]).toMatchObject({ name: 'CublasError' });
  expect(gemm[1]).toEqual(gemm[0]);
  expect(gemm[2]).toEqual(gemm[0]);
  expect(o.sameArrays).toEqual(gemm[0]);
  expect([o.size1, o.size2, o.size3]).toEqual([1, 1, 3]);
  expect(o.badStream).toMatchObject({ name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
  expect(o.badPrecision).toMatchObject({ name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' });
  expect(o.disposedOut).toMatchObject({ name: 'TypeError', code: 'ERR_USE_AFTER_DISPOSE' });
  expect(o.leaked).toBe(0);
  expect(o.size4).toBe(16);
});

test('dot and inner check precision on every path; their 1-D·1-D and 0-d products take either value and run no GEMM', () => {
  const r = runFake(`
    const nc = require(process.env.NODECUDA_DIST);
    const { gpuarray, linalg } = nc;
    const err = (f) => { try { f(); return null; } catch (e) { return { name: e.name, code: e.code, message: e.message }; } };
    const v = gpuarray.zeros([5], 'int32'), w = gpuarray.zeros([5], 'int32'), s = gpuarray.zeros([], 'int32');
    const m = gpuarray.zeros([4, 5], 'float32'), n = gpuarray.zeros([5, 3], 'float32');
    const out = {};
    out.bad = [() => linalg.dot(v, w, { precision: 'fast' }), () => linalg.inner(v, w, { precision: 'TF32' }),
      () => linalg.dot(s, v, { precision: null }), () => linalg.inner(v, s, { precision: 1 }),
      () => linalg.dot(m, n, { precision: 'fast' }), () => gpuarray.matmul(m, n, { precision: 'fast' })].map(err);
    // Exact on these paths whatever precision says (an integer dot reduction and an elementwise multiply: no cuBLAS here).
    out.taken = [];
    for (const precision of [undefined, 'exact', 'tf32']) {
      for (const f of [() => linalg.dot(v, w, { precision }), () => linalg.inner(v, w, { precision }), () => linalg.dot(s, v, { precision })]) {
        const e = err(() => { out.taken.push([...f().shape]); });
        if (e) out.taken.push(e);
      }
    }
    console.log(JSON.stringify(out));
  `);
  expectClean(r);
  const what = ['dot', 'inner', 'dot', 'inner', 'dot', 'matmul'], received = ['a string ("fast")', 'a string ("TF32")', 'null', 'a number (1)', 'a string ("fast")', 'a string ("fast")'];
  expect(r.out.bad).toEqual(what.map((w, i) => ({ name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE',
    message: `${w}: precision must be 'exact' or 'tf32'. Received ${received[i]}` })));
  expect(r.out.taken).toEqual(Array(3).fill([[], [], [5]]).flat());
});
