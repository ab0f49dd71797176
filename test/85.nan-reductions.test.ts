/**
 * The NaN-skipping reductions and scans on a real GPU against the CPU reference in reduce-reference.ts
 * (NumPy 2 semantics): nansum nanprod nanmin nanmax nanmean nanvar nanstd are the plain reductions
 * over the non-NaN elements (complex: NaN in either part), with 0 / 1 for an all-NaN slice of
 * nansum / nanprod and NaN for the others; nancumsum/nancumprod scan with NaN as 0 / 1. Every dtype
 * whole-array at n = 1, 3, 1000, 4097, 300001 (integers and bool: the plain forms' references) and
 * scanned; NaN, ±Inf and -0 with hand-computed values; axis 0, 1, -1, [0, 2], null and keepdims on
 * 1-D, 2-D and 3-D, transposed, stepped and broadcast inputs (float16, float32, complex64); all-NaN
 * rows and columns; empty axes; ddof 0/1/large; the dtype, out and stream options; argument errors
 * (a non-array also without a GPU). Float results within the reference's tolerance, integers exactly.
 * nanargmin/nanargmax: the first index of the extreme of the non-NaN elements, -1 for an all-NaN
 * slice (NumPy raises; CuPy's -1), exactly, for every dtype (random and tied data, ties across
 * blocks, ±Inf among NaNs), one axis or none on the same views (and int32), empty inputs as argmin.
 */
import * as cuda from '../lib';
import { GPUArray, driver, gpuarray } from '../lib';
import type { DTypeName } from '../lib';
import { collect, describeGpu, expectCode, settledLive } from './helpers';
import { C, DTYPE_NAMES, V, download, kind, show, softly, upload, viewOf, wrap } from './reference';
import {
  Expect, axesOf, cumprodRef, cumsumRef, expectClose, groups, less, randomValues, reduceRef, resultDtype, rng, scanAlong, smallInts,
  sumDtype,
} from './reduce-reference';
// Module-local aliases: global lookups are slow inside Jest's vm context (hot reference loops).
const { Math, Number, BigInt } = globalThis;

type Opts = Record<string, unknown>;
type Fn = (a: GPUArray, opts?: Opts) => GPUArray;
/** The functions under test (named here, so the compiler checks that gpuarray has each). */
const FNS = {
  nansum: gpuarray.nansum, nanprod: gpuarray.nanprod, nanmin: gpuarray.nanmin, nanmax: gpuarray.nanmax, nanmean: gpuarray.nanmean,
  nanvar: gpuarray.nanvar, nanstd: gpuarray.nanstd, nancumsum: gpuarray.nancumsum, nancumprod: gpuarray.nancumprod,
};
type Name = keyof typeof FNS;
/** gpuarray.<name>(a, opts) */
const nanf = (name: Name, a: GPUArray, opts?: Opts): GPUArray => {
  const fn = FNS[name] as unknown as Fn;
  return opts === undefined ? fn(a) : fn(a, opts);
};
/** Each nan reduction and the plain reduction it is over the non-NaN elements. */
const PLAIN = { nansum: 'sum', nanprod: 'prod', nanmin: 'min', nanmax: 'max', nanmean: 'mean', nanvar: 'var', nanstd: 'std' } as const;
type RName = keyof typeof PLAIN;
const RNAMES = Object.keys(PLAIN) as RName[];
/** nanargmin/nanargmax (one axis or none; int64; -1 for an all-NaN slice) and the plain forms they are compared with. */
const ARGS = { nanargmin: gpuarray.nanargmin, nanargmax: gpuarray.nanargmax, argmin: gpuarray.argmin, argmax: gpuarray.argmax };
type AName = keyof typeof ARGS;
const NANARGS = ['nanargmin', 'nanargmax'] as const;
/** gpuarray.<name>(a, opts) for the arg reductions */
const argf = (name: AName, a: GPUArray, opts?: Opts): GPUArray => {
  const fn = ARGS[name] as unknown as Fn;
  return opts === undefined ? fn(a) : fn(a, opts);
};

const live = (): number => cuda.memory().liveAllocations;
const FLOATS: DTypeName[] = ['float16', 'bfloat16', 'float32', 'float64', 'complex64', 'complex128'];
const isFloat = (d: DTypeName): boolean => kind(d) === 'f' || kind(d) === 'c';
const isC = (v: V): v is C => typeof v === 'object';
const nan = (v: V): boolean => (isC(v) ? Number.isNaN(v.re) || Number.isNaN(v.im) : typeof v === 'number' && Number.isNaN(v));
/** x as a value of the float or complex dtype d (complex: imaginary part im). */
const f = (d: DTypeName, x: number, im = 0): V => (kind(d) === 'c' ? { re: x, im } : x);
/** Small integer x as a value of dtype d. */
const k = (d: DTypeName, x: number): V => (kind(d) === 'c' ? { re: x, im: 0 } : d.endsWith('int64') ? BigInt(x) : kind(d) === 'b' ? (x ? 1 : 0) : x);
/** A NaN of dtype d; complex: in the real part at even i, in the imaginary part at odd i. */
const nanOf = (d: DTypeName, i = 0): V => (kind(d) !== 'c' ? NaN : i % 2 ? { re: 0.25, im: NaN } : { re: NaN, im: -1 });
/** NumPy's input to nancumsum (by 0) / nancumprod (by 1): NaN elements replaced. */
const replaced = (d: DTypeName, xs: V[], by: number): V[] => xs.map((x) => (nan(x) ? f(d, by) : x));

/**
 * n random values of dtype d (seeded): integers full-range, floats in [lo, hi) (mean > 0; float16 sums of 300001 stay finite),
 * float and complex dtypes with NaN at about `rate` of the places and -0 at `zeros` of them.
 */
function nanData(d: DTypeName, n: number, seed: number, rate = 0.25, lo = -1, hi = 1.25, zeros = 0.02): V[] {
  const xs = randomValues(d, n, seed, lo, hi);
  if (!isFloat(d)) return xs;
  const r = rng(seed + 7919);
  for (let i = 0; i < n; i++) {
    const u = r();
    if (u < rate) xs[i] = nanOf(d, i);
    else if (u < rate + zeros) xs[i] = f(d, -0, -0);
  }
  return xs;
}

/** Products in range: floats in [0.95, 1.05) with NaN (complex: imaginary part in [-0.05, 0.05)); odd integers; bool mostly true. */
function prodData(d: DTypeName, n: number, seed: number): V[] {
  if (isFloat(d)) return nanData(d, n, seed, 0.25, 0.95, 1.05, 0).map((x) => (isC(x) ? { re: x.re, im: x.im - 1 } : x));
  const r = rng(seed);
  const pick = kind(d) === 'i' ? [1, -1, 3, -3] : [1, 3];
  return Array.from({ length: n }, (_, i) => (kind(d) === 'b' ? (i % 97 === 5 ? 0 : 1) : k(d, pick[Math.floor(r() * pick.length)])));
}

/** The reference: the plain reduction over the non-NaN elements; nanmin/nanmax of none: NaN (NumPy's all-NaN slice). */
function nanRef(name: RName, d: DTypeName, xs: V[], opts: { dtype?: DTypeName; ddof?: number } = {}): Expect {
  const kept = xs.filter((x) => !nan(x));
  if (kept.length === 0 && (name === 'nanmin' || name === 'nanmax')) return { value: f(d, NaN, NaN), tol: 0 };
  return reduceRef(PLAIN[name], d, kept, opts);
}

/** nanargmin/nanargmax: the first index of the extreme of the non-NaN elements (complex: lexicographic); -1 where there are none. */
function nanArgRef(xs: V[], name: 'nanargmin' | 'nanargmax'): bigint {
  let k = -1;
  for (let i = 0; i < xs.length; i++) {
    if (nan(xs[i])) continue;
    if (k < 0 || (name === 'nanargmax' ? less(xs[k], xs[i]) : less(xs[i], xs[k]))) k = i;
  }
  return BigInt(k);
}

/** Checks an arg result: int64, its shape, and one index per group (exactly). */
function expectArg(r: GPUArray, name: 'nanargmin' | 'nanargmax', gs: V[][], shape: number[], label: string = name): void {
  expect([label, r.dtype.name, [...r.shape]]).toEqual([label, 'int64', shape]);
  expect([label, download(r)]).toEqual([label, gs.map((xs) => nanArgRef(xs, name))]);
}

/** Small integers 0..4 as dtype d (many ties), NaN at about a quarter of the places for float and complex dtypes. */
function tieData(d: DTypeName, n: number, seed: number): V[] {
  const xs = smallInts(d, n, seed, 0, 4);
  if (!isFloat(d)) return xs;
  const r = rng(seed + 31);
  return xs.map((x, i) => (r() < 0.25 ? nanOf(d, i) : x));
}

/** Checks dtype, shape and each output element against nanRef over its group (nanmin/nanmax of an all-NaN group: any NaN). */
function expectNan(r: GPUArray, name: RName, d: DTypeName, gs: V[][], shape: number[], label: string = name, opts: Opts = {}): void {
  const o = opts as { dtype?: DTypeName; ddof?: number };
  expect([label, r.dtype.name, [...r.shape]]).toEqual([label, resultDtype(PLAIN[name], d, o.dtype), shape]);
  const want = gs.map((xs) => nanRef(name, d, xs, o));
  const anyNan = name === 'nanmin' || name === 'nanmax';
  expectClose(download(r).map((g, i) => (anyNan && nan(g) && nan(want[i].value) ? want[i].value : g)), want, label);
}

/** A hand-computed value: NaN matches any NaN (complex: in either part), else exactly (-0 = 0). */
function expectValue(got: V, want: V, label: string): void {
  if (nan(want)) expect([label, show(got), nan(got)]).toEqual([label, show(got), true]);
  else expectClose([got], [{ value: want, tol: 0 }], label);
}

// Views of C-ordered bases: base shape, view, view shape, element strides/offset, the reduction axes tried.
type Axis = number | number[] | null;
type Case = { name: string; base: number[]; view: (a: GPUArray) => GPUArray; shape: number[]; strides: number[]; offset: number;
  axes: Axis[] };
const CASES: Case[] = [
  { name: 'stepped 1-D [1001][::-2]', base: [1001], view: (a) => a.index('::-2'), shape: [501], strides: [-2], offset: 1000, axes: [0, -1] },
  { name: '2-D [37,101]', base: [37, 101], view: (a) => a, shape: [37, 101], strides: [101, 1], offset: 0, axes: [null, 0, 1, -1] },
  { name: '3-D [5,7,33]', base: [5, 7, 33], view: (a) => a, shape: [5, 7, 33], strides: [231, 33, 1], offset: 0, axes: [0, 1, -1, [0, 2]] },
  { name: '[5,7,33].T', base: [5, 7, 33], view: (a) => a.T, shape: [33, 7, 5], strides: [1, 33, 231], offset: 0, axes: [0, -1, [0, 2]] },
  {
    name: 'stepped [6,40,9][1:, ::-3, 2:8:2]', base: [6, 40, 9], view: (a) => a.index('1:', '::-3', '2:8:2'),
    shape: [5, 14, 3], strides: [360, -27, 2], offset: 360 + 39 * 9 + 2, axes: [1, [0, 2], 0],
  },
  {
    name: 'broadcast [7,33] → [3,7,33]', base: [7, 33], view: (a) => a.broadcastTo([3, 7, 33]), shape: [3, 7, 33], strides: [0, 33, 1],
    offset: 0, axes: [0, -1, [0, 2], 1],
  },
];
/** The case's view of `vals` uploaded as its base, and the view's elements in C order. */
const viewData = (c: Case, d: DTypeName, vals: V[]): [GPUArray, V[]] =>
  [c.view(upload(d, vals, c.base)), viewOf(vals, c.shape, c.strides, c.offset)];

describeGpu('nan reductions and scans', () => {
  let baseline = 0;
  beforeAll(async () => {
    await collect();
    baseline = settledLive();
  });

  describe('whole array', () => {
    test.each(DTYPE_NAMES)('%s: every nan reduction at n = 1, 3, 1000, 4097 (var/std also with ddof 1), and at 300001 but prod/std', (d) => cuda.tidy(() => {
      const check = softly();
      for (const [n, seed] of [[1, 1], [3, 2], [1000, 3], [4097, 4], [300001, 5]]) {
        const xs = nanData(d, n, seed);
        const a = upload(d, xs);
        if (isFloat(d) && n >= 1000) check(() => expect(xs.filter(nan).length).toBeGreaterThan(n / 5)); // the data has NaNs
        for (const name of RNAMES) {
          if (name !== 'nanprod' && (n < 300001 || name !== 'nanstd')) check(() => expectNan(nanf(name, a), name, d, [xs], [], `${name} n=${n}`));
        }
        if (n > 4097) continue; // the references of 300001 elements take 0.1-0.2 s each
        for (const name of ['nanvar', 'nanstd'] as RName[]) {
          check(() => expectNan(nanf(name, a, { ddof: 1 }), name, d, [xs], [], `${name} ddof 1 n=${n}`, { ddof: 1 }));
        }
        const ps = prodData(d, n, seed + 10);
        check(() => expectNan(nanf('nanprod', upload(d, ps)), 'nanprod', d, [ps], [], `nanprod n=${n}`));
      }
      check.done();
    }));

    test.each(FLOATS)('%s: NaN, ±Inf and -0: hand-computed values', (d) => cuda.tidy(() => {
      const check = softly();
      const N = NaN, I = Infinity;
      const c = (re: number, im: number): V => f(d, re, im);
      const rows: Array<[V[], Partial<Record<RName, V>>]> = kind(d) === 'c' ? [
        [[c(N, 1), c(2, 1), c(-0, -0), c(1, N), c(-2, 1), c(4, 1)],
          { nansum: c(4, 3), nanprod: c(0, 0), nanmin: c(-2, 1), nanmax: c(4, 1), nanmean: c(1, 0.75), nanvar: 5.1875 }],
        // lexicographic order (like max/min of complex): the real part first, then the imaginary part
        [[c(1, 5), c(2, -1), c(N, 9), c(2, 0), c(-0, 7)], { nansum: c(5, 11), nanmin: c(-0, 7), nanmax: c(2, 0), nanmean: c(1.25, 2.75) }],
        [[c(N, 0), c(0, N), c(N, N)], { nansum: c(0, 0), nanprod: c(1, 0), nanmin: N, nanmax: N, nanmean: N, nanvar: N, nanstd: N }],
        [[c(I, 0), c(N, 1), c(1, 1)], { nansum: c(I, 1), nanmin: c(1, 1), nanmax: c(I, 0), nanmean: c(I, 0.5), nanvar: N }],
      ] : [
        [[N, 2, -0, N, -2, 4], { nansum: 4, nanprod: 0, nanmin: -2, nanmax: 4, nanmean: 1, nanvar: 5 }],
        [[N, I, 1, -I], { nansum: N, nanprod: -I, nanmin: -I, nanmax: I, nanmean: N, nanvar: N, nanstd: N }],
        [[N, N, N], { nansum: 0, nanprod: 1, nanmin: N, nanmax: N, nanmean: N, nanvar: N, nanstd: N }],
        [[N, 3, N], { nansum: 3, nanprod: 3, nanmin: 3, nanmax: 3, nanmean: 3, nanvar: 0, nanstd: 0 }],
        [[-I, N, 2.5, -0], { nansum: -I, nanprod: N, nanmin: -I, nanmax: 2.5, nanmean: -I, nanvar: N }],
        [[-0, N, -0], { nansum: 0, nanprod: 0, nanmin: 0, nanmax: 0, nanmean: 0, nanvar: 0, nanstd: 0 }],
      ];
      for (const [xs, want] of rows) {
        const a = upload(d, xs);
        for (const name of RNAMES) {
          const label = `${name}([${xs.map(show).join(', ')}])`;
          const w = want[name];
          if (w !== undefined) check(() => expectValue(download(nanf(name, a))[0], w, label));
          // a complex product with an infinity: its 0·Inf parts (NaN or not) depend on the order
          const skip = name === 'nanprod' && xs.some((x) => isC(x) && Math.abs(x.re) === Infinity);
          if (!skip) check(() => expectNan(nanf(name, a), name, d, [xs], [], label));
        }
      }
      check.done();
    }));
  });

  describe('axis', () => {
    test.each(['float16', 'float32', 'complex64'] as DTypeName[])('%s: axis 0, 1, -1, [0, 2], null, keepdims on 1-D, 2-D, 3-D, transposed, stepped, broadcast inputs', (d) => cuda.tidy(() => {
      const check = softly();
      CASES.forEach((c, ci) => {
        const size = c.base.reduce((p, q) => p * q, 1);
        const [v, host] = viewData(c, d, nanData(d, size, 40 + ci)), [pv, phost] = viewData(c, d, prodData(d, size, 50 + ci));
        check(() => expect([c.name, [...v.shape]]).toEqual([c.name, c.shape]));
        RNAMES.forEach((name, ni) => {
          // nansum and nanmax over every axis of the case; the others over one each (they share the kernel variants)
          const axesList = name === 'nansum' || name === 'nanmax' ? c.axes : [c.axes[(ni + ci) % c.axes.length]];
          axesList.forEach((axis, j) => {
            const keepdims = (j + ni + ci) % 2 === 1;
            const g = groups(name === 'nanprod' ? phost : host, c.shape, axesOf(axis, c.shape.length));
            const opts: Opts = name === 'nanvar' || name === 'nanstd' ? { axis, keepdims, ddof: ci % 2 } : { axis, keepdims };
            const label = `${c.name} ${name}(${JSON.stringify(opts)})`;
            check(() => expectNan(nanf(name, name === 'nanprod' ? pv : v, opts), name, d, g.groups, keepdims ? g.keep : g.shape, label, opts));
          });
        });
      });
      check.done();
    }));

    test.each(['float16', 'float32', 'complex64'] as DTypeName[])('%s: an all-NaN row and column: nansum 0, nanprod 1, the others NaN', (d) => cuda.tidy(() => {
      const check = softly();
      const shape = [5, 9];
      const xs = nanData(d, 45, 60, 0.1);
      for (let j = 0; j < 9; j++) xs[2 * 9 + j] = nanOf(d, j); // row 2
      for (let i = 0; i < 5; i++) xs[i * 9 + 4] = nanOf(d, i); // column 4
      const a = upload(d, xs, shape);
      for (const name of RNAMES) {
        for (const [axis, at] of [[1, 2], [0, 4]]) {
          const g = groups(xs, shape, [axis]);
          const r = nanf(name, a, { axis });
          check(() => expectNan(r, name, d, g.groups, g.shape, `${name} axis ${axis}`));
          const want = name === 'nansum' ? f(d, 0) : name === 'nanprod' ? f(d, 1) : NaN;
          check(() => expectValue(download(r)[at], want, `${name} axis ${axis} [${at}]`));
          check(() => expect(download(r).filter(nan).length).toBe(name === 'nansum' || name === 'nanprod' ? 0 : 1));
        }
      }
      check.done();
    }));

    test.each(['float32', 'complex128', 'int32', 'bool'] as DTypeName[])('%s: empty: nansum 0, nanprod 1, nanmean/nanvar/nanstd NaN; nanmin/nanmax ERR_EMPTY_REDUCTION', (d) => cuda.tidy(() => {
      const check = softly();
      const e = gpuarray.empty([0], d), e2 = gpuarray.empty([0, 3], d);
      for (const name of RNAMES) {
        if (name === 'nanmin' || name === 'nanmax') {
          check(() => expectCode(() => nanf(name, e), RangeError, 'ERR_EMPTY_REDUCTION'));
          check(() => expectCode(() => nanf(name, e2, { axis: 0 }), RangeError, 'ERR_EMPTY_REDUCTION'));
        } else {
          check(() => expectNan(nanf(name, e), name, d, [[]], [], `${name} of [0]`));
          check(() => expectNan(nanf(name, e2, { axis: 0 }), name, d, [[], [], []], [3], `${name} axis 0 of [0,3]`));
          check(() => expectNan(nanf(name, e2, { axis: [0, 1], keepdims: true }), name, d, [[]], [1, 1], `${name} keepdims of [0,3]`));
          const want = name === 'nansum' ? k(sumDtype(d), 0) : name === 'nanprod' ? k(sumDtype(d), 1) : NaN;
          check(() => expectValue(download(nanf(name, e))[0], want, `${name} of [0]`));
        }
        check(() => expect([...nanf(name, e2, { axis: 1 }).shape]).toEqual([0])); // an empty output: fine
      }
      check(() => expect([...nanf('nancumsum', e).shape]).toEqual([0]));
      check(() => expect([...nanf('nancumprod', e2, { axis: 1 }).shape]).toEqual([0, 3]));
      check.done();
    }));

    test('ddof 0, 1, 2, 5, 6, 100: divisor count − ddof, NaN where that is ≤ 0 (rows of 6, 2, 1 and 0 non-NaN values)', () => cuda.tidy(() => {
      const check = softly();
      const N = NaN;
      const xs = [0.5, 1.5, -1, 2, 0.25, 3, N, 1, N, 3, N, N, N, N, 7, N, N, N, N, N, N, N, N, N];
      const a = upload('float32', xs, [4, 6]);
      const g = groups(xs, [4, 6], [1]).groups;
      // nanvar of rows 1, 2, 3 (nanstd: the square roots)
      const want: Record<number, number[]> = { 0: [1, 0, N], 1: [2, N, N], 2: [N, N, N], 5: [N, N, N], 6: [N, N, N], 100: [N, N, N] };
      for (const ddof of [0, 1, 2, 5, 6, 100]) {
        for (const name of ['nanvar', 'nanstd'] as RName[]) {
          const r = nanf(name, a, { axis: 1, ddof });
          check(() => expectNan(r, name, 'float32', g, [4], `${name} ddof ${ddof}`, { ddof }));
          const got = download(r);
          check(() => expect([name, ddof, nan(got[0])]).toEqual([name, ddof, ddof >= 6])); // row 0: 6 values
          want[ddof].forEach((w, i) => {
            if (name === 'nanstd' && w === 2) return; // √2: the reference's tolerance above
            check(() => expectValue(got[i + 1], name === 'nanstd' ? Math.sqrt(w) : w, `${name} ddof ${ddof} row ${i + 1}`));
          });
        }
      }
      // the whole array: 9 values
      check(() => expectNan(nanf('nanvar', a, { ddof: 8 }), 'nanvar', 'float32', [xs], [], 'nanvar ddof 8', { ddof: 8 }));
      check(() => expectValue(download(nanf('nanstd', a, { ddof: 9 }))[0], N, 'nanstd ddof 9'));
      check.done();
    }));
  });

  describe('options', () => {
    test('dtype: accumulate and return in it (NaN dropped before the cast); nanmin/nanmax take none', () => cuda.tidy(() => {
      const check = softly();
      const cases: Array<[RName, DTypeName, V[], DTypeName]> = [
        ['nansum', 'float32', nanData('float32', 100003, 70), 'float64'],
        ['nansum', 'float16', nanData('float16', 4097, 71), 'float32'],
        ['nansum', 'complex64', nanData('complex64', 1001, 72), 'complex128'],
        ['nansum', 'int8', Array(31).fill(100), 'int8'], // wraps: 3100 mod 256
        ['nanprod', 'int32', Array(31).fill(3), 'float64'],
        ['nanprod', 'float32', prodData('float32', 1000, 73), 'float64'],
        ['nanmean', 'int32', randomValues('int32', 1001, 74), 'float32'],
        ['nanmean', 'float16', nanData('float16', 4097, 75), 'float64'],
      ];
      for (const [name, d, xs, dtype] of cases) {
        check(() => expectNan(nanf(name, upload(d, xs), { dtype }), name, d, [xs], [], `${name}(${d} → ${dtype})`, { dtype }));
      }
      check(() => expect(download(nanf('nansum', upload('float32', [1.75, NaN, 2.5, -1.5, NaN]), { dtype: 'int32' }))).toEqual([2]));
      for (const name of ['nanmin', 'nanmax'] as RName[]) {
        for (const dtype of ['float32', 'float64']) {
          check(() => expectCode(() => nanf(name, upload('float32', [1, NaN]), { dtype }), TypeError, 'ERR_INVALID_ARG_VALUE'));
        }
      }
      check.done();
    }));

    test('out: written and returned (0-d, axis, keepdims, a wider dtype); wrong shape → RangeError ERR_SHAPE_MISMATCH', () => cuda.tidy(() => {
      const check = softly();
      const xs = nanData('float32', 6 * 7, 80, 0.3);
      const a = upload('float32', xs, [6, 7]);
      const g0 = groups(xs, [6, 7], [0]).groups, g1 = groups(xs, [6, 7], [1]).groups;
      const outs: Array<[RName, Opts, GPUArray, V[][]]> = [
        ['nansum', {}, gpuarray.empty([], 'float32'), [xs]], ['nanmax', { axis: 0 }, gpuarray.full([7], 123, 'float32'), g0],
        ['nanmean', { axis: 0, keepdims: true }, gpuarray.empty([1, 7], 'float32'), g0],
        ['nanstd', { axis: 1, ddof: 1 }, gpuarray.empty([6], 'float32'), g1], ['nanmin', { axis: 1 }, gpuarray.empty([6], 'float32'), g1],
      ];
      for (const [name, opts, out, gs] of outs) {
        check(() => {
          expect(nanf(name, a, { ...opts, out })).toBe(out);
          expectNan(out, name, 'float32', gs, [...out.shape], `${name} into out`, opts);
        });
      }
      const o64 = gpuarray.full([6], 123, 'float64'); // a float32 result stored in float64
      check(() => expect(nanf('nansum', a, { axis: 1, out: o64 })).toBe(o64));
      check(() => expectClose(download(o64), g1.map((x) => nanRef('nansum', 'float32', x)), 'nansum into float64'));
      for (const [name, axis, shape] of [['nanmin', 0, [6]], ['nansum', 1, [1, 6]], ['nanvar', 1, [7]]] as Array<[RName, number, number[]]>) {
        check(() => expectCode(() => nanf(name, a, { axis, out: gpuarray.empty(shape, 'float32') }), RangeError, 'ERR_SHAPE_MISMATCH'));
      }
      check.done();
    }));

    test('stream: results are right after synchronizing the stream', async () => {
      const s = new driver.Stream();
      const xs = nanData('float64', 37 * 101, 90);
      const a = upload('float64', xs, [37, 101]);
      const g = groups(xs, [37, 101], [1]).groups;
      const rs = [nanf('nanmean', a, { axis: 1, stream: s }), nanf('nanvar', a, { axis: 0, stream: s }), nanf('nancumsum', a, { axis: 1, stream: s })];
      await s.synchronizeAsync();
      expectNan(rs[0], 'nanmean', 'float64', g, [37]);
      expectNan(rs[1], 'nanvar', 'float64', groups(xs, [37, 101], [0]).groups, [101]);
      expectClose(download(rs[2]), scanAlong(replaced('float64', xs, 0), [37, 101], 1, (ys) => cumsumRef('float64', ys)), 'nancumsum');
      for (const x of [a, ...rs]) x.dispose();
      s.dispose();
    });
  });

  describe('nancumsum / nancumprod', () => {
    test.each(DTYPE_NAMES)('%s: nancumsum at n = 1, 1000, 100003, nancumprod at n = 1, 31, 1000 (flattened; a transposed input)', (d) => cuda.tidy(() => {
      const check = softly();
      for (const [name, n] of [['nancumsum', 1], ['nancumsum', 1000], ['nancumsum', 100003], ['nancumprod', 1], ['nancumprod', 31],
        ['nancumprod', 1000]] as Array<[Name, number]>) {
        const sum = name === 'nancumsum';
        const xs = sum ? nanData(d, n, 100 + n) : prodData(d, n, 150 + n);
        const r = nanf(name, upload(d, xs));
        check(() => {
          expect([name, n, r.dtype.name, [...r.shape]]).toEqual([name, n, sumDtype(d), [n]]);
          expectClose(download(r), sum ? cumsumRef(d, replaced(d, xs, 0)) : cumprodRef(d, replaced(d, xs, 1)), `${name} n=${n}`);
        });
      }
      const m = nanData(d, 42, 190);
      check(() => { // no axis: the flattened (C order) array, also of a transposed input
        const r = nanf('nancumsum', upload(d, m, [6, 7]).T);
        expect([...r.shape]).toEqual([42]);
        expectClose(download(r), cumsumRef(d, replaced(d, viewOf(m, [7, 6], [1, 7]), 0)), 'flattened T');
      });
      check.done();
    }));

    test.each(['int32', 'float16', 'float32', 'complex64'] as DTypeName[])('%s: along each axis (and -1) of 2-D, transposed and stepped 3-D inputs', (d) => cuda.tidy(() => {
      const check = softly();
      [CASES[1], CASES[3], CASES[4]].forEach((c, ci) => {
        const size = c.base.reduce((p, q) => p * q, 1);
        const [v, host] = viewData(c, d, nanData(d, size, 200 + ci)), [pv, phost] = viewData(c, d, prodData(d, size, 210 + ci));
        for (const axis of [...c.shape.keys(), -1]) {
          for (const name of ['nancumsum', 'nancumprod'] as Name[]) {
            const sum = name === 'nancumsum';
            if (!sum && isFloat(d) && c.shape.at(axis)! > 40) continue; // long float products: see the flattened test
            const ref = (xs: V[]): Expect[] => (sum ? cumsumRef(d, replaced(d, xs, 0)) : cumprodRef(d, replaced(d, xs, 1)));
            const want = scanAlong(sum ? host : phost, c.shape, axis, ref);
            check(() => {
              const r = nanf(name, sum ? v : pv, { axis });
              expect([c.name, name, axis, r.dtype.name, [...r.shape]]).toEqual([c.name, name, axis, sumDtype(d), c.shape]);
              expectClose(download(r), want, `${c.name} ${name} axis ${axis}`);
            });
          }
        }
      });
      check.done();
    }));

    test('hand-computed values; dtype (NaN dropped before the cast), out; axis of 2-D', () => cuda.tidy(() => {
      const check = softly();
      const N = NaN, I = Infinity;
      const got = (name: Name, d: DTypeName, xs: V[], opts?: Opts, shape?: number[]): V[] =>
        download(nanf(name, upload(d, xs, shape), opts));
      check(() => expect(got('nancumsum', 'float32', [N, 1, N, 2])).toEqual([0, 1, 1, 3]));
      check(() => expect(got('nancumprod', 'float32', [N, 2, N, 3])).toEqual([1, 2, 2, 6]));
      check(() => expect(got('nancumsum', 'float16', [N, 0.5, N, 0.25])).toEqual([0, 0.5, 0.5, 0.75]));
      check(() => expect(got('nancumsum', 'float64', [1, I, N, -I, 2])).toEqual([1, I, I, N, N]));
      check(() => expect(got('nancumprod', 'bfloat16', [N, N])).toEqual([1, 1]));
      check(() => expect(got('nancumsum', 'complex64', [{ re: N, im: 1 }, { re: 1, im: 2 }, { re: 3, im: N }, { re: 0.5, im: 0.5 }]))
        .toEqual([{ re: 0, im: 0 }, { re: 1, im: 2 }, { re: 1, im: 2 }, { re: 1.5, im: 2.5 }]));
      check(() => expect(got('nancumprod', 'complex128', [{ re: 2, im: 0 }, { re: N, im: 0 }, { re: 0, im: 1 }]))
        .toEqual([{ re: 2, im: 0 }, { re: 2, im: 0 }, { re: 0, im: 2 }]));
      const m = [N, 1, 2, 3, N, N];
      check(() => expect(got('nancumsum', 'float32', m, { axis: 0 }, [2, 3])).toEqual([0, 1, 2, 3, 1, 2]));
      check(() => expect(got('nancumsum', 'float32', m, { axis: 1 }, [2, 3])).toEqual([0, 1, 3, 3, 3, 3]));
      check(() => expect(got('nancumprod', 'float32', m, { axis: -1 }, [2, 3])).toEqual([1, 1, 2, 3, 3, 3]));
      check(() => expect(got('nancumprod', 'float32', m, { axis: -2 }, [2, 3])).toEqual([1, 1, 2, 3, 1, 2]));
      check(() => expect(got('nancumsum', 'float32', m, undefined, [2, 3])).toEqual([0, 1, 3, 6, 6, 6]));
      // dtype
      check(() => expect(got('nancumsum', 'float32', [1.5, N, 2.75], { dtype: 'int32' })).toEqual([1, 1, 3]));
      const i8 = Array.from({ length: 300 }, (_, i) => ((i * 53) % 256) - 128);
      let s = 0n;
      check(() => expect(got('nancumsum', 'int8', i8, { dtype: 'int8' })).toEqual(i8.map((x) => wrap('int8', (s += BigInt(x))))));
      check(() => expect(got('nancumprod', 'int16', [300, 300, 2], { dtype: 'int16' })).toEqual([300, 24464, -16608]));
      check(() => expect(got('nancumsum', 'bool', [1, 0, 1, 1])).toEqual([1n, 1n, 2n, 3n]));
      const f32 = nanData('float32', 100003, 220);
      check(() => {
        const r = nanf('nancumsum', upload('float32', f32), { dtype: 'float64' });
        expect(r.dtype.name).toBe('float64');
        expectClose(download(r), cumsumRef('float32', replaced('float32', f32, 0), 'float64'), 'float32 → float64');
      });
      // out
      const a = upload('int32', [1, 2, 3, 4, 5, 6], [2, 3]);
      const o = gpuarray.full([2, 3], -1n, 'int64');
      check(() => expect(nanf('nancumsum', a, { axis: 1, out: o })).toBe(o));
      check(() => expect(download(o)).toEqual([1n, 3n, 6n, 4n, 9n, 15n]));
      const o2 = gpuarray.full([6], 123, 'float64');
      check(() => expect(nanf('nancumprod', upload('float32', m, [2, 3]), { out: o2 })).toBe(o2));
      check(() => expect(download(o2)).toEqual([1, 1, 2, 6, 6, 6]));
      check(() => expectCode(() => nanf('nancumsum', a, { axis: 0, out: gpuarray.empty([3, 2], 'int64') }), RangeError, 'ERR_SHAPE_MISMATCH'));
      check.done();
    }));
  });

  describe('nanargmin / nanargmax', () => {
    test.each(DTYPE_NAMES)('%s: whole array at n = 1, 3, 1000, 4097, 300001 (random and tied data); = argmin/argmax without NaN', (d) => cuda.tidy(() => {
      const check = softly();
      for (const [n, seed] of [[1, 1], [3, 2], [1000, 3], [4097, 4], [300001, 5]]) {
        for (const [what, xs] of [['random', nanData(d, n, seed + 300)], ['ties', tieData(d, n, seed + 400)]] as Array<[string, V[]]>) {
          const a = upload(d, xs);
          for (const name of NANARGS) check(() => expectArg(argf(name, a), name, [xs], [], `${name} ${what} n=${n}`));
          if (isFloat(d) && n >= 1000) check(() => expect(xs.filter(nan).length).toBeGreaterThan(n / 5)); // the data has NaNs
        }
        const clean = tieData(d, n, seed + 500).filter((x) => !nan(x));
        if (clean.length === 0) continue;
        const c = upload(d, clean);
        for (const name of NANARGS) {
          const plain = name === 'nanargmin' ? 'argmin' : 'argmax';
          check(() => expect([name, n, download(argf(name, c))]).toEqual([name, n, download(argf(plain, c))]));
        }
      }
      check.done();
    }));

    test.each(DTYPE_NAMES)('%s: ties → the first index, across blocks (1000003 elements, NaN before each extreme)', (d) => cuda.tidy(() => {
      const check = softly();
      for (const n of [31, 1000003]) {
        const xs: V[] = Array(n).fill(k(d, 1));
        const hiAt = [n - 1, 777 % n, 4096 * 3 + 1 < n ? 4096 * 3 + 1 : 5];
        const loAt = [n - 2, 20, 999999 < n ? 999999 : 30];
        for (const p of hiAt) xs[p] = kind(d) === 'b' ? 1 : k(d, 5);
        for (const p of loAt) xs[p] = k(d, 0);
        if (isFloat(d)) for (const p of [0, 19, 776 % n, n - 3]) xs[p] = nanOf(d, p);
        if (kind(d) === 'c') xs[10] = { re: 5, im: -1 }; // same real part as the max, smaller imaginary part: not a tie
        const a = upload(d, xs);
        for (const name of NANARGS) check(() => expectArg(argf(name, a), name, [xs], [], `${name} n=${n}`));
      }
      for (const name of NANARGS) check(() => expect(download(argf(name, upload(d, Array(100).fill(k(d, 1)))))).toEqual([0n]));
      check.done();
    }));

    test.each(FLOATS)('%s: NaN, ±Inf, -0 and all-NaN (-1): hand-computed indices', (d) => cuda.tidy(() => {
      const check = softly();
      const N = NaN, I = Infinity;
      const c = (re: number, im: number): V => f(d, re, im);
      // [values, nanargmin, nanargmax]
      const rows: Array<[V[], number, number]> = kind(d) === 'c' ? [
        [[c(N, 1), c(2, 1), c(2, N), c(2, 3), c(-1, 5), c(-1, N)], 4, 3],
        [[c(I, N), c(-I, 0), c(0, N)], 1, 1],
        [[c(N, N), c(0, N), c(N, 0)], -1, -1],
        [[c(-I, -I), c(N, 0)], 0, 0], // ties with the neutral value: the element's index wins
        [[c(N, 0), c(I, I), c(I, 2)], 2, 1],
        [[c(-0, 1), c(0, 1), c(N, N)], 0, 0],
      ] : [
        [[-I, N], 0, 0],
        [[N, I], 1, 1],
        [[N, N, N], -1, -1],
        [[N], -1, -1],
        [[2.5], 0, 0],
        [[N, 3, -0, 0, 3, N, -0], 2, 1],
        [[N, -I, I, -I, I], 1, 2],
        [[I, N, I], 0, 0],
        [[-I, -I, N], 0, 0],
      ];
      for (const [xs, lo, hi] of rows) {
        const a = upload(d, xs);
        const label = `[${xs.map(show).join(', ')}]`;
        check(() => expect([label, download(gpuarray.nanargmin(a)), download(gpuarray.nanargmax(a))])
          .toEqual([label, [BigInt(lo)], [BigInt(hi)]]));
        for (const name of NANARGS) check(() => expectArg(argf(name, a), name, [xs], [], `${name}${label}`));
      }
      // Many blocks: all NaN → -1; one ±Inf (or finite) value among NaNs → its index
      const n = 300001;
      const all: V[] = Array.from({ length: n }, (_, i) => nanOf(d, i));
      check(() => expect(download(gpuarray.nanargmin(upload(d, all)))).toEqual([-1n]));
      check(() => expect(download(gpuarray.nanargmax(upload(d, all)))).toEqual([-1n]));
      for (const [v, at] of [[c(-I, 0), n - 1], [c(I, 0), 4099], [c(0.5, 0.5), 0]] as Array<[V, number]>) {
        const xs = all.slice();
        xs[at] = v;
        const a = upload(d, xs);
        check(() => expect([show(v), at, download(gpuarray.nanargmin(a)), download(gpuarray.nanargmax(a))])
          .toEqual([show(v), at, [BigInt(at)], [BigInt(at)]]));
      }
      check.done();
    }));

    test.each(['float16', 'float32', 'complex64', 'int32'] as DTypeName[])('%s: axis 0, 1, -1, null and keepdims on 1-D, 2-D, 3-D, transposed, stepped, broadcast inputs', (d) => cuda.tidy(() => {
      const check = softly();
      CASES.forEach((c, ci) => {
        const size = c.base.reduce((p, q) => p * q, 1);
        const data = ci % 2 ? tieData(d, size, 600 + ci) : nanData(d, size, 600 + ci);
        const [v, host] = viewData(c, d, data);
        const axes: Array<number | null> = [null, ...c.axes.filter((x): x is number => typeof x === 'number')];
        NANARGS.forEach((name, ni) => {
          axes.forEach((axis, j) => {
            const keepdims = (j + ni + ci) % 2 === 1;
            const g = groups(host, c.shape, axesOf(axis, c.shape.length));
            const label = `${c.name} ${name}(${JSON.stringify({ axis, keepdims })})`;
            check(() => expectArg(argf(name, v, { axis, keepdims }), name, g.groups, keepdims ? g.keep : g.shape, label));
          });
        });
      });
      check.done();
    }));

    test.each(['float16', 'float32', 'complex64'] as DTypeName[])('%s: an all-NaN row and column give -1 there', (d) => cuda.tidy(() => {
      const check = softly();
      const shape = [5, 9];
      const xs = nanData(d, 45, 660, 0.1);
      for (let j = 0; j < 9; j++) xs[2 * 9 + j] = nanOf(d, j); // row 2
      for (let i = 0; i < 5; i++) xs[i * 9 + 4] = nanOf(d, i); // column 4
      const a = upload(d, xs, shape);
      for (const name of NANARGS) {
        for (const [axis, at] of [[1, 2], [0, 4]]) {
          const g = groups(xs, shape, [axis]);
          const r = argf(name, a, { axis });
          check(() => expectArg(r, name, g.groups, g.shape, `${name} axis ${axis}`));
          const minusOne = (): number[] => download(r).flatMap((x, i) => (x === -1n ? [i] : []));
          check(() => expect([name, axis, minusOne()]).toEqual([name, axis, [at]]));
        }
      }
      check.done();
    }));

    test.each(['float32', 'complex128', 'int32', 'bool'] as DTypeName[])('%s: empty → RangeError ERR_EMPTY_REDUCTION (as argmin); an empty output is fine', (d) => cuda.tidy(() => {
      const check = softly();
      const e = gpuarray.empty([0], d), e2 = gpuarray.empty([0, 3], d);
      for (const name of [...NANARGS, 'argmin', 'argmax'] as AName[]) {
        check(() => expectCode(() => argf(name, e), RangeError, 'ERR_EMPTY_REDUCTION'));
        check(() => expectCode(() => argf(name, e2, { axis: 0 }), RangeError, 'ERR_EMPTY_REDUCTION'));
        check(() => expectCode(() => argf(name, e2), RangeError, 'ERR_EMPTY_REDUCTION'));
        check(() => expect([...argf(name, e2, { axis: 1 }).shape]).toEqual([0]));
        check(() => expect([...argf(name, e2, { axis: 1, keepdims: true }).shape]).toEqual([0, 1]));
      }
      check.done();
    }));

    test('out and stream; bad options and axes', async () => {
      const check = softly();
      const xs = nanData('float32', 6 * 7, 680, 0.3);
      for (let j = 0; j < 7; j++) xs[3 * 7 + j] = NaN; // row 3 all NaN
      const a = upload('float32', xs, [6, 7]);
      const g0 = groups(xs, [6, 7], [0]).groups, g1 = groups(xs, [6, 7], [1]).groups;
      const o = gpuarray.full([6], 99n, 'int64');
      check(() => expect(gpuarray.nanargmax(a, { axis: 1, out: o })).toBe(o));
      check(() => expectArg(o, 'nanargmax', g1, [6], 'nanargmax into out'));
      const ok = gpuarray.full([1, 7], 99n, 'int64');
      check(() => expect(gpuarray.nanargmin(a, { axis: 0, keepdims: true, out: ok })).toBe(ok));
      check(() => expectArg(ok, 'nanargmin', g0, [1, 7], 'nanargmin into a keepdims out'));
      check(() => expectCode(() => gpuarray.nanargmin(a, { axis: 1, out: gpuarray.empty([7], 'int64') }), RangeError, 'ERR_SHAPE_MISMATCH'));
      const s = new driver.Stream();
      const rs = [gpuarray.nanargmin(a, { axis: 1, stream: s }), gpuarray.nanargmax(a, { stream: s })];
      await s.synchronizeAsync();
      check(() => expectArg(rs[0], 'nanargmin', g1, [6], 'on a stream'));
      check(() => expectArg(rs[1], 'nanargmax', [xs], [], 'on a stream, flattened'));
      for (const name of NANARGS) {
        for (const axis of [2, -3]) check(() => expectCode(() => argf(name, a, { axis }), RangeError, 'ERR_AXIS_OUT_OF_RANGE'));
        for (const axis of [[0], [0, 1], '0']) check(() => expectCode(() => argf(name, a, { axis }), TypeError, 'ERR_INVALID_ARG_TYPE'));
        for (const key of ['dtype', 'ddof', 'initial', 'where']) {
          check(() => expect(expectCode(() => argf(name, a, { [key]: 1 }), TypeError, 'ERR_INVALID_ARG_VALUE').message)
            .toMatch(new RegExp(`^${name}: unknown option "${key}"`)));
        }
      }
      for (const x of [a, o, ok, ...rs]) x.dispose();
      s.dispose();
      check.done();
    });
  });

  test('argument errors: unknown options, bad axes, ddof where not taken; nothing leaked', () => {
    const check = softly();
    const a = gpuarray.zeros([2, 3, 4], 'float32');
    const before = settledLive();
    for (const name of Object.keys(FNS) as Name[]) {
      const scan = name === 'nancumsum' || name === 'nancumprod';
      for (const axis of scan ? [3, -4] : [3, -4, [0, 0], [1, -2], [0, 5]]) {
        check(() => expectCode(() => nanf(name, a, { axis }), RangeError, 'ERR_AXIS_OUT_OF_RANGE'));
      }
      for (const key of scan ? ['keepdims', 'ddof', 'where'] : ['initial', 'where', ...(name === 'nanvar' || name === 'nanstd' ? [] : ['ddof'])]) {
        check(() => expect(expectCode(() => nanf(name, a, { [key]: 1 }), TypeError, 'ERR_INVALID_ARG_VALUE').message)
          .toMatch(new RegExp(`^${name}: unknown option "${key}"`)));
      }
    }
    check(() => expectCode(() => nanf('nanvar', a, { ddof: '1' }), TypeError, 'ERR_INVALID_ARG_TYPE'));
    check(() => expect(live()).toBe(before));
    a.dispose();
    check.done();
  });

  test('nothing leaked by this suite', async () => {
    await collect();
    expect(live()).toBe(baseline);
  });
});

describe('nan reductions and scans: argument errors (no GPU needed)', () => {
  test('a non-GPUArray a → TypeError ERR_INVALID_ARG_TYPE (every function)', () => {
    for (const name of Object.keys(FNS) as Name[]) {
      for (const bad of [[1, 2], null, 5, new Float32Array(3)]) {
        expectCode(() => nanf(name, bad as unknown as GPUArray), TypeError, 'ERR_INVALID_ARG_TYPE');
        expectCode(() => nanf(name, bad as unknown as GPUArray, { axis: 0 }), TypeError, 'ERR_INVALID_ARG_TYPE');
      }
    }
  });
  test('nanargmin/nanargmax: a non-GPUArray a → TypeError ERR_INVALID_ARG_TYPE', () => {
    for (const name of NANARGS) {
      for (const bad of [[1, 2], null, 5, new Float32Array(3)]) {
        expectCode(() => argf(name, bad as unknown as GPUArray), TypeError, 'ERR_INVALID_ARG_TYPE');
        expectCode(() => argf(name, bad as unknown as GPUArray, { axis: 0 }), TypeError, 'ERR_INVALID_ARG_TYPE');
      }
    }
  });
});
