/**
 * median, quantile, percentile and their nan forms (lib/array/quantile.ts) on a real GPU against a
 * CPU reference written from NumPy's definitions: every real dtype (NaN/±Inf/-0, extremes,
 * duplicates), every method, q at 0, 1 and between, one quantile or several, rows short (sorted by
 * one block), long (the radix selection of the ranks needed) and long with many quantiles (the
 * radix sort); axis null, one, several and negative, keepdims, out, transposed and stepped inputs,
 * 0-d and empty arrays, a stream; NaN rows with and without the nan forms. Argument errors last, then q arrays
 * whose buffer was transferred (detached) or shrunk (checked before any device work: also without a GPU).
 */
import * as cuda from '../lib';
import { GPUArray, gpuarray, slice } from '../lib';
import type { DTypeName, QuantileMethod } from '../lib';
import { describeGpu, expectCode } from './helpers';
import { DTYPE_NAMES, V, download, kind, softly, store, upload, viewOf } from './reference';
import { argsortRef, values } from './sort-reference';

const REAL = DTYPE_NAMES.filter((d) => kind(d) !== 'c');
const METHODS: QuantileMethod[] = ['linear', 'lower', 'higher', 'nearest', 'midpoint', 'interpolated_inverted_cdf', 'hazen',
  'weibull', 'median_unbiased', 'normal_unbiased'];
const AB: Record<string, [number, number]> = {
  interpolated_inverted_cdf: [0, 1], hazen: [0.5, 0.5], weibull: [0, 0], median_unbiased: [1 / 3, 1 / 3], normal_unbiased: [3 / 8, 3 / 8],
};
const num = (v: V): number => (typeof v === 'bigint' ? Number(v) : (v as number));
const strides = (shape: number[]): number[] => shape.map((_, i) => shape.slice(i + 1).reduce((p, q) => p * q, 1));

/** The result dtype NumPy gives (floats keep theirs; integers and bool: float64, or theirs for the discrete methods). */
function outType(d: DTypeName, method: string | null): DTypeName {
  return kind(d) === 'f' || (method !== null && ['lower', 'higher', 'nearest'].includes(method)) ? d : 'float64';
}

/** NumPy's round half to even. */
function roundEven(x: number): number {
  const f = Math.floor(x);
  return x - f > 0.5 || (x - f === 0.5 && f % 2 !== 0) ? f + 1 : f;
}

/**
 * One quantile of one row (NumPy's definition; `method` null: median, the mean of the two middle
 * elements). Interpolation in the dtype's arithmetic (float32 for float16/bfloat16/float32, else
 * double), each operation rounded.
 */
function quantileRef(row: V[], d: DTypeName, method: string | null, p: number, skipnan: boolean): V {
  const od = outType(d, method);
  const nan = (v: V): boolean => typeof v === 'number' && Number.isNaN(v);
  const valid = skipnan ? row.filter((v) => !nan(v)) : row;
  if (valid.length === 0 || valid.some(nan)) return NaN;
  const s = argsortRef(valid).map((i) => valid[i]);
  const m = s.length;
  let lo: number, hi: number, g = 0;
  if (method === null) [lo, hi, g] = [Math.floor((m - 1) / 2), Math.floor(m / 2), 0.5];
  else if (method === 'lower') lo = hi = Math.floor((m - 1) * p);
  else if (method === 'higher') lo = hi = Math.ceil((m - 1) * p);
  else if (method === 'nearest') lo = hi = roundEven((m - 1) * p);
  else if (method === 'midpoint') [lo, hi, g] = [Math.floor((m - 1) * p), Math.ceil((m - 1) * p), 0.5];
  else {
    const [alpha, beta] = AB[method] ?? [1, 1];
    const v = method === 'linear' ? (m - 1) * p : m * p + (alpha + p * (1 - alpha - beta)) - 1;
    if (v >= m - 1) lo = hi = m - 1;
    else if (v < 0) lo = hi = 0;
    else [lo, hi, g] = [Math.floor(v), Math.floor(v) + 1, v - Math.floor(v)];
  }
  if (lo === hi || g === 0) return od === d ? s[lo] : num(s[lo]);
  const r = d === 'float64' || kind(d) !== 'f' ? (x: number) => x : Math.fround;
  const x = num(s[lo]), y = num(s[hi]);
  if (method === null) return store(od, r(r(x + y) * 0.5));
  const t = r(g), diff = r(y - x);
  return store(od, t >= 0.5 ? r(y - r(diff * r(1 - t))) : r(x + r(diff * t)));
}

/** The rows of `xs` (C order, `shape`) with `axes` moved last and merged: [rows][len]. */
function rowsRef(xs: V[], shape: number[], axes: number[]): V[][] {
  const kept = shape.map((_, i) => i).filter((i) => !axes.includes(i));
  const perm = kept.concat([...axes].sort((a, b) => a - b));
  const moved = viewOf(xs, perm.map((i) => shape[i]), perm.map((i) => strides(shape)[i]));
  const len = axes.reduce((n, a) => n * shape[a], 1);
  const out: V[][] = [];
  for (let r = 0; r * len < moved.length; r++) out.push(moved.slice(r * len, r * len + len));
  return out;
}

type Fn = 'median' | 'nanmedian' | 'quantile' | 'nanquantile' | 'percentile' | 'nanpercentile';

/** Runs `fn` on `a` (values `xs`) and checks dtype, shape and every value against the reference. */
function check(fn: Fn, a: GPUArray, xs: V[], opts: { q?: number | number[]; axis?: number | number[] | null; method?: QuantileMethod;
  keepdims?: boolean; stream?: cuda.Stream } = {}, label = ''): void {
  const d = a.dtype.name;
  const shape = [...a.shape];
  const nd = shape.length;
  const axes = opts.axis === undefined || opts.axis === null ? shape.map((_, i) => i)
    : (Array.isArray(opts.axis) ? opts.axis : [opts.axis]).map((x) => (x < 0 ? x + nd : x));
  const median = fn.endsWith('median');
  const skipnan = fn.startsWith('nan');
  const pct = fn.endsWith('percentile');
  const qs = opts.q === undefined ? [0.5] : Array.isArray(opts.q) ? opts.q : [opts.q];
  const method = median ? null : opts.method ?? 'linear';
  const rows = rowsRef(xs, shape, axes);
  const want: V[] = [];
  for (const q of qs) for (const row of rows) want.push(quantileRef(row, d, method, pct ? q / 100 : q, skipnan));
  const o = { axis: opts.axis, keepdims: opts.keepdims, stream: opts.stream, ...(opts.method ? { method: opts.method } : {}) };
  const r = median ? gpuarray[fn as 'median'](a, o) : gpuarray[fn as 'quantile'](a, opts.q!, o);
  opts.stream?.synchronize();
  const kept = opts.keepdims ? shape.map((n, i) => (axes.includes(i) ? 1 : n)) : shape.filter((_, i) => !axes.includes(i));
  const tag = `${fn} ${d} (${shape}) ${JSON.stringify(opts.axis)} q=${JSON.stringify(opts.q)} ${method ?? ''} ${label}`;
  expect({ tag, dtype: r.dtype.name }).toEqual({ tag, dtype: outType(d, method) });
  expect({ tag, shape: [...r.shape] }).toEqual({ tag, shape: [...(Array.isArray(opts.q) ? [qs.length] : []), ...kept] });
  const got = download(r);
  const bad = want.findIndex((w, i) => !Object.is(typeof w === 'bigint' ? w : num(w), typeof got[i] === 'bigint' ? got[i] : num(got[i])));
  if (bad >= 0) throw new Error(`${tag}: first mismatch at ${bad}: got ${String(got[bad])} want ${String(want[bad])}`);
  r.dispose();
}

/** `n` values of `d` without NaN (NaN becomes 0.25 of the dtype). */
const noNaN = (d: DTypeName, n: number, seed: number, distinct = 0): V[] =>
  values(d, n, seed, distinct).map((v) => (typeof v === 'number' && Number.isNaN(v) ? store(d, 0.25) : v));

describeGpu('median, quantile and percentile', () => {
  test.each(REAL)('%s: short rows, every method and quantile, NaN rows', (d) => {
    const soft = softly();
    const xs = values(d, 67, 7);
    const a = upload(d, xs);
    const clean = noNaN(d, 67, 8);
    const b = upload(d, clean);
    const qs = [0, 0.1, 0.25, 0.3, 0.5, 0.75, 0.999, 1];
    for (const x of [a, b]) {
      const vs = x === a ? xs : clean;
      soft(() => check('median', x, vs));
      soft(() => check('nanmedian', x, vs));
      for (const method of METHODS) {
        soft(() => check('quantile', x, vs, { q: qs, method }));
        soft(() => check('nanquantile', x, vs, { q: qs, method }));
      }
      soft(() => check('quantile', x, vs, { q: 0.3 }));
      soft(() => check('percentile', x, vs, { q: [25, 50, 99.9] }));
      soft(() => check('nanpercentile', x, vs, { q: 90, method: 'nearest' }));
    }
    // 2-D rows of each length 1..9 (odd and even), along the last axis and the first.
    for (const len of [1, 2, 3, 4, 5, 8, 9]) {
      const ys = noNaN(d, 6 * len, len, 5);
      const m = upload(d, ys, [6, len]);
      soft(() => check('median', m, ys, { axis: 1 }));
      soft(() => check('median', m, ys, { axis: 0 }));
      soft(() => check('quantile', m, ys, { q: [0.2, 0.5], axis: -1, method: 'midpoint' }));
      m.dispose();
    }
    soft.done();
    a.dispose();
    b.dispose();
  });

  test.each(REAL)('%s: long rows (selection of the ranks; the sort for many quantiles and the nan forms)', (d) => {
    const soft = softly();
    for (const len of [5001, 6000]) { // odd and even: past the short-row sort for every dtype
      const xs = noNaN(d, 3 * len, len, len % 2 ? 0 : 50);
      if (kind(d) === 'f') xs[len + 17] = NaN; // row 1 holds a NaN
      const a = upload(d, xs, [3, len]);
      soft(() => check('median', a, xs, { axis: 1 }));
      soft(() => check('nanmedian', a, xs, { axis: 1 }));
      soft(() => check('quantile', a, xs, { q: 0.3, axis: 1 }));
      soft(() => check('quantile', a, xs, { q: 1, axis: 1, method: 'lower' }));
      soft(() => check('quantile', a, xs, { q: 0.999, axis: 1, method: 'nearest' }));
      soft(() => check('quantile', a, xs, { q: [0.1, 0.5, 0.9], axis: 1, method: 'hazen' }));
      soft(() => check('nanpercentile', a, xs, { q: [5, 95], axis: -1 }));
      soft(() => check('median', a, xs)); // all axes: one row of 3·len
      a.dispose();
    }
    soft.done();
  });

  test('axes, keepdims, views, 0-d, empty, out and a stream (float32, int32)', () => {
    const soft = softly();
    for (const d of ['float32', 'int32'] as DTypeName[]) {
      const xs = noNaN(d, 4 * 5 * 6, 3, 9);
      const a = upload(d, xs, [4, 5, 6]);
      for (const axis of [0, 1, 2, -1, [0, 2], [1, 2], [2, 0, 1], null]) {
        soft(() => check('median', a, xs, { axis }));
        soft(() => check('quantile', a, xs, { q: [0.4, 0.6], axis, keepdims: true }));
      }
      // A transposed and a stepped view: their values in C order as the reference.
      const t = a.transpose([2, 0, 1]);
      const txs = viewOf(xs, [6, 4, 5], [1, 30, 6]);
      soft(() => check('median', t, txs, { axis: 2 }));
      const s = a.index(slice(null, null, 2), slice(1, null), slice(null, null, -3));
      const sxs = viewOf(xs, [2, 4, 2], [60, 6, -3], 6 + 5);
      soft(() => check('quantile', s, sxs, { q: 0.7, axis: [0, 1] }));
      const stream = new cuda.driver.Stream();
      soft(() => check('percentile', a, xs, { q: [10, 60], axis: 1, stream }));
      stream.dispose();
      a.dispose();
    }
    // 0-d: its own value.
    const z = gpuarray.toGpu(new Float32Array([2.5]), { shape: [] });
    soft(() => expect(gpuarray.median(z).item()).toBe(2.5));
    soft(() => expect(gpuarray.quantile(z, [0, 1]).get()).toEqual(new Float32Array([2.5, 2.5])));
    // Empty: the median of nothing is NaN; rows of nothing give nothing; a quantile of an empty axis throws.
    soft(() => expect(gpuarray.median(gpuarray.zeros([0])).item()).toBeNaN());
    soft(() => expect(Array.from(gpuarray.median(gpuarray.zeros([0, 3], 'int16'), { axis: 0 }).get() as Float64Array)).toEqual([NaN, NaN, NaN]));
    soft(() => expect([...gpuarray.median(gpuarray.zeros([3, 0]), { axis: 0 }).shape]).toEqual([0]));
    soft(() => expect([...gpuarray.quantile(gpuarray.zeros([0, 4]), [0.5, 1], { axis: 1 }).shape]).toEqual([2, 0]));
    soft(() => expectCode(() => gpuarray.quantile(gpuarray.zeros([2, 0]), 0.5, { axis: 1 }), RangeError, 'ERR_EMPTY_REDUCTION'));
    // out: the result's shape or with the axes kept; a float result into float64; a view.
    const m = upload('float32', [1, 5, 2, 8, 3, 9], [2, 3]);
    const out = gpuarray.zeros([2], 'float64');
    soft(() => expect(gpuarray.median(m, { axis: 1, out })).toBe(out));
    soft(() => expect(Array.from(out.get() as Float64Array)).toEqual([2, 8]));
    const big = gpuarray.zeros([2, 4], 'float32');
    soft(() => gpuarray.quantile(m, 1, { axis: 1, out: big.index(':', slice(1, 2)), keepdims: true }));
    soft(() => expect(Array.from(big.get() as Float32Array)).toEqual([0, 5, 0, 0, 0, 9, 0, 0]));
    // Rows of NaNs only: NaN from the nan forms too; extremes of int64 returned exactly by 'lower'.
    const n = upload('float64', [NaN, NaN, 1, NaN], [2, 2]);
    soft(() => expect(Array.from(gpuarray.nanmedian(n, { axis: 1 }).get() as Float64Array)).toEqual([NaN, 1]));
    const e = upload('int64', [2n ** 63n - 1n, -(2n ** 63n), 2n ** 63n - 2n]);
    soft(() => expect(Array.from(gpuarray.quantile(e, [0, 0.5, 1], { method: 'lower' }).get() as BigInt64Array))
      .toEqual([-(2n ** 63n), 2n ** 63n - 2n, 2n ** 63n - 1n]));
    soft.done();
  });

  test('argument errors', () => {
    const a = gpuarray.zeros([4, 3]);
    expectCode(() => gpuarray.quantile(a, 1.5), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => gpuarray.quantile(a, -0.1), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => gpuarray.quantile(a, NaN), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => gpuarray.quantile(a, [0.5, 2]), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => gpuarray.percentile(a, 101), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => gpuarray.quantile(a, '0.5' as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.quantile(a, [0.5, '1'] as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.quantile(a, 0.5, { method: 'inverted_cdf' as never }), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => gpuarray.median(a, { method: 'lower' } as never), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => gpuarray.median(a, { keepdims: 1 } as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.median(a, { axis: 2 }), RangeError, 'ERR_AXIS_OUT_OF_RANGE');
    expectCode(() => gpuarray.median(a, { axis: [0, 0] }), RangeError, 'ERR_AXIS_OUT_OF_RANGE');
    expectCode(() => gpuarray.median(gpuarray.zeros([3], 'complex64')), TypeError, 'ERR_INVALID_DTYPE');
    expectCode(() => gpuarray.median([1, 2] as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.median(a, { axis: 0, out: gpuarray.zeros([4]) }), RangeError, 'ERR_SHAPE_MISMATCH');
    expectCode(() => gpuarray.median(a, { axis: 0, out: gpuarray.zeros([3], 'int32') }), TypeError, 'ERR_INVALID_DTYPE');
    const gone = gpuarray.zeros([3]);
    gone.dispose();
    expect(() => gpuarray.median(gone)).toThrow();
    expect(gpuarray.median(a).item()).toBe(0); // still working
  });

  test('a q whose ArrayBuffer was transferred (detached) or shrunk: a typed error; then the same array gives the right quantiles', () => {
    // 7 values, sorted 1 2 3 5 7 8 9: linear positions 6q.
    const a = gpuarray.toGpu(new Float32Array([7, 1, 5, 3, 9, 2, 8]));
    const m = gpuarray.toGpu(new Float64Array([4, 1, 3, 2, 10, 40, 30, 20]), { shape: [2, 4] });
    const out = gpuarray.toGpu(new Float64Array([-1, -1]));
    for (const [label, make] of hostileQs()) {
      for (const call of QCALLS) {
        const tag = `${call.name} ${label}`;
        const e = expectCode(() => call.fn(a, make(call.scale)), TypeError, 'ERR_INVALID_STATE');
        expect({ tag, message: e.message }).toEqual({ tag, message: expect.stringMatching(/detached|transferred|shrunk/) });
        // With out, axis and a 2-D input too: the same error, out not written.
        expectCode(() => call.fn(m, make(call.scale), { axis: 1, out }), TypeError, 'ERR_INVALID_STATE');
        expect({ tag, out: Array.from(out.get() as Float64Array) }).toEqual({ tag, out: [-1, -1] });
      }
    }
    // A resizable buffer's length-tracking view shrunk to nothing is an empty q, not a damaged one:
    // no quantiles (NumPy's shape (0,) for q = []), no error.
    const rab = resizable(16, 64);
    const tracking = new Float64Array(rab);
    rab.resize(0);
    const none = gpuarray.quantile(a, tracking);
    expect([...none.shape]).toEqual([0]);
    expect(none.dtype.name).toBe('float32');
    // The same arrays afterwards: every quantile right.
    expect(Array.from(gpuarray.quantile(a, new Float64Array([0, 0.25, 0.5, 1])).get() as Float32Array)).toEqual([1, 2.5, 5, 9]);
    expect(Array.from(gpuarray.percentile(a, new Float32Array([50, 100]), { method: 'lower' }).get() as Float32Array)).toEqual([5, 9]);
    expect(Array.from(gpuarray.nanquantile(m, [0.5], { axis: 1 }).get() as Float64Array)).toEqual([2.5, 25]);
    expect(gpuarray.median(a).item()).toBe(5);
    expect(gpuarray.quantile(m, 0.5, { axis: 1, out })).toBe(out);
    expect(Array.from(out.get() as Float64Array)).toEqual([2.5, 25]);
  });
});

/** A resizable ArrayBuffer (TypeScript's lib does not declare the constructor's options yet). */
function resizable(bytes: number, max: number): ArrayBuffer & { resize(n: number): void } {
  const Resizable = ArrayBuffer as unknown as new (n: number, o: { maxByteLength: number }) => ArrayBuffer & { resize(n: number): void };
  return new Resizable(bytes, { maxByteLength: max });
}

/** Transfers `buf` away (Node's structuredClone with transfer): `buf` is detached, its views read as empty. */
function detach(buf: ArrayBuffer): void {
  structuredClone(buf, { transfer: [buf] });
  expect(buf.byteLength).toBe(0);
}

/**
 * q arrays of valid quantiles (times `scale`) made unusable after they were filled: Float64Array
 * and Float32Array whose buffer was detached, a view at an offset into a detached buffer, and a
 * fixed-length view of a resizable buffer shrunk below it (out of bounds: also reads as empty).
 */
function hostileQs(): Array<[string, (scale: number) => ArrayLike<number>]> {
  const detached = <T extends Float32Array | Float64Array>(q: T): T => {
    detach(q.buffer as ArrayBuffer);
    return q;
  };
  return [
    ['Float64Array, detached', (s) => detached(new Float64Array([0.25 * s, 0.5 * s]))],
    ['Float32Array, detached', (s) => detached(new Float32Array([0.5 * s]))],
    ['Float64Array view at offset 8 of a detached buffer', (s) => {
      const buf = new ArrayBuffer(40);
      const q = new Float64Array(buf, 8, 3);
      q.set([0.1 * s, 0.5 * s, 0.9 * s]);
      detach(buf);
      return q;
    }],
    ['Float32Array view at offset 4 of a resizable buffer shrunk to 4 bytes', (s) => {
      const rab = resizable(16, 32);
      const q = new Float32Array(rab, 4, 2);
      q.set([0.5 * s, s]);
      rab.resize(4);
      return q;
    }],
  ];
}

type QFn = (a: GPUArray, q: ArrayLike<number>, opts?: { axis?: number; out?: GPUArray }) => GPUArray;
/** The four functions that take q, with the scale of their q. */
const QCALLS: Array<{ name: string; fn: QFn; scale: number }> = [
  { name: 'quantile', fn: gpuarray.quantile, scale: 1 },
  { name: 'nanquantile', fn: gpuarray.nanquantile, scale: 1 },
  { name: 'percentile', fn: gpuarray.percentile, scale: 100 },
  { name: 'nanpercentile', fn: gpuarray.nanpercentile, scale: 100 },
];

describe('no GPU needed', () => {
  test('a detached or shrunk q is refused before a is looked at or the device is touched', () => {
    // q is checked first (as every other q error): a null `a` shows no device work was needed.
    expectCode(() => gpuarray.quantile(null as never, [2]), RangeError, 'ERR_OUT_OF_RANGE');
    for (const [label, make] of hostileQs()) {
      for (const call of QCALLS) {
        const e = expectCode(() => call.fn(null as never, make(call.scale)), TypeError, 'ERR_INVALID_STATE');
        expect({ label, name: call.name, message: e.message })
          .toEqual({ label, name: call.name, message: expect.stringMatching(/detached|transferred|shrunk/) });
      }
    }
  });
});
