/**
 * CPU reference for reductions and scans (NumPy 2 semantics, see /work/briefs/reduction-api.md):
 * exact BigInt arithmetic for integer results (wrapping like NumPy's int64/uint64), float64
 * compensated (Neumaier) sums and double-double products for float results, with a tolerance.
 *
 * Tolerance of a float sum of n terms accumulated in a type with unit roundoff u (float16 data
 * accumulates in float32), result stored in a type with unit roundoff u_out:
 *
 *     |got − S| ≤ 2·u·(√n + log2(n+1) + 2)·Σ|x| + u_out·|S|
 *
 * The first term bounds any blocked/tree summation whose longest sequential chain is ≲ √n (per-
 * thread strides + warp shuffles + block partials), and is far above the typical (random-walk)
 * error; the second is the final rounding. Products use |P| for Σ|x|. Because such a bound
 * cannot see one dropped element of a large sum, the tests also sum dyadic data whose every
 * partial sum is exact in float32 (compared exactly). Scans use the same bound per prefix.
 */
import type { DTypeName } from '../lib';
import { C, V, bf16Of, halfOf, kind, wrap } from './reference';
// Module-local aliases: global lookups are slow inside Jest's vm context (hot reference loops).
const { Math, Number, BigInt } = globalThis;

export type RedName = 'sum' | 'prod' | 'mean' | 'var' | 'std' | 'min' | 'max' | 'argmin' | 'argmax' | 'any' | 'all';
export const RED_NAMES: RedName[] = ['sum', 'prod', 'mean', 'var', 'std', 'min', 'max', 'argmin', 'argmax', 'any', 'all'];

/** Unit roundoff. */
export const UNIT: Record<string, number> = {
  float16: 2 ** -11, bfloat16: 2 ** -8, float32: 2 ** -24, float64: 2 ** -53, complex64: 2 ** -24, complex128: 2 ** -53,
};
/** Half the smallest subnormal: the absolute part of rounding to a type (underflow). */
export const TINY: Record<string, number> = {
  float16: 2 ** -25, bfloat16: 2 ** -134, float32: 2 ** -150, float64: 2 ** -1075, complex64: 2 ** -150, complex128: 2 ** -1075,
};
/** The chain-length factor of the tolerance. */
export const chain = (n: number): number => Math.sqrt(n) + Math.log2(n + 1) + 2;

const isC = (v: unknown): v is C => typeof v === 'object' && v !== null;
const num = (v: V): number => (isC(v) ? v.re : Number(v));
const isFloat = (d: DTypeName): boolean => kind(d) === 'f' || kind(d) === 'c';
/** The type float arithmetic happens in for data/results of dtype d. */
export const computeOf = (d: DTypeName): DTypeName => (d === 'float16' || d === 'bfloat16' ? 'float32' : d);
/** A float64 value rounded (once) to the real float dtype d. */
const roundReal = (d: DTypeName, x: number): number =>
  (d === 'float16' ? halfOf(x) : d === 'bfloat16' ? bf16Of(x) : d === 'float32' || d === 'complex64' ? Math.fround(x) : x);

// ---- deterministic data -------------------------------------------------------------------------

/** mulberry32: a small deterministic PRNG (uniform in [0, 1)). */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BITS: Record<string, number> = { int8: 8, uint8: 8, int16: 16, uint16: 16, int32: 32, uint32: 32, int64: 64, uint64: 64 };

/** A value of dtype d from the random stream: full-range integers, floats in [lo, hi), bools, complex. */
export function randomValue(d: DTypeName, r: () => number, lo = -1, hi = 1): V {
  switch (kind(d)) {
    case 'b': return r() < 0.5 ? 0 : 1;
    case 'i': case 'u': {
      const bits = BITS[d];
      if (bits === 64) {
        const w = (BigInt(Math.floor(r() * 2 ** 32)) << 32n) | BigInt(Math.floor(r() * 2 ** 32));
        return wrap(d, w);
      }
      return wrap(d, BigInt(Math.floor(r() * 2 ** bits)));
    }
    case 'f': {
      return roundReal(d, lo + (hi - lo) * r());
    }
    default: {
      const f = d === 'complex64' ? Math.fround : (x: number) => x;
      return { re: f(lo + (hi - lo) * r()), im: f(lo + (hi - lo) * r()) };
    }
  }
}

/** n random values of dtype d (seeded). */
export function randomValues(d: DTypeName, n: number, seed: number, lo = -1, hi = 1): V[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => randomValue(d, r, lo, hi));
}

/** n integers in [lo, hi] stored as dtype d (bigints for 64-bit types, complex {k, 0}). */
export function smallInts(d: DTypeName, n: number, seed: number, lo: number, hi: number): V[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => {
    const k = lo + Math.floor(r() * (hi - lo + 1));
    return kind(d) === 'c' ? { re: k, im: 0 } : BITS[d] === 64 ? BigInt(k) : kind(d) === 'b' ? (k ? 1 : 0) : k;
  });
}

// ---- result dtypes (NumPy 2 on Linux) -------------------------------------------------------------

/** sum/prod/cumsum/cumprod result dtype. */
export function sumDtype(d: DTypeName): DTypeName {
  if (d === 'bool' || kind(d) === 'i') return 'int64';
  if (kind(d) === 'u') return 'uint64';
  return d;
}
/** Result dtype of a reduction (`dtype` option: sum, prod, mean). */
export function resultDtype(name: RedName, d: DTypeName, dtype?: DTypeName): DTypeName {
  switch (name) {
    case 'sum': case 'prod': return dtype ?? sumDtype(d);
    case 'mean': return dtype ?? (isFloat(d) ? d : 'float64');
    case 'var': case 'std': return d === 'complex64' ? 'float32' : d === 'complex128' ? 'float64' : isFloat(d) ? d : 'float64';
    case 'min': case 'max': return d;
    case 'argmin': case 'argmax': return 'int64';
    default: return 'bool';
  }
}

// ---- arithmetic -----------------------------------------------------------------------------------

/** Neumaier-compensated sum of numbers (plain sum when it is not finite). */
export function fsum(xs: ArrayLike<number>): number {
  let s = 0, c = 0, plain = 0;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i];
    plain += x;
    const t = s + x;
    c += Math.abs(s) >= Math.abs(x) ? (s - t) + x : (x - t) + s;
    s = t;
  }
  return Number.isFinite(plain) ? s + c : plain;
}

const SPLIT = 134217729; // 2^27 + 1
function twoProd(a: number, b: number): [number, number] {
  const p = a * b;
  const ca = SPLIT * a, ah = ca - (ca - a), al = a - ah;
  const cb = SPLIT * b, bh = cb - (cb - b), bl = b - bh;
  return [p, ((ah * bh - p) + ah * bl + al * bh) + al * bl];
}
/** Product in double-double (exact to ~2^-100 relative while no over/underflow). */
export function fprod(xs: ArrayLike<number>): number {
  let hi = 1, lo = 0;
  for (let i = 0; i < xs.length; i++) {
    const [p, e] = twoProd(hi, xs[i]);
    const l = e + lo * xs[i];
    hi = p + l;
    lo = l - (hi - p);
    if (!Number.isFinite(hi) || hi === 0) return Array.from(xs).reduce((a, b) => a * b, 1);
  }
  return hi + lo;
}

/** Converts an input value of dtype `from` to an accumulator dtype `to` (C casts; NumPy's unsafe cast). */
export function convert(v: V, from: DTypeName, to: DTypeName): V {
  if (kind(to) === 'c') return isC(v) ? v : { re: Number(v), im: 0 };
  if (isC(v)) v = v.re;
  if (kind(to) === 'b') return Number(v) !== 0 || Number.isNaN(v as number) ? 1 : 0;
  if (kind(to) === 'i' || kind(to) === 'u') return wrap(to, typeof v === 'bigint' ? v : BigInt(Math.trunc(Number(v))));
  void from;
  return roundReal(to, Number(v));
}

/** Rounds a float64 value to dtype d (float16/float32/complex64). */
export function roundTo(d: DTypeName, v: V): V {
  const f = (x: number): number => roundReal(d, x);
  return isC(v) ? { re: f(v.re), im: f(v.im) } : typeof v === 'number' ? f(v) : v;
}

const nanOf = (v: V): boolean => (isC(v) ? Number.isNaN(v.re) || Number.isNaN(v.im) : typeof v === 'number' && Number.isNaN(v));
const nonzero = (v: V): boolean => (isC(v) ? v.re !== 0 || v.im !== 0 : typeof v === 'bigint' ? v !== 0n : v !== 0);
/** a < b in NumPy's order (complex: lexicographic). */
export function less(a: V, b: V): boolean {
  if (isC(a) && isC(b)) return a.re < b.re || (a.re === b.re && a.im < b.im);
  return (a as number) < (b as number);
}

/**
 * Expected value and absolute tolerance (0: exact). `overflow`: the magnitude at which the result
 * dtype rounds to infinity (float16 65520, float32 ≈ 3.4028e38): beyond it a non-finite result is
 * expected (NumPy overflows the same way), near it either is accepted.
 */
export interface Expect { value: V; tol: number; overflow?: number }

const OVERFLOW: Partial<Record<DTypeName, number>> = {
  float16: 65520, bfloat16: 3.3961775292304740e38, float32: 3.4028235677973366e38, complex64: 3.4028235677973366e38,
};

/** Marks expectations of dtype `d` with its overflow threshold. */
export function ovf<T extends Expect | Expect[]>(d: DTypeName, e: T): T {
  const o = OVERFLOW[d];
  if (o !== undefined) for (const x of Array.isArray(e) ? e : [e]) x.overflow = o;
  return e;
}

/** Sum of values of dtype d in accumulator `acc` (= the result dtype). */
export function sumRef(d: DTypeName, xs: V[], acc: DTypeName = sumDtype(d)): Expect {
  const n = xs.length;
  if (kind(acc) === 'b') return { value: xs.some((x) => nonzero(convert(x, d, acc))) ? 1 : 0, tol: 0 };
  if (kind(acc) === 'i' || kind(acc) === 'u') {
    let s = 0n;
    for (const x of xs) s += BigInt(convert(x, d, acc) as number | bigint);
    return { value: wrap(acc, s), tol: 0 };
  }
  const u = UNIT[computeOf(acc)], uOut = UNIT[acc];
  if (kind(acc) === 'c') {
    const cs = xs.map((x) => convert(x, d, acc) as C);
    const re = fsum(cs.map((c) => c.re)), im = fsum(cs.map((c) => c.im));
    const scale = fsum(cs.map((c) => Math.hypot(c.re, c.im)));
    return ovf(acc, { value: { re, im }, tol: 2 * u * chain(n) * scale + uOut * Math.hypot(re, im) });
  }
  const fs = xs.map((x) => convert(x, d, acc) as number);
  const s = fsum(fs);
  return ovf(acc, { value: s, tol: 2 * u * chain(n) * fsum(fs.map(Math.abs)) + uOut * Math.abs(s) });
}

/** Product of values of dtype d in accumulator `acc`. */
export function prodRef(d: DTypeName, xs: V[], acc: DTypeName = sumDtype(d)): Expect {
  const n = xs.length;
  if (kind(acc) === 'b') return { value: xs.every((x) => nonzero(convert(x, d, acc))) ? 1 : 0, tol: 0 };
  if (kind(acc) === 'i' || kind(acc) === 'u') {
    let p = 1n;
    for (const x of xs) p = BigInt.asUintN(64, p * BigInt(convert(x, d, acc) as number | bigint));
    return { value: wrap(acc, p), tol: 0 };
  }
  const u = UNIT[computeOf(acc)], uOut = UNIT[acc];
  if (kind(acc) === 'c') {
    let p: C = { re: 1, im: 0 };
    let mag = 1;
    for (const x of xs) {
      const c = convert(x, d, acc) as C;
      p = { re: p.re * c.re - p.im * c.im, im: p.re * c.im + p.im * c.re };
      mag *= Math.hypot(c.re, c.im);
    }
    return ovf(acc, { value: p, tol: 4 * u * chain(n) * mag + uOut * mag + 2 * chain(n) * TINY[computeOf(acc)] + TINY[acc] });
  }
  const p = fprod(xs.map((x) => convert(x, d, acc) as number));
  return ovf(acc, { value: p, tol: 2 * u * chain(n) * Math.abs(p) + uOut * Math.abs(p) + 2 * chain(n) * TINY[computeOf(acc)] + TINY[acc] });
}

/** Mean (float64 accumulation for integers and bools, like NumPy). */
export function meanRef(d: DTypeName, xs: V[], out: DTypeName = resultDtype('mean', d)): Expect {
  const n = xs.length;
  if (n === 0) return { value: kind(out) === 'c' ? { re: NaN, im: NaN } : NaN, tol: 0 };
  const s = sumRef(d, xs, out);
  const uOut = UNIT[out];
  if (isC(s.value)) {
    const m = { re: s.value.re / n, im: s.value.im / n };
    return { value: m, tol: s.tol / n + 2 * uOut * Math.hypot(m.re, m.im) };
  }
  const m = Number(s.value) / n;
  return { value: m, tol: s.tol / n + 2 * uOut * Math.abs(m) };
}

/** Variance (two-pass, float64) and its tolerance; std is its square root. */
export function varRef(d: DTypeName, xs: V[], ddof = 0, std = false): Expect {
  const out = resultDtype('var', d);
  const n = xs.length;
  if (n === 0 || n - ddof <= 0) return { value: NaN, tol: 0 };
  const acc = kind(d) === 'c' ? d : out;
  const cs = xs.map((x) => convert(x, d, kind(d) === 'c' ? d : 'float64'));
  const u = UNIT[computeOf(acc)], uOut = UNIT[out];
  let v: number, scale: number;
  if (kind(d) === 'c') {
    const c = cs as C[];
    const mr = fsum(c.map((x) => x.re)) / n, mi = fsum(c.map((x) => x.im)) / n;
    const mm = Math.hypot(mr, mi);
    v = fsum(c.map((x) => (x.re - mr) ** 2 + (x.im - mi) ** 2)) / (n - ddof);
    scale = fsum(c.map((x) => (Math.hypot(x.re, x.im) + mm) ** 2)) / (n - ddof);
  } else {
    const f = cs as number[];
    const m = fsum(f) / n;
    v = fsum(f.map((x) => (x - m) ** 2)) / (n - ddof);
    scale = fsum(f.map((x) => (Math.abs(x) + Math.abs(m)) ** 2)) / (n - ddof);
  }
  const t = 4 * u * chain(n) * scale + uOut * v + TINY[out];
  if (!std) return { value: v, tol: t };
  const s = Math.sqrt(v);
  return { value: s, tol: t === 0 ? 0 : (2 * t) / (s + Math.sqrt(t)) + uOut * s };
}

/** min/max: the extreme value, or the first NaN (NumPy propagates NaN). */
export function extremeRef(xs: V[], max: boolean): Expect {
  let best = xs[0];
  for (const x of xs) {
    if (nanOf(best)) break;
    if (nanOf(x) || (max ? less(best, x) : less(x, best))) best = x;
  }
  return { value: best, tol: 0 };
}

/** argmin/argmax: index of the first extreme, or of the first NaN. */
export function argRef(xs: V[], max: boolean): Expect {
  let k = 0;
  for (let i = 0; i < xs.length; i++) {
    if (nanOf(xs[k])) break;
    if (nanOf(xs[i]) || (max ? less(xs[k], xs[i]) : less(xs[i], xs[k]))) k = i;
  }
  return { value: BigInt(k), tol: 0 };
}

/** The reference of reduction `name` over values `xs` of dtype d. */
export function reduceRef(name: RedName, d: DTypeName, xs: V[], opts: { dtype?: DTypeName; ddof?: number } = {}): Expect {
  switch (name) {
    case 'sum': return sumRef(d, xs, resultDtype('sum', d, opts.dtype));
    case 'prod': return prodRef(d, xs, resultDtype('prod', d, opts.dtype));
    case 'mean': return meanRef(d, xs, resultDtype('mean', d, opts.dtype));
    case 'var': return varRef(d, xs, opts.ddof ?? 0);
    case 'std': return varRef(d, xs, opts.ddof ?? 0, true);
    case 'min': return extremeRef(xs, false);
    case 'max': return extremeRef(xs, true);
    case 'argmin': return argRef(xs, false);
    case 'argmax': return argRef(xs, true);
    case 'any': return { value: xs.some(nonzero) ? 1 : 0, tol: 0 };
    case 'all': return { value: xs.every(nonzero) ? 1 : 0, tol: 0 };
  }
}

/** Whether `got` matches an expectation: exact (NaN = NaN, -0 = 0) or within `tol`. */
export function close(got: V, e: Expect): boolean {
  const one = (g: number, w: number): boolean => {
    if (Number.isNaN(w)) return Number.isNaN(g);
    if (e.overflow !== undefined && Math.abs(w) + e.tol >= e.overflow) {
      if (!Number.isFinite(g)) return Number.isNaN(g) || Math.sign(g) === Math.sign(w) || Number.isFinite(w) === false;
      if (Math.abs(w) - e.tol >= e.overflow) return false;
    }
    if (!Number.isFinite(w) || !Number.isFinite(g)) return g === w;
    return Math.abs(g - w) <= e.tol;
  };
  const w = e.value;
  if (isC(w)) {
    if (!isC(got)) return false;
    // A complex result past the overflow threshold: any non-finite part is what float math gives.
    const past = e.overflow !== undefined && Math.max(Math.abs(w.re), Math.abs(w.im)) + e.tol >= e.overflow;
    if (past && (!Number.isFinite(got.re) || !Number.isFinite(got.im))) return true;
    return one(got.re, w.re) && one(got.im, w.im);
  }
  if (typeof w === 'bigint' || typeof got === 'bigint') return typeof got === typeof w && got === w;
  return one(got as number, w);
}

const show = (v: V): string => (isC(v) ? `(${v.re}, ${v.im})` : typeof v === 'bigint' ? `${v}n` : String(v));

/** Expects every `got[i]` to match `want[i]`; lists the first mismatches. */
export function expectClose(got: V[], want: Expect[], label = ''): void {
  expect(got.length).toBe(want.length);
  const bad: string[] = [];
  for (let i = 0; i < want.length && bad.length < 8; i++) {
    if (!close(got[i], want[i])) bad.push(`${label}[${i}]: got ${show(got[i])}, want ${show(want[i].value)} ± ${want[i].tol}`);
  }
  expect(bad).toEqual([]);
}

// ---- axes ------------------------------------------------------------------------------------------

/** Normalized, sorted axes of a reduction over an ndim-d array (null: all). */
export function axesOf(axis: number | number[] | null | undefined, ndim: number): number[] {
  if (axis === null || axis === undefined) return Array.from({ length: ndim }, (_, k) => k);
  const list = Array.isArray(axis) ? axis : [axis];
  return list.map((a) => (a < 0 ? a + ndim : a)).sort((a, b) => a - b);
}

/**
 * Groups C-ordered `values` of an array of `shape` by the output element of a reduction over
 * `axes`: for each output element (C order), the reduced elements in C order.
 */
export function groups<T>(values: T[], shape: number[], axes: number[]): { shape: number[]; keep: number[]; groups: T[][] } {
  const red = new Set(axes);
  const outShape = shape.filter((_, k) => !red.has(k));
  const keep = shape.map((n, k) => (red.has(k) ? 1 : n));
  const outSize = outShape.reduce((a, b) => a * b, 1);
  const gs: T[][] = Array.from({ length: outSize }, () => []);
  const idx = new Array<number>(shape.length).fill(0);
  for (let flat = 0; flat < values.length; flat++) {
    let o = 0;
    for (let k = 0; k < shape.length; k++) if (!red.has(k)) o = o * shape[k] + idx[k];
    gs[o].push(values[flat]);
    for (let k = shape.length - 1; k >= 0; k--) {
      if (++idx[k] < shape[k]) break;
      idx[k] = 0;
    }
  }
  return { shape: outShape, keep, groups: gs };
}

/** Inclusive scan reference along `axis` of a C-ordered array (flattened when axis is undefined). */
export function scanAlong<T, R>(values: T[], shape: number[], axis: number | undefined, f: (xs: T[]) => R[]): R[] {
  if (axis === undefined) return f(values);
  const ax = axis < 0 ? axis + shape.length : axis;
  const inner = shape.slice(ax + 1).reduce((a, b) => a * b, 1);
  const len = shape[ax];
  const outer = values.length / Math.max(1, len * inner);
  const out = new Array<R>(values.length);
  for (let o = 0; o < outer; o++) {
    for (let k = 0; k < inner; k++) {
      const idx = Array.from({ length: len }, (_, j) => (o * len + j) * inner + k);
      const r = f(idx.map((i) => values[i]));
      idx.forEach((i, j) => { out[i] = r[j]; });
    }
  }
  return out;
}

/** Prefix sums (cumsum) of values of dtype d in accumulator `acc`, with per-prefix tolerances. */
export function cumsumRef(d: DTypeName, xs: V[], acc: DTypeName = sumDtype(d)): Expect[] {
  const out: Expect[] = [];
  if (kind(acc) === 'i' || kind(acc) === 'u' || kind(acc) === 'b') {
    let s = 0n;
    for (const x of xs) {
      s += BigInt(convert(x, d, acc) as number | bigint);
      out.push({ value: kind(acc) === 'b' ? (s ? 1 : 0) : wrap(acc, s), tol: 0 });
    }
    return out;
  }
  const u = UNIT[computeOf(acc)], uOut = UNIT[acc];
  let re = 0, rc = 0, im = 0, ic = 0, mag = 0;
  const add = (s: number, c: number, x: number): [number, number] => {
    const t = s + x;
    return [t, c + (Math.abs(s) >= Math.abs(x) ? (s - t) + x : (x - t) + s)];
  };
  xs.forEach((x, i) => {
    const c = convert(x, d, acc);
    if (isC(c)) {
      [re, rc] = add(re, rc, c.re);
      [im, ic] = add(im, ic, c.im);
      mag += Math.hypot(c.re, c.im);
      const v = { re: re + rc, im: im + ic };
      out.push(ovf(acc, { value: v, tol: 2 * u * chain(i + 1) * mag + uOut * Math.hypot(v.re, v.im) }));
    } else {
      [re, rc] = add(re, rc, c as number);
      mag += Math.abs(c as number);
      const v = re + rc;
      out.push(ovf(acc, { value: v, tol: 2 * u * chain(i + 1) * mag + uOut * Math.abs(v) }));
    }
  });
  return out;
}

/** Prefix products (cumprod): integers wrapping in 64 bits, floats in float64 (short inputs). */
export function cumprodRef(d: DTypeName, xs: V[], acc: DTypeName = sumDtype(d)): Expect[] {
  if (kind(acc) === 'i' || kind(acc) === 'u') {
    let p = 1n;
    return xs.map((x) => {
      p = BigInt.asUintN(64, p * BigInt(convert(x, d, acc) as number | bigint));
      return { value: wrap(acc, p), tol: 0 };
    });
  }
  if (kind(acc) !== 'f' && kind(acc) !== 'c') return xs.map((_, i) => prodRef(d, xs.slice(0, i + 1), acc));
  const u = UNIT[computeOf(acc)], uOut = UNIT[acc];
  let p: C = { re: 1, im: 0 };
  let mag = 1;
  return xs.map((x, i) => {
    const c = convert(x, d, kind(acc) === 'c' ? acc : 'complex128');
    const z = isC(c) ? c : { re: c as number, im: 0 };
    p = { re: p.re * z.re - p.im * z.im, im: p.re * z.im + p.im * z.re };
    mag *= Math.hypot(z.re, z.im);
    const tol = 4 * u * chain(i + 1) * mag + uOut * mag + 2 * chain(i + 1) * TINY[computeOf(acc)] + TINY[acc];
    return ovf(acc, { value: kind(acc) === 'c' ? { ...p } : p.re, tol });
  });
}

export { num };
