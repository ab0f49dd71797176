/**
 * Every public function and constructor with hostile arguments, on the CPU driver double with the
 * sanitized addon: each call returns, or throws (or rejects with) an error carrying a string
 * `code` (TypeError, RangeError, CudaError, NvrtcError, …), never a plain TypeError from reading a
 * property of undefined, a crash or a sanitizer report; the process still copies data afterwards.
 * Kernels do not run on the double, so values are not checked here (the GPU suites do that).
 */
import { checkBuilt, expectClean, runFake } from './fake';

beforeAll(checkBuilt);

test('a sweep of the public API with hostile arguments: typed errors only, the process works afterwards', () => {
  const r = runFake(String.raw`
    (async () => {
      const nc = require(process.env.NODECUDA_DIST);
      const { gpuarray: g, cumath, random, linalg, fft, driver, compiler, gl, nccl } = nc;
      // Fresh operands for each function (one may dispose what it is given).
      let a, m;
      const fresh = () => { for (const x of [a, m]) if (x) x.dispose(); a = g.zeros([4], 'float32'); m = g.zeros([2, 3], 'float32'); };
      fresh();
      const disposed = g.zeros([4], 'float32');
      disposed.dispose();
      const hostile = [undefined, null, 0, -1, NaN, 1.5, 2 ** 53, 'x', '', {}, [], [[1], 2], Symbol('s'), 5n, () => 1, disposed,
        new Float32Array(2), { shape: [2] }, Object.create(null)];
      const show = (v) => { try { return typeof v === 'symbol' ? 'a symbol' : String(v).slice(0, 16); } catch { return 'an object'; } };
      const untyped = [], pending = [];
      let probes = 0, count = 0;
      const typed = (e) => e instanceof Error && typeof e.code === 'string';
      const seen = new Set();
      const note = (what, v, e) => {
        count++;
        if (!seen.has(what)) untyped.push(what + ' with ' + show(v) + ': ' + (e && e.name) + ': ' + String(e && e.message).slice(0, 120));
        seen.add(what);
      };
      const free = (x) => {
        if (x && typeof x.then === 'function') return;
        for (const y of Array.isArray(x) ? x : [x]) if (y && typeof y.dispose === 'function') try { y.dispose(); } catch { /* already */ }
      };
      const probe = (what, f) => {
        for (const v of hostile) {
          probes++;
          try {
            const out = f(v);
            if (out && typeof out.then === 'function') pending.push(out.then(free, (e) => { if (!typed(e)) note(what + ' (rejected)', v, e); }));
            else free(out);
          } catch (e) {
            if (!typed(e)) note(what, v, e);
          }
        }
      };
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
        probe('a.' + k + '(x)', (v) => { const t = g.zeros([4], 'float32'); try { return t[k](v); } finally { if (t !== a) t.dispose(); } });
        probe('a.' + k + '(a, x)', (v) => { const t = g.zeros([4], 'float32'); try { return t[k](a, v); } finally { t.dispose(); } });
      }
      await Promise.all(pending);
      driver.Context.synchronize();
      // The process still works: a round trip through device memory.
      const back = g.toGpu(new Float32Array([1, 2, 3])).get();
      console.log(JSON.stringify({ probes, untyped, count, works: Array.from(back) }));
    })();
  `, {}, 300000);
  expectClean(r);
  const o = r.out as { probes: number; untyped: string[]; count: number; works: number[] };
  expect(o.untyped).toEqual([]);
  expect(o.count).toBe(0);
  expect(o.probes).toBeGreaterThan(10000);
  expect(o.works).toEqual([1, 2, 3]);
});
