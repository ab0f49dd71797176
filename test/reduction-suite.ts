/**
 * The reduction suite (85.reduction.test.ts and 85.reduction-b.test.ts run a half each, so Jest
 * runs them in parallel: the whole suite took 208-295 s in one worker, the longest file of the
 * GPU run). What it covers is in those files' headers.
 */
import * as cuda from '../lib';
import { GPUArray, GenericScanKernel, NvrtcError, ReductionKernel, driver, gpuarray } from '../lib';
import type { DTypeName } from '../lib';
import { collect, describeGpu, expectCode, settledLive } from './helpers';
import { C, DTYPE_NAMES, V, download, kind, softly, upload, viewOf } from './reference';
import {
  Expect, RED_NAMES, RedName, UNIT, axesOf, chain, expectClose, fsum, groups, randomValues, reduceRef, resultDtype, rng,
  roundTo, smallInts, sumRef,
} from './reduce-reference';
// Module-local aliases: global lookups are slow inside Jest's vm context (hot reference loops).
const { Math, Number, BigInt } = globalThis;

type Opts = Record<string, unknown>;
type Red = (a: GPUArray, opts?: Opts) => GPUArray;
/** gpuarray.<name>(a, opts) */
const red = (name: string, a: GPUArray, opts?: Opts): GPUArray =>
  opts === undefined ? (gpuarray as unknown as Record<string, Red>)[name](a) : (gpuarray as unknown as Record<string, Red>)[name](a, opts);
/** a.<name>(opts) */
const meth = (name: string, a: GPUArray, opts?: Opts): GPUArray =>
  opts === undefined ? (a as unknown as Record<string, (o?: Opts) => GPUArray>)[name]()
    : (a as unknown as Record<string, (o?: Opts) => GPUArray>)[name](opts);
const live = (): number => cuda.memory().liveAllocations;
const FLOATS: DTypeName[] = ['float16', 'bfloat16', 'float32', 'float64', 'complex64', 'complex128'];
const isC = (v: V): v is C => typeof v === 'object';
const nan = (v: V): boolean => (isC(v) ? Number.isNaN(v.re) || Number.isNaN(v.im) : typeof v === 'number' && Number.isNaN(v));
/** Small integer k as a value of dtype d. */
const k = (d: DTypeName, x: number): V => (kind(d) === 'c' ? { re: x, im: 0 } : d.endsWith('int64') ? BigInt(x) : kind(d) === 'b' ? (x ? 1 : 0) : x);

/** Random data for the whole-array tests: full-range integers; floats in [-0.5, 1.5) (mean ≠ 0). */
const dataFor = (d: DTypeName, n: number, seed: number): V[] => randomValues(d, n, seed, -0.5, 1.5);

/** Checks one GPU reduction result against the reference over `xs` (a 0-d or keepdims result). */
function expectReduced(r: GPUArray, name: RedName, d: DTypeName, xs: V[], opts: Opts = {}, shape: number[] = []): void {
  expect(r.dtype.name).toBe(resultDtype(name, d, opts.dtype as DTypeName | undefined));
  expect([...r.shape]).toEqual(shape);
  expectClose(download(r), [reduceRef(name, d, xs, opts as { dtype?: DTypeName; ddof?: number })], `${name}(${d})`);
}

/** whole array, axis, options */
function partA(): void {

  describe('whole array', () => {
    test.each(DTYPE_NAMES)('%s: every reduction at n = 1, 31, 1000003; function and method forms', (d) => cuda.tidy(() => {
      const check = softly();
      for (const [n, seed] of [[1, 11], [31, 12], [1000003, 13]]) {
        const xs = dataFor(d, n, seed);
        const a = upload(d, xs);
        RED_NAMES.forEach((name, j) => {
          if (name === 'prod' && n > 31) return; // products of random data over/underflow: see the prod tests
          check(() => expectReduced(j % 2 ? meth(name, a) : red(name, a), name, d, xs));
        });
        check(() => expectReduced(red('var', a, { ddof: 1 }), 'var', d, xs, { ddof: 1 })); // n = 1: 0/0 = NaN
        check(() => expectReduced(meth('std', a, { ddof: 1 }), 'std', d, xs, { ddof: 1 }));
      }
      check.done();
    }));

    test.each(FLOATS)('%s: dyadic data whose every partial sum is exact: sum and mean at 1000003 are exact', (d) => cuda.tidy(() => {
      const n = 1000003;
      const r = rng(21);
      const xs: V[] = Array.from({ length: n }, () => {
        const re = (Math.floor(r() * 17) - 8) / 8; // multiples of 1/8 in [-1, 1]: partial sums < 2^20 in 1/8 steps
        return kind(d) === 'c' ? { re, im: (Math.floor(r() * 17) - 8) / 8 } : re;
      });
      const a = upload(d, xs);
      const exact = sumRef('complex128', xs.map((x) => (isC(x) ? x : { re: x as number, im: 0 })), 'complex128').value as C;
      const want = roundTo(d, kind(d) === 'c' ? exact : exact.re);
      expectClose(download(red('sum', a)), [{ value: want, tol: 0 }], 'sum');
      const m = kind(d) === 'c' ? { re: exact.re / n, im: exact.im / n } : exact.re / n;
      const mag = isC(m) ? Math.hypot(m.re, m.im) : Math.abs(m);
      expectClose(download(red('mean', a)), [{ value: m, tol: 2 * UNIT[d] * mag }], 'mean');
    }));

    test('the big one: sum, max, argmax of 2^28 float32 (1 GiB); exact sum of 0/1 data at 2^28', () => cuda.tidy(() => {
      const n = 2 ** 28;
      const h = new Float32Array(n);
      const r = rng(99);
      for (let i = 0; i < n; i++) h[i] = r();
      h[n - 5] = 2; // the unique maximum, near the end
      const a = gpuarray.toGpu(h);
      {
        const s = red('sum', a);
        expect(s.dtype.name).toBe('float32');
        const S = fsum(h); // all positive: Σ|x| = S
        expectClose(download(s), [{ value: S, tol: 2 * UNIT.float32 * chain(n) * S + UNIT.float32 * S }], 'sum 2^28');
        expect(download(red('max', a))).toEqual([2]);
        expect(download(red('argmax', a))).toEqual([BigInt(n - 5)]);
        s.dispose();
        // Every partial sum of these is an integer ≤ 2^23 + 1: exact in float32 in any order.
        h.fill(0);
        for (let i = 0; i < n; i += 32) h[i] = 1;
        h[n - 1] = 1;
        a.set(h);
        expect(download(red('sum', a))).toEqual([2 ** 23 + 1]);
      }
    }), 180000);

    test.each(DTYPE_NAMES)('%s: prod (odd small integers wrap exactly in 64 bits; floats: powers of two, exact)', (d) => cuda.tidy(() => {
      const check = softly();
      for (const n of [1, 31, 1000003]) {
        let xs: V[];
        if (kind(d) === 'f' || kind(d) === 'c') {
          // 2 at i ≡ 0, 0.5 at i ≡ 32 (mod 64), else 1 (complex: also ±i): the product is exact.
          xs = Array.from({ length: n }, (_, i) => {
            const v = i % 64 === 0 ? 2 : i % 64 === 32 ? 0.5 : 1;
            return kind(d) === 'c' ? (i % 7 === 3 ? { re: 0, im: i % 2 ? v : -v } : { re: v, im: 0 }) : v;
          });
        } else {
          // Odd factors (±1, ±3; unsigned: 1, 3), so the 64-bit product is rarely 0; bool: all true at n = 31.
          const r = rng(31 + n);
          const pickFrom = kind(d) === 'i' ? [1, -1, 3, -3] : [1, 3];
          xs = Array.from({ length: n }, () => (kind(d) === 'b' ? (n === 31 || r() < 0.999 ? 1 : 0) : k(d, pickFrom[Math.floor(r() * pickFrom.length)])));
        }
        const a = upload(d, xs);
        check(() => expectReduced(red('prod', a), 'prod', d, xs));
        check(() => expectReduced(meth('prod', a), 'prod', d, xs));
      }
      if (kind(d) === 'f' || kind(d) === 'c') { // random data near 1: within the tolerance
        const xs = randomValues(d, 1000, 5, 0.9, 1.1);
        check(() => expectReduced(red('prod', upload(d, xs)), 'prod', d, xs));
      }
      check.done();
    }));
  });

  describe('axis', () => {
    // Non-contiguous views of C-ordered bases: base shape, view, view shape, element strides/offset.
    type Case = { name: string; base: number[]; view: (a: GPUArray) => GPUArray; shape: number[]; strides: number[]; offset: number };
    const CASES: Case[] = [
      { name: 'contiguous [4,3,50]', base: [4, 3, 50], view: (a) => a, shape: [4, 3, 50], strides: [150, 50, 1], offset: 0 },
      { name: 'transposed [5,7,33].T', base: [5, 7, 33], view: (a) => a.T, shape: [33, 7, 5], strides: [1, 33, 231], offset: 0 },
      {
        name: 'sliced [6,40,9][1:, ::-3, 2:8:2]', base: [6, 40, 9], view: (a) => a.index('1:', '::-3', '2:8:2'),
        shape: [5, 14, 3], strides: [360, -27, 2], offset: 360 + 39 * 9 + 2,
      },
    ];
    const ALL_AXES: Array<number | number[] | null> = [null, 0, 1, 2, -1, [0, 2], [-1, 0], [1, 2], [0, 1, 2]];
    const PLAN: Array<[RedName, Array<number | number[] | null>]> = [
      ['sum', ALL_AXES], ['max', ALL_AXES], ['min', [1, [0, 2], -1]], ['mean', [0, [-1, 0]]], ['prod', [2, [0, 1]]],
      ['var', [1, [0, 2]]], ['std', [-1]], ['any', [0, [1, 2]]], ['all', [2, [0, 1]]], ['argmax', [null, 0, 2, -1]],
      ['argmin', [null, 1, -3]],
    ];

    test.each(DTYPE_NAMES)('%s: axis int/list/negative, keepdims, on contiguous, transposed and sliced inputs', (d) => cuda.tidy(() => {
      const check = softly();
      CASES.forEach((c, ci) => {
        const baseVals = dataFor(d, c.base.reduce((p, q) => p * q, 1), 40 + ci);
        const v = c.view(upload(d, baseVals, c.base));
        expect([...v.shape]).toEqual(c.shape);
        const host = viewOf(baseVals, c.shape, c.strides, c.offset);
        for (const [name, axesList] of PLAN) {
          axesList.forEach((axis, j) => {
            const keepdims = j % 2 === 1;
            const g = groups(host, c.shape, axesOf(axis, 3));
            const want: Expect[] = g.groups.map((xs) => reduceRef(name, d, xs));
            const label = `${c.name} ${name}(axis=${JSON.stringify(axis)}, keepdims=${keepdims})`;
            check(() => {
              const r = (j % 3 === 2 ? meth : red)(name, v, { axis, keepdims });
              expect([label, r.dtype.name, [...r.shape]]).toEqual([label, resultDtype(name, d), keepdims ? g.keep : g.shape]);
              expectClose(download(r), want, label);
            });
          });
        }
      });
      check.done();
    }));

    test('float32 [1000, 1003] and its transpose: sum, mean, max, argmax over axis 0 and 1', () => cuda.tidy(() => {
      const check = softly();
      const shape = [1000, 1003];
      const xs = randomValues('float32', 1000 * 1003, 50, -1, 1);
      const a = upload('float32', xs, shape);
      const layouts = [{ arr: a, host: xs, sh: shape }, { arr: a.T, host: viewOf(xs, [1003, 1000], [1, 1003]), sh: [1003, 1000] }];
      for (const { arr, host, sh } of layouts) {
        for (const axis of [0, 1]) {
          const g = groups(host, sh, [axis]);
          for (const name of ['sum', 'mean', 'max', 'argmax'] as RedName[]) {
            check(() => expectClose(download(red(name, arr, { axis })), g.groups.map((x) => reduceRef(name, 'float32', x)),
              `${name} axis ${axis} of (${sh})`));
          }
        }
      }
      check.done();
    }));
  });

  describe('options', () => {
    test('dtype: accumulate and return in the given dtype (wrapping ints, per-element casts, wider floats)', () => cuda.tidy(() => {
      const check = softly();
      const cases: Array<[RedName, DTypeName, V[], DTypeName, Opts?]> = [
        ['sum', 'int8', Array(31).fill(100), 'int8'],
        ['sum', 'int32', Array(31).fill(2 ** 30), 'int32'],
        ['sum', 'uint8', randomValues('uint8', 1000, 1), 'float32'],
        ['sum', 'float32', randomValues('float32', 1000003, 2), 'float64'],
        ['sum', 'float16', randomValues('float16', 100001, 3), 'float32'],
        ['sum', 'float32', [1.75, 2.5, -1.5, 0.25], 'int32'],
        ['sum', 'bool', [1, 1, 0, 1], 'uint8'],
        ['prod', 'int16', Array(31).fill(3), 'int16'],
        ['prod', 'int32', Array(31).fill(3), 'float64'],
        ['mean', 'int32', randomValues('int32', 1001, 4), 'float32'],
        ['mean', 'float16', randomValues('float16', 4097, 5), 'float64'],
        ['sum', 'int8', randomValues('int8', 300, 6), 'int16', { axis: 0 }],
      ];
      for (const [name, d, xs, dtype, extra] of cases) {
        const a = upload(d, xs);
        check(() => expectReduced(red(name, a, { dtype, ...extra }), name, d, xs, { dtype }));
      }
      const mh = Array.from({ length: 300 }, (_, i) => (i * 37) % 256 - 128);
      const m = upload('int8', mh, [3, 100]);
      const want = groups(mh, [3, 100], [1]).groups.map((xs) => sumRef('int8', xs, 'int16'));
      check(() => expectClose(download(red('sum', m, { axis: 1, dtype: 'int16' })), want, 'sum axis 1 int16'));
      check.done();
    }));

    test('out: written and returned (0-d, axis, keepdims, argmax); wrong shape → RangeError ERR_SHAPE_MISMATCH', () => cuda.tidy(() => {
      const xs = randomValues('float32', 6 * 7, 8);
      const a = upload('float32', xs, [6, 7]);
      const g0 = groups(xs, [6, 7], [0]).groups;
      const o0 = gpuarray.empty([], 'float32');
      expect(red('sum', a, { out: o0 })).toBe(o0);
      expectClose(download(o0), [reduceRef('sum', 'float32', xs)]);
      const o1 = gpuarray.full([7], NaN, 'float32');
      expect(red('max', a, { axis: 0, out: o1 })).toBe(o1);
      expectClose(download(o1), g0.map((x) => reduceRef('max', 'float32', x)));
      const o2 = gpuarray.empty([1, 7], 'float32');
      expect(meth('mean', a, { axis: 0, keepdims: true, out: o2 })).toBe(o2);
      expectClose(download(o2), g0.map((x) => reduceRef('mean', 'float32', x)));
      const o3 = gpuarray.full([6], -1n, 'int64');
      expect(red('argmin', a, { axis: 1, out: o3 })).toBe(o3);
      expectClose(download(o3), groups(xs, [6, 7], [1]).groups.map((x) => reduceRef('argmin', 'float32', x)));
      const before = settledLive();
      for (const bad of [gpuarray.empty([6], 'float32'), gpuarray.empty([7, 1], 'float32'), gpuarray.empty([2], 'float32')]) {
        const n = settledLive();
        expectCode(() => red('sum', a, { axis: 0, out: bad }), RangeError, 'ERR_SHAPE_MISMATCH');
        expect(live()).toBe(n);
      }
      expect(live()).toBe(before + 3);
    }));

    test('stream: results are right after synchronizing the stream', async () => {
      const s = new driver.Stream();
      const xs = randomValues('float64', 100003, 9);
      const a = upload('float64', xs);
      const r = red('sum', a, { stream: s });
      await s.synchronizeAsync();
      expectClose(download(r), [reduceRef('sum', 'float64', xs)]);
      for (const x of [a, r]) x.dispose();
      s.dispose();
    });
  });
}

/** NaN, ties, empty; dot; subset reductions; bad input; ReductionKernel */
function partB(): void {
  describe('NaN, ties, empty', () => {
    test.each(FLOATS)('%s: min/max/argmin/argmax propagate NaN (first NaN); sum/mean NaN; ±Inf', (d) => cuda.tidy(() => {
      const check = softly();
      const n = 1000003;
      const base = dataFor(d, n, 60);
      const nanAt = (positions: number[], imag = false): V[] => {
        const xs = base.slice();
        for (const p of positions) xs[p] = kind(d) === 'c' ? (imag ? { re: 0.25, im: NaN } : { re: NaN, im: 0 }) : NaN;
        return xs;
      };
      const sets: Array<[string, V[]]> = [
        ['NaN at 0', nanAt([0])], ['NaN at the end', nanAt([n - 1])], ['NaNs at 4097, 500000', nanAt([500000, 4097])],
      ];
      if (kind(d) === 'c') sets.push(['NaN imaginary part at 70000', nanAt([70000], true)]);
      for (const [label, xs] of sets) {
        const a = upload(d, xs);
        for (const name of ['min', 'max', 'argmin', 'argmax', 'sum', 'mean'] as RedName[]) {
          check(() => {
            const got = download(red(name, a))[0];
            const want = reduceRef(name, d, xs);
            if (name === 'argmin' || name === 'argmax') expect([label, got]).toEqual([label, want.value]);
            else expect([label, name, nan(got)]).toEqual([label, name, true]);
          });
        }
      }
      if (kind(d) === 'f') {
        const inf = base.slice();
        inf[3] = Infinity;
        inf[900001] = Infinity;
        inf[12345] = -Infinity;
        const a = upload(d, inf);
        check(() => expect(download(red('max', a))).toEqual([Infinity]));
        check(() => expect(download(red('argmax', a))).toEqual([3n]));
        check(() => expect(download(red('argmin', a))).toEqual([12345n]));
        check(() => expect(nan(download(red('sum', a))[0])).toBe(true)); // Inf + -Inf
        const pos = base.slice();
        pos[77] = Infinity;
        check(() => expect(download(red('sum', upload(d, pos)))).toEqual([Infinity]));
      }
      check.done();
    }));

    test.each(DTYPE_NAMES)('%s: ties → the first index (across blocks), min/max values', (d) => cuda.tidy(() => {
      const check = softly();
      for (const n of [31, 1000003]) {
        const xs: V[] = Array(n).fill(k(d, 1));
        const hiAt = [n - 1, 777 % n, 4096 * 3 + 1 < n ? 4096 * 3 + 1 : 5];
        const loAt = [n - 2, 20, 999999 < n ? 999999 : 30];
        for (const p of hiAt) xs[p] = kind(d) === 'b' ? 1 : k(d, 5);
        for (const p of loAt) xs[p] = k(d, 0);
        if (kind(d) === 'c') xs[10] = { re: 5, im: -1 }; // same real part as the max, smaller imaginary part: not a tie
        const a = upload(d, xs);
        for (const name of ['argmax', 'argmin', 'max', 'min'] as RedName[]) {
          check(() => expect([n, name, download(red(name, a))]).toEqual([n, name, [reduceRef(name, d, xs).value]]));
        }
      }
      const same = upload(d, Array(100).fill(k(d, 1)));
      check(() => expect(download(red('argmax', same))).toEqual([0n]));
      check(() => expect(download(red('argmin', same))).toEqual([0n]));
      check.done();
    }));

    test.each(DTYPE_NAMES)('%s: empty: sum 0, prod 1, any false, all true, mean/var/std NaN; min/max/arg* ERR_EMPTY_REDUCTION', (d) => cuda.tidy(() => {
      const check = softly();
      const e = gpuarray.empty([0], d);
      for (const name of ['sum', 'prod', 'any', 'all', 'mean', 'var', 'std'] as RedName[]) {
        check(() => expectReduced(red(name, e), name, d, []));
      }
      for (const name of ['min', 'max', 'argmin', 'argmax']) {
        check(() => expectCode(() => red(name, e), RangeError, 'ERR_EMPTY_REDUCTION'));
      }
      const e2 = gpuarray.empty([0, 3], d);
      for (const name of ['sum', 'prod', 'any', 'all', 'mean'] as RedName[]) {
        check(() => expectClose(download(red(name, e2, { axis: 0 })), Array(3).fill(reduceRef(name, d, [])), `${name} axis 0`));
        check(() => expect([...red(name, e2, { axis: 1 }).shape]).toEqual([0])); // empty output: fine
      }
      check(() => expect([...red('sum', e2, { axis: [0, 1], keepdims: true }).shape]).toEqual([1, 1]));
      for (const name of ['min', 'max', 'argmin', 'argmax']) {
        check(() => expectCode(() => red(name, e2, { axis: 0 }), RangeError, 'ERR_EMPTY_REDUCTION'));
        check(() => expect([...red(name, e2, { axis: 1 }).shape]).toEqual([0]));
      }
      check.done();
    }));

    test('any/all: a single nonzero (or zero) anywhere; -0 is false, NaN is true', () => cuda.tidy(() => {
      const check = softly();
      for (const d of ['bool', 'int8', 'uint64', 'float16', 'float32', 'float64', 'complex64'] as DTypeName[]) {
        for (const n of [1, 31, 1000003]) {
          for (const p of [0, n - 1, Math.floor(n / 2)]) {
            const zeros: V[] = Array(n).fill(k(d, 0));
            zeros[p] = kind(d) === 'c' ? { re: 0, im: 1 } : k(d, 1);
            const ones: V[] = Array(n).fill(k(d, 1));
            ones[p] = k(d, 0);
            check(() => expect([d, n, p, download(red('any', upload(d, zeros))), download(red('all', upload(d, ones)))])
              .toEqual([d, n, p, [1], [0]]));
          }
        }
        if (kind(d) === 'f') {
          check(() => expect(download(red('any', upload(d, [-0, 0, -0])))).toEqual([0]));
          check(() => expect(download(red('all', upload(d, [NaN, 1, -2])))).toEqual([1]));
        }
      }
      check.done();
    }));
  });

  describe('dot', () => {
    const PAIRS: Array<[DTypeName, DTypeName, DTypeName, number, number]> = [
      // a dtype, b dtype, result, value range (ints: products fit the promoted type)
      ['float32', 'float32', 'float32', -1, 1], ['float64', 'float64', 'float64', -1, 1], ['float16', 'float16', 'float16', -1, 1],
      ['int32', 'int32', 'int64', -40000, 40000], ['int8', 'uint8', 'int64', -127, 127], ['uint32', 'uint32', 'uint64', 0, 65535],
      ['bool', 'bool', 'bool', 0, 1], ['float32', 'int32', 'float64', -100, 100], ['complex64', 'complex64', 'complex64', -1, 1],
      ['complex128', 'float64', 'complex128', -1, 1],
    ];
    /** Σ a_i·b_i reference: exact for integers, tolerance for floats (u of the result's compute type). */
    function dotRef(da: DTypeName, db: DTypeName, out: DTypeName, xs: V[], ys: V[]): Expect {
      // NumPy: a dot of bools is a bool (any a_i and b_i).
      if (out === 'bool') return { value: xs.some((x, i) => Number(x) !== 0 && Number(ys[i]) !== 0) ? 1 : 0, tol: 0 };
      const prods: V[] = xs.map((x, i) => {
        const y = ys[i];
        if (kind(out) === 'i' || kind(out) === 'u') return BigInt(Number(x)) * BigInt(Number(y));
        const cx = isC(x) ? x : { re: Number(x), im: 0 }, cy = isC(y) ? y : { re: Number(y), im: 0 };
        const c = { re: cx.re * cy.re - cx.im * cy.im, im: cx.re * cy.im + cx.im * cy.re };
        return kind(out) === 'c' ? c : c.re;
      });
      if (kind(out) === 'i' || kind(out) === 'u') return sumRef('int64', prods, out);
      const s = sumRef(kind(out) === 'c' ? 'complex128' : 'float64', prods);
      const abs = (v: V): number => (isC(v) ? Math.hypot(v.re, v.im) : Math.abs(Number(v)));
      const scale = fsum(xs.map((x, i) => abs(x) * abs(ys[i])));
      const mag = isC(s.value) ? Math.hypot(s.value.re, s.value.im) : Math.abs(s.value as number);
      return { value: s.value, tol: 4 * UNIT[out === 'float16' ? 'float32' : out] * chain(xs.length) * scale + UNIT[out] * mag };
    }
    const gen = (d: DTypeName, n: number, seed: number, lo: number, hi: number): V[] =>
      kind(d) === 'f' || kind(d) === 'c' ? randomValues(d, n, seed, lo, hi) : smallInts(d, n, seed, Math.max(lo, kind(d) === 'u' ? 0 : lo), hi);

    test.each(PAIRS)('%s · %s → %s at n = 0, 1, 31, 1000003 (function and method)', (da, db, out, lo, hi) => cuda.tidy(() => {
      const check = softly();
      for (const n of [0, 1, 31, 1000003]) {
        const xs = gen(da, n, 70 + n, lo, hi), ys = gen(db, n, 71 + n, lo, hi);
        const a = upload(da, xs), b = upload(db, ys);
        const want = dotRef(da, db, out, xs, ys);
        check(() => {
          const r = gpuarray.dot(a, b);
          expect([n, r.dtype.name, [...r.shape]]).toEqual([n, out, []]);
          expectClose(download(r), [want], `dot n=${n}`);
        });
        check(() => expectClose(download(a.dot(b)), [want], `a.dot(b) n=${n}`));
      }
      check.done();
    }));

    test('any layout: transposed, stepped, reversed operands; complex is not conjugated', () => cuda.tidy(() => {
      const xs = randomValues('float32', 1000 * 1003, 80), ys = randomValues('float32', 1000 * 1003, 81);
      const a = upload('float32', xs, [1000, 1003]), b = upload('float32', ys, [1000, 1003]);
      const at = viewOf(xs, [1003, 1000], [1, 1003]), bt = viewOf(ys, [1003, 1000], [1, 1003]);
      expectClose(download(gpuarray.dot(a.T, b.T)), [dotRef('float32', 'float32', 'float32', at, bt)], 'T·T');
      const as = viewOf(xs, [500, 1003], [2006, 1]), bs = viewOf(ys, [500, 1003], [-2006, -1], 999 * 1003 + 1002);
      expectClose(download(gpuarray.dot(a.index('::2'), b.index('::-2', '::-1'))), [dotRef('float32', 'float32', 'float32', as, bs)], 'stepped');
      const c = upload('complex128', [{ re: 1, im: 2 }, { re: -1, im: 0.5 }]), e = upload('complex128', [{ re: 3, im: 4 }, { re: 2, im: -2 }]);
      // (1+2i)(3+4i) + (-1+0.5i)(2-2i) = (-5+10i) + (-1+3i) = -6+13i
      expect(download(gpuarray.dot(c, e))).toEqual([{ re: -6, im: 13 }]);
    }));

    test('cuBLAS dot (float32/float64/complex64/complex128, one positive stride) agrees with the reduction kernel and the CPU, on a stream too', () => cuda.tidy(() => {
      expect(cuda.linalg.cublasStatus().found).toBe(true); // the GPU machine has cuBLAS: the fast path must run here
      const check = softly();
      const s = new driver.Stream();
      const n = 300007;
      for (const d of ['float32', 'float64', 'complex64', 'complex128'] as DTypeName[]) {
        const xs = randomValues(d, 3 * n, 90), ys = randomValues(d, 3 * n, 91);
        const a = upload(d, xs), b = upload(d, ys);
        const cases: Array<[string, GPUArray, GPUArray, V[], V[]]> = [
          ['contiguous', a, b, xs, ys],
          ['step 3 (cuBLAS incx = incy = 3)', a.index('::3'), b.index('1::3'), xs.filter((_, i) => i % 3 === 0), ys.filter((_, i) => i % 3 === 1)],
        ];
        for (const [label, x, y, xv, yv] of cases) {
          const want = dotRef(d, d, d, xv, yv);
          check(() => expectClose(download(gpuarray.dot(x, y)), [want], `${d} ${label} (cuBLAS)`));
          check(() => expect([...gpuarray.dot(x, y, { keepdims: true }).shape]).toEqual([1])); // keepdims: the reduction kernel
          check(() => {
            const r = gpuarray.dot(x, y, { stream: s });
            s.synchronize();
            expectClose(download(r), [want], `${d} ${label} on a stream (cuBLAS)`);
          });
          process.env.NODECUDA_DOT_CUBLAS = '0';
          try {
            check(() => expectClose(download(gpuarray.dot(x, y)), [want], `${d} ${label} (reduction kernel)`));
          } finally {
            delete process.env.NODECUDA_DOT_CUBLAS;
          }
        }
      }
      s.synchronize();
      check.done();
    }));

    test('shapes must be equal: RangeError ERR_SHAPE_MISMATCH (no broadcasting)', () => cuda.tidy(() => {
      const a = gpuarray.zeros([6], 'float32'), b = gpuarray.zeros([2, 3], 'float32'), c = gpuarray.zeros([3], 'float32');
      expectCode(() => gpuarray.dot(a, b), RangeError, 'ERR_SHAPE_MISMATCH');
      expectCode(() => gpuarray.dot(c, b), RangeError, 'ERR_SHAPE_MISMATCH');
      expectCode(() => b.dot(c), RangeError, 'ERR_SHAPE_MISMATCH');
    }));
  });

  describe('subset reductions', () => {
    const xs = randomValues('float32', 300 * 301, 90), ys = randomValues('float32', 300 * 301, 91);
    const ints = randomValues('int32', 300 * 301, 92);
    const r = rng(93);
    const raw = Array.from({ length: 5001 }, () => Math.floor(r() * 300 * 301));
    raw.push(raw[7], raw[7], 0, 300 * 301 - 1); // repeats count every time; both ends
    const OUT = [300 * 301, 300 * 301 + 5, 2 ** 31 - 1];
    const withOut = [...raw.slice(0, 100), ...OUT, ...raw.slice(100)];

    test.each(['int32', 'int64', 'uint32'] as DTypeName[])('%s indices: subsetSum/Dot/Min/Max over a.ravel()[idx]; out-of-range indices skipped', (id) => cuda.tidy(() => {
      const check = softly();
      const idx = upload(id, (id === 'uint32' ? [...withOut, 2 ** 32 - 1] : withOut).map((i) => (id === 'int64' ? BigInt(i) : i)));
      const sel = (vals: V[]): V[] => raw.map((i) => vals[i]);
      const a = upload('float32', xs, [300, 301]), b = upload('float32', ys, [300, 301]), m = upload('int32', ints, [300, 301]);
      check(() => expectClose(download(gpuarray.subsetSum(idx, a)), [sumRef('float32', sel(xs))], 'subsetSum'));
      check(() => expectClose(download(gpuarray.subsetSum(idx, m)), [sumRef('int32', sel(ints))], 'subsetSum int32 → int64'));
      check(() => expect(gpuarray.subsetSum(idx, m).dtype.name).toBe('int64'));
      check(() => expect(download(gpuarray.subsetMin(idx, a))).toEqual([reduceRef('min', 'float32', sel(xs)).value]));
      check(() => expect(download(gpuarray.subsetMax(idx, m))).toEqual([reduceRef('max', 'int32', sel(ints)).value]));
      check(() => {
        const prods = raw.map((i) => (xs[i] as number) * (ys[i] as number));
        const s = sumRef('float64', prods);
        const tol = 4 * UNIT.float32 * chain(raw.length) * fsum(prods.map(Math.abs)) + UNIT.float32 * Math.abs(s.value as number);
        expectClose(download(gpuarray.subsetDot(idx, a, b)), [{ value: s.value, tol }], 'subsetDot');
      });
      // A non-contiguous array: indices address its C-order (ravel) elements.
      const tHost = viewOf(xs, [301, 300], [1, 301]);
      check(() => expect(download(gpuarray.subsetMax(idx, a.T))).toEqual([reduceRef('max', 'float32', sel(tHost)).value]));
      check(() => expectClose(download(gpuarray.subsetSum(idx, a.T)), [sumRef('float32', sel(tHost))], 'subsetSum of a.T'));
      check.done();
    }));

    test('no indices, or only out-of-range ones: subsetSum is 0', () => cuda.tidy(() => {
      const a = upload('float64', [1, 2, 3]);
      expect(download(gpuarray.subsetSum(gpuarray.empty([0], 'int32'), a))).toEqual([0]);
      expect(download(gpuarray.subsetSum(upload('int32', [3, 4, 1000]), a))).toEqual([0]);
      expect(download(gpuarray.subsetSum(upload('int64', [2n, 99n, 0n]), a))).toEqual([4]);
    }));
  });

  describe('bad input', () => {
    test('axis out of range or repeated → RangeError ERR_AXIS; bad operands → TypeError; nothing leaked', () => {
      const a = gpuarray.zeros([2, 3, 4], 'float32');
      const before = settledLive();
      for (const axis of [3, -4, [0, 0], [1, -2], [0, 5]]) {
        for (const name of ['sum', 'max', 'mean', 'any']) expectCode(() => red(name, a, { axis }), RangeError, 'ERR_AXIS_OUT_OF_RANGE');
      }
      for (const axis of [3, -4]) expectCode(() => red('argmax', a, { axis }), RangeError, 'ERR_AXIS_OUT_OF_RANGE');
      expect(() => red('sum', [1, 2] as never)).toThrow(TypeError);
      expect(() => red('sum', a, { dtype: 'float128' })).toThrow(TypeError);
      expect(live()).toBe(before);
      const d = gpuarray.zeros([3]);
      d.dispose();
      expectCode(() => red('sum', d), TypeError, 'ERR_USE_AFTER_DISPOSE');
      expectCode(() => gpuarray.dot(d, d), TypeError, 'ERR_USE_AFTER_DISPOSE');
      a.dispose();
    });
  });

  describe('ReductionKernel', () => {
    test('sum of squares (PyCUDA form) at n = 0, 1, 31, 1000003', () => cuda.tidy(() => {
      const k2 = new ReductionKernel('float32', { neutral: '0', reduceExpr: 'a+b', mapExpr: 'x[i]*x[i]', arguments: 'const float *x' });
      for (const n of [0, 1, 31, 1000003]) {
        const xs = randomValues('float32', n, 100 + n);
        const r = k2(upload('float32', xs));
        expect([r.dtype.name, [...r.shape]]).toEqual(['float32', []]);
        const sq = xs.map((x) => (x as number) ** 2);
        const s = fsum(sq);
        expectClose(download(r), [{ value: s, tol: 4 * UNIT.float32 * chain(n) * s + UNIT.float32 * s }], `n=${n}`);
      }
    }));

    test('max with a custom neutral; mapExpr over two arrays; scalar arguments; default mapExpr/arguments', () => cuda.tidy(() => {
      const xs = randomValues('int32', 100003, 110), ys = randomValues('float32', 100003, 111), zs = randomValues('float32', 100003, 112);
      const kmax = new ReductionKernel('int32', { neutral: '-2147483647 - 1', reduceExpr: '(a > b) ? a : b', arguments: 'const int *x', mapExpr: 'x[i]' });
      expect(download(kmax(upload('int32', xs)))).toEqual([reduceRef('max', 'int32', xs).value]);
      expect(download(kmax(upload('int32', [-(2 ** 31)])))).toEqual([-(2 ** 31)]);
      const kdot = new ReductionKernel('float32', { neutral: '0', reduceExpr: 'a+b', mapExpr: 'x[i]*y[i]', arguments: 'const float *x, const float *y' });
      const prods = ys.map((y, i) => (y as number) * (zs[i] as number));
      const s = fsum(prods);
      expectClose(download(kdot(upload('float32', ys), upload('float32', zs))),
        [{ value: s, tol: 4 * UNIT.float32 * chain(prods.length) * fsum(prods.map(Math.abs)) + UNIT.float32 * Math.abs(s) }], 'dot');
      const kcount = new ReductionKernel('int64', { neutral: '0', reduceExpr: 'a+b', mapExpr: '(x[i] > c) ? 1 : 0', arguments: 'const float *x, float c' });
      expect(download(kcount(upload('float32', ys), 0.5))).toEqual([BigInt(ys.filter((y) => (y as number) > Math.fround(0.5)).length)]);
      expect(download(kcount(upload('float32', ys), -2))).toEqual([BigInt(ys.length)]);
      const kdef = new ReductionKernel('float64', { neutral: '0', reduceExpr: 'a+b' });
      const f64 = randomValues('float64', 1001, 113);
      expectClose(download(kdef(upload('float64', f64))), [reduceRef('sum', 'float64', f64)], 'default in[i]');
    }));

    test('16-bit floats: default arguments (float16, bfloat16, bool, complex64) and half / __nv_bfloat16 declarations', () => cuda.tidy(() => {
      const check = softly();
      const xs = [1, 2.5, -0.5, 4, 1 + 2 ** -7];
      for (const d of ['float16', 'bfloat16'] as DTypeName[]) {
        const kdef = new ReductionKernel(d, { neutral: 0, reduceExpr: 'a+b' });
        // Accumulated in float: 8 + 2^-7, which float16 holds and bfloat16 rounds to 8.
        check(() => expect([d, download(kdef(upload(d, xs)))]).toEqual([d, [d === 'float16' ? 8 + 2 ** -7 : 8]]));
      }
      check(() => expect(download(new ReductionKernel('bool', { neutral: 0, reduceExpr: 'a || b' })(upload('bool', [0, 1, 0])))).toEqual([1]));
      check(() => expect(download(new ReductionKernel('complex64', { neutral: 0, reduceExpr: 'a + b' })(upload('complex64', [{ re: 1, im: 2 }, { re: 3, im: -1 }]))))
        .toEqual([{ re: 4, im: 1 }]));
      const kb = new ReductionKernel('float32', { neutral: 0, reduceExpr: 'a+b', mapExpr: 'x[i] * s + h[i]',
        arguments: 'const __nv_bfloat16 *x, nv_bfloat16 s, const half *h' });
      check(() => expect(download(kb(upload('bfloat16', xs), 3, upload('float16', xs)))).toEqual([4 * (8 + 2 ** -7)]));
      const ks = new GenericScanKernel({ dtype: 'bfloat16', arguments: 'const __nv_bfloat16 *x, __nv_bfloat16 *y', inputExpr: 'x[i]',
        scanExpr: 'a + b', neutral: 0, outputStatement: 'y[i] = item;' });
      const y = gpuarray.zeros([5], 'bfloat16');
      ks(upload('bfloat16', xs), y);
      check(() => expect(download(y)).toEqual([1, 3.5, 3, 7, 8])); // 8 + 2^-7 rounds to 8 in bfloat16
      check.done();
    }));

    test('axis and keepdims: i is the linear C-order index of the mapped element', () => cuda.tidy(() => {
      const shape = [37, 1001];
      const xs = randomValues('float64', 37 * 1001, 120);
      const kw = new ReductionKernel('float64', { neutral: '0', reduceExpr: 'a+b', mapExpr: 'x[i] * (double)(i % 7)', arguments: 'const double *x' });
      const weighted = xs.map((x, i) => (x as number) * (i % 7));
      for (const axis of [0, 1, -1]) {
        const g = groups(weighted, shape, axesOf(axis, 2));
        const r = kw(upload('float64', xs, shape), { axis });
        expect([...r.shape]).toEqual(g.shape);
        expectClose(download(r), g.groups.map((w) => sumRef('float64', w)), `axis ${axis}`);
        expect([...kw(upload('float64', xs, shape), { axis, keepdims: true }).shape]).toEqual(g.keep);
      }
      const o = gpuarray.empty([37], 'float64');
      expect(kw(upload('float64', xs, shape), { axis: 1, out: o })).toBe(o);
      const s = new driver.Stream();
      const r = kw(upload('float64', xs, shape), { stream: s });
      s.synchronize();
      expectClose(download(r), [sumRef('float64', weighted)], 'stream');
      s.dispose();
    }));

    test('argument names that the generated kernel once used itself (r, o, k, m, acc, a0, out, step, G, L, red) are plain arguments', () => cuda.tidy(() => {
      // Each scalar enters the map with a distinct weight, so shadowing any one of them changes the sum.
      const kr = new ReductionKernel('float64', {
        neutral: '0', reduceExpr: 'a + b',
        arguments: 'const double *out, double r, double o, long long k, int m, double acc, double a0, double step, float G, double L, double red',
        mapExpr: 'out[i] * r + o * 2 + (double)k * 4 + (double)m * 8 + acc * 16 + a0 * 32 + step * 64 + (double)G * 128 + L * 256 + red * 512',
      });
      const scal = [3, 1, 1, 1, 1, 1, 1, 1, 1, 1] as const;
      const extra = 2 + 4 + 8 + 16 + 32 + 64 + 128 + 256 + 512;
      const call = (x: GPUArray, opts?: object) => kr(x, scal[0], scal[1], BigInt(scal[2]), ...scal.slice(3), ...(opts ? [opts] : []));
      const xs = Array.from({ length: 1000003 }, (_, i) => i % 10);
      expect(download(call(upload('float64', xs)))).toEqual([xs.reduce((p, x) => p + 3 * x + extra, 0)]);
      const shape = [37, 1001];
      const mat = xs.slice(0, 37 * 1001);
      for (const axis of [0, 1]) { // cols and warp variants
        const g = groups(mat, shape, [axis]);
        expect(download(call(upload('float64', mat, shape), { axis }))).toEqual(g.groups.map((w) => w.reduce((p: number, x) => p + 3 * (x as number) + extra, 0)));
      }
    }));

    test('reserved argument names (i, nc_*) → TypeError ERR_INVALID_ARG_VALUE at construction', () => {
      expectCode(() => new ReductionKernel('float32', { neutral: 0, reduceExpr: 'a+b', arguments: 'const float *x, int i', mapExpr: 'x[i]' }), TypeError, 'ERR_INVALID_ARG_VALUE');
      expectCode(() => new ReductionKernel('float32', { neutral: 0, reduceExpr: 'a+b', arguments: 'const float *nc_x', mapExpr: 'nc_x[i]' }), TypeError, 'ERR_INVALID_ARG_VALUE');
    });

    test('bad input: non-contiguous → ERR_NOT_CONTIGUOUS; wrong count/types → TypeError; nothing leaked', () => cuda.tidy(() => {
      const kd = new ReductionKernel('float32', { neutral: '0', reduceExpr: 'a+b', mapExpr: 'x[i]*y[i]', arguments: 'const float *x, const float *y' });
      const m = gpuarray.zeros([4, 5], 'float32'), v = gpuarray.zeros([20], 'float32');
      const before = settledLive();
      expectCode(() => kd(m.T, m.T), TypeError, 'ERR_NOT_CONTIGUOUS');
      expectCode(() => kd(v.index('::2'), v.index('1::2')), TypeError, 'ERR_NOT_CONTIGUOUS');
      expect(() => kd(v)).toThrow(TypeError);
      expect(() => kd(v, v, v)).toThrow(TypeError);
      expect(() => kd(v, gpuarray.zeros([20], 'float64'))).toThrow(TypeError);
      expect(() => kd(v, 3 as never)).toThrow(TypeError);
      expect(() => kd(m, gpuarray.zeros([5, 4], 'float32'), { axis: 0 })).toThrow();
      expectCode(() => kd(m, m, { axis: 2 }), RangeError, 'ERR_AXIS_OUT_OF_RANGE');
      expect(live()).toBeLessThanOrEqual(before + 2); // the two operand arrays made for the calls above
    }));

    test('errors in user expressions → NvrtcError with the numbered generated source around the error', () => {
      const tag = `nc_undefined_${Date.now().toString(36)}`;
      const x = gpuarray.zeros([8], 'float32');
      let e: unknown;
      try { // the compile may happen on construction or on the first call
        new ReductionKernel('float32', { neutral: '0', reduceExpr: 'a+b', mapExpr: `x[i] * ${tag}`, arguments: 'const float *x' })(x);
      } catch (err) {
        e = err;
      }
      expect(e).toBeInstanceOf(NvrtcError);
      const msg = (e as Error).message;
      const marked = msg.split('\n').filter((l) => /^>\s*\d+ \| /.test(l));
      expect(marked.some((l) => l.includes(tag))).toBe(true);
      expect((e as NvrtcError).source).toContain(tag);
      expect(() => new ReductionKernel('float32', { neutral: '0', reduceExpr: 'a + * b', arguments: 'const float *x', mapExpr: 'x[i]' })(x))
        .toThrow(NvrtcError);
      x.dispose();
    });
  });
}

/** Registers half `part` of the reduction suite, with the leak check around it. */
export function reductionSuite(part: 'a' | 'b'): void {
  describeGpu('reductions', () => {
    let baseline = 0;
    beforeAll(async () => {
      await collect();
      baseline = settledLive();
    });

    (part === 'a' ? partA : partB)();

    test('nothing leaked by this suite', async () => {
      await collect();
      expect(live()).toBe(baseline);
    });
  });
}
