/**
 * The CPU reference of the sorting tests (test/91.sort, test/91.selection): NumPy's order as
 * nodecuda documents it (NaNs last, -0 before +0, complex by real then imaginary part), stable
 * argsorts, exact comparisons of results, and the inputs (every dtype, with NaN/±Inf/-0, extremes
 * and duplicates).
 */
import { GPUArray } from '../lib';
import type { DTypeName } from '../lib';
import { C, V, half, kind, toBf16 } from './reference';
import { rng } from './reduce-reference';
const { Math, Number, BigInt } = globalThis;

/** NumPy's order as nodecuda documents it: NaN last (all equal), -0 before +0. */
export function cmpReal(x: number, y: number): number {
  const nx = Number.isNaN(x), ny = Number.isNaN(y);
  if (nx || ny) return nx === ny ? 0 : nx ? 1 : -1;
  if (x !== y) return x < y ? -1 : 1;
  if (x === 0) return Object.is(x, -0) === Object.is(y, -0) ? 0 : Object.is(x, -0) ? -1 : 1;
  return 0;
}
export function cmp(x: V, y: V): number {
  if (typeof x === 'bigint') return x < (y as bigint) ? -1 : x > (y as bigint) ? 1 : 0;
  if (typeof x === 'number') return cmpReal(x, y as number);
  const a = x as C, b = y as C;
  return cmpReal(a.re, b.re) || cmpReal(a.im, b.im);
}
/** Stable argsort of a 1-D list. */
export const argsortRef = (xs: V[]): number[] => xs.map((_, i) => i).sort((i, j) => cmp(xs[i], xs[j]) || i - j);
/** Row-wise (last axis of a C-order [rows, len]) stable argsort: indices within each row. */
export function argsortRows(xs: V[], len: number): number[] {
  const out: number[] = [];
  for (let r = 0; r * len < xs.length; r++) out.push(...argsortRef(xs.slice(r * len, r * len + len)));
  return out;
}
export const sameV = (a: V, b: V): boolean => typeof a === 'object' ? Object.is((a as C).re, (b as C).re) && Object.is((a as C).im, (b as C).im)
  : Object.is(a, b);
export function expectValues(got: V[], want: V[], label: string): void {
  expect(got.length).toBe(want.length);
  const bad = got.findIndex((g, i) => !sameV(g, want[i]));
  if (bad >= 0) throw new Error(`${label}: first mismatch at ${bad}: got ${String(JSON.stringify(got[bad], (_, v) => typeof v === 'bigint' ? `${v}n` : v))}`
    + ` want ${String(JSON.stringify(want[bad], (_, v) => typeof v === 'bigint' ? `${v}n` : v))}`);
}
export function expectIndices(r: GPUArray, want: number[], label: string): void {
  expect(r.dtype.name).toBe('int64');
  const got = r.get() as BigInt64Array;
  expect(got.length).toBe(want.length);
  const bad = want.findIndex((w, i) => got[i] !== BigInt(w));
  if (bad >= 0) throw new Error(`${label}: first index mismatch at ${bad}: got ${got[bad]} want ${want[bad]}`);
}

export const INT_RANGE: Partial<Record<DTypeName, [bigint, bigint]>> = {
  int8: [-128n, 127n], uint8: [0n, 255n], int16: [-32768n, 32767n], uint16: [0n, 65535n], int32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n], int64: [-(2n ** 63n), 2n ** 63n - 1n], uint64: [0n, 2n ** 64n - 1n],
};
export const SPECIAL = [NaN, -NaN, Infinity, -Infinity, -0, 0, 1, -1, 0.5];

/** n values of d: `distinct` limits them to a few values (duplicates); floats include NaN/±Inf/-0. */
export function values(d: DTypeName, n: number, seed: number, distinct = 0): V[] {
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

