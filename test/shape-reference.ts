/**
 * CPU references of the shape functions (test/80.shapes.test.ts), NumPy 2 semantics on C-order
 * host values: index maps for flip, transpose, roll, slices and concatenation; NumPy's clip loop;
 * NumPy 2's isclose with its roundings (checked against NumPy's formula on every pair of these
 * tests' special values).
 */
import { DTYPES } from '../lib';
import type { DTypeName } from '../lib';
import { realOf } from '../lib/array/clip';
import { C, V, bf16Of, half, halfOf, kind, toBf16 } from './reference';
// Module-local aliases: global lookups are slow inside Jest's vm context (hot reference loops).
const { Math, Number } = globalThis;

/** `n` values cycling through `xs`, starting at `from`, stepping `step`. */
export const cyc = <T>(xs: T[], n: number, from = 0, step = 1): T[] =>
  Array.from({ length: n }, (_, i) => xs[(from + i * step) % xs.length]);
export const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
export const prod = (s: readonly number[]): number => s.reduce((p, q) => p * q, 1);

/** C-order values of shape `os` whose element at index m is `src[at(m)]` (`s`: src's C-order shape). */
export function gather<T>(src: T[], s: readonly number[], os: readonly number[], at: (m: number[]) => number[]): T[] {
  const out: T[] = [];
  const m = new Array<number>(os.length).fill(0);
  for (let k = 0, n = prod(os); k < n; k++) {
    const j = at(m.slice());
    let f = 0;
    for (let d = 0; d < s.length; d++) f = f * s[d] + j[d];
    out.push(src[f]);
    for (let d = os.length - 1; d >= 0; d--) {
      if (++m[d] < os[d]) break;
      m[d] = 0;
    }
  }
  return out;
}

export const flipRef = <T>(h: T[], s: number[], axes: number[]): T[] =>
  gather(h, s, s, (m) => m.map((x, i) => (axes.includes(i) ? s[i] - 1 - x : x)));
export const permRef = <T>(h: T[], s: number[], perm: number[]): T[] => gather(h, s, perm.map((p) => s[p]), (m) => {
  const j: number[] = [];
  perm.forEach((p, k) => { j[p] = m[k]; });
  return j;
});
export const mod = (x: number, n: number): number => ((x % n) + n) % n;
export const rollRef = <T>(h: T[], s: number[], shifts: number[]): T[] => gather(h, s, s, (m) => m.map((x, i) => mod(x - shifts[i], s[i])));
export function sliceRef<T>(h: T[], s: number[], ax: number, start: number, stop: number): { host: T[]; shape: number[] } {
  const n = s[ax];
  const lo = start < 0 ? Math.max(start + n, 0) : Math.min(start, n), hi = stop < 0 ? Math.max(stop + n, 0) : Math.min(stop, n);
  const shape = s.map((x, i) => (i === ax ? Math.max(hi - lo, 0) : x));
  return { host: gather(h, s, shape, (m) => m.map((x, i) => (i === ax ? x + lo : x))), shape };
}
/** Concatenation of C-order arrays along `ax`. */
export function concatRef<T>(parts: Array<{ host: T[]; shape: number[] }>, ax: number): { host: T[]; shape: number[] } {
  const shape = parts[0].shape.slice();
  shape[ax] = parts.reduce((t, p) => t + p.shape[ax], 0);
  const out = new Array<T>(prod(shape));
  const m = new Array<number>(shape.length).fill(0);
  for (let k = 0; k < out.length; k++) {
    let at = m[ax], p = 0;
    while (at >= parts[p].shape[ax]) at -= parts[p++].shape[ax];
    const j = m.slice();
    j[ax] = at;
    let f = 0;
    for (let d = 0; d < shape.length; d++) f = f * parts[p].shape[d] + j[d];
    out[k] = parts[p].host[f];
    for (let d = shape.length - 1; d >= 0; d--) {
      if (++m[d] < shape[d]) break;
      m[d] = 0;
    }
  }
  return { host: out, shape };
}

// ---- clip and isclose (NumPy 2: clip.cpp's Max/Min; numeric.py's isclose) -----------

export const isNanV = (v: V): boolean => (typeof v === 'object' ? Number.isNaN(v.re) || Number.isNaN(v.im) : typeof v === 'number' && Number.isNaN(v));
export const gtV = (p: V, q: V): boolean =>
  (typeof p === 'object' ? (p.re === (q as C).re ? p.im > (q as C).im : p.re > (q as C).re) : p > (q as number | bigint));
export const ltV = (p: V, q: V): boolean => gtV(q, p) && !isNanV(q);
/** clip of one element of dtype `d` (values already of d): Max(x, lo) = isnan(x) || x > lo ? x : lo, then Min. */
export function clipRef(x: V, lo: V | null, hi: V | null): V {
  let r = x;
  if (lo !== null && !(isNanV(r) || gtV(r, lo))) r = lo;
  if (hi !== null && !(isNanV(r) || ltV(r, hi))) r = hi;
  return r;
}
/** The rounding of a result of dtype `d` (or of its real part): NumPy's float16 loops compute in float32, then round. */
export const roundOf = (d: DTypeName): ((x: number) => number) =>
  d === 'float16' ? half : d === 'bfloat16' ? toBf16 : realOf(DTYPES[d]).name === 'float32' ? Math.fround : (x) => x;
/** A JS number as a weak scalar of `d` (correctly rounded from the double). */
export const scalarOf = (d: DTypeName): ((x: number) => number) => (d === 'float16' ? halfOf : d === 'bfloat16' ? bf16Of : roundOf(d));
export const asC = (v: V | boolean): C => (typeof v === 'object' ? v : { re: Number(v), im: 0 });
/**
 * isclose of one pair as NumPy 2 computes it: x converted to the common dtype `c`, y to `y`
 * (NumPy's inexact b); |x - y| rounded to c, the tolerance to y's real type, multiply and add
 * rounded separately (float16: each to float16).
 */
export function closeRef(x: V, yv: V, c: DTypeName, y: DTypeName, o: { rtol?: number; atol?: number; equalNan?: boolean } = {}): number {
  const rc = roundOf(c), ry = roundOf(y), p = asC(x), q = asC(yv);
  const d = kind(c) === 'c' ? rc(Math.hypot(rc(p.re - q.re), rc(p.im - q.im))) : Math.abs(rc(p.re - q.re));
  const ay = kind(y) === 'c' ? ry(Math.hypot(q.re, q.im)) : Math.abs(q.re);
  const t = ry(scalarOf(y)(o.atol ?? 1e-8) + ry(scalarOf(y)(o.rtol ?? 1e-5) * ay));
  const finite = Number.isFinite(q.re) && Number.isFinite(q.im);
  const nan = (Number.isNaN(p.re) || Number.isNaN(p.im)) && (Number.isNaN(q.re) || Number.isNaN(q.im));
  return (d <= t && finite) || (p.re === q.re && p.im === q.im) || (!!o.equalNan && nan) ? 1 : 0;
}
export const inexactOf = (d: DTypeName): DTypeName => (kind(d) === 'f' || kind(d) === 'c' ? d : 'float64');
