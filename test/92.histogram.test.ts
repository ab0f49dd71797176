/**
 * bincount, histogram, histogramBinEdges and digitize (lib/array/histogram.ts) against a CPU
 * reference of NumPy 2's semantics: edges as NumPy's linspace computes them (in the data's float
 * dtype for the data's own range, in float64 then rounded for an explicit one), values exactly
 * on the edges and one ulp either side, the last edge in the last bin, NaN/±Inf ignored with an
 * explicit range, non-uniform edges (duplicates included), weights of several dtypes (hist in
 * their dtype), density, empty and one-element inputs, 2^20 + 3 elements, transposed and stepped
 * views, few bins (per-block shared bins) and many (global atomics); digitize left/right with
 * increasing and decreasing bins; argument errors; no leaks. Without a GPU: the host edge
 * arithmetic, monotonicity, errors raised before any array is needed, and NVRTC compiles of the
 * kernels.
 */
import * as cuda from '../lib';
import { DTYPES, GPUArray, driver, floatToHalfBits, gpuarray, halfBitsToFloat, slice } from '../lib';
import type { DTypeName } from '../lib';
import { collect, compileBoth, describeGpu, expectCode, expectEntries, settledLive } from './helpers';
import { C, V, download, half, halfOf, softly, upload, viewOf } from './reference';
import { rng } from './reduce-reference';
import { monotonicity, numpyLinspace, uniformEdges } from '../lib/array/histogram';
import { HistKernelSpec, histKernel, histRangeSpec } from '../lib/engine/templates/histogram';
import { PREAMBLE } from '../lib/engine/templates/preamble';
import { REDUCE_PREAMBLE, reduceKernel } from '../lib/engine/templates/reduction';

// ---- the CPU reference ---------------------------------------------------------------------------

interface Round { op: (x: number) => number; cast: (x: number) => number }
const id = (x: number): number => x;
/** NumPy's rounding in dtype d: of one operation (float16 through float32) and of a double converted. */
const rounds = (d: DTypeName): Round => d === 'float32' ? { op: Math.fround, cast: Math.fround }
  : d === 'float16' ? { op: half, cast: halfOf } : { op: id, cast: id };
const isFloat = (d: DTypeName): boolean => d.startsWith('float');

/** np.histogram_bin_edges(data of d, bins, range) as NumPy 2 computes them. */
function refEdges(d: DTypeName, bins: number, range: [number, number] | null, data: number[]): number[] {
  let lo: number, hi: number;
  let r: Round = { op: id, cast: id };
  if (range) [lo, hi] = range;
  else if (!data.length) [lo, hi] = [0, 1];
  else {
    lo = Infinity; hi = -Infinity;
    for (const v of data) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    if (isFloat(d)) r = rounds(d);
  }
  if (lo === hi) { lo = r.op(lo - 0.5); hi = r.op(hi + 0.5); }
  const div = r.cast(bins), delta = r.op(hi - lo), step = r.op(delta / div);
  const y = Array.from({ length: bins + 1 }, (_, i) =>
    r.op((step === 0 ? r.op(r.op(r.cast(i) / div) * delta) : r.op(r.cast(i) * step)) + lo));
  y[bins] = hi;
  return y.map(rounds(isFloat(d) ? d : 'float64').cast);
}

/** NumPy's bin of v: e[i] <= v < e[i + 1], the last bin closed; -1 outside or NaN. */
function binOf(v: number, e: readonly number[]): number {
  const nb = e.length - 1;
  if (nb < 1 || !(v >= e[0] && v <= e[nb])) return -1;
  let a = 0, b = nb + 1; // the first edge above v
  while (a < b) { const m = (a + b) >> 1; if (e[m] > v) b = m; else a = m + 1; }
  return Math.min(a - 1, nb - 1);
}

function refHist(vals: number[], e: readonly number[], w?: V[]): V[] {
  const nb = Math.max(0, e.length - 1);
  const complex = w?.length && typeof w[0] === 'object';
  const out: V[] = Array.from({ length: nb }, () => (complex ? { re: 0, im: 0 } : 0));
  vals.forEach((v, k) => {
    const i = binOf(v, e);
    if (i < 0) return;
    if (!w) out[i] = (out[i] as number) + 1;
    else if (complex) out[i] = { re: (out[i] as C).re + (w[k] as C).re, im: (out[i] as C).im + (w[k] as C).im };
    else out[i] = (out[i] as number) + Number(w[k]);
  });
  return out;
}

function refBincount(vals: number[], minlength = 0, w?: number[]): number[] {
  let top = -1;
  for (const v of vals) top = Math.max(top, v);
  const out = new Array<number>(Math.max(minlength, top + 1)).fill(0);
  vals.forEach((v, k) => { out[v] += w ? w[k] : 1; });
  return out;
}

/** digitize by its definition: how many bins lie at or below x (right: below), mirrored for decreasing bins. */
function refDigitize(x: number[], bins: number[], right: boolean): number[] {
  const le = (b: number, v: number): boolean => Number.isNaN(v) ? !Number.isNaN(b) : (right ? b < v : b <= v);
  const dec = monotonicity(bins) === -1;
  // Decreasing: NumPy's len - searchsorted(reversed, x): the bins above x (right: at or above).
  return x.map((v) => dec ? bins.filter((b) => !le(b, v)).length : bins.filter((b) => le(b, v)).length);
}

const f64 = new Float64Array(1), i64 = new BigInt64Array(f64.buffer), f32 = new Float32Array(1), i32 = new Int32Array(f32.buffer);
/** The neighbour of x one ulp away in dtype d (dir 1: up). */
function nudge(d: DTypeName, x: number, dir: 1 | -1): number {
  if (x === 0) return dir * (d === 'float16' ? 2 ** -24 : d === 'float32' ? 2 ** -149 : 5e-324);
  const grow = (x > 0) === (dir > 0);
  if (d === 'float64') { f64[0] = x; i64[0] += grow ? 1n : -1n; return f64[0]; }
  if (d === 'float32') { f32[0] = x; i32[0] += grow ? 1 : -1; return f32[0]; }
  return halfBitsToFloat(floatToHalfBits(x) + (grow ? 1 : -1));
}

/** n values of d in [lo, hi) (rounded to d; integers floored), seeded. */
function data(d: DTypeName, n: number, lo: number, hi: number, seed: number): number[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => {
    const v = lo + (hi - lo) * r();
    return d === 'bool' ? (v > (lo + hi) / 2 ? 1 : 0) : isFloat(d) ? rounds(d).cast(v) : Math.floor(v);
  });
}

/** Quarter multiples in [-8, 8] (sums exact in float64 and, for these sizes, float32). */
const quarters = (n: number, seed: number): number[] => data('float64', n, -32, 33, seed).map((v) => Math.floor(v) / 4);

const nums = (a: GPUArray): number[] => download(a).map((v) => (typeof v === 'object' ? NaN : Number(v)));
const sameList = (got: readonly V[], want: readonly V[], tag: string): void => {
  const norm = (v: V): unknown => (typeof v === 'bigint' ? Number(v) : typeof v === 'number' && Number.isNaN(v) ? 'NaN' : v);
  expect({ tag, n: got.length }).toEqual({ tag, n: want.length });
  const bad = got.findIndex((g, i) => JSON.stringify(norm(g)) !== JSON.stringify(norm(want[i])));
  if (bad >= 0) throw new Error(`${tag}: at ${bad} got ${JSON.stringify(norm(got[bad]))}, want ${JSON.stringify(norm(want[bad]))}`);
};

// ---- no GPU needed ------------------------------------------------------------------------------

describe('histogram edges on the host (NumPy 2 arithmetic)', () => {
  test('equal-width edges match NumPy outputs', () => {
    // np.histogram_bin_edges(np.arange(10, dtype=np.int32)): float64, linspace(0, 9, 11).
    expect(uniformEdges(DTYPES.int32, 10, null, [0, 9]).edges).toEqual([0, 0.9, 1.8, 2.7, 3.6, 4.5, 5.4, 6.3, 7.2, 8.1, 9]);
    expect(uniformEdges(DTYPES.float64, 3, null, [0.5, 0.5]).edges).toEqual([0, 1 / 3, 2 / 3, 1]);
    // An empty array: [0, 1] in float64, then the data's float dtype.
    expect(uniformEdges(DTYPES.float32, 10, null, null).edges).toEqual(numpyLinspace(0, 1, 11).map(Math.fround));
    // float32 data's own range: computed in float32 (NumPy 2; values from its linspace in float32).
    const e = uniformEdges(DTYPES.float32, 10, null, [Math.fround(0.1), Math.fround(0.7)]).edges;
    expect(e).toEqual(refEdges('float32', 10, null, [Math.fround(0.1), Math.fround(0.7)]));
    expect(e.every((v) => Math.fround(v) === v)).toBe(true);
    expect(e[0]).toBe(Math.fround(0.1));
    expect(e[10]).toBe(Math.fround(0.7));
    // An explicit range: float64 arithmetic, rounded once to the data's dtype.
    expect(uniformEdges(DTYPES.float16, 4, [0.1, 0.3], null).edges).toEqual([0.1, 0.15, 0.2, 0.25, 0.3].map(halfOf));
    for (const [d, lo, hi, n] of [['float16', -3.7, 1000.5, 100], ['float32', 1e-3, 3.3, 33], ['float16', 0.1, 0.7, 7]] as const) {
      const range: [number, number] = [rounds(d).cast(lo), rounds(d).cast(hi)];
      expect(uniformEdges(DTYPES[d], n, null, range).edges).toEqual(refEdges(d, n, null, range));
    }
  });

  test('monotonicity as NumPy _monotonicity', () => {
    expect(monotonicity([])).toBe(1);
    expect(monotonicity([5, 5, 5])).toBe(1);
    expect(monotonicity([1, 1, 2, 2, 3])).toBe(1);
    expect(monotonicity([3, 2, 2, 1])).toBe(-1);
    expect(monotonicity([1, 3, 2])).toBe(0);
    expect(monotonicity([3, 1, 2])).toBe(0);
  });

  test('argument errors before any array is needed', () => {
    const notArray = {} as GPUArray;
    expectCode(() => gpuarray.bincount(notArray), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.bincount(notArray, { minLength: 3 } as never), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => gpuarray.histogram(notArray), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.histogram(notArray, 0), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => gpuarray.histogram(notArray, { bins: -2 }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => gpuarray.histogram(notArray, 2.5), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.histogram(notArray, 'auto' as never), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => gpuarray.histogram(notArray, ['a'] as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.histogram(notArray, 3, { bins: 4 }), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => gpuarray.histogram(notArray, { bins: 3 }, {}), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.histogram(notArray, { density: 1 } as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.histogram(notArray, { normed: true } as never), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => gpuarray.histogramBinEdges(notArray, 0), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => gpuarray.digitize(notArray, [1, 2]), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.digitize(notArray, [1, 2], { right: 'yes' } as never), TypeError, 'ERR_INVALID_ARG_TYPE');
  });
});

describe('histogram kernels compile (NVRTC, no GPU)', () => {
  test('bincount and histogram kernels, every weights kind; the range reduction', async () => {
    const T = DTYPES;
    const specs: HistKernelSpec[] = [
      ...[T.int32, T.int64, T.uint8, T.bool, T.uint64].map((x) => ({ x, edges: null, cmp: null, weights: null })),
      { x: T.int32, edges: null, cmp: null, weights: T.float64 },
      { x: T.int64, edges: null, cmp: null, weights: T.float16 },
      ...[T.float32, T.float64, T.float16].map((x) => ({ x, edges: x, cmp: x, weights: null })),
      { x: T.float32, edges: T.float32, cmp: T.float32, weights: T.float32 },
      { x: T.float64, edges: T.float64, cmp: T.float64, weights: T.complex64 },
      { x: T.int32, edges: T.float64, cmp: T.float64, weights: T.int32 },
      { x: T.bool, edges: T.float64, cmp: T.float64, weights: T.complex128 },
      { x: T.int8, edges: T.int64, cmp: T.int64, weights: T.bool },
    ];
    const parts = [PREAMBLE, REDUCE_PREAMBLE];
    const names: string[] = [];
    for (const s of specs) {
      const k = histKernel(s);
      parts.push(k.source);
      names.push(k.name);
    }
    for (const d of [T.float16, T.float32, T.float64, T.bfloat16]) {
      for (const e of [1, 16 / d.bytes]) {
        const k = reduceKernel(histRangeSpec(d), { kind: 'rows', nk: 1, nr: 1, wide: e === 1, e });
        parts.push(k.source);
        names.push(k.name);
      }
    }
    expect(new Set(names).size).toBe(names.length);
    expectEntries(await compileBoth(parts.join('\n')), names);
  });
});

// ---- on the GPU ---------------------------------------------------------------------------------

describeGpu('bincount', () => {
  let baseline = 0;
  beforeAll(async () => {
    await collect();
    baseline = settledLive();
  });

  const TYPES: Array<[DTypeName, number]> = [['int32', 50000], ['int64', 50000], ['uint8', 255], ['bool', 1], ['int8', 127],
    ['int16', 30000], ['uint16', 65535], ['uint32', 50000], ['uint64', 50000]];
  test.each(TYPES)('%s: sizes, few and many bins, minlength, weights, views', (d, top) => {
    const soft = softly();
    const big = ['int32', 'int64', 'uint8', 'bool'].includes(d);
    for (const n of [1, 31, 1000, ...(big ? [2 ** 20 + 3] : [])]) {
      for (const hi of [Math.min(top, 9), top]) {
        const xs = data(d, n, 0, hi + 1, n + hi);
        const x = upload(d, xs);
        const tag = `${d} n=${n} max<=${hi}`;
        soft(() => {
          const r = gpuarray.bincount(x);
          expect(r.dtype.name).toBe('int64');
          sameList(nums(r), refBincount(xs), tag);
          r.dispose();
        });
        soft(() => sameList(nums(gpuarray.bincount(x, { minlength: hi + 20 })), refBincount(xs, hi + 20), `${tag} minlength`));
        soft(() => sameList(nums(gpuarray.bincount(x, { minlength: 1 })), refBincount(xs, 1), `${tag} short minlength`));
        if (n <= 1000) {
          const w = quarters(n, n);
          for (const wd of ['float64', 'float32', 'int32', 'bool'] as const) {
            const wv = wd === 'bool' ? w.map((v) => (v > 0 ? 1 : 0)) : wd === 'int32' ? w.map(Math.round) : w;
            const wa = upload(wd, wv);
            soft(() => {
              const r = gpuarray.bincount(x, { weights: wa, minlength: 3 });
              expect(r.dtype.name).toBe('float64');
              sameList(nums(r), refBincount(xs, 3, wv), `${tag} weights ${wd}`);
            });
            wa.dispose();
          }
        }
        x.dispose();
      }
    }
    // Stepped and reversed views, with weights of the same views.
    const xs = data(d, 3001, 0, Math.min(top, 40) + 1, 5), w = quarters(3001, 6);
    const x = upload(d, xs), wa = upload('float64', w);
    soft(() => sameList(nums(gpuarray.bincount(x.index(slice(1, null, 3)))), refBincount(viewOf(xs, [1000], [3], 1)), `${d} stepped`));
    soft(() => sameList(nums(gpuarray.bincount(x.index(slice(null, null, -1)), { weights: wa.index(slice(null, null, -1)) })),
      refBincount([...xs].reverse(), 0, [...w].reverse()), `${d} reversed with weights`));
    x.dispose();
    wa.dispose();
    soft.done();
  });

  test('NumPy examples, empty input, negative values, argument errors', () => {
    const soft = softly();
    soft(() => sameList(nums(gpuarray.bincount(upload('int64', [0, 1, 1, 3, 2, 1, 7]))), [1, 3, 1, 1, 0, 0, 0, 1], 'numpy'));
    soft(() => {
      // The sums' order is the atomics': equal to NumPy's [0.3, 0.7, 1.1] to rounding.
      const r = nums(gpuarray.bincount(upload('int64', [0, 1, 1, 2, 2, 2]), { weights: gpuarray.toGpu([0.3, 0.5, 0.2, 0.7, 1, -0.6]) }));
      expect(r.length).toBe(3);
      [0.3, 0.7, 1.1].forEach((v, i) => expect(r[i]).toBeCloseTo(v, 14));
    });
    // Empty: int64 zeros of minlength (NumPy ignores the weights then).
    const empty = gpuarray.zeros([0], 'int32');
    soft(() => {
      const r = gpuarray.bincount(empty, { minlength: 4, weights: gpuarray.zeros([5]) });
      expect([r.dtype.name, [...r.shape]]).toEqual(['int64', [4]]);
      sameList(nums(r), [0, 0, 0, 0], 'empty');
    });
    soft(() => expect([...gpuarray.bincount(empty).shape]).toEqual([0]));
    soft(() => expectCode(() => gpuarray.bincount(upload('int32', [3, -1, 2])), RangeError, 'ERR_OUT_OF_RANGE'));
    soft(() => expectCode(() => gpuarray.bincount(upload('int64', [-(2 ** 40)])), RangeError, 'ERR_OUT_OF_RANGE'));
    soft(() => expectCode(() => gpuarray.bincount(gpuarray.toGpu(new BigUint64Array([1n, 1n << 63n]))), RangeError, 'ERR_OUT_OF_RANGE'));
    const x = upload('int32', [1, 2, 3]);
    soft(() => expectCode(() => gpuarray.bincount(upload('float32', [1, 2])), TypeError, 'ERR_INVALID_DTYPE'));
    soft(() => expectCode(() => gpuarray.bincount(x.reshape([3, 1])), RangeError, 'ERR_INVALID_ARG_VALUE'));
    soft(() => expectCode(() => gpuarray.bincount(x, { minlength: -1 }), RangeError, 'ERR_OUT_OF_RANGE'));
    soft(() => expectCode(() => gpuarray.bincount(x, { minlength: null } as never), TypeError, 'ERR_INVALID_ARG_TYPE'));
    soft(() => expectCode(() => gpuarray.bincount(x, { minlength: 1.5 }), TypeError, 'ERR_INVALID_ARG_TYPE'));
    soft(() => expectCode(() => gpuarray.bincount(x, { weights: gpuarray.zeros([4]) }), RangeError, 'ERR_SHAPE_MISMATCH'));
    soft(() => expectCode(() => gpuarray.bincount(x, { weights: gpuarray.zeros([3], 'complex64') }), TypeError, 'ERR_INVALID_DTYPE'));
    soft(() => expectCode(() => gpuarray.bincount(x, { weights: [1, 2, 3] as never }), TypeError, 'ERR_INVALID_ARG_TYPE'));
    soft.done();
  });

  afterAll(async () => {
    await collect();
    expect(settledLive()).toBe(baseline);
  });
});

describeGpu('histogram and histogramBinEdges', () => {
  let baseline = 0;
  beforeAll(async () => {
    await collect();
    baseline = settledLive();
  });

  /** Checks histogram(a) (values `xs` in C order) against the reference, and histogramBinEdges. */
  function check(a: GPUArray, xs: number[], d: DTypeName, bins: number, range: [number, number] | null, tag: string,
    w?: { arr: GPUArray; vals: V[]; dt: DTypeName }, stream?: cuda.Stream): void {
    const e = refEdges(d, bins, range, xs);
    const { hist, binEdges } = gpuarray.histogram(a, bins, { range, weights: w?.arr, stream });
    expect({ tag, dt: binEdges.dtype.name }).toEqual({ tag, dt: isFloat(d) ? d : 'float64' });
    sameList(nums(binEdges), e, `${tag} edges`);
    const want = refHist(xs, e, w?.vals);
    expect({ tag, dt: hist.dtype.name }).toEqual({ tag, dt: w ? w.dt : 'int64' });
    if (!w) sameList(nums(hist), want, tag);
    else if (w.dt.startsWith('complex')) sameList(download(hist), want, tag);
    else sameList(nums(hist), want.map((v) => (w.dt === 'bool' ? (v ? 1 : 0) : rounds(w.dt).cast(v as number))), tag);
    const only = gpuarray.histogramBinEdges(a, { bins, range, stream });
    sameList(nums(only), e, `${tag} histogramBinEdges`);
    for (const x of [hist, binEdges, only]) x.dispose();
  }

  test.each(['float32', 'float64', 'float16'] as DTypeName[])('%s: explicit and own range, edges ±1 ulp, NaN/±Inf, sizes', (d) => {
    const soft = softly();
    const range: [number, number] = [-2.5, 7.3];
    const e = refEdges(d, 10, range, []);
    const special = [NaN, Infinity, -Infinity, ...e, ...e.flatMap((v) => [nudge(d, v, 1), nudge(d, v, -1)])];
    for (const n of [1, 31, 1000, ...(d === 'float32' ? [2 ** 20 + 3] : [])]) {
      const xs = [...data(d, n, -4, 9, n), ...special];
      const a = upload(d, xs);
      soft(() => check(a, xs, d, 10, range, `${d} n=${n} range`));
      a.dispose();
      // The data's own range (finite data): the edges themselves added, which are inside it.
      const own = data(d, n, 0.3, 5.7, n + 1);
      const eo = refEdges(d, 7, null, own);
      const ys = [...own, ...eo.slice(1, -1), ...eo.slice(1, -1).map((v) => nudge(d, v, -1))];
      const b = upload(d, ys);
      soft(() => check(b, ys, d, 7, null, `${d} n=${n} own range`));
      b.dispose();
    }
    // One element (the range widened by 0.5 each way), a constant array, empty.
    for (const xs of [[1.25], [3, 3, 3], []]) {
      const a = upload(d, xs);
      soft(() => check(a, xs, d, 10, null, `${d} ${JSON.stringify(xs)}`));
      a.dispose();
    }
    // NaN or ±Inf in the data's own range: NumPy's ValueError.
    for (const bad of [NaN, Infinity, -Infinity]) {
      const a = upload(d, [1, bad, 2]);
      soft(() => expectCode(() => gpuarray.histogram(a), RangeError, 'ERR_OUT_OF_RANGE'));
      soft(() => expectCode(() => gpuarray.histogramBinEdges(a), RangeError, 'ERR_OUT_OF_RANGE'));
      a.dispose();
    }
    soft.done();
  });

  test.each(['int32', 'uint8', 'int64', 'bool', 'int16', 'uint64'] as DTypeName[])('%s: float64 edges, values on edges', (d) => {
    const soft = softly();
    const top = d === 'bool' ? 2 : 10;
    for (const n of [1, 31, 1000, ...(d === 'int32' ? [2 ** 20 + 3] : [])]) {
      const xs = data(d, n, 0, top, n);
      const a = upload(d, xs);
      for (const bins of [3, 10, 1]) soft(() => check(a, xs, d, bins, null, `${d} n=${n} bins=${bins}`));
      soft(() => check(a, xs, d, 5, [2.5, 7], `${d} n=${n} range`));
      soft(() => check(a, xs, d, 4, [3, 3], `${d} n=${n} empty range`));
      a.dispose();
    }
    soft.done();
  });

  test('weights (hist in their dtype), density, non-uniform edges, views, many bins, a stream', () => {
    const soft = softly();
    const n = 3001;
    const xs = data('float32', n, -1, 11, 3);
    const a = upload('float32', xs);
    const w = quarters(n, 4);
    for (const dt of ['float64', 'float32', 'float16', 'int32', 'bool'] as DTypeName[]) {
      const vals = dt === 'bool' ? w.map((v) => (v > 0 ? 1 : 0)) : dt === 'int32' ? w.map(Math.round) : w;
      const arr = upload(dt, vals);
      soft(() => check(a, xs, 'float32', 12, [0, 10], `weights ${dt}`, { arr, vals, dt }));
      arr.dispose();
    }
    const cw: C[] = w.map((v, i) => ({ re: v, im: w[(i * 7) % n] }));
    for (const dt of ['complex64', 'complex128'] as DTypeName[]) {
      const arr = upload(dt, cw);
      soft(() => check(a, xs, 'float32', 9, null, `weights ${dt}`, { arr, vals: cw, dt }));
      arr.dispose();
    }
    // density: hist / width (in the edges' dtype) / total, float64.
    soft(() => {
      const e = refEdges('float32', 12, [0, 10], xs);
      const counts = refHist(xs, e) as number[];
      const total = counts.reduce((p, q) => p + q, 0);
      const { hist } = gpuarray.histogram(a, { bins: 12, range: [0, 10], density: true });
      expect(hist.dtype.name).toBe('float64');
      sameList(nums(hist), counts.map((c, i) => c / Math.fround(e[i + 1] - e[i]) / total), 'density');
      const wa = upload('float32', w);
      const { hist: hw } = gpuarray.histogram(a, { bins: 12, range: [0, 10], density: true, weights: wa });
      const sums = (refHist(xs, e, w) as number[]).map(Math.fround);
      const tw = sums.reduce((p, q) => p + q, 0);
      sameList(nums(hw), sums.map((c, i) => c / Math.fround(e[i + 1] - e[i]) / tw), 'density weights');
      // NumPy's own example: np.histogram(np.arange(5), density=True) ≈ [0.5, 0, 0.5, 0, 0, 0.5, 0, 0.5, 0, 0.5].
      const e5 = refEdges('int64', 10, null, [0, 4]);
      const d5 = nums(gpuarray.histogram(upload('int64', [0, 1, 2, 3, 4]), { density: true }).hist);
      sameList(d5, [1, 0, 1, 0, 0, 1, 0, 1, 0, 1].map((c, i) => c / (e5[i + 1] - e5[i]) / 5), 'numpy density');
      [0.5, 0, 0.5, 0, 0, 0.5, 0, 0.5, 0, 0.5].forEach((v, i) => expect(d5[i]).toBeCloseTo(v, 12));
      // Empty data: 0 / 0.
      sameList(nums(gpuarray.histogram(gpuarray.zeros([0]), { bins: 2, density: true }).hist), [NaN, NaN], 'empty density');
      wa.dispose();
    });
    // Non-uniform edges: numbers (float64), a GPUArray (kept dtype), duplicates; the last edge closed.
    const edgesList = [-1, 0, 0.5, 0.5, 2, Math.fround(7.3), 10];
    const ys = [...xs, ...edgesList, NaN, Infinity];
    const b = upload('float32', ys);
    const qw = quarters(ys.length, 8), qb = upload('float32', qw);
    soft(() => {
      const { hist, binEdges } = gpuarray.histogram(b, edgesList);
      expect(binEdges.dtype.name).toBe('float64');
      sameList(nums(binEdges), edgesList, 'edges given');
      sameList(nums(hist), refHist(ys, edgesList), 'non-uniform');
    });
    for (const ed of ['float64', 'float32', 'int32', 'float16'] as DTypeName[]) {
      const list = ed === 'int32' ? [-1, 0, 2, 2, 5, 10] : edgesList.map(rounds(ed).cast);
      const ea = upload(ed, list);
      soft(() => {
        const { hist, binEdges } = gpuarray.histogram(b, { bins: ea });
        expect(binEdges.dtype.name).toBe(ed);
        expect(binEdges).not.toBe(ea);
        sameList(nums(hist), refHist(ys, list), `edges ${ed}`);
      });
      // Stepped edges, float32 weights (summed exactly: quarters).
      const stepped = upload(ed, list.flatMap((v) => [v, 0]));
      soft(() => sameList(nums(gpuarray.histogram(b, { bins: stepped.index(slice(null, null, 2)), weights: qb }).hist),
        refHist(ys, list, qw).map((v) => Math.fround(v as number)), `edges ${ed} stepped, weighted`));
      for (const x of [ea, stepped]) x.dispose();
    }
    soft(() => sameList(nums(gpuarray.histogram(upload('int64', [1, 2, 1]), { bins: [0, 1, 2, 3] }).hist), [0, 2, 1], 'numpy example'));
    soft(() => expect([...gpuarray.histogram(b, [1]).hist.shape]).toEqual([0]));
    soft(() => expectCode(() => gpuarray.histogram(b, [0, 2, 1]), RangeError, 'ERR_INVALID_ARG_VALUE'));
    soft(() => expectCode(() => gpuarray.histogram(b, gpuarray.toGpu([3, 1])), RangeError, 'ERR_INVALID_ARG_VALUE'));
    soft(() => expectCode(() => gpuarray.histogram(b, gpuarray.zeros([2, 2])), RangeError, 'ERR_INVALID_ARG_VALUE'));
    soft(() => expectCode(() => gpuarray.histogram(b, gpuarray.zeros([3], 'complex64')), TypeError, 'ERR_INVALID_DTYPE'));
    b.dispose();
    qb.dispose();
    // Transposed and stepped views (C order of the view), weights of the same view.
    const m = upload('float32', xs.slice(0, 60 * 50), [60, 50]);
    const mw = upload('float64', w.slice(0, 3000), [60, 50]);
    soft(() => check(m.T, viewOf(xs, [50, 60], [1, 50]), 'float32', 8, null, 'transposed',
      { arr: mw.T, vals: viewOf(w, [50, 60], [1, 50]), dt: 'float64' }));
    soft(() => check(m.index(slice(1, null, 3), slice(null, null, -2)), viewOf(xs, [20, 25], [150, -2], 50 + 49), 'float32', 6, [0, 9], 'stepped'));
    // Many bins: atomics in global memory (counts and float64 sums).
    const many = data('float64', 2 ** 16 + 5, 0, 1, 9);
    const c = upload('float64', many), cw2 = upload('float64', quarters(many.length, 10));
    soft(() => check(c, many, 'float64', 20000, null, 'many bins'));
    soft(() => check(c, many, 'float64', 8000, [0.25, 0.75], 'many bins weighted', { arr: cw2, vals: quarters(many.length, 10), dt: 'float64' }));
    // A stream.
    const stream = new driver.Stream();
    soft(() => check(a, xs, 'float32', 10, null, 'stream', undefined, stream));
    soft(() => check(a, xs, 'float32', 10, [1, 2], 'stream range', undefined, stream));
    stream.dispose();
    for (const x of [a, m, mw, c, cw2]) x.dispose();
    soft.done();
  });

  test('argument errors that need an array', () => {
    const soft = softly();
    const a = upload('float32', [1, 2, 3, 4]);
    soft(() => expectCode(() => gpuarray.histogram(a, { range: [2, 1] }), RangeError, 'ERR_OUT_OF_RANGE'));
    soft(() => expectCode(() => gpuarray.histogram(a, { range: [0, Infinity] }), RangeError, 'ERR_OUT_OF_RANGE'));
    soft(() => expectCode(() => gpuarray.histogram(a, { range: [0, NaN] }), RangeError, 'ERR_OUT_OF_RANGE'));
    soft(() => expectCode(() => gpuarray.histogram(a, { range: [0] as never }), TypeError, 'ERR_INVALID_ARG_TYPE'));
    soft(() => expectCode(() => gpuarray.histogramBinEdges(a, { range: [3, 1] }), RangeError, 'ERR_OUT_OF_RANGE'));
    soft(() => expectCode(() => gpuarray.histogram(a, { weights: gpuarray.zeros([2, 2]) }), RangeError, 'ERR_SHAPE_MISMATCH'));
    soft(() => expectCode(() => gpuarray.histogram(a, { weights: a.reshape([4, 1]) }), RangeError, 'ERR_SHAPE_MISMATCH'));
    soft(() => expectCode(() => gpuarray.histogram(gpuarray.zeros([3], 'complex64')), TypeError, 'ERR_INVALID_DTYPE'));
    // Explicit edges ignore the range, as NumPy.
    soft(() => sameList(nums(gpuarray.histogram(a, [0, 2, 5], { range: [9, 10] }).hist), [1, 3], 'range ignored'));
    a.dispose();
    soft.done();
  });

  afterAll(async () => {
    await collect();
    expect(settledLive()).toBe(baseline);
  });
});

describeGpu('digitize', () => {
  test('NumPy examples, increasing and decreasing bins, right, dtypes, shapes', () => {
    const soft = softly();
    const x = [0.2, 6.4, 3.0, 1.6, 10.0, 0.0, NaN, -1];
    const xa = gpuarray.toGpu(x);
    const want: Array<[number[], number[], number[]]> = [
      [[0.0, 1.0, 2.5, 4.0, 10.0], [1, 4, 3, 2, 5, 1, 5, 0], [1, 4, 3, 2, 4, 0, 5, 0]],
      [[10.0, 4.0, 2.5, 1.0, 0.0], [4, 1, 2, 3, 0, 4, 0, 5], [4, 1, 2, 3, 1, 5, 0, 5]],
      [[1, 1, 2, 2, 3], [0, 5, 5, 2, 5, 0, 5, 0], [0, 5, 4, 2, 5, 0, 5, 0]],
      [[3, 2, 2, 1, 1], [5, 0, 0, 3, 0, 5, 0, 5], [5, 0, 1, 3, 0, 5, 0, 5]],
      [[5, 5, 5], [0, 3, 0, 0, 3, 0, 3, 0], [0, 3, 0, 0, 3, 0, 3, 0]],
    ];
    for (const [bins, left, right] of want) {
      soft(() => sameList(nums(gpuarray.digitize(xa, bins)), left, `${bins} left`));
      soft(() => sameList(nums(gpuarray.digitize(xa, bins, { right: true })), right, `${bins} right`));
      soft(() => sameList(refDigitize(x, bins, false), left, `${bins} reference left`));
      soft(() => sameList(refDigitize(x, bins, true), right, `${bins} reference right`));
      const ba = gpuarray.toGpu(new Float32Array(bins));
      soft(() => sameList(nums(gpuarray.digitize(xa, ba, { right: true })), right, `${bins} float32 GPUArray`));
      ba.dispose();
    }
    // int32 x of shape [3, 5] against int32 and float64 bins; random data, both directions.
    const xs = data('int32', 15, -3, 14, 1);
    const xi = upload('int32', xs, [3, 5]);
    for (const bins of [[0, 2, 2, 5, 9, 11], [11, 9, 5, 2, 2, 0], [], [4]]) {
      for (const right of [false, true]) {
        soft(() => {
          const r = gpuarray.digitize(xi, upload('int32', bins), { right });
          expect([r.dtype.name, [...r.shape]]).toEqual(['int64', [3, 5]]);
          sameList(nums(r), refDigitize(xs, bins, right), `int32 ${bins} ${right}`);
        });
        soft(() => sameList(nums(gpuarray.digitize(xi.T, bins.map((v) => v + 0.5), { right })),
          refDigitize(viewOf(xs, [5, 3], [1, 5]), bins.map((v) => v + 0.5), right), `transposed ${bins} ${right}`));
      }
    }
    // Many elements, float32, a stream.
    const big = data('float32', 2 ** 20 + 3, -1, 2, 2);
    const ba = upload('float32', big);
    const stream = new driver.Stream();
    const edges = [-0.5, 0, 0.25, 0.5, 1, 1.5];
    soft(() => sameList(nums(gpuarray.digitize(ba, edges, { stream })), refDigitize(big, edges, false), 'big'));
    soft(() => sameList(nums(gpuarray.digitize(ba, [...edges].reverse(), { right: true, stream })),
      refDigitize(big, [...edges].reverse(), true), 'big decreasing'));
    stream.dispose();
    soft(() => expectCode(() => gpuarray.digitize(xa, [1, 3, 2]), RangeError, 'ERR_INVALID_ARG_VALUE'));
    soft(() => expectCode(() => gpuarray.digitize(xa, gpuarray.toGpu([1, 3, 2])), RangeError, 'ERR_INVALID_ARG_VALUE'));
    soft(() => expectCode(() => gpuarray.digitize(xa, gpuarray.zeros([2, 2])), RangeError, 'ERR_INVALID_ARG_VALUE'));
    soft(() => expectCode(() => gpuarray.digitize(xa, 3 as never), TypeError, 'ERR_INVALID_ARG_TYPE'));
    soft(() => expectCode(() => gpuarray.digitize(gpuarray.zeros([2], 'complex64'), [1, 2]), TypeError, 'ERR_INVALID_DTYPE'));
    soft(() => expectCode(() => gpuarray.digitize(xa, gpuarray.zeros([2], 'complex64')), TypeError, 'ERR_INVALID_DTYPE'));
    for (const t of [xa, xi, ba]) t.dispose();
    soft.done();
  });
});

describeGpu('histogram functions: leaks and devices', () => {
  const live = (): number => cuda.memory().liveAllocations;

  test('results are all that stays allocated, also when a call throws', () => {
    const a = upload('float32', [0.5, 1.5, 2.5, NaN]), x = upload('int32', [0, 3, 3]), w = upload('float32', [1, 2, 3, 4]);
    const t = upload('float32', [1, 2, 3, 4], [2, 2]).T;
    const w3 = upload('float64', [1, 2, 3]), e2 = gpuarray.toGpu([1, 2]), down = gpuarray.toGpu([2, 1]), neg = upload('int32', [1, -1]);
    const bumpy = gpuarray.toGpu([1, 3, 2]);
    const before = settledLive();
    const calls: Array<() => GPUArray | GPUArray[]> = [
      () => gpuarray.bincount(x), () => gpuarray.bincount(x.index(slice(null, null, -1)), { weights: w3 }),
      () => Object.values(gpuarray.histogram(a, 3, { range: [0, 3], weights: w, density: true })),
      () => Object.values(gpuarray.histogram(t, { bins: [0, 1, 5] })), () => Object.values(gpuarray.histogram(t)),
      () => gpuarray.histogramBinEdges(t, 4), () => gpuarray.digitize(a, [3, 2, 1]), () => gpuarray.digitize(t, e2),
    ];
    for (const call of calls) {
      const r = call();
      for (const o of Array.isArray(r) ? r : [r]) o.dispose();
      expect(settledLive()).toBe(before);
    }
    const throwing: Array<() => unknown> = [
      () => gpuarray.bincount(neg), () => gpuarray.histogram(a), () => gpuarray.histogram(t, down), () => gpuarray.digitize(a, bumpy),
      () => gpuarray.histogram(a, { weights: x }),
    ];
    for (const f of throwing) {
      expect(f).toThrow();
      expect(settledLive()).toBe(before);
    }
    for (const o of [a, x, w, t.base!, w3, e2, down, neg, bumpy]) o.dispose();
  });

  test('arrays of two contexts → TypeError ERR_DEVICE_MISMATCH before any allocation', () => {
    const a = upload('float32', [1, 2, 3, 4]);
    const ctx = new driver.Device(0).makeContext();
    expect(ctx).toBeInstanceOf(driver.Context);
    let b: GPUArray;
    try {
      b = upload('float32', [5, 6, 7, 8]);
    } finally {
      driver.Context.pop();
    }
    const i = upload('int32', [1, 2, 3, 4]);
    const before = settledLive();
    const bad = (fn: () => unknown): void => {
      expectCode(fn, TypeError, 'ERR_DEVICE_MISMATCH');
      expect(live()).toBe(before);
    };
    bad(() => gpuarray.bincount(i, { weights: b! }));
    bad(() => gpuarray.histogram(a, { weights: b! }));
    bad(() => gpuarray.histogram(a, { bins: b! }));
    bad(() => gpuarray.histogramBinEdges(a, b!));
    bad(() => gpuarray.digitize(a, b!));
    bad(() => gpuarray.histogram(b!, { range: [0, 1] }));
    for (const x of [a, b!, i]) x.dispose();
  });
});
