/**
 * matmul (cuBLAS), NumPy's dot/inner/outer/vdot and linalg.norm on a real GPU against a CPU
 * reference accumulated in float64: every dtype cuBLAS multiplies (float16, bfloat16, float32, float64,
 * complex64, complex128), shapes 1-D·1-D, 1-D·2-D, 2-D·1-D, 2-D·2-D and batched with broadcast
 * batch dims, odd sizes (1, 3, 17, 129), empty dims, transposed, sliced, stepped and reversed
 * views (no copy where cuBLAS can read the view), NaN/Inf propagation, `out=`, streams, the
 * precision option and the typed errors. Tolerance: 4·chain(K)·u(compute)·Σ|a||b| + u(result)·|c|.
 * The planning itself is checked without a GPU in test/23.
 */
import * as cuda from '../lib';
import { GPUArray, driver, gpuarray, linalg } from '../lib';
import type { DTypeName } from '../lib';
import { collect, describeGpu, expectCode } from './helpers';
import { C, V, download, softly, upload, viewOf } from './reference';
import { UNIT, chain, randomValues } from './reduce-reference';
// Module-local aliases: global lookups are slow inside Jest's vm context (hot reference loops).
const { Math, Number } = globalThis;

const FLOATS: DTypeName[] = ['float16', 'bfloat16', 'float32', 'float64', 'complex64', 'complex128'];
const isC = (v: V): v is C => typeof v === 'object';
const cx = (v: V): C => (isC(v) ? v : { re: Number(v), im: 0 });
const live = (): number => cuda.memory().liveAllocations;
const cStrides = (shape: number[]): number[] => shape.map((_, d) => shape.slice(d + 1).reduce((p, q) => p * q, 1));

interface Ref { shape: number[]; out: C[]; scale: number[]; k: number }

/** NumPy's matmul of C-order values in float64 (complex: pairs), with Σ|a||b| per element. */
function refMatmul(xs: V[], sa: number[], ys: V[], sb: number[], conjA = false): Ref {
  const a2 = sa.length === 1 ? [1, sa[0]] : sa, b2 = sb.length === 1 ? [sb[0], 1] : sb;
  const [m, k] = a2.slice(-2), n = b2[b2.length - 1];
  const ba = a2.slice(0, -2), bb = b2.slice(0, -2);
  const nb = Math.max(ba.length, bb.length);
  const pa = [...Array(nb - ba.length).fill(1), ...ba], pb = [...Array(nb - bb.length).fill(1), ...bb];
  const batch = pa.map((v, i) => Math.max(v, pb[i]));
  const sta = cStrides(a2), stb = cStrides(b2);
  const out: C[] = [], scale: number[] = [];
  const walk = (idx: number[]): void => {
    if (idx.length < nb) {
      for (let i = 0; i < batch[idx.length]; i++) walk([...idx, i]);
      return;
    }
    const oa = idx.reduce((s, v, d) => s + (pa[d] === 1 ? 0 : v) * (d - (nb - ba.length) >= 0 ? sta[d - (nb - ba.length)] : 0), 0);
    const ob = idx.reduce((s, v, d) => s + (pb[d] === 1 ? 0 : v) * (d - (nb - bb.length) >= 0 ? stb[d - (nb - bb.length)] : 0), 0);
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < n; j++) {
        let re = 0, im = 0, sc = 0;
        for (let l = 0; l < k; l++) {
          const x = cx(xs[oa + i * k + l]), y = cx(ys[ob + l * n + j]);
          const xi = conjA ? -x.im : x.im;
          re += x.re * y.re - xi * y.im;
          im += x.re * y.im + xi * y.re;
          sc += Math.hypot(x.re, x.im) * Math.hypot(y.re, y.im);
        }
        out.push({ re, im });
        scale.push(sc);
      }
    }
  };
  walk([]);
  const shape = [...batch, ...(sa.length > 1 ? [m] : []), ...(sb.length > 1 ? [n] : [])];
  return { shape, out, scale, k };
}

/** Checks a result against the reference within the dtype's tolerance; NaN/Inf exactly. */
function expectMatch(r: GPUArray, d: DTypeName, ref: Ref, label: string, unit?: number): void {
  expect([label, r.dtype.name, [...r.shape]]).toEqual([label, d, ref.shape]);
  const got = download(r);
  const u = unit ?? UNIT[d === 'float16' || d === 'bfloat16' ? 'float32' : d];
  const bad: string[] = [];
  const comp = (g: number, w: number, tol: number): boolean =>
    (Number.isFinite(w) ? Math.abs(g - w) <= tol : Object.is(g, w) || (Number.isNaN(g) && Number.isNaN(w)));
  for (let i = 0; i < ref.out.length && bad.length < 6; i++) {
    const w = ref.out[i], g = cx(got[i]);
    const tol = 4 * chain(ref.k) * u * ref.scale[i] + UNIT[d] * Math.hypot(w.re, w.im) + 2 ** -1000;
    // cuBLAS's complex GEMM does not keep Annex G's infinities: where the textbook product is
    // infinite it may give NaN in both parts (as CuPy and PyTorch on cuBLAS do; docs/linalg.md).
    const cInf = isC(got[i]) && (!Number.isFinite(w.re) || !Number.isFinite(w.im)) && Number.isNaN(g.re) && Number.isNaN(g.im);
    const ok = cInf || (comp(g.re, w.re, tol) && (!isC(got[i]) || comp(g.im, w.im, tol)));
    if (!ok) bad.push(`${label}[${i}]: got (${g.re}, ${g.im}), want (${w.re}, ${w.im}) ± ${tol}`);
  }
  expect(bad).toEqual([]);
}

type Layout = 'c' | 'T' | 'rows' | 'step' | 'rev' | 'bT';

/**
 * A random array of logical `shape` laid out as `layout` (a view into a larger upload), and its
 * values in C order (read through the view's strides, as the GPU sees them).
 */
function make(d: DTypeName, shape: number[], layout: Layout, seed: number, lo = -1, hi = 1): { a: GPUArray; vals: V[] } {
  const nd = shape.length;
  let phys = [...shape];
  let perm = shape.map((_, i) => i);
  const swap = (p: number, q: number): void => {
    perm = perm.map((v) => (v === p ? q : v === q ? p : v));
    phys = perm.map((i) => shape[i]);
  };
  if (layout === 'T' && nd >= 2) swap(nd - 2, nd - 1);
  if (layout === 'bT' && nd >= 4) swap(0, 1);
  if (layout === 'rows' && nd >= 2) phys[nd - 1] += 3;
  if (layout === 'step') phys[nd - 1] *= 2;
  const base = randomValues(d, phys.reduce((p, q) => p * q, 1), seed, lo, hi);
  // perm swaps two axes (its own inverse): logical axis i is physical axis perm[i].
  let a = upload(d, base, phys).transpose(perm);
  if (layout === 'rows' && nd >= 2) a = a.index('...', `:${shape[nd - 1]}`);
  if (layout === 'step') a = a.index('...', '::2');
  if (layout === 'rev') a = a.index('...', '::-1');
  const bytes = a.dtype.bytes;
  const vals = viewOf(base, [...a.shape], a.strides.map((s) => s / bytes), a.offset / bytes);
  expect([...a.shape]).toEqual(shape);
  return { a, vals };
}

const SHAPES: Array<[string, (m: number, k: number, n: number) => [number[], number[]]]> = [
  ['1-D·1-D', (_m, k) => [[k], [k]]],
  ['1-D·2-D', (_m, k, n) => [[k], [k, n]]],
  ['2-D·1-D', (m, k) => [[m, k], [k]]],
  ['2-D·2-D', (m, k, n) => [[m, k], [k, n]]],
  ['batched', (m, k, n) => [[3, m, k], [3, k, n]]],
  ['broadcast batch', (m, k, n) => [[2, 1, m, k], [3, k, n]]],
  ['N-D·2-D', (m, k, n) => [[2, m, k], [k, n]]],
  ['1-D·N-D', (_m, k, n) => [[k], [2, k, n]]],
];
const SIZES: Array<[number, number, number]> = [[1, 1, 1], [3, 17, 129], [129, 3, 17], [17, 129, 3]];

describeGpu('matmul on cuBLAS', () => {
  test.each(FLOATS)('%s: every shape class at sizes 1, 3, 17, 129 (function and method)', (d) => cuda.tidy(() => {
    const check = softly();
    let seed = 1;
    for (const [name, shapes] of SHAPES) {
      for (const [m, k, n] of SIZES) {
        const [sa, sb] = shapes(m, k, n);
        const x = make(d, sa, 'c', seed++), y = make(d, sb, 'c', seed++);
        const ref = refMatmul(x.vals, sa, y.vals, sb);
        check(() => expectMatch(gpuarray.matmul(x.a, y.a), d, ref, `${name} ${m}x${k}x${n}`));
        if (m === 3) check(() => expectMatch(x.a.matmul(y.a), d, ref, `${name} method`));
      }
    }
    check.done();
  }));

  test.each(['float32', 'complex128', 'float16', 'bfloat16'] as DTypeName[])(
    '%s: transposed, sliced, stepped, reversed and batch-transposed views; no copy where cuBLAS reads the view', (d) => cuda.tidy(() => {
      const check = softly();
      const copy = jest.spyOn(GPUArray.prototype, 'copy');
      const layouts: Layout[] = ['c', 'T', 'rows', 'step', 'rev', 'bT'];
      const readable = (l: Layout, nd: number): boolean => l === 'c' || l === 'T' || l === 'rows' || (l === 'bT' && nd < 4);
      let seed = 100;
      try {
        for (const [sa, sb] of [[[17, 5], [5, 3]], [[2, 3, 4, 5], [2, 3, 5, 6]], [[4, 5], [3, 5, 2]]] as Array<[number[], number[]]>) {
          for (const la of layouts) {
            for (const lb of layouts) {
              const x = make(d, sa, la, seed++), y = make(d, sb, lb, seed++);
              copy.mockClear();
              const r = gpuarray.matmul(x.a, y.a);
              const copies = copy.mock.calls.length;
              check(() => expectMatch(r, d, refMatmul(x.vals, sa, y.vals, sb), `${la}·${lb} ${JSON.stringify(sa)}`));
              if (readable(la, sa.length) && readable(lb, sb.length)) check(() => expect([la, lb, copies]).toEqual([la, lb, 0]));
            }
          }
        }
      } finally {
        copy.mockRestore();
      }
      check.done();
    }));

  test('empty dimensions: NumPy shapes; K = 0 gives zeros (not the uninitialized memory)', () => cuda.tidy(() => {
    for (const d of ['float32', 'complex64'] as DTypeName[]) {
      expect([...gpuarray.matmul(gpuarray.zeros([0, 3], d), gpuarray.zeros([3, 4], d)).shape]).toEqual([0, 4]);
      expect([...gpuarray.matmul(gpuarray.zeros([2, 3], d), gpuarray.zeros([3, 0], d)).shape]).toEqual([2, 0]);
      expect([...gpuarray.matmul(gpuarray.zeros([0, 2, 3], d), gpuarray.zeros([3, 4], d)).shape]).toEqual([0, 2, 4]);
      // Poisoned memory first, so zeros are written, not found.
      const poison = gpuarray.full([64], 7, d);
      poison.dispose();
      const z = gpuarray.matmul(gpuarray.empty([4, 0], d), gpuarray.empty([0, 4], d));
      expect([...z.shape]).toEqual([4, 4]);
      expect(download(z).map((v) => cx(v))).toEqual(Array(16).fill({ re: 0, im: 0 }));
      const zv = gpuarray.matmul(gpuarray.empty([0], d), gpuarray.empty([0], d));
      expect([...zv.shape]).toEqual([]);
      expect(cx(download(zv)[0])).toEqual({ re: 0, im: 0 });
    }
  }));

  test('NaN and Inf propagate as in IEEE arithmetic', () => cuda.tidy(() => {
    for (const d of ['float32', 'float64', 'complex64', 'float16', 'bfloat16'] as DTypeName[]) {
      const xs = randomValues(d, 4 * 5, 7, 0.5, 1.5), ys = randomValues(d, 5 * 3, 8, 0.5, 1.5);
      const special = (v: number): V => (d.startsWith('complex') ? { re: v, im: 0 } : v);
      xs[1] = special(NaN); // row 0: NaN everywhere
      xs[5 + 2] = special(Infinity); // row 1: +Inf (b is positive)
      xs[10 + 3] = special(-Infinity); // row 2: -Inf
      ys[3 * 3 + 1] = special(0); // b[3][1] = 0 meets a[2][3] = -Inf: c[2][1] is NaN
      const ref = refMatmul(xs, [4, 5], ys, [5, 3]);
      expectMatch(gpuarray.matmul(upload(d, xs, [4, 5]), upload(d, ys, [5, 3])), d, ref, `${d} NaN/Inf`);
      expect(ref.out.some((v) => Number.isNaN(v.re))).toBe(true);
      expect(ref.out.some((v) => v.re === Infinity)).toBe(true);
    }
  }));

  test('out=: written in place when it fits, converted or through a temporary otherwise; bad out is a typed error', () => cuda.tidy(() => {
    const x = make('float32', [5, 4], 'c', 11), y = make('float32', [4, 6], 'c', 12);
    const ref = refMatmul(x.vals, [5, 4], y.vals, [4, 6]);
    const out = gpuarray.empty([5, 6], 'float32');
    expect(gpuarray.matmul(x.a, y.a, { out })).toBe(out);
    expectMatch(out, 'float32', ref, 'out float32');
    const out64 = gpuarray.empty([5, 6], 'float64');
    expect(gpuarray.matmul(x.a, y.a, { out: out64 })).toBe(out64);
    expectMatch(out64, 'float64', ref, 'out float64 (computed in float32)', UNIT.float32);
    const outT = gpuarray.empty([6, 5], 'float32').T;
    expect(gpuarray.matmul(x.a, y.a, { out: outT })).toBe(outT);
    expectMatch(outT, 'float32', ref, 'out transposed view');
    // Aliasing: a square product into its own left operand.
    const sq = make('float64', [6, 6], 'c', 13), sq2 = make('float64', [6, 6], 'c', 14);
    const refSq = refMatmul(sq.vals, [6, 6], sq2.vals, [6, 6]);
    gpuarray.matmul(sq.a, sq2.a, { out: sq.a });
    expectMatch(sq.a, 'float64', refSq, 'out aliases a');
    const e = expectCode(() => gpuarray.matmul(x.a, y.a, { out: gpuarray.empty([5, 5], 'float32') }), RangeError, 'ERR_SHAPE_MISMATCH');
    expect(e.message).toContain('(5,5)');
    expectCode(() => gpuarray.matmul(x.a, y.a, { out: gpuarray.empty([5, 6], 'int32') }), TypeError, 'ERR_INVALID_DTYPE');
  }));

  test('streams: results on the given stream, handles per stream, temporaries freed in stream order', () => cuda.tidy(() => {
    const s1 = new driver.Stream(), s2 = new driver.Stream();
    try {
      const x = make('float64', [64, 48], 'T', 21), y = make('float64', [48, 32], 'step', 22);
      const ref = refMatmul(x.vals, [64, 48], y.vals, [48, 32]);
      const r1 = gpuarray.matmul(x.a, y.a, { stream: s1 });
      const r2 = x.a.matmul(y.a, { stream: s2 });
      const r3 = linalg.matmul(x.a.astype('float32', { stream: s1 }), y.a, { stream: s1, precision: 'tf32' });
      s1.synchronize();
      s2.synchronize();
      expectMatch(r1, 'float64', ref, 'stream 1');
      expectMatch(r2, 'float64', ref, 'stream 2');
      // tf32: about 10 mantissa bits in the products (float64·float32 promotes to float64: exact).
      expectMatch(r3, 'float64', ref, 'float32·float64 on stream 1', UNIT.float32);
      const f = linalg.matmul(x.a.astype('float32'), y.a.astype('float32'), { precision: 'tf32' });
      expectMatch(f, 'float32', ref, 'tf32', 2 ** -10);
    } finally {
      s1.dispose();
      s2.dispose();
    }
  }));

  test('a stream disposed and a new one made (maybe at the same address): a new handle, right results', () => cuda.tidy(() => {
    const x = make('float32', [33, 65], 'c', 23), y = make('float32', [65, 17], 'T', 24);
    const ref = refMatmul(x.vals, [33, 65], y.vals, [65, 17]);
    for (let i = 0; i < 6; i++) {
      const s = new driver.Stream();
      const r = gpuarray.matmul(x.a, y.a, { stream: s });
      s.synchronize();
      s.dispose();
      expectMatch(r, 'float32', ref, `stream ${i}`);
    }
  }));

  test('a user context (makeContext): products there use its own handle, released with the context', async () => {
    // In a function, so nothing references the context once it returns.
    const inUserContext = (): void => {
      const ctx = new driver.Device(0).makeContext();
      expect(ctx).toBeInstanceOf(driver.Context);
      try {
        cuda.tidy(() => {
          const x = make('float64', [9, 4], 'c', 25), y = make('float64', [4, 7], 'c', 26);
          expectMatch(gpuarray.matmul(x.a, y.a), 'float64', refMatmul(x.vals, [9, 4], y.vals, [4, 7]), 'user context');
        });
      } finally {
        driver.Context.pop();
      }
    };
    inUserContext();
    await collect(); // the context goes (~Context destroys its cuBLAS handle); the primary one still works
    cuda.tidy(() => {
      const x = make('float64', [3, 4], 'c', 27), y = make('float64', [4, 2], 'c', 28);
      expectMatch(gpuarray.matmul(x.a, y.a), 'float64', refMatmul(x.vals, [3, 4], y.vals, [4, 2]), 'primary context after');
    });
  });

  test('dtypes: integer and bool are TypeError ERR_INVALID_DTYPE; mixed dtypes promote', () => cuda.tidy(() => {
    const i = gpuarray.toGpu([[1, 2], [3, 4]], { dtype: 'int32' }), f = gpuarray.toGpu([[1, 0], [0, 1]], { dtype: 'float32' });
    const e = expectCode(() => gpuarray.matmul(i, i), TypeError, 'ERR_INVALID_DTYPE');
    expect(e.message).toContain('int32');
    expectCode(() => gpuarray.matmul(i.astype('bool'), i.astype('bool')), TypeError, 'ERR_INVALID_DTYPE');
    const r = gpuarray.matmul(i, f); // int32·float32 → float64, as the operators promote
    expect(r.dtype.name).toBe('float64');
    expect(r.toArray()).toEqual([[1, 2], [3, 4]]);
    const h = gpuarray.matmul(f.astype('float16'), f);
    expect(h.dtype.name).toBe('float32');
    expect(gpuarray.matmul(f.astype('complex64'), f).dtype.name).toBe('complex64');
    // bfloat16 promotes like PyTorch: with float32 → float32, with float16 → float32, with integers → bfloat16.
    expect(gpuarray.matmul(f.astype('bfloat16'), f).dtype.name).toBe('float32');
    expect(gpuarray.matmul(f.astype('bfloat16'), f.astype('float16')).toArray()).toEqual([[1, 0], [0, 1]]);
    const bi = gpuarray.matmul(i, f.astype('bfloat16'));
    expect(bi.dtype.name).toBe('bfloat16');
    expect(bi.astype('float64').toArray()).toEqual([[1, 2], [3, 4]]);
  }));

  test('shape errors name both shapes; 0-d operands and bad options are typed errors', () => cuda.tidy(() => {
    const a = gpuarray.zeros([2, 3], 'float32'), b = gpuarray.zeros([4, 5], 'float32');
    const e = expectCode(() => gpuarray.matmul(a, b), RangeError, 'ERR_SHAPE_MISMATCH');
    expect(e.message).toContain('(2,3)');
    expect(e.message).toContain('(4,5)');
    expectCode(() => gpuarray.matmul(gpuarray.zeros([2, 2, 3], 'float32'), gpuarray.zeros([3, 3, 4], 'float32')), RangeError, 'ERR_SHAPE_MISMATCH');
    expectCode(() => gpuarray.matmul(gpuarray.zeros([], 'float32'), a), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => gpuarray.matmul(a, a.T, { precision: 'fast' as never }), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => gpuarray.matmul(a, 3 as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    const d = gpuarray.zeros([3, 3], 'float32');
    d.dispose();
    expectCode(() => gpuarray.matmul(d, d), TypeError, 'ERR_USE_AFTER_DISPOSE');
  }));

  test('temporaries (conversions, copies, out staging) are freed', () => {
    const before = live();
    cuda.tidy(() => {
      const x = make('float32', [2, 3, 8, 5], 'bT', 31), y = make('float64', [5, 4], 'rev', 32);
      gpuarray.matmul(x.a, y.a).dispose();
      gpuarray.matmul(x.a, y.a, { out: gpuarray.empty([3, 2, 8, 4], 'float64').transpose([1, 0, 2, 3]) });
    });
    expect(live()).toBe(before);
  });
});

describeGpu('dot, inner, outer, vdot (NumPy semantics)', () => {
  const D: DTypeName = 'float64';
  test('dot: 1-D·1-D reduction (integers too), matrix cases on cuBLAS, N-D·M-D, 0-d', () => cuda.tidy(() => {
    const v = make(D, [7], 'step', 41), w = make(D, [7], 'c', 42);
    expectMatch(linalg.dot(v.a, w.a), D, refMatmul(v.vals, [7], w.vals, [7]), 'dot 1-D');
    const iv = gpuarray.toGpu([1, 2, 3], { dtype: 'int32' });
    expect(linalg.dot(iv, iv).item()).toBe(14n); // the gpuarray.dot reduction: int32 sums in int64
    const m = make(D, [4, 7], 'T', 43), n = make(D, [7, 3], 'c', 44);
    expectMatch(linalg.dot(m.a, n.a), D, refMatmul(m.vals, [4, 7], n.vals, [7, 3]), 'dot 2-D');
    expectMatch(linalg.dot(m.a, w.a), D, refMatmul(m.vals, [4, 7], w.vals, [7]), 'dot 2-D·1-D');
    // N-D·M-D: dot(a, b)[i, j, k, n] = Σ a[i, j, :] · b[k, :, n]
    const a = make(D, [2, 3, 7], 'c', 45), b = make(D, [4, 7, 5], 'c', 46);
    const r = linalg.dot(a.a, b.a);
    expect([...r.shape]).toEqual([2, 3, 4, 5]);
    const got = download(r);
    const bad: string[] = [];
    for (let i = 0; i < 6; i++) {
      for (let kk = 0; kk < 4; kk++) {
        for (let nn = 0; nn < 5; nn++) {
          let s = 0;
          for (let l = 0; l < 7; l++) s += Number(a.vals[i * 7 + l]) * Number(b.vals[kk * 35 + l * 5 + nn]);
          const g = Number(got[(i * 4 + kk) * 5 + nn]);
          if (Math.abs(g - s) > 1e-12) bad.push(`[${i},${kk},${nn}]: ${g} vs ${s}`);
        }
      }
    }
    expect(bad).toEqual([]);
    const s = gpuarray.toGpu(2, { dtype: 'float64' });
    expect(linalg.dot(s, m.a).toArray()).toEqual(m.a.mul(2).toArray());
    // gpuarray.dot keeps PyCUDA's meaning: sum(a * b) of equal shapes.
    expect(gpuarray.dot(m.a, m.a).item()).toBeCloseTo(m.vals.reduce((p: number, q) => p + Number(q) ** 2, 0), 10);
  }));

  test('inner: sums over the last axes (x·wᵀ without copying w); outer: ravel ⊗ ravel', () => cuda.tidy(() => {
    const x = make(D, [2, 3, 6], 'c', 51), w = make(D, [4, 6], 'c', 52);
    const copy = jest.spyOn(GPUArray.prototype, 'copy');
    let r: GPUArray;
    try {
      r = linalg.inner(x.a, w.a);
      expect(copy).not.toHaveBeenCalled();
    } finally {
      copy.mockRestore();
    }
    const wt = viewOf(w.vals, [6, 4], [1, 6]);
    expectMatch(r, D, { ...refMatmul(x.vals, [6, 6], wt, [6, 4]), shape: [2, 3, 4] }, 'inner');
    const u = make('complex64', [2, 2], 'T', 53), v = make('complex64', [3], 'c', 54);
    const o = linalg.outer(u.a, v.a);
    expectMatch(o, 'complex64', refMatmul(u.vals, [4, 1], v.vals, [1, 3]), 'outer');
    const io = linalg.outer(gpuarray.toGpu([1, 2], { dtype: 'int32' }), gpuarray.toGpu([3, 4], { dtype: 'int32' }));
    expect([io.dtype.name, io.toArray()]).toEqual(['int32', [[3, 4], [6, 8]]]);
  }));

  test('vdot: conjugates the first operand (complex on cuBLAS, strided), flattens, checks sizes', () => cuda.tidy(() => {
    for (const d of ['complex64', 'complex128'] as DTypeName[]) {
      const a = make(d, [3, 4], 'T', 61), b = make(d, [12], 'step', 62);
      expectMatch(linalg.vdot(a.a, b.a), d, refMatmul(a.vals, [12], b.vals, [12], true), `vdot ${d}`);
    }
    const z = gpuarray.toGpu([{ re: 1, im: 2 }, { re: 3, im: -1 }], { dtype: 'complex128' });
    expect(linalg.vdot(z, z).item()).toEqual({ re: 15, im: 0 });
    const f = make('float32', [2, 3], 'c', 63), g = make('float32', [6], 'c', 64);
    expectMatch(linalg.vdot(f.a, g.a), 'float32', refMatmul(f.vals, [6], g.vals, [6]), 'vdot float32');
    expectCode(() => linalg.vdot(f.a, gpuarray.zeros([5], 'float32')), RangeError, 'ERR_SHAPE_MISMATCH');
  }));
});

describeGpu('linalg.norm', () => {
  const close = (r: GPUArray, want: number[], label: string, tol = 1e-12): void => {
    const got = download(r).map(Number);
    expect([label, got.length]).toEqual([label, want.length]);
    want.forEach((w, i) => expect([label, i, Math.abs(got[i] - w) <= tol * Math.max(1, Math.abs(w))]).toEqual([label, i, true]));
  };
  test('vectors: 2, 1, ±Infinity, 0, p; along an axis with keepdims; complex and integer input', () => cuda.tidy(() => {
    const xs = [3, -4, 0, 12];
    const v = gpuarray.toGpu(xs, { dtype: 'float64' });
    close(linalg.norm(v), [13], 'default');
    close(linalg.norm(v, 2), [13], '2');
    close(linalg.norm(v, 1), [19], '1');
    close(linalg.norm(v, Infinity), [12], 'inf');
    close(linalg.norm(v, -Infinity), [0], '-inf');
    close(linalg.norm(v, 0), [3], '0');
    close(linalg.norm(v, 3), [Math.cbrt(27 + 64 + 1728)], '3');
    const m = gpuarray.toGpu([[3, 4], [6, 8]], { dtype: 'float32' });
    const r = linalg.norm(m, 2, { axis: -1, keepdims: true });
    expect([r.dtype.name, [...r.shape]]).toEqual(['float32', [2, 1]]);
    close(r, [5, 10], 'axis -1', 1e-6);
    const z = gpuarray.toGpu([{ re: 3, im: 4 }, { re: 0, im: 12 }], { dtype: 'complex64' });
    const zn = linalg.norm(z);
    expect(zn.dtype.name).toBe('float32');
    close(zn, [13], 'complex', 1e-6);
    const i = linalg.norm(gpuarray.toGpu([3, 4], { dtype: 'int32' }));
    expect(i.dtype.name).toBe('float64');
    close(i, [5], 'int32');
    const h = linalg.norm(gpuarray.full([4096], 8, 'float16')); // Σx² = 262144 overflows float16 sums
    expect(h.dtype.name).toBe('float16');
    close(h, [512], 'float16 accumulates in float32', 1e-3);
    const b = linalg.norm(gpuarray.full([4096], 8, 'bfloat16'));
    expect(b.dtype.name).toBe('bfloat16');
    close(b, [512], 'bfloat16 accumulates in float32', 1e-3);
  }));

  test("matrices: 'fro', 1, -1, ±Infinity; 2 and 'nuc' need an SVD (ERR_NOT_SUPPORTED)", () => cuda.tidy(() => {
    const m = gpuarray.toGpu([[1, -2, 3], [-4, 5, -6]], { dtype: 'float64' });
    close(linalg.norm(m), [Math.sqrt(91)], 'default');
    close(linalg.norm(m, 'fro'), [Math.sqrt(91)], 'fro');
    close(linalg.norm(m, 1), [9], '1: max column sum');
    close(linalg.norm(m, -1), [5], '-1');
    close(linalg.norm(m, Infinity), [15], 'inf: max row sum');
    close(linalg.norm(m, -Infinity), [6], '-inf');
    const kd = linalg.norm(m, Infinity, { axis: [0, 1], keepdims: true });
    expect([...kd.shape]).toEqual([1, 1]);
    close(linalg.norm(m.T, 1), [15], 'transposed');
    expectCode(() => linalg.norm(m, 2), RangeError, 'ERR_NOT_SUPPORTED');
    expectCode(() => linalg.norm(m, 'nuc'), RangeError, 'ERR_NOT_SUPPORTED');
    expectCode(() => linalg.norm(m, 3), RangeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => linalg.norm(gpuarray.zeros([3], 'float32'), 'fro'), RangeError, 'ERR_INVALID_ARG_VALUE');
  }));
});
