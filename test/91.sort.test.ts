/**
 * Sorting on a real GPU against a CPU reference (docs/sorting.md): sort/argsort for every dtype
 * (stable: argsort indices checked exactly; NaNs last; -0.0 before +0.0; complex by real then
 * imaginary part, NaN largest in each part), sizes 0 … 2^20+3 and one 2^24 float32, duplicates,
 * all-equal, sorted and reversed inputs, int extremes, non-contiguous and broadcast inputs, axis
 * 0/1/-1/null of 2-D and 3-D arrays; unique with every return option; searchsorted left/right,
 * with a sorter and NaN. Argument errors raised before any GPU work are CPU tests at the end.
 */
import * as cuda from '../lib';
import { GPUArray, gpuarray, slice } from '../lib';
import type { DTypeName } from '../lib';
import { describeGpu, expectCode } from './helpers';
import { C, DTYPE_NAMES, V, download, half, kind, softly, toBf16, upload, viewOf } from './reference';
import { rng } from './reduce-reference';
const { Math, Number, BigInt } = globalThis;

// ---- reference ----------------------------------------------------------------------------------

/** NumPy's order as nodecuda documents it: NaN last (all equal), -0 before +0. */
function cmpReal(x: number, y: number): number {
  const nx = Number.isNaN(x), ny = Number.isNaN(y);
  if (nx || ny) return nx === ny ? 0 : nx ? 1 : -1;
  if (x !== y) return x < y ? -1 : 1;
  if (x === 0) return Object.is(x, -0) === Object.is(y, -0) ? 0 : Object.is(x, -0) ? -1 : 1;
  return 0;
}
function cmp(x: V, y: V): number {
  if (typeof x === 'bigint') return x < (y as bigint) ? -1 : x > (y as bigint) ? 1 : 0;
  if (typeof x === 'number') return cmpReal(x, y as number);
  const a = x as C, b = y as C;
  return cmpReal(a.re, b.re) || cmpReal(a.im, b.im);
}
/** Stable argsort of a 1-D list. */
const argsortRef = (xs: V[]): number[] => xs.map((_, i) => i).sort((i, j) => cmp(xs[i], xs[j]) || i - j);
/** Row-wise (last axis of a C-order [rows, len]) stable argsort: indices within each row. */
function argsortRows(xs: V[], len: number): number[] {
  const out: number[] = [];
  for (let r = 0; r * len < xs.length; r++) out.push(...argsortRef(xs.slice(r * len, r * len + len)));
  return out;
}
const sameV = (a: V, b: V): boolean => typeof a === 'object' ? Object.is((a as C).re, (b as C).re) && Object.is((a as C).im, (b as C).im)
  : Object.is(a, b);
function expectValues(got: V[], want: V[], label: string): void {
  expect(got.length).toBe(want.length);
  const bad = got.findIndex((g, i) => !sameV(g, want[i]));
  if (bad >= 0) throw new Error(`${label}: first mismatch at ${bad}: got ${String(JSON.stringify(got[bad], (_, v) => typeof v === 'bigint' ? `${v}n` : v))}`
    + ` want ${String(JSON.stringify(want[bad], (_, v) => typeof v === 'bigint' ? `${v}n` : v))}`);
}
function expectIndices(r: GPUArray, want: number[], label: string): void {
  expect(r.dtype.name).toBe('int64');
  const got = r.get() as BigInt64Array;
  expect(got.length).toBe(want.length);
  const bad = want.findIndex((w, i) => got[i] !== BigInt(w));
  if (bad >= 0) throw new Error(`${label}: first index mismatch at ${bad}: got ${got[bad]} want ${want[bad]}`);
}

// ---- inputs -------------------------------------------------------------------------------------

const INT_RANGE: Partial<Record<DTypeName, [bigint, bigint]>> = {
  int8: [-128n, 127n], uint8: [0n, 255n], int16: [-32768n, 32767n], uint16: [0n, 65535n], int32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n], int64: [-(2n ** 63n), 2n ** 63n - 1n], uint64: [0n, 2n ** 64n - 1n],
};
const SPECIAL = [NaN, -NaN, Infinity, -Infinity, -0, 0, 1, -1, 0.5];

/** n values of d: `distinct` limits them to a few values (duplicates); floats include NaN/±Inf/-0. */
function values(d: DTypeName, n: number, seed: number, distinct = 0): V[] {
  const r = rng(seed);
  const pick = (): V => {
    const k = kind(d);
    if (k === 'b') return r() < 0.5 ? 0 : 1;
    if (k === 'i' || k === 'u') {
      const [lo, hi] = INT_RANGE[d]!;
      let v: bigint;
      if (distinct) v = lo + BigInt(Math.floor(r() * distinct)) * ((hi - lo) / BigInt(distinct));
      else if (r() < 0.05) v = r() < 0.5 ? lo : hi;
      else v = lo + (BigInt(Math.floor(r() * 2 ** 32)) * 2n ** 32n + BigInt(Math.floor(r() * 2 ** 32))) % (hi - lo + 1n);
      return d.endsWith('64') ? v : Number(v);
    }
    const real = (): number => {
      const x = distinct ? Math.floor(r() * distinct) - distinct / 2
        : r() < 0.1 ? SPECIAL[Math.floor(r() * SPECIAL.length)] : (r() - 0.5) * 1e4;
      return d === 'float16' ? half(x) : d === 'bfloat16' ? toBf16(x) : d === 'float32' || d === 'complex64' ? Math.fround(x) : x;
    };
    if (k === 'f') return real();
    return { re: real(), im: distinct ? real() : r() < 0.3 ? 0 : real() };
  };
  return Array.from({ length: n }, pick);
}

/** The sorted values and argsort of a flat list (the reference both answers come from). */
function check1d(d: DTypeName, xs: V[], label: string): void {
  const a = upload(d, xs);
  const order = argsortRef(xs);
  const want = order.map((i) => xs[i]);
  expectValues(download(gpuarray.sort(a)), want, `${label} sort`);
  expectIndices(gpuarray.argsort(a), order, `${label} argsort`);
}

describeGpu('sorting', () => {
  describe('sort / argsort, 1-D', () => {
    test.each(DTYPE_NAMES)('%s: n = 0, 1, 2, 31, 1000, 4097, 2^20+3; random and duplicates', (d) => {
      const check = softly();
      for (const n of [0, 1, 2, 31, 1000, 4097, 2 ** 20 + 3]) {
        check(() => cuda.tidy(() => check1d(d, values(d, n, n + 7), `${d} n=${n}`)));
        check(() => cuda.tidy(() => check1d(d, values(d, n, n + 8, 5), `${d} n=${n} 5 distinct`)));
      }
      check.done();
    });

    test.each(DTYPE_NAMES)('%s: all equal, sorted, reversed, 3 distinct (stability), int extremes, n = 100003', (d) => {
      const check = softly();
      const n = 100003;
      const xs = values(d, n, 99);
      const sortedXs = argsortRef(xs).map((i) => xs[i]);
      check(() => cuda.tidy(() => check1d(d, new Array(n).fill(xs[0]), `${d} all equal`)));
      check(() => cuda.tidy(() => check1d(d, sortedXs, `${d} sorted`)));
      check(() => cuda.tidy(() => check1d(d, sortedXs.slice().reverse(), `${d} reversed`)));
      check(() => cuda.tidy(() => check1d(d, values(d, n, 5, 3), `${d} 3 distinct`)));
      if (INT_RANGE[d]) {
        const [lo, hi] = INT_RANGE[d]!;
        const ext = [lo, hi, lo + 1n, hi - 1n, 0n, lo, hi].map((v) => (d.endsWith('64') ? v : Number(v)));
        check(() => cuda.tidy(() => check1d(d, ext, `${d} extremes`)));
      }
      check.done();
    });

    test('float NaN payloads and signs, ±Inf, -0.0 / +0.0 (float16, float32, float64)', () => cuda.tidy(() => {
      const f32 = new Float32Array([NaN, 1, -0, 0, -Infinity, Infinity, -1, 0, -0, NaN]);
      new Uint32Array(f32.buffer)[9] = 0xffc00123; // a negative NaN with a payload
      const r = gpuarray.sort(gpuarray.toGpu(f32)).get() as Float32Array;
      expect(Array.from(r.subarray(0, 8)).map((x) => Object.is(x, -0) ? '-0' : String(x)))
        .toEqual(['-Infinity', '-1', '-0', '-0', '0', '0', '1', 'Infinity']);
      expect([Number.isNaN(r[8]), Number.isNaN(r[9])]).toEqual([true, true]);
      expect(Array.from(gpuarray.argsort(gpuarray.toGpu(f32)).get() as BigInt64Array).map(Number)).toEqual([4, 6, 2, 8, 3, 7, 1, 5, 0, 9]);
      for (const d of ['float16', 'float64'] as const) check1d(d, [NaN, 1, -0, 0, -Infinity, Infinity, -1, 0, -0, NaN, 2], d);
    }));

    test('complex: lexicographic, NaN largest in each part', () => cuda.tidy(() => {
      const xs: C[] = [{ re: 1, im: NaN }, { re: NaN, im: 0 }, { re: 1, im: 2 }, { re: 0, im: 5 }, { re: NaN, im: NaN },
        { re: 1, im: -1 }, { re: -Infinity, im: 3 }, { re: NaN, im: -1 }, { re: 1, im: 2 }];
      for (const d of ['complex64', 'complex128'] as const) check1d(d, xs, d);
    }));

    test('float32 of 2^24 elements', () => cuda.tidy(() => {
      const n = 2 ** 24;
      const h = new Float32Array(n);
      const r = rng(3);
      for (let i = 0; i < n; i++) h[i] = Math.floor(r() * 1e6) / 7;
      const a = gpuarray.toGpu(h);
      const idx = gpuarray.argsort(a).get() as BigInt64Array;
      const s = gpuarray.sort(a).get() as Float32Array;
      let bad = -1;
      for (let i = 0; i < n && bad < 0; i++) {
        const p = Number(idx[i]);
        if (s[i] !== h[p]) bad = i;
        else if (i > 0 && (s[i - 1] > s[i] || (s[i - 1] === s[i] && Number(idx[i - 1]) >= p))) bad = i;
      }
      expect(bad).toBe(-1);
    }));
  });

  describe('along an axis, views', () => {
    const DS: DTypeName[] = ['bool', 'uint8', 'int16', 'float16', 'float32', 'int64', 'float64', 'complex64', 'complex128'];
    test.each(DS)('%s: 2-D and 3-D, axis 0, 1, -1, null (values and indices)', (d) => {
      const check = softly();
      for (const shape of [[37, 129], [5, 6, 300], [3000, 2]]) {
        const xs = values(d, shape.reduce((p, q) => p * q, 1), shape[0], 7);
        for (const axis of [0, 1, -1, null]) {
          check(() => cuda.tidy(() => {
            const a = upload(d, xs, shape);
            if (axis === null) {
              const order = argsortRef(xs);
              expectValues(download(gpuarray.sort(a, { axis: null })), order.map((i) => xs[i]), `${shape} null`);
              expectIndices(gpuarray.argsort(a, { axis: null }), order, `${shape} null`);
              return;
            }
            const ax = axis < 0 ? shape.length + axis : axis;
            // The reference: move the axis last (C order), sort rows, move it back.
            const perm = shape.map((_, i) => i).filter((i) => i !== ax).concat([ax]);
            const pshape = perm.map((i) => shape[i]);
            const cstr = shape.map((_, i) => shape.slice(i + 1).reduce((p, q) => p * q, 1));
            const moved = viewOf(xs, pshape, perm.map((i) => cstr[i]));
            const len = shape[ax];
            const idx = argsortRows(moved, len);
            const vals = idx.map((k, j) => moved[j - (j % len) + k]);
            const inv = shape.map((_, i) => perm.indexOf(i));
            const pstr = pshape.map((_, i) => pshape.slice(i + 1).reduce((p, q) => p * q, 1));
            const back = <T>(v: T[]): T[] => viewOf(v, shape, inv.map((i) => pstr[i]));
            const s = gpuarray.sort(a, { axis });
            expect([...s.shape]).toEqual(shape);
            expectValues(download(s), back(vals), `${shape} axis ${axis} sort`);
            expectIndices(gpuarray.argsort(a, { axis }), back(idx), `${shape} axis ${axis} argsort`);
          }));
        }
      }
      check.done();
    });

    test('non-contiguous (transposed, stepped) and broadcast inputs; out; in-place method', () => cuda.tidy(() => {
      const xs = values('float32', 40 * 50, 11, 9);
      const a = upload('float32', xs, [40, 50]);
      const t = a.T; // [50, 40], rows are a's columns
      const tv = viewOf(xs, [50, 40], [1, 50]);
      expectValues(download(gpuarray.sort(t)), argsortRows(tv, 40).map((k, j) => tv[j - (j % 40) + k]), 'transposed');
      const st = a.index(slice(null, null, 3), slice(1, null, 2)); // [14, 25]
      const sv = viewOf(xs, [14, 25], [150, 2], 1);
      expectIndices(gpuarray.argsort(st), argsortRows(sv, 25), 'stepped');
      const b = upload('int32', [5, 1, 3]).broadcastTo([4, 3]);
      expectValues(download(gpuarray.sort(b, { axis: 0 })), Array(12).fill(0).map((_, i) => [5, 1, 3][i % 3]), 'broadcast axis 0');
      expectIndices(gpuarray.argsort(b), Array(4).fill([1, 2, 0]).flat(), 'broadcast argsort');
      const out = gpuarray.empty([40, 50], 'float32');
      expect(gpuarray.sort(a, { axis: 0, out })).toBe(out);
      const col = argsortRows(tv, 40).map((k, j) => tv[j - (j % 40) + k]); // sorted columns, [50, 40]
      expectValues(download(out), viewOf(col, [40, 50], [1, 40]), 'out axis 0');
      const c = upload('float32', xs, [40, 50]);
      expect(c.sort()).toBe(c);
      expectValues(download(c), argsortRows(xs, 50).map((k, j) => xs[j - (j % 50) + k]), 'in place');
      const o = upload('int64', [3n, 1n, 2n]);
      expectIndices(o.argsort(), [1, 2, 0], 'method');
      expect(gpuarray.sort(upload('float64', [2.5]).reshape([]), { axis: null }).shape).toEqual([1]);
      expect(gpuarray.sort(gpuarray.zeros([3, 0], 'int32'), { axis: 0 }).shape).toEqual([3, 0]);
    }));

    // A keys-only sort's first pass reads the input itself (prep stores no keys) unless the result
    // overwrites it: in place and shifted-out sorts, with one executed pass (uint8), skipped high
    // digits (small-range int32), every pass skipped (all equal) and four passes (float32).
    test('keys-only sorts into memory overlapping the input: in place, out shifted by one', () => cuda.tidy(() => {
      const n = 300001;
      const cases: Array<[DTypeName, V[]]> = [['uint8', values('uint8', n, 21)], ['int32', values('int32', n, 22, 50)],
        ['float32', new Array<V>(n).fill(2.5)], ['float32', values('float32', n, 23)]];
      for (const [d, xs] of cases) {
        const want = argsortRef(xs).map((i) => xs[i]);
        const a = upload(d, xs);
        expect(gpuarray.sort(a, { out: a })).toBe(a);
        expectValues(download(a), want, `${d} in place`);
        const big = upload(d, [...xs, xs[0]]);
        const dst = big.index(slice(1, n + 1));
        gpuarray.sort(big.index(slice(0, n)), { out: dst });
        expectValues(download(dst), want, `${d} out shifted by one`);
        expectValues(download(gpuarray.sort(upload(d, xs))), want, `${d} fresh out`);
      }
    }));
  });

  describe('unique', () => {
    test.each(DTYPE_NAMES)('%s: values, indices, inverse, counts (n = 0, 1, 5000 with duplicates)', (d) => {
      const check = softly();
      for (const n of [0, 1, 5000]) {
        const xs = values(d, n, n + 3, 40).concat(kind(d) === 'f' && n ? [NaN, NaN] : []);
        check(() => cuda.tidy(() => {
          const shape = xs.length === 5000 ? [50, 100] : [xs.length];
          const a = upload(d, xs, shape);
          const order = argsortRef(xs);
          // NumPy compares values: -0 == +0 (adjacent after the sort), NaNs equal (equalNan), complex NaN when either part is.
          const nan = (x: V): boolean => (typeof x === 'object' ? Number.isNaN(x.re) || Number.isNaN(x.im) : Number.isNaN(x as number));
          const eq = (x: V, y: V): boolean => (typeof x === 'object' ? x.re === (y as C).re && x.im === (y as C).im : x === y)
            || (nan(x) && nan(y));
          const heads: number[] = []; // positions in `order` starting a run (-0 == +0: NumPy compares values)
          order.forEach((p, k) => { if (k === 0 || !eq(xs[order[k - 1]], xs[p])) heads.push(k); });
          const want = heads.map((k) => xs[order[k]]);
          const plain = gpuarray.unique(a);
          expectValues(download(plain), want, 'values');
          const r = gpuarray.unique(a, { returnIndex: true, returnInverse: true, returnCounts: true });
          expect('values' in r).toBe(true);
          const { values: v, indices, inverse, counts } = r as cuda.UniqueResult;
          expectValues(download(v), want, 'values (object)');
          expectIndices(indices!, heads.map((k) => order[k]), 'indices');
          expectIndices(counts!, heads.map((k, j) => (j + 1 < heads.length ? heads[j + 1] : xs.length) - k), 'counts');
          const inv = new Array<number>(xs.length);
          heads.forEach((k, j) => { for (let q = k; q < (j + 1 < heads.length ? heads[j + 1] : xs.length); q++) inv[order[q]] = j; });
          expect([...inverse!.shape]).toEqual(shape);
          expectIndices(inverse!, inv, 'inverse');
        }));
      }
      check.done();
    });

    test('equalNan false keeps every NaN; -0.0 and +0.0 are one value', () => cuda.tidy(() => {
      const a = gpuarray.toGpu(new Float64Array([NaN, 1, NaN, -0, 0, 1]));
      expect((gpuarray.unique(a, { equalNan: false }).get() as Float64Array).length).toBe(4);
      const r = gpuarray.unique(a, { returnCounts: true }) as cuda.UniqueResult;
      expect(Array.from(r.counts!.get() as BigInt64Array).map(Number)).toEqual([2, 2, 2]);
    }));

    test('2^26 int32 with many duplicates', () => cuda.tidy(() => {
      const n = 2 ** 26;
      const h = new Int32Array(n);
      const r = rng(9);
      for (let i = 0; i < n; i++) h[i] = Math.floor(r() * 1000) - 500;
      const u = gpuarray.unique(gpuarray.toGpu(h), { returnCounts: true }) as cuda.UniqueResult;
      const counts = new Map<number, number>();
      for (const x of h) counts.set(x, (counts.get(x) ?? 0) + 1);
      const keys = [...counts.keys()].sort((x, y) => x - y);
      expect(Array.from(u.values.get() as Int32Array)).toEqual(keys);
      expect(Array.from(u.counts!.get() as BigInt64Array).map(Number)).toEqual(keys.map((k) => counts.get(k)));
    }));
  });

  describe('searchsorted', () => {
    // searchsorted compares values: -0 == +0 (only the sort orders -0 first).
    const z = (v: V): V => (typeof v === 'number' ? (v === 0 ? 0 : v)
      : typeof v === 'object' ? { re: v.re === 0 ? 0 : v.re, im: v.im === 0 ? 0 : v.im } : v);
    const lower = (a: V[], x: V, right: boolean): number => {
      let i = 0;
      while (i < a.length && (right ? cmp(z(a[i]), z(x)) <= 0 : cmp(z(a[i]), z(x)) < 0)) i++;
      return i;
    };
    test.each(['int32', 'uint8', 'int64', 'float16', 'float32', 'float64', 'complex128', 'bool'] as DTypeName[])(
      '%s: left/right, NaN last, with a sorter, v of any shape', (d) => cuda.tidy(() => {
        const raw = values(d, 3000, 4, 30).concat(kind(d) === 'f' ? [NaN, NaN, Infinity] : []);
        const order = argsortRef(raw);
        const sortedA = order.map((i) => raw[i]);
        const v = values(d, 12 * 10, 5, 34).concat(kind(d) === 'f' ? [NaN, -Infinity] : values(d, 2, 6));
        const vs = upload(d, v, [2, 61]);
        for (const side of ['left', 'right'] as const) {
          const want = v.map((x) => lower(sortedA, x, side === 'right'));
          const r = gpuarray.searchsorted(upload(d, sortedA), vs, { side });
          expect([...r.shape]).toEqual([2, 61]);
          expectIndices(r, want, side);
          const sorter = gpuarray.argsort(upload(d, raw));
          expectIndices(gpuarray.searchsorted(upload(d, raw), vs, { side, sorter }), want, `${side} sorter`);
          expectIndices(upload(d, sortedA).searchsorted(vs, { side }), want, `${side} method`);
        }
      }));

    test('scalars and mixed dtypes (compared in the promoted type)', () => cuda.tidy(() => {
      const a = gpuarray.toGpu(new Int32Array([1, 2, 2, 3, 10]));
      expect(gpuarray.searchsorted(a, 2).item()).toBe(1n);
      expect(gpuarray.searchsorted(a, 2, { side: 'right' }).item()).toBe(3n);
      expect(gpuarray.searchsorted(a, 2.5).item()).toBe(3n);
      const many = gpuarray.searchsorted(a, gpuarray.toGpu(new Float64Array([0.5, 9.9, 11])));
      expect(Array.from(many.get() as BigInt64Array)).toEqual([0n, 4n, 5n]);
      expect(gpuarray.searchsorted(gpuarray.toGpu(new Float32Array([1, 2, NaN])), NaN).item()).toBe(2n);
      expect([...gpuarray.searchsorted(a, gpuarray.zeros([0, 3], 'int32')).shape]).toEqual([0, 3]);
    }));

    test('argument errors', () => cuda.tidy(() => {
      const a = gpuarray.toGpu(new Float32Array([1, 2, 3]));
      expectCode(() => gpuarray.searchsorted(a, 1, { side: 'middle' as 'left' }), TypeError, 'ERR_INVALID_ARG_VALUE');
      expectCode(() => gpuarray.searchsorted(a.reshape([1, 3]), 1), RangeError, 'ERR_INVALID_ARG_VALUE');
      expectCode(() => gpuarray.searchsorted(a, 1, { sorter: gpuarray.zeros([3], 'int32') }), TypeError, 'ERR_INVALID_DTYPE');
      expectCode(() => gpuarray.searchsorted(a, 1, { sorter: gpuarray.zeros([4], 'int64') }), RangeError, 'ERR_SHAPE_MISMATCH');
      expectCode(() => gpuarray.sort(a, { axis: 1 }), RangeError, 'ERR_AXIS_OUT_OF_RANGE');
      expectCode(() => gpuarray.argsort(gpuarray.toGpu(new Float32Array([1])).reshape([]), {}), RangeError, 'ERR_AXIS_OUT_OF_RANGE');
      expectCode(() => gpuarray.sort(a, { out: gpuarray.empty([4], 'float32') }), RangeError, 'ERR_SHAPE_MISMATCH');
      expectCode(() => gpuarray.sort(a, { out: gpuarray.empty([3], 'float64') }), TypeError, 'ERR_INVALID_DTYPE');
    }));
  });
});

describe('sorting argument errors (no GPU needed)', () => {
  test('non-arrays are TypeErrors', () => {
    expectCode(() => gpuarray.sort(5 as unknown as GPUArray), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.argsort([1, 2] as unknown as GPUArray), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.unique('x' as unknown as GPUArray), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.searchsorted(null as unknown as GPUArray, 1), TypeError, 'ERR_INVALID_ARG_TYPE');
  });
});
