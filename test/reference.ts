/**
 * CPU reference for the GPUArray tests: NumPy 2 semantics of every operator, computed in JS.
 * Values: bool → 0/1, ints up to 32 bits → number, 64-bit ints → bigint, floats → number (float16
 * and bfloat16 values exactly), complex → {re, im}. float16 and bfloat16 arithmetic is done in
 * float32 and rounded to the 16-bit type (as NumPy, torch and the GPU do); integers wrap
 * (BigInt.asIntN/asUintN).
 */
import { DTYPES, GPUArray, bf16BitsToFloat, floatToBf16Bits, floatToHalfBits, gpuarray, halfBitsToFloat } from '../lib';
import type { DTypeName } from '../lib';
// Module-local aliases: global lookups are slow inside Jest's vm context (hot reference loops).
const { Math, Number, BigInt } = globalThis;

export const DTYPE_NAMES: DTypeName[] = ['bool', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64',
  'uint64', 'float16', 'bfloat16', 'float32', 'float64', 'complex64', 'complex128'];

export interface C { re: number; im: number }
export type V = number | bigint | C;
type Raw = V | boolean;
export type Kind = 'b' | 'i' | 'u' | 'f' | 'c';

/** The dtype's kind, from the library's dtype table (bfloat16 is a float although its name is not float*). */
export const kind = (d: DTypeName): Kind => DTYPES[d].kind;
const BITS: Record<string, number> = { bool: 8, int8: 8, uint8: 8, int16: 16, uint16: 16, int32: 32, uint32: 32, int64: 64, uint64: 64 };
export const isInt = (d: DTypeName): boolean => kind(d) === 'i' || kind(d) === 'u';
const isC = (v: unknown): v is C => typeof v === 'object' && v !== null;
const big = (v: Raw): bigint => typeof v === 'bigint' ? v : BigInt(Number(v));
const num = (v: Raw): number => isC(v) ? v.re : Number(v);

/** IEEE half of a float32 result (what cvt.rn.f16.f32 gives). */
export const half = (x: number): number => halfBitsToFloat(floatToHalfBits(Math.fround(x)));
/** Correctly rounded half of a double (NumPy's float64 → float16). */
export const halfOf = (x: number): number => halfBitsToFloat(floatToHalfBits(x));
/** bfloat16 of a float32 result (what the kernels' round-to-nearest-even store gives). */
export const toBf16 = (x: number): number => bf16BitsToFloat(floatToBf16Bits(Math.fround(x)));
/** Correctly rounded bfloat16 of a double (the float64 → bfloat16 conversion). */
export const bf16Of = (x: number): number => bf16BitsToFloat(floatToBf16Bits(x));
/**
 * Correctly rounded bfloat16 of an integer (exact for 64-bit ones: the top 24 bits and a sticky
 * bit make a 25-bit double that rounds like the integer).
 */
export function bf16OfBig(b: bigint): number {
  const a = b < 0n ? -b : b;
  if (a < 2n ** 53n) return bf16Of(Number(b));
  const shift = BigInt(a.toString(2).length - 24);
  const m = ((a >> shift) << 1n) | ((a & ((1n << shift) - 1n)) !== 0n ? 1n : 0n);
  return bf16Of((b < 0n ? -1 : 1) * Number(m) * 2 ** (Number(shift) - 1));
}
/** The value of bfloat16 bits. */
export const fromBf16 = (bits: number): number => bf16BitsToFloat(bits);
/** float16 or bfloat16 (2-byte floats: host bits in a Uint16Array, compute in float32). */
export const is16 = (d: DTypeName): boolean => d === 'float16' || d === 'bfloat16';
/** Rounding of the compute type: float16, bfloat16 and complex64 compute in float32. */
const R = (d: DTypeName): ((x: number) => number) =>
  is16(d) || d === 'float32' || d === 'complex64' ? Math.fround : (x) => x;

export function wrap(d: DTypeName, v: bigint): number | bigint {
  const b = BITS[d];
  const w = kind(d) === 'u' ? BigInt.asUintN(b, v) : BigInt.asIntN(b, v);
  return b === 64 ? w : Number(w);
}

export const nonzero = (v: Raw): boolean => isC(v) ? v.re !== 0 || v.im !== 0 : typeof v === 'bigint' ? v !== 0n : !!v || Number.isNaN(v);

/** Stores a computed value in dtype `d` (the value is already in d's compute type). */
export function store(d: DTypeName, v: Raw): V {
  switch (kind(d)) {
    case 'b': return nonzero(v) ? 1 : 0;
    case 'i': case 'u': return wrap(d, typeof v === 'boolean' ? (v ? 1n : 0n) : big(isC(v) ? v.re : v));
    // bfloat16 rounds once (values are already float32 results, or integers converted exactly).
    case 'f': return d === 'float16' ? half(num(v)) : d === 'bfloat16' ? (typeof v === 'bigint' ? bf16OfBig(v) : bf16Of(num(v)))
      : R(d)(num(v));
    default: {
      const c = isC(v) ? v : { re: num(v), im: 0 };
      return { re: R(d)(c.re), im: R(d)(c.im) };
    }
  }
}

// ---- host transfer ----------------------------------------------------------------------------

const ARRAYS: Record<string, new (n: number[] | bigint[]) => ArrayBufferView> = {
  bool: Uint8Array, int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array, int32: Int32Array,
  uint32: Uint32Array, int64: BigInt64Array, uint64: BigUint64Array, float32: Float32Array, float64: Float64Array,
  complex64: Float32Array, complex128: Float64Array,
} as never;

/** Host data of dtype `d` for `vals` (float16 and bfloat16 as bits, complex interleaved). */
export function hostOf(d: DTypeName, vals: V[]): ArrayBufferView {
  if (d === 'float16') return new Uint16Array(vals.map((v) => floatToHalfBits(num(v))));
  if (d === 'bfloat16') return new Uint16Array(vals.map((v) => floatToBf16Bits(num(v))));
  if (kind(d) === 'c') return new ARRAYS[d](vals.flatMap((v) => isC(v) ? [v.re, v.im] : [num(v), 0]));
  if (BITS[d] === 64) return new ARRAYS[d](vals.map(big));
  return new ARRAYS[d](vals.map((v) => num(v)));
}

/** Uploads `vals` as a GPUArray of dtype `d`. */
export function upload(d: DTypeName, vals: V[], shape: number[] = [vals.length]): GPUArray {
  return gpuarray.toGpu(hostOf(d, vals), { dtype: d, shape });
}

/** A host array of some dtype as reference values. */
export function decode(d: DTypeName, h: ArrayBufferView): V[] {
  const a = h as unknown as ArrayLike<number | bigint>;
  if (d === 'float16') return Array.from(a, (x) => h instanceof Uint16Array ? halfBitsToFloat(Number(x)) : Number(x));
  if (d === 'bfloat16') return Array.from(a, (x) => bf16BitsToFloat(Number(x)));
  if (kind(d) === 'c') return Array.from({ length: a.length / 2 }, (_, i) => ({ re: Number(a[2 * i]), im: Number(a[2 * i + 1]) }));
  return Array.from(a);
}

/** Downloads a GPUArray (C order) as reference values. */
export const download = (a: GPUArray): V[] => decode(a.dtype.name, a.get());

// ---- comparison -------------------------------------------------------------------------------

const ATOL: Record<string, number> = { float16: 8 * 2 ** -24, bfloat16: 8 * 2 ** -133, float32: 8 * 2 ** -149, float64: 8 * 2 ** -1074 };
ATOL.complex64 = ATOL.float32;
ATOL.complex128 = ATOL.float64;

export const show = (v: unknown): string => isC(v) ? `(${show(v.re)}, ${show(v.im)})`
  : typeof v === 'bigint' ? `${v}n` : Object.is(v, -0) ? '-0' : String(v);

function sameNum(g: number, w: number, tol: number, scale: number, atol: number, signedZero = true): boolean {
  if (Number.isNaN(w)) return Number.isNaN(g);
  if (tol === 0) return signedZero ? Object.is(g, w) : g === w;
  if (!Number.isFinite(w) || !Number.isFinite(g)) return g === w;
  return Math.abs(g - w) <= tol * scale + atol;
}

/**
 * Whether `got` matches `want`: exactly (NaN = NaN; -0 ≠ 0 unless `signedZero` is false) or,
 * with `tol`, within `tol` relative (to |want|) plus a few subnormal ulps.
 */
export function same(got: V, want: V, tol = 0, d: DTypeName = 'float64', signedZero = true): boolean {
  const atol = ATOL[d] ?? 0;
  if (isC(want)) {
    if (!isC(got)) return false;
    // A NaN part would make the scale NaN and fail the other part's tolerance: scale by the parts that are numbers.
    const scale = Math.hypot(Number.isNaN(want.re) ? 0 : want.re, Number.isNaN(want.im) ? 0 : want.im);
    return sameNum(got.re, want.re, tol, scale, atol, signedZero) && sameNum(got.im, want.im, tol, scale, atol, signedZero);
  }
  if (typeof want === 'bigint' || typeof got === 'bigint') return got === want;
  return sameNum(got as number, want, tol, Math.abs(want), atol, signedZero);
}

/** Expects equal lengths and every element to match; lists the first mismatches. */
export function expectSame(got: V[], want: V[], tol = 0, d: DTypeName = 'float64', label = '', inputs?: (i: number) => string,
  signedZero = true): void {
  expect(got.length).toBe(want.length);
  const bad: string[] = [];
  for (let i = 0; i < want.length && bad.length < 8; i++) {
    if (!same(got[i], want[i], tol, d, signedZero)) bad.push(`${label}[${i}]${inputs ? ` ${inputs(i)}` : ''}: got ${show(got[i])}, want ${show(want[i])}`);
  }
  expect(bad).toEqual([]);
}

/** Expects `a` to have dtype `d`, shape `shape` and the values `want`. */
export function expectArray(a: GPUArray, d: DTypeName, shape: number[], want: V[], tol = 0, label = '', signedZero = true): void {
  expect(a.dtype.name).toBe(d);
  expect([...a.shape]).toEqual(shape);
  expectSame(download(a), want, tol, d, label, undefined, signedZero);
}

// ---- operators (NumPy 2) ------------------------------------------------------------------------

function smith(r: (x: number) => number, a: C, b: C): C {
  const abr = Math.abs(b.re), abi = Math.abs(b.im);
  if (abr >= abi) {
    if (abr === 0 && abi === 0) return { re: r(a.re / abr), im: r(a.im / abi) };
    const rat = r(b.im / b.re), scl = r(1 / r(b.re + r(b.im * rat)));
    return { re: r(r(a.re + r(a.im * rat)) * scl), im: r(r(a.im - r(a.re * rat)) * scl) };
  }
  const rat = r(b.re / b.im), scl = r(1 / r(b.im + r(b.re * rat)));
  return { re: r(r(r(a.re * rat) + a.im) * scl), im: r(r(r(a.im * rat) - a.re) * scl) };
}

/** C99 pow (differs from Math.pow for pow(1, NaN), pow(±1, ±Inf)). */
export function powC(x: number, y: number): number {
  if (y === 0 || x === 1) return 1;
  if (x === -1 && (y === Infinity || y === -Infinity)) return 1;
  return Math.pow(x, y);
}

/** NumPy's complex power for a non-zero base (zero base: 1, 0 or NaN like npy_cpow). */
export function cpow(a: C, b: C): C {
  if (b.re === 0 && b.im === 0) return { re: 1, im: 0 };
  if (a.re === 0 && a.im === 0) return b.re > 0 && b.im === 0 ? { re: 0, im: 0 } : { re: NaN, im: NaN };
  if (b.im === 0 && b.re > -100 && b.re < 100 && Number.isInteger(b.re)) { // npy_cpow's exact path
    const mul = (x: C, y: C): C => ({ re: x.re * y.re - x.im * y.im, im: x.re * y.im + x.im * y.re });
    const n = b.re;
    if (n === 1) return a;
    if (n === 2) return mul(a, a);
    if (n === 3) return mul(a, mul(a, a));
    let p: C = { re: 1, im: 0 }, aa = a;
    for (let m = Math.abs(n); m; m >>= 1) {
      if (m & 1) p = mul(aa, p);
      if (m > 1) aa = mul(aa, aa);
    }
    if (n > 0) return p;
    if (Math.abs(p.re) >= Math.abs(p.im)) { // 1 / p by Smith's algorithm, as the kernels' complex division
      const rat = p.im / p.re, scl = 1 / (p.re + p.im * rat);
      return { re: scl, im: -rat * scl };
    }
    const rat = p.re / p.im, scl = 1 / (p.im + p.re * rat);
    return { re: rat * scl, im: -scl };
  }
  const lr = Math.log(Math.hypot(a.re, a.im)), th = Math.atan2(a.im, a.re);
  const mr = Math.exp(b.re * lr - b.im * th), ang = b.im * lr + b.re * th;
  return { re: mr * Math.cos(ang), im: mr * Math.sin(ang) };
}

function ipow(d: DTypeName, x: bigint, e: bigint): number | bigint {
  if (e < 0n) return wrap(d, x === 1n ? 1n : x === -1n ? (e & 1n ? -1n : 1n) : 0n);
  const b = BITS[d];
  let r = 1n;
  while (e > 0n) {
    if (e & 1n) r = BigInt.asUintN(b, r * x);
    x = BigInt.asUintN(b, x * x);
    e >>= 1n;
  }
  return wrap(d, r);
}

/** NumPy's npy_divmod for floats, each step rounded to the compute type: [floordiv, mod]. */
export function divmod(r: (x: number) => number, a: number, b: number): [number, number] {
  let mod = a % b;
  if (b === 0) return [r(a / b), mod];
  let div = r(r(a - mod) / b);
  if (mod !== 0) {
    if ((b < 0) !== (mod < 0)) { mod = r(mod + b); div = r(div - 1); }
  } else {
    mod = b < 0 || Object.is(b, -0) ? -0 : 0;
  }
  let fd: number;
  if (div !== 0) {
    fd = Math.floor(div);
    if (r(div - fd) > 0.5) fd = r(fd + 1);
  } else {
    const q = r(a / b);
    fd = q < 0 || Object.is(q, -0) ? -0 : 0;
  }
  return [fd, mod];
}

const lexLt = (a: C, b: C): boolean => a.re < b.re || (a.re === b.re && a.im < b.im);
const lexLe = (a: C, b: C): boolean => a.re < b.re || (a.re === b.re && a.im <= b.im);
const cnan = (a: C): boolean => Number.isNaN(a.re) || Number.isNaN(a.im);
const fnan = (v: Raw): boolean => typeof v === 'number' && Number.isNaN(v);

/** One operator's reference. `d` is the compute dtype (the promoted operand dtype). */
export interface OpRef {
  name: string;
  nin: 1 | 2;
  /** Result dtype for operands of dtype d (NumPy 2), or null where NumPy raises a TypeError. */
  out(d: DTypeName): DTypeName | null;
  /** The result in the compute type (before it is stored in the out dtype). */
  f(d: DTypeName, x: V, y: V): Raw;
  /** Relative tolerance where the GPU's math library may differ by some ulps (0: exact). */
  tol?(d: DTypeName): number;
  /** NumPy leaves the sign of a zero result open (maximum/minimum of -0 and 0: its SIMD loops differ). */
  anyZeroSign?: boolean;
}

const same1 = (d: DTypeName): DTypeName => d;
const toBool = (): DTypeName => 'bool';
const int8IfBool = (d: DTypeName): DTypeName => d === 'bool' ? 'int8' : d;
const intOnly = (d: DTypeName): DTypeName | null => kind(d) === 'f' || kind(d) === 'c' ? null : d;
const noComplex = (d: DTypeName): DTypeName | null => kind(d) === 'c' ? null : int8IfBool(d);
const real = (d: DTypeName): DTypeName => d === 'complex64' ? 'float32' : d === 'complex128' ? 'float64' : d;

function arith(name: string, ints: (a: bigint, b: bigint) => bigint, floats: (a: number, b: number) => number,
  cplx: (r: (x: number) => number, a: C, b: C) => C, bools: (a: number, b: number) => number,
  out: (d: DTypeName) => DTypeName | null = same1, tol?: (d: DTypeName) => number): OpRef {
  return {
    name, nin: 2, out, tol,
    f: (d, x, y) => {
      switch (kind(d)) {
        case 'b': return bools(num(x), num(y));
        case 'i': case 'u': return wrap(d, ints(big(x), big(y)));
        case 'f': return R(d)(floats(num(x), num(y)));
        default: return cplx(R(d), x as C, y as C);
      }
    },
  };
}

function compare(name: string, n: (a: number | bigint, b: number | bigint) => boolean, c: (a: C, b: C) => boolean): OpRef {
  return { name, nin: 2, out: toBool, f: (d, x, y) => kind(d) === 'c' ? c(x as C, y as C) : n(x as number, y as number) };
}

function bitwise(name: string, op: (a: bigint, b: bigint) => bigint): OpRef {
  return { name, nin: 2, out: intOnly, f: (d, x, y) => kind(d) === 'b' ? Number(op(big(x), big(y))) & 1 : wrap(d, op(big(x), big(y))) };
}

function extreme(name: string, pickFirst: (a: V, b: V) => boolean): OpRef {
  return {
    name, nin: 2, out: same1, anyZeroSign: true,
    f: (d, x, y) => {
      if (kind(d) === 'c') return cnan(x as C) ? x : cnan(y as C) ? y : pickFirst(x, y) ? x : y;
      return fnan(x) ? x : fnan(y) ? y : pickFirst(x, y) ? x : y;
    },
  };
}

const POW_TOL: Record<string, number> = {
  float16: 2 ** -9, bfloat16: 2 ** -7, float32: 2 ** -19, float64: 2 ** -48, complex64: 1e-5, complex128: 1e-12,
};
const powTol = (d: DTypeName): number => POW_TOL[d] ?? 0;
const cTol = (d: DTypeName): number => ({ complex64: 1e-6, complex128: 1e-14 } as Record<string, number>)[d] ?? 0;

/** Every operator, by name. */
export const OPS: Record<string, OpRef> = {
  add: arith('add', (a, b) => a + b, (a, b) => a + b, (r, a, b) => ({ re: r(a.re + b.re), im: r(a.im + b.im) }), (a, b) => a | b),
  sub: arith('sub', (a, b) => a - b, (a, b) => a - b, (r, a, b) => ({ re: r(a.re - b.re), im: r(a.im - b.im) }), () => NaN,
    (d) => d === 'bool' ? null : d),
  mul: arith('mul', (a, b) => a * b, (a, b) => a * b,
    (r, a, b) => ({ re: r(r(a.re * b.re) - r(a.im * b.im)), im: r(r(a.re * b.im) + r(a.im * b.re)) }), (a, b) => a & b,
    same1, cTol),
  div: {
    name: 'div', nin: 2, out: (d) => kind(d) === 'f' || kind(d) === 'c' ? d : 'float64', tol: cTol,
    f: (d, x, y) => kind(d) === 'c' ? smith(R(d), x as C, y as C) : R(d)(num(x) / num(y)),
  },
  pow: {
    name: 'pow', nin: 2, out: int8IfBool, tol: powTol,
    f: (d, x, y) => kind(d) === 'c' ? (({ re, im }) => ({ re: R(d)(re), im: R(d)(im) }))(cpow(x as C, y as C))
      : kind(d) === 'f' ? R(d)(powC(num(x), num(y))) : ipow(d === 'bool' ? 'int8' : d, big(x), big(y)),
  },
  mod: {
    name: 'mod', nin: 2, out: noComplex,
    f: (d, x, y) => {
      if (kind(d) === 'f') return divmod(R(d), num(x), num(y))[1];
      const a = big(x), b = big(y);
      if (b === 0n) return 0;
      let m = a % b;
      if (m !== 0n && (m < 0n) !== (b < 0n)) m += b;
      return wrap(d === 'bool' ? 'int8' : d, m);
    },
  },
  floorDiv: {
    name: 'floorDiv', nin: 2, out: noComplex,
    f: (d, x, y) => {
      if (kind(d) === 'f') return divmod(R(d), num(x), num(y))[0];
      const a = big(x), b = big(y);
      if (b === 0n) return 0;
      let q = a / b;
      if (a % b !== 0n && (a < 0n) !== (b < 0n)) q -= 1n;
      return wrap(d === 'bool' ? 'int8' : d, q);
    },
  },
  eq: compare('eq', (a, b) => a === b, (a, b) => a.re === b.re && a.im === b.im),
  ne: compare('ne', (a, b) => a !== b, (a, b) => a.re !== b.re || a.im !== b.im),
  lt: compare('lt', (a, b) => a < b, lexLt),
  le: compare('le', (a, b) => a <= b, lexLe),
  gt: compare('gt', (a, b) => a > b, (a, b) => lexLt(b, a)),
  ge: compare('ge', (a, b) => a >= b, (a, b) => lexLe(b, a)),
  and: bitwise('and', (a, b) => a & b),
  or: bitwise('or', (a, b) => a | b),
  xor: bitwise('xor', (a, b) => a ^ b),
  shl: {
    name: 'shl', nin: 2, out: (d) => intOnly(d) && int8IfBool(d),
    f: (d, x, y) => {
      const t = d === 'bool' ? 'int8' : d, n = big(y);
      return n < 0n || n >= BigInt(BITS[t]) ? 0 : wrap(t, big(x) << n);
    },
  },
  shr: {
    name: 'shr', nin: 2, out: (d) => intOnly(d) && int8IfBool(d),
    f: (d, x, y) => {
      const t = d === 'bool' ? 'int8' : d, n = big(y), a = big(x);
      return n < 0n || n >= BigInt(BITS[t]) ? (a < 0n ? wrap(t, -1n) : 0) : wrap(t, a >> n);
    },
  },
  maximum: extreme('maximum', (a, b) => isC(a) ? lexLe(b as C, a) : (a as number) >= (b as number)),
  minimum: extreme('minimum', (a, b) => isC(a) ? lexLe(a, b as C) : (a as number) <= (b as number)),
  logicalAnd: { name: 'logicalAnd', nin: 2, out: toBool, f: (_d, x, y) => nonzero(x) && nonzero(y) },
  logicalOr: { name: 'logicalOr', nin: 2, out: toBool, f: (_d, x, y) => nonzero(x) || nonzero(y) },
  logicalXor: { name: 'logicalXor', nin: 2, out: toBool, f: (_d, x, y) => nonzero(x) !== nonzero(y) },
  neg: {
    name: 'neg', nin: 1, out: (d) => d === 'bool' ? null : d,
    f: (d, x) => isC(x) ? { re: -x.re, im: -x.im } : isInt(d) ? wrap(d, -big(x)) : -num(x),
  },
  abs: {
    name: 'abs', nin: 1, out: real, tol: (d) => ({ complex64: 2 ** -20, complex128: 2 ** -50 } as Record<string, number>)[d] ?? 0,
    f: (d, x) => isC(x) ? Math.hypot(x.re, x.im) : isInt(d) ? wrap(d, big(x) < 0n ? -big(x) : big(x)) : Math.abs(num(x)),
  },
  not: { name: 'not', nin: 1, out: intOnly, f: (d, x) => d === 'bool' ? !nonzero(x) : wrap(d, ~big(x)) },
  logicalNot: { name: 'logicalNot', nin: 1, out: toBool, f: (_d, x) => !nonzero(x) },
};

// ---- test data ----------------------------------------------------------------------------------

const FLOATS = [0, -0, 1, -1, 0.5, -2.5, 3, 7.25, -7, NaN, Infinity, -Infinity];
const EXTREME: Record<string, [number, number]> = {
  float16: [60000, 2 ** -24], bfloat16: [3e38, 2 ** -133], float32: [1e30, 2 ** -140], float64: [1e300, 5e-324],
};
const INTS: Record<string, Array<number | bigint>> = {
  int8: [0, 1, -1, 2, -3, 7, 127, -128, 100, -100, 64, -65, 5],
  uint8: [0, 1, 2, 3, 7, 255, 254, 128, 100, 16, 200, 9],
  int16: [0, 1, -1, 2, -3, 15, 32767, -32768, 1000, -1000, 300, 12345, 16],
  uint16: [0, 1, 2, 3, 15, 65535, 65534, 32768, 1000, 300, 40000, 16],
  int32: [0, 1, -1, 2, -3, 31, 2 ** 31 - 1, -(2 ** 31), 65536, -65537, 123456789, 46341, 32],
  uint32: [0, 1, 2, 3, 31, 2 ** 32 - 1, 2 ** 31, 65536, 123456789, 46341, 32],
  int64: [0n, 1n, -1n, 2n, -3n, 63n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 32n, -(2n ** 53n + 1n), 3037000500n, 123456789012345n, 64n],
  uint64: [0n, 1n, 2n, 3n, 63n, 2n ** 64n - 1n, 2n ** 63n, 2n ** 32n + 1n, 2n ** 53n + 1n, 4294967296n, 64n],
};
const COMPLEX: C[] = [[0, 0], [1, 0], [0, 1], [1, 2], [-1.5, 2], [2.5, -0.5], [3, -4], [-0, 0], [NaN, 0], [Infinity, 1], [1, -Infinity]]
  .map(([re, im]) => ({ re, im }));
/** Finite non-zero bases and exponents for complex pow (a zero base is tested on its own). */
export const COMPLEX_POW: [C[], C[]] = [
  [[1, 0], [0, 1], [-1.5, 2], [2.5, -0.5], [0.5, 0.5], [-1, 0], [3, -4]].map(([re, im]) => ({ re, im })),
  [[0, 0], [1, 0], [2, 0], [-1, 0], [0.5, 0], [0, 1], [1.5, -0.5], [3, 0]].map(([re, im]) => ({ re, im })),
];

/** Interesting values of dtype `d`: specials (NaN, ±Inf, -0, extremes, subnormals) and edges. */
export function pool(d: DTypeName): V[] {
  switch (kind(d)) {
    case 'b': return [0, 1];
    case 'i': case 'u': return INTS[d];
    case 'f': {
      const [hi, lo] = EXTREME[d];
      return [...FLOATS, hi, -hi, lo].map((v) => store(d, v));
    }
    default: return COMPLEX.map((v) => store(d, v));
  }
}

/** Every pair of `xs` × `ys`, repeated cyclically up to at least `min` elements (odd lengths reach the tails). */
export function pairs(xs: V[], ys: V[] = xs, min = 67): [V[], V[]] {
  const a: V[] = [], b: V[] = [];
  for (const y of ys) for (const x of xs) { a.push(x); b.push(y); }
  for (let i = 0; a.length < min; i++) { a.push(a[i]); b.push(b[i]); }
  return [a, b];
}

/** A weak JS scalar of dtype d's kind (a Python scalar in NumPy terms) and its value in d. */
export function scalarFor(d: DTypeName): { js: number | boolean | C; v: V } {
  switch (kind(d)) {
    case 'b': return { js: true, v: 1 };
    case 'i': return { js: -3, v: store(d, -3) };
    case 'u': return { js: 3, v: store(d, 3) };
    case 'f': return { js: 2.5, v: 2.5 };
    default: return { js: { re: 1.5, im: -2 }, v: { re: 1.5, im: -2 } };
  }
}

/** Elements of a C-order view: `shape` with element strides/offset into a flat base. */
export function viewOf<T>(base: T[], shape: number[], strides: number[], offset = 0): T[] {
  const out: T[] = [];
  const walk = (k: number, off: number): void => {
    if (k === shape.length) { out.push(base[off]); return; }
    for (let i = 0; i < shape[k]; i++) walk(k + 1, off + i * strides[k]);
  };
  walk(0, offset);
  return out;
}

/** Elementwise map over NumPy broadcasting of two C-order arrays. */
export function broadcast2<T, U>(a: T[], sa: number[], b: T[], sb: number[], f: (x: T, y: T) => U): { shape: number[]; out: U[] } {
  const nd = Math.max(sa.length, sb.length);
  const pa = [...Array(nd - sa.length).fill(1), ...sa], pb = [...Array(nd - sb.length).fill(1), ...sb];
  const shape = pa.map((n, i) => Math.max(n, pb[i]));
  const str = (s: number[]): number[] => s.map((_, i) => s[i] === 1 ? 0 : s.slice(i + 1).reduce((p, q) => p * q, 1));
  const ta = str(pa), tb = str(pb);
  const out: U[] = [];
  const walk = (k: number, oa: number, ob: number): void => {
    if (k === nd) { out.push(f(a[oa], b[ob])); return; }
    for (let i = 0; i < shape[k]; i++) walk(k + 1, oa + i * ta[k], ob + i * tb[k]);
  };
  walk(0, 0, 0);
  return { shape, out };
}

/**
 * Independent checks that all run: `check(fn)` records a failure instead of stopping, `done()`
 * throws one error listing every failure (one bug does not hide the checks after it).
 */
export function softly(): { (fn: () => unknown): void; done(): void } {
  const errors: string[] = [];
  const check = (fn: () => unknown): void => {
    try {
      fn();
    } catch (e) {
      const src = fn.toString().replace(/\s+/g, ' ').replace(/^\(\) => /, '')
        .replace(/\(0, \w+_1\.(\w+)\)/g, '$1').replace(/\b\w+_1\./g, '').slice(0, 140); // as written, not as compiled
      errors.push(`✗ ${src}\n${String((e as Error).message ?? e).split('\n').slice(0, 12).join('\n')}`);
    }
  };
  return Object.assign(check, {
    done(): void {
      if (errors.length) throw new Error(`${errors.length} check(s) failed:\n\n${errors.join('\n\n')}`);
    },
  });
}
