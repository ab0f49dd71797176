/**
 * CPU references (NumPy 2 semantics, computed in JS) of the cumath functions added after the
 * first table: square … nanToNum. Shared by test/83.cumath.test.ts (its dtype table) and
 * test/83.cumath-extra.test.ts. Written from NumPy's algorithms, not from the kernels.
 */
import { bf16BitsToFloat, floatToBf16Bits, floatToHalfBits, halfBitsToFloat } from '../lib';
import type { DTypeName } from '../lib';
import { C, bf16Of, halfOf, is16, kind, wrap } from './reference';
// Module-local aliases: global lookups are slow inside Jest's vm context (hot reference loops).
const { Math, Number } = globalThis;

const f32Bits = (x: number): bigint => BigInt(new Uint32Array(new Float32Array([x]).buffer)[0]);
const f32Of = (b: bigint): number => new Float32Array(new Uint32Array([Number(b)]).buffer)[0];
const f64Bits = (x: number): bigint => new BigUint64Array(new Float64Array([x]).buffer)[0];
const f64Of = (b: bigint): number => new Float64Array(new BigUint64Array([b]).buffer)[0];
/** Bit patterns of the float dtypes (sign-magnitude: ±1 steps the magnitude). */
const BITS: Record<string, [(x: number) => bigint, (b: bigint) => number]> = {
  float16: [(x) => BigInt(floatToHalfBits(x)), (b) => halfBitsToFloat(Number(b))],
  bfloat16: [(x) => BigInt(floatToBf16Bits(x)), (b) => bf16BitsToFloat(Number(b))],
  float32: [f32Bits, f32Of],
  float64: [f64Bits, f64Of],
};

/** The largest finite value of each float dtype, from its bit pattern (np.finfo(d).max). */
export const FMAX: Record<string, number> = {
  float16: halfBitsToFloat(0x7bff), bfloat16: bf16BitsToFloat(0x7f7f), float32: f32Of(0x7f7fffffn), float64: f64Of(0x7fefffffffffffffn),
};

/** A double rounded to float dtype `o` (float16/bfloat16 correctly, from the double). */
export const roundTo = (o: DTypeName, v: number): number =>
  o === 'float16' ? halfOf(v) : o === 'bfloat16' ? bf16Of(v) : o === 'float32' ? Math.fround(v) : v;

/**
 * nextafter in float dtype `o` (the operands rounded to it first): C's for float32/float64 (y when
 * x == y), npy_half_nextafter for float16 and bfloat16 alike (x when x == y).
 */
export function nextafterRef(o: DTypeName, x0: number, y0: number): number {
  const x = roundTo(o, x0), y = roundTo(o, y0);
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  if (x === y) return is16(o) ? x : y;
  const [bits, of] = BITS[o];
  if (x === 0) return (y < 0 ? -1 : 1) * of(1n);
  const b = bits(x);
  return of((y > x) === (x > 0) ? b + 1n : b - 1n);
}

/** np.nan_to_num with its defaults (or `vals`: [nan, posinf, neginf], already in the part dtype) for a value of dtype `o`. */
export function nanToNumRef(o: DTypeName, v: number | bigint | C, vals?: [number, number, number]): number | bigint | C {
  const k = kind(o);
  if (k !== 'f' && k !== 'c') return v as number | bigint;
  const part: DTypeName = o === 'complex64' ? 'float32' : o === 'complex128' ? 'float64' : o;
  const [n, p, m] = vals ?? [0, FMAX[part], -FMAX[part]];
  const fix = (x: number): number => (Number.isNaN(x) ? n : x === Infinity ? p : x === -Infinity ? m : x);
  return k === 'c' ? { re: fix((v as C).re), im: fix((v as C).im) } : fix(v as number);
}

const babs = (v: bigint): bigint => (v < 0n ? -v : v);
function bgcd(a: bigint, b: bigint): bigint {
  while (a !== 0n) [a, b] = [b % a, a];
  return b;
}
/** np.gcd in integer dtype `o`: gcd(|x|, |y|), wrapped (int8 gcd(-128, 0) is -128). */
export const gcdRef = (o: DTypeName, x: bigint, y: bigint): number | bigint => wrap(o, bgcd(babs(x), babs(y)));
/** np.lcm in integer dtype `o`: |x| / gcd * |y| (0 when either is 0), wrapped. */
export function lcmRef(o: DTypeName, x: bigint, y: bigint): number | bigint {
  const g = bgcd(babs(x), babs(y));
  return wrap(o, g === 0n ? 0n : (babs(x) / g) * babs(y));
}

/** npy_logaddexp in double (the exact value of the formula up to the double's rounding). */
export function logaddexpRef(x: number, y: number): number {
  if (x === y) return x + Math.LN2;
  const d = x - y;
  return d > 0 ? x + Math.log1p(Math.exp(-d)) : d <= 0 ? y + Math.log1p(Math.exp(d)) : d;
}
/** npy_logaddexp2 in double. */
export function logaddexp2Ref(x: number, y: number): number {
  if (x === y) return x + 1;
  const d = x - y;
  return d > 0 ? x + Math.log1p(2 ** -d) / Math.LN2 : d <= 0 ? y + Math.log1p(2 ** d) / Math.LN2 : d;
}

/** np.sinc with y = π·x rounded in the compute type of result dtype `o` (float16/bfloat16/float32: float), then sin(y)/y in double. */
export function sincRef(o: DTypeName, x: number): number {
  const y = o === 'float64' ? Math.PI * x : Math.fround(Math.fround(Math.PI) * x);
  return y === 0 ? 1 : Math.sin(y) / y;
}

/** NumPy's complex reciprocal (Smith's algorithm) in double. */
export function crecip(z: C): C {
  if (Math.abs(z.im) <= Math.abs(z.re)) {
    const r = z.im / z.re, d = z.re + z.im * r;
    return { re: 1 / d, im: -r / d };
  }
  const r = z.re / z.im, d = z.re * r + z.im;
  return { re: r / d, im: -1 / d };
}

/** NumPy's complex fmax / fmin: the operand without NaN wins, else the lexicographic maximum / minimum. */
export function cfmaxmin(max: boolean, a: C, b: C): C {
  const nan = (z: C): boolean => Number.isNaN(z.re) || Number.isNaN(z.im);
  const ge = a.re > b.re || (a.re === b.re && a.im >= b.im), le = a.re < b.re || (a.re === b.re && a.im <= b.im);
  return nan(b) || (!nan(a) && (max ? ge : le)) ? a : b;
}

/** Real fmax / fmin: NaN loses to the other operand. */
export const fmaxmin = (max: boolean, x: number, y: number): number =>
  Number.isNaN(y) ? x : Number.isNaN(x) ? y : max ? Math.max(x, y) : Math.min(x, y);

/** The part dtype of a complex dtype (the dtype itself otherwise). */
export const partOf = (d: DTypeName): DTypeName => (d === 'complex64' ? 'float32' : d === 'complex128' ? 'float64' : d);
