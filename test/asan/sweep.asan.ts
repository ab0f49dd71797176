/**
 * Every public function and constructor with hostile arguments, on the CPU driver double with the
 * sanitized addon: each call returns, or throws (or rejects with) an error carrying a string
 * `code` (TypeError, RangeError, CudaError, NvrtcError, …), never a plain TypeError from reading a
 * property of undefined, a crash or a sanitizer report; the process still copies data afterwards.
 * Kernels do not run on the double, so values are not checked here (the GPU suites do that).
 */
import { checkBuilt, expectClean, runFake } from './fake';

beforeAll(checkBuilt);

// Shared by both scripts: fresh operands, the hostile values, and call(), which counts a call and
// notes an error without a string code (thrown or rejected); results other than the operands are disposed.
const PRELUDE = String.raw`
  const nc = require(process.env.NODECUDA_DIST);
  const { gpuarray: g, cumath, random, linalg, fft, driver, compiler, gl, nccl, SourceModule, ElementwiseKernel, ReductionKernel } = nc;
  // Fresh operands for each function (one may dispose what it is given).
  let a, m;
  const fresh = () => { for (const x of [a, m]) if (x) x.dispose(); a = g.zeros([4], 'float32'); m = g.zeros([2, 3], 'float32'); };
  fresh();
  const disposed = g.zeros([4], 'float32');
  disposed.dispose();
  const show = (v) => { try { return typeof v === 'symbol' ? 'a symbol' : String(v).slice(0, 16); } catch { return 'an object'; } };
  const untyped = new Map(), pending = [];
  let probes = 0, count = 0;
  const typed = (e) => e instanceof Error && typeof e.code === 'string';
  const note = (what, e) => { count++; untyped.set(what, (e && e.name) + ': ' + String(e && e.message).slice(0, 120)); };
  const free = (x) => {
    for (const y of Array.isArray(x) ? x : [x]) {
      if (y && y !== a && y !== m && typeof y.dispose === 'function') try { y.dispose(); } catch { /* already */ }
    }
  };
  const call = (what, f) => {
    probes++;
    try {
      const out = f();
      if (out && typeof out.then === 'function') pending.push(out.then(free, (e) => { if (!typed(e)) note(what + ' (rejected)', e); }));
      else free(out);
    } catch (e) {
      if (!typed(e)) note(what, e);
    }
  };
  // After the calls: the process still works (a round trip through device memory).
  const report = async () => {
    await Promise.all(pending);
    driver.Context.synchronize();
    const back = g.toGpu(new Float32Array([1, 2, 3])).get();
    console.log(JSON.stringify({ probes, count, untyped: [...untyped].map(([w, e]) => w + ' -> ' + e).slice(0, 30), works: Array.from(back) }));
  };
`;

test('a sweep of the public API with hostile arguments: typed errors only, the process works afterwards', () => {
  const r = runFake(PRELUDE + String.raw`
    (async () => {
      const hostile = [undefined, null, 0, -1, NaN, 1.5, 2 ** 53, 'x', '', {}, [], [[1], 2], Symbol('s'), 5n, () => 1, disposed,
        new Float32Array(2), { shape: [2] }, Object.create(null)];
      const probe = (what, f) => { for (const v of hostile) call(what + ' with ' + show(v), () => f(v)); };
      // Errors' own constructors, the @internal methods (trailing _) and whole-process calls are left out.
      const skip = new Set(['synchronize', 'gc', 'init', 'diagnose', 'formatDiagnosis', 'withDevice', 'autoinit']);
      const spaces = { gpuarray: g, cumath, random, linalg, fft, driver, compiler, gl, nccl, cuda: nc };
      for (const [ns, obj] of Object.entries(spaces)) {
        for (const [k, f] of Object.entries(obj)) {
          if (typeof f !== 'function' || skip.has(k) || k.endsWith('_') || /Error$/.test(k)) continue;
          const name = ns + '.' + k;
          fresh();
          if (/^[A-Z]/.test(k)) {
            probe('new ' + name + '(x)', (v) => new f(v));
            probe('new ' + name + '(a, x)', (v) => new f(a, v));
            probe('new ' + name + "('float32', x)", (v) => new f('float32', v));
          } else {
            probe(name + '(x)', (v) => f(v));
            probe(name + '(a, x)', (v) => f(a, v));
            probe(name + '(m, x)', (v) => f(m, v));
            probe(name + '(a, a, x)', (v) => f(a, a, v));
          }
        }
      }
      const proto = Object.getPrototypeOf(a);
      for (const k of Object.getOwnPropertyNames(proto)) {
        if (k === 'constructor' || k === 'dispose' || k.endsWith('_') || typeof Object.getOwnPropertyDescriptor(proto, k).value !== 'function') continue;
        fresh();
        probe('a.' + k + '(x)', (v) => { const t = g.zeros([4], 'float32'); try { return t[k](v); } finally { t.dispose(); } });
        probe('a.' + k + '(a, x)', (v) => { const t = g.zeros([4], 'float32'); try { return t[k](a, v); } finally { t.dispose(); } });
      }
      await report();
    })();
  `, {}, 300000);
  expectClean(r);
  const o = r.out as { probes: number; untyped: string[]; count: number; works: number[] };
  expect(o.untyped).toEqual([]);
  expect(o.count).toBe(0);
  expect(o.probes).toBeGreaterThan(10000);
  expect(o.works).toEqual([1, 2, 3]);
});

test('the same with hostile values for the option names the API knows, and for kernels and their launches', () => {
  const r = runFake(PRELUDE + String.raw`
    (async () => {
      const hostile = [null, -1, NaN, 1.5, 'x', {}, [[1], 2], 5n, disposed, Object.create(null), [NaN], Infinity];
      const keys = ['stream', 'out', 'axis', 'axes', 'dtype', 'keepdims', 'n', 'norm', 'seed', 'signal', 'ord', 'shape', 'device', 'offset',
        'range', 'slice', 'size', 'ddof', 'side', 'sorter', 'stable', 'returnCounts', 'returnInverse', 'returnIndex', 'equalNan',
        'precision', 'casting', 'd', 'k', 'step', 'endpoint', 'low', 'high', 'mean', 'std', 'scale'];
      for (const [ns, obj] of Object.entries({ gpuarray: g, cumath, random, linalg, fft })) {
        for (const [k, f] of Object.entries(obj)) {
          if (typeof f !== 'function' || /^[A-Z]/.test(k)) continue;
          for (const key of keys) {
            for (const v of hostile) {
              fresh();
              const o = { [key]: v };
              call(ns + '.' + k + '(a, {' + key + ': ' + show(v) + '})', () => f(a, o));
              call(ns + '.' + k + '(m, {' + key + ': ' + show(v) + '})', () => f(m, o));
              call(ns + '.' + k + '(a, a, {' + key + ': ' + show(v) + '})', () => f(a, a, o));
              call(ns + '.' + k + '([4], {' + key + ': ' + show(v) + '})', () => f([4], o));
            }
          }
        }
      }
      fresh();
      const mod = new SourceModule('__global__ void k(float *x, int n) { if (threadIdx.x < n) x[threadIdx.x] = 1; }');
      const kern = mod.getFunction('k');
      const ek = new ElementwiseKernel('float *x', 'x[i] = 1', 'ek');
      const rk = new ReductionKernel('float32', { neutral: 0, reduceExpr: 'a + b', arguments: 'const float *x' });
      for (const v of [...hostile, undefined, [Object.create(null)], [2 ** 40], [1, 1, 1, 1], () => 1]) {
        const s = show(v);
        for (const key of ['block', 'grid', 'shared', 'stream']) call('launch {' + key + ': ' + s + '}', () => kern(a, 4, { block: [4], [key]: v }));
        call('launch(x, 4)', () => kern(v, 4, { block: [4] }));
        call('launch(a, x)', () => kern(a, v, { block: [4] }));
        call('launch(a, 4, x)', () => kern(a, 4, v));
        for (const key of ['range', 'slice', 'stream']) call('ElementwiseKernel call {' + key + ': ' + s + '}', () => ek(a, { [key]: v }));
        for (const key of ['axis', 'keepdims', 'out', 'stream']) call('ReductionKernel call {' + key + ': ' + s + '}', () => rk(a, { [key]: v }));
        call('getFunction(x)', () => mod.getFunction(v));
        call('getGlobal(x)', () => mod.getGlobal(v));
        call('new SourceModule(x)', () => new SourceModule(v));
        call('new ElementwiseKernel(x, op)', () => new ElementwiseKernel(v, 'x[i] = 1'));
        call('new ReductionKernel(f32, { neutral: x })', () => new ReductionKernel('float32', { neutral: v, reduceExpr: 'a + b' }));
        call('toGpu(x)', () => g.toGpu(v));
        call('toGpu([1, 2], { shape: x })', () => g.toGpu([1, 2], { shape: v }));
        call('a.reshape(x)', () => a.reshape(v));
        call('a.index(x)', () => a.index(v));
        call('a.set(x)', () => a.set(v));
      }
      mod.dispose();
      await report();
    })();
  `, {}, 600000);
  expectClean(r);
  const o = r.out as { probes: number; untyped: string[]; works: number[] };
  expect(o.untyped).toEqual([]);
  expect(o.probes).toBeGreaterThan(100000);
  expect(o.works).toEqual([1, 2, 3]);
}, 660000);
