/**
 * The dtype table: one frozen row per element type, driving codegen (C, storage, compute and
 * accumulator types, C spellings), host copies (TypedArray), kernel-argument packing (bytes,
 * alignment, PyCUDA struct letter) and promotion (kind, rank).
 */
import { describe, rangeError, typeError } from './errors';

/** Names of the element types. */
export type DTypeName =
  | 'bool' | 'int8' | 'uint8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'int64' | 'uint64'
  | 'float16' | 'bfloat16' | 'float32' | 'float64' | 'complex64' | 'complex128';

/** A TypedArray constructor. */
export type TypedArrayConstructor =
  | Int8ArrayConstructor | Uint8ArrayConstructor | Int16ArrayConstructor | Uint16ArrayConstructor
  | Int32ArrayConstructor | Uint32ArrayConstructor | BigInt64ArrayConstructor
  | BigUint64ArrayConstructor | Float32ArrayConstructor | Float64ArrayConstructor;

/** One row of the dtype table. */
export interface DType {
  /** The dtype's name, e.g. `'float32'`. */
  readonly name: DTypeName;
  /** C type used in generated kernels. */
  readonly ctype: string;
  /** Bytes per element. */
  readonly bytes: number;
  /** Alignment in a kernel parameter buffer. */
  readonly align: number;
  /** b(ool), i(nt), u(nsigned), f(loat), c(omplex). */
  readonly kind: 'b' | 'i' | 'u' | 'f' | 'c';
  /** Host array type (complex: interleaved re/im; float16 and bfloat16: Uint16Array bits). */
  readonly array: TypedArrayConstructor;
  /** PyCUDA/struct letter for prepare(). */
  readonly letter: string;
  /** Order within its kind for promotion. */
  readonly rank: number;
  /** Storage C type in nodecuda's generated kernels (templates/preamble.ts: nc_bool, nc_half, nc_c64…). */
  readonly storageC: string;
  /** Compute C type in generated kernels (float16/bfloat16 compute in float, complex in nc_c64_t/nc_c128_t). */
  readonly computeC: string;
  /** Accumulator C type of reductions and scans (small types widened to 32 bits). */
  readonly accC: string;
  /** Bytes of `accC`. */
  readonly accBytes: number;
  /** Integers and bool: the unsigned C type they accumulate in (wrapping, no signed-overflow UB); '' otherwise. */
  readonly accUnsignedC: string;
  /** Signed integers: the same-width unsigned C type that wrapping arithmetic goes through; '' otherwise. */
  readonly twinC: string;
  /** C spellings of this type in kernel parameter lists (`unsigned short int`, `uint16_t`…). */
  readonly cNames: readonly string[];
}

/** The C columns of a row; unset ones default to the row's `ctype` (and `bytes`, '' for the unsigned ones). */
interface CColumns {
  storageC?: string;
  computeC?: string;
  accC?: string;
  accBytes?: number;
  accUnsignedC?: string;
  twinC?: string;
  cNames: readonly string[];
}

function row(name: DTypeName, ctype: string, bytes: number, kind: DType['kind'],
  array: TypedArrayConstructor, letter: string, rank: number, c: CColumns, align = bytes): DType {
  return Object.freeze({
    name, ctype, bytes, align, kind, array, letter, rank,
    storageC: c.storageC ?? ctype, computeC: c.computeC ?? ctype, accC: c.accC ?? ctype,
    accBytes: c.accBytes ?? bytes, accUnsignedC: c.accUnsignedC ?? '', twinC: c.twinC ?? '',
    cNames: Object.freeze(c.cNames.slice()),
  });
}

const UI = 'unsigned int';
const ULL = 'unsigned long long';

/** Every dtype by name. */
export const DTYPES: Readonly<Record<DTypeName, DType>> = Object.freeze({
  bool: row('bool', 'bool', 1, 'b', Uint8Array, '?', 0,
    { storageC: 'nc_bool', accC: 'int', accBytes: 4, accUnsignedC: UI, cNames: ['bool'] }),
  int8: row('int8', 'signed char', 1, 'i', Int8Array, 'b', 1,
    { accC: 'int', accBytes: 4, accUnsignedC: UI, twinC: 'unsigned char', cNames: ['char', 'signed char', 'int8_t'] }),
  uint8: row('uint8', 'unsigned char', 1, 'u', Uint8Array, 'B', 1,
    { accC: UI, accBytes: 4, accUnsignedC: UI, cNames: ['unsigned char', 'uint8_t'] }),
  int16: row('int16', 'short', 2, 'i', Int16Array, 'h', 2,
    { accC: 'int', accBytes: 4, accUnsignedC: UI, twinC: 'unsigned short',
      cNames: ['short', 'short int', 'signed short', 'signed short int', 'int16_t'] }),
  uint16: row('uint16', 'unsigned short', 2, 'u', Uint16Array, 'H', 2,
    { accC: UI, accBytes: 4, accUnsignedC: UI, cNames: ['unsigned short', 'unsigned short int', 'uint16_t'] }),
  int32: row('int32', 'int', 4, 'i', Int32Array, 'i', 3,
    { accUnsignedC: UI, twinC: UI, cNames: ['int', 'signed', 'signed int', 'int32_t'] }),
  uint32: row('uint32', 'unsigned int', 4, 'u', Uint32Array, 'I', 3,
    { accUnsignedC: UI, cNames: ['unsigned', 'unsigned int', 'uint32_t'] }),
  int64: row('int64', 'long long', 8, 'i', BigInt64Array, 'q', 4,
    { accUnsignedC: ULL, twinC: ULL,
      cNames: ['long', 'long int', 'long long', 'long long int', 'int64_t', 'ptrdiff_t', 'ssize_t'] }),
  uint64: row('uint64', 'unsigned long long', 8, 'u', BigUint64Array, 'Q', 4,
    { accUnsignedC: ULL,
      cNames: ['unsigned long', 'unsigned long int', 'unsigned long long', 'unsigned long long int', 'uint64_t', 'size_t'] }),
  float16: row('float16', '__half', 2, 'f', Uint16Array, 'e', 1,
    { storageC: 'nc_half', computeC: 'float', accC: 'float', accBytes: 4, cNames: ['__half', 'half'] }),
  // bfloat16: the top 16 bits of a float32 (8-bit exponent, 8-bit significand). Not a NumPy type:
  // its prepare() letter 'E' is ours (capital of half's 'e'); promotion follows PyTorch.
  bfloat16: row('bfloat16', '__nv_bfloat16', 2, 'f', Uint16Array, 'E', 1,
    { storageC: 'nc_bf16', computeC: 'float', accC: 'float', accBytes: 4, cNames: ['__nv_bfloat16', 'nv_bfloat16'] }),
  float32: row('float32', 'float', 4, 'f', Float32Array, 'f', 2, { cNames: ['float'] }),
  float64: row('float64', 'double', 8, 'f', Float64Array, 'd', 3, { cNames: ['double'] }),
  complex64: row('complex64', 'complex64', 8, 'c', Float32Array, 'F', 2,
    { storageC: 'nc_c64', computeC: 'nc_c64_t', accC: 'nc_c64_t', cNames: [] }, 8),
  complex128: row('complex128', 'complex128', 16, 'c', Float64Array, 'D', 3,
    { storageC: 'nc_c128', computeC: 'nc_c128_t', accC: 'nc_c128_t', cNames: [] }, 16),
});

const BY_C_NAME = new Map<string, DType>();
for (const d of Object.values(DTYPES)) for (const c of d.cNames) BY_C_NAME.set(c, d);

/**
 * The dtype a C type name spells in a kernel parameter list (the `cNames` column: `unsigned int`,
 * `size_t`…), or undefined. Callers add their own extra spellings (texture handles, complex structs).
 * @example
 * dtypeOfCName('unsigned short int') === DTYPES.uint16;
 */
export function dtypeOfCName(name: string): DType | undefined {
  return BY_C_NAME.get(name);
}

/** Anything accepted where a dtype is expected. */
export type DTypeLike = DTypeName | DType | ScalarFactory | TypedArrayConstructor;

const BY_ARRAY = new Map<unknown, DType>([
  [Int8Array, DTYPES.int8], [Uint8Array, DTYPES.uint8], [Int16Array, DTYPES.int16],
  [Uint16Array, DTYPES.uint16], [Int32Array, DTYPES.int32], [Uint32Array, DTYPES.uint32],
  [BigInt64Array, DTYPES.int64], [BigUint64Array, DTYPES.uint64], [Float32Array, DTYPES.float32],
  [Float64Array, DTYPES.float64], [Uint8ClampedArray, DTYPES.uint8],
]);

/**
 * Resolves a dtype given as a name, a table row, a scalar factory (`cuda.float32`) or a
 * TypedArray constructor (`Float32Array`).
 * @example
 * dtype('float32').bytes === 4; dtype(Float64Array).name === 'float64';
 */
export function dtype(d: DTypeLike): DType {
  if (typeof d === 'string') {
    // Own properties only: 'constructor', 'toString', '__proto__' are not dtypes.
    const r = own(DTYPES, d);
    if (r) return r;
    throw typeError('ERR_INVALID_ARG_VALUE',
      `Unknown dtype "${d}". Known: ${Object.keys(DTYPES).join(', ')}`);
  }
  if (typeof d === 'function') {
    const fromArray = BY_ARRAY.get(d);
    if (fromArray) return fromArray;
    const fromScalar = (d as Partial<ScalarFactory>).dtype;
    if (isDType(fromScalar)) return fromScalar;
  }
  if (isDType(d)) return d;
  throw typeError('ERR_INVALID_ARG_TYPE', `Expected a dtype, got ${describe(d)}`);
}

/**
 * `table[key]` for own properties only: a name that indexes a table never finds Object.prototype's
 * members ('constructor', 'toString', '__proto__'). @internal
 * @example
 * own(DTYPES, 'valueOf') === undefined;
 */
export function own<T>(table: Readonly<Record<string, T>>, key: unknown): T | undefined {
  return typeof key === 'string' && Object.hasOwn(table, key) ? table[key] : undefined;
}

/** Whether `d` is a row of the dtype table (identity, so a look-alike object is refused). */
function isDType(d: unknown): d is DType {
  if (typeof d !== 'object' || d === null) return false;
  return own(DTYPES, (d as DType).name) === d;
}

// Float16Array where the runtime has it (Node 24+): float16 data.
const F16 = (globalThis as { Float16Array?: unknown }).Float16Array;
if (F16) BY_ARRAY.set(F16, DTYPES.float16);

/** The dtype whose host array type is the given TypedArray's (Uint8Array → uint8). */
export function dtypeOfArray(a: ArrayBufferView): DType | undefined {
  return BY_ARRAY.get(a.constructor);
}

// ---- typed scalars ---------------------------------------------------------------------------

/** A complex value. */
export interface Complex {
  /** Real part. */
  re: number;
  /** Imaginary part. */
  im: number;
}

/**
 * A value with a C type, like a NumPy scalar; used as a kernel argument.
 * @example
 * fn(arr, cuda.int32(n), cuda.float32(0.5), { block: [256], grid: [4] });
 */
export class Scalar {
  constructor(
    /** The scalar's dtype. */
    readonly dtype: DType,
    /** The value, already converted to the dtype (bigint for 64-bit integers, {re, im} for complex). */
    readonly value: number | bigint | Complex,
  ) {}
  /** The value as a JS number (bigint for 64-bit integers, {re, im} for complex). */
  valueOf(): number | bigint | Complex { return this.value; }
  /** `dtype(value)`, e.g. `float32(0.5)` or `complex64(1+2j)`. */
  toString(): string {
    const v = this.value;
    return `${this.dtype.name}(${typeof v === 'object' ? `${v.re}${v.im < 0 || Object.is(v.im, -0) ? '-' : '+'}${Math.abs(v.im)}j` : String(v)})`;
  }
}

/** `cuda.float32(x)` and friends: make a Scalar; `.dtype` lets them stand for their dtype. */
export interface ScalarFactory {
  (value: number | bigint | boolean | Complex): Scalar;
  /** The dtype this factory makes scalars of. */
  readonly dtype: DType;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** float → IEEE half bits, round to nearest even (handles NaN, ±Inf, subnormals). */
export function floatToHalfBits(x: number): number {
  if (typeof x !== 'number') throw typeError('ERR_INVALID_ARG_TYPE', `floatToHalfBits() takes a number. Received ${describe(x)}`);
  f32[0] = x;
  const bits = u32[0];
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff;
  let mant = bits & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let h = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    const err = Math.abs(x) - Math.abs(f32[0]);
    if (rem > half || (rem === half && (err > 0 || (err === 0 && (h & 1))))) h++;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  // An exact tie in float32 may not be one in x: the float32 rounding error breaks it.
  const err = Math.abs(x) - Math.abs(f32[0]);
  if (rem > 0x1000 || (rem === 0x1000 && (err > 0 || (err === 0 && (h & 1))))) h++;
  return sign | h;
}

/** IEEE half bits → number. */
export function halfBitsToFloat(h: number): number {
  if (typeof h !== 'number') throw typeError('ERR_INVALID_ARG_TYPE', `halfBitsToFloat() takes a number. Received ${describe(h)}`);
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/**
 * number → bfloat16 bits (the top half of a float32), correctly rounded to nearest even from the
 * double (not float32 then bfloat16, which can round twice); ±Inf, -0 and subnormals kept, values
 * from (2 − 2^-8)·2^127 up overflow to ±Inf, NaN → quiet NaN `0x7fc0` with the sign kept.
 * @example
 * floatToBf16Bits(1) === 0x3f80; floatToBf16Bits(1 + 2 ** -8) === 0x3f80; // tie → even
 */
export function floatToBf16Bits(x: number): number {
  if (typeof x !== 'number') throw typeError('ERR_INVALID_ARG_TYPE', `floatToBf16Bits() takes a number. Received ${describe(x)}`);
  f32[0] = x;
  const bits = u32[0];
  const h = bits >>> 16;
  if (Number.isNaN(x)) return (h & 0x8000) | 0x7fc0;
  const rem = bits & 0xffff;
  // A float32 that lands on a bfloat16 tie may not be one in x: its rounding error breaks it.
  const err = Math.abs(x) - Math.abs(f32[0]);
  // +1 carries into the exponent (0x7f7f → 0x7f80 is +Inf), as round to nearest does.
  return rem > 0x8000 || (rem === 0x8000 && (err > 0 || (err === 0 && (h & 1)))) ? h + 1 : h;
}

/**
 * bfloat16 bits → number (exact: the bits are the top half of a float32).
 * @example
 * bf16BitsToFloat(0x3f80) === 1; bf16BitsToFloat(0xff80) === -Infinity;
 */
export function bf16BitsToFloat(h: number): number {
  if (typeof h !== 'number') throw typeError('ERR_INVALID_ARG_TYPE', `bf16BitsToFloat() takes a number. Received ${describe(h)}`);
  u32[0] = (h & 0xffff) << 16;
  return f32[0];
}

/**
 * @internal float16 and bfloat16 (2-byte floats computing in float32): their bits from a number,
 * rounded to nearest even; undefined for other dtypes.
 */
export function toBits16(d: DType, x: number): number {
  return d.name === 'bfloat16' ? floatToBf16Bits(x) : floatToHalfBits(x);
}

/** @internal The value of float16 or bfloat16 bits `h` of dtype `d`. */
export function fromBits16(d: DType, h: number): number {
  return d.name === 'bfloat16' ? bf16BitsToFloat(h) : halfBitsToFloat(h);
}

/** @internal Whether `d` is float16 or bfloat16: stored as 16-bit patterns, computed in float32. */
export function isFloat16Like(d: DType): boolean {
  return d.name === 'float16' || d.name === 'bfloat16';
}

/** @internal The dtype host code computes `d` in: float32 for float16/bfloat16, else `d`. */
export function computeDType(d: DType): DType {
  return isFloat16Like(d) ? DTYPES.float32 : d;
}

const INT_RANGE: Partial<Record<DTypeName, [bigint, bigint]>> = {
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
};

/** Converts a JS value to what `dt` can hold (C conversion rules: wrap for integers). */
export function coerce(dt: DType, v: unknown, what = 'value'): number | bigint | Complex {
  if (dt.kind === 'c') {
    if (typeof v === 'number') return { re: v, im: 0 };
    if (typeof v === 'object' && v !== null && typeof (v as Complex).re === 'number') {
      const c = v as Complex;
      return { re: c.re, im: typeof c.im === 'number' ? c.im : 0 };
    }
    throw typeError('ERR_INVALID_ARG_TYPE', `${what} must be a number or {re, im} for ${dt.name}, got ${describe(v)}`);
  }
  if (typeof v === 'boolean') v = v ? 1 : 0;
  if (dt.bytes === 8 && (dt.kind === 'i' || dt.kind === 'u')) {
    let b: bigint;
    if (typeof v === 'bigint') b = v;
    else if (typeof v === 'number' && Number.isInteger(v)) b = BigInt(v);
    else throw typeError('ERR_INVALID_ARG_TYPE', `${what} must be an integer or bigint for ${dt.name}, got ${describe(v)}`);
    const [lo, hi] = INT_RANGE[dt.name]!;
    if (b < lo || b > hi) throw rangeError('ERR_OUT_OF_RANGE', `${what} ${b} does not fit in ${dt.name}`);
    return b;
  }
  if (typeof v === 'bigint') v = Number(v);
  if (typeof v !== 'number') {
    throw typeError('ERR_INVALID_ARG_TYPE', `${what} must be a number for ${dt.name}, got ${describe(v)}`);
  }
  return normalize(dt, v);
}

// [min, max] of the integer dtypes narrower than 64 bits, by name.
const NARROW_INT: Partial<Record<DTypeName, readonly [number, number]>> = {
  int8: [-128, 127], uint8: [0, 255], int16: [-32768, 32767], uint16: [0, 65535],
  int32: [-(2 ** 31), 2 ** 31 - 1], uint32: [0, 2 ** 32 - 1],
};

/**
 * Converts a kernel argument for a parameter whose C type is known (`int n` in a signature). A
 * Scalar is an explicit cast and converts like C (`cuda.int32(2 ** 31)` wraps); a plain number or
 * bigint for an integer parameter must be an integer that fits: RangeError `ERR_OUT_OF_RANGE`
 * naming the parameter otherwise (PyCUDA's struct.pack raises too), so -1 never becomes a
 * 4-billion-iteration `unsigned n` and NaN never becomes 0. Floats take any number.
 * @example
 * coerceArg(DTYPES.uint32, 5, 'argument "n"'); // 5
 * coerceArg(DTYPES.uint32, -1, 'argument "n"'); // RangeError ERR_OUT_OF_RANGE
 */
export function coerceArg(dt: DType, v: unknown, what: string): number | bigint | Complex {
  if (v instanceof Scalar) return coerce(dt, v.value, what);
  if (dt.kind === 'i' || dt.kind === 'u') {
    const lim = NARROW_INT[dt.name]; // undefined for 64-bit: coerce() range-checks those
    if (typeof v === 'number') {
      if (Number.isInteger(v) && (!lim || (v >= lim[0] && v <= lim[1]))) return lim ? v : coerce(dt, v, what);
    } else if (typeof v !== 'bigint' || !lim || (v >= BigInt(lim[0]) && v <= BigInt(lim[1]))) {
      return coerce(dt, v, what);
    }
    const [lo, hi] = lim ?? (dt.kind === 'i' ? ['-(2**63)', '2**63-1'] : ['0', '2**64-1']);
    throw rangeError('ERR_OUT_OF_RANGE', `${what} must be an integer in [${lo}, ${hi}] for its C type ` +
      `${dt.ctype}. Received ${typeof v === 'bigint' ? `${v}n` : v}. To convert with C's wrapping, cast ` +
      `explicitly: cuda.${dt.name}(x)`);
  }
  if (dt.name === 'bool' && typeof v === 'number' && Number.isNaN(v)) {
    throw rangeError('ERR_OUT_OF_RANGE', `${what} (C type bool) must be a boolean or a number. Received NaN`);
  }
  return coerce(dt, v, what);
}

/**
 * Checks that a JS number or bigint can be stored in an array of dtype `dt` the way NumPy 2 stores a
 * Python scalar (`np.full(3, v, dtype)`, `np.array([v], dtype)`, `a[...] = v`): for integer dtypes,
 * NaN, ±Infinity and values outside the range after truncation toward zero are a RangeError
 * `ERR_OUT_OF_RANGE` (NumPy's OverflowError / ValueError) instead of wrapping; fractions truncate
 * (1.9 → 1, -1.9 → -1). Other dtypes accept any number. Typed Scalars are not weak: callers convert
 * them with C's rules (unsafe cast) and do not call this.
 * @example
 * checkStorable(DTYPES.int8, 127); // ok
 * checkStorable(DTYPES.uint8, -1); // RangeError ERR_OUT_OF_RANGE
 */
export function checkStorable(dt: DType, v: number | bigint, what = 'value'): void {
  if (dt.kind !== 'i' && dt.kind !== 'u') return;
  if (typeof v === 'number' && !Number.isFinite(v)) {
    throw rangeError('ERR_OUT_OF_RANGE', `${v} (${what}) cannot be stored as ${dt.name}: not a finite number`);
  }
  const b = typeof v === 'bigint' ? v : BigInt(Math.trunc(v));
  const bits = BigInt(dt.bytes * 8);
  const lo = dt.kind === 'i' ? -(1n << (bits - 1n)) : 0n;
  const hi = dt.kind === 'i' ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n;
  if (b < lo || b > hi) {
    throw rangeError('ERR_OUT_OF_RANGE', `${v} (${what}) is out of bounds for ${dt.name} (range ${lo} to ${hi})`);
  }
}

/** The value `dt` really holds after C's conversion: integers truncate and wrap, floats round. */
function normalize(dt: DType, v: number): number {
  switch (dt.name) {
    case 'bool': return v ? 1 : 0;
    case 'float16': return halfBitsToFloat(floatToHalfBits(v));
    case 'bfloat16': return bf16BitsToFloat(floatToBf16Bits(v));
    case 'float32': return Math.fround(v);
    case 'float64': return v;
    default: {
      const t = Number.isFinite(v) ? Math.trunc(v) : 0;
      const bits = dt.bytes * 8;
      const wrapped = Number(BigInt.asUintN(bits, BigInt(t)));
      return dt.kind === 'i' && wrapped >= 2 ** (bits - 1) ? wrapped - 2 ** bits : wrapped;
    }
  }
}

/** Writes a scalar of type `dt` at `offset` (little-endian, as the GPU expects). */
export function writeScalar(view: DataView, offset: number, dt: DType, v: number | bigint | Complex): void {
  switch (dt.name) {
    case 'bool': case 'uint8': view.setUint8(offset, Number(v)); break;
    case 'int8': view.setInt8(offset, Number(v)); break;
    case 'int16': view.setInt16(offset, Number(v), true); break;
    case 'uint16': view.setUint16(offset, Number(v), true); break;
    case 'int32': view.setInt32(offset, Number(v), true); break;
    case 'uint32': view.setUint32(offset, Number(v), true); break;
    case 'int64': view.setBigInt64(offset, BigInt.asIntN(64, v as bigint), true); break;
    case 'uint64': view.setBigUint64(offset, BigInt.asUintN(64, v as bigint), true); break;
    case 'float16': view.setUint16(offset, floatToHalfBits(Number(v)), true); break;
    case 'bfloat16': view.setUint16(offset, floatToBf16Bits(Number(v)), true); break;
    case 'float32': view.setFloat32(offset, Number(v), true); break;
    case 'float64': view.setFloat64(offset, Number(v), true); break;
    case 'complex64':
      view.setFloat32(offset, (v as Complex).re, true);
      view.setFloat32(offset + 4, (v as Complex).im, true);
      break;
    case 'complex128':
      view.setFloat64(offset, (v as Complex).re, true);
      view.setFloat64(offset + 8, (v as Complex).im, true);
      break;
  }
}

function factory(name: DTypeName): ScalarFactory {
  const dt = DTYPES[name];
  const f = (value: number | bigint | boolean | Complex): Scalar => new Scalar(dt, coerce(dt, value, `${name}()`));
  Object.defineProperty(f, 'dtype', { value: dt, enumerable: true });
  Object.defineProperty(f, 'name', { value: name });
  return f as ScalarFactory;
}

// Typed scalar factories, like NumPy's (`cuda.int32(5)`); also usable as dtypes.
/** Makes a bool (C `bool`, 1 byte) Scalar, like NumPy's `bool(x)`; also stands for the dtype. */
export const bool = factory('bool');
/** Makes a int8 (C `signed char`) Scalar, like NumPy's `int8(x)`; also stands for the dtype. */
export const int8 = factory('int8');
/** Makes a uint8 (C `unsigned char`) Scalar, like NumPy's `uint8(x)`; also stands for the dtype. */
export const uint8 = factory('uint8');
/** Makes a int16 (C `short`) Scalar, like NumPy's `int16(x)`; also stands for the dtype. */
export const int16 = factory('int16');
/** Makes a uint16 (C `unsigned short`) Scalar, like NumPy's `uint16(x)`; also stands for the dtype. */
export const uint16 = factory('uint16');
/** Makes a int32 (C `int`) Scalar, like NumPy's `int32(x)`; also stands for the dtype. */
export const int32 = factory('int32');
/** Makes a uint32 (C `unsigned int`) Scalar, like NumPy's `uint32(x)`; also stands for the dtype. */
export const uint32 = factory('uint32');
/** Makes a int64 (C `long long`; takes an integer or a bigint) Scalar, like NumPy's `int64(x)`; also stands for the dtype. */
export const int64 = factory('int64');
/** Makes a uint64 (C `unsigned long long`; takes an integer or a bigint) Scalar, like NumPy's `uint64(x)`; also stands for the dtype. */
export const uint64 = factory('uint64');
/** Makes a float16 (C `__half`) Scalar, like NumPy's `float16(x)`; also stands for the dtype. */
export const float16 = factory('float16');
/**
 * Makes a bfloat16 (C `__nv_bfloat16`: 8-bit exponent like float32, 8-bit significand) Scalar, like
 * PyTorch's `torch.bfloat16` / ml_dtypes' `bfloat16(x)`; also stands for the dtype.
 * @example
 * cuda.bfloat16(1.1).value === 1.1015625;
 */
export const bfloat16 = factory('bfloat16');
/** Makes a float32 (C `float`) Scalar, like NumPy's `float32(x)`; also stands for the dtype. */
export const float32 = factory('float32');
/** Makes a float64 (C `double`) Scalar, like NumPy's `float64(x)`; also stands for the dtype. */
export const float64 = factory('float64');
/** Makes a complex64 (`{ re, im }` of float32s) Scalar, like NumPy's `complex64(x)`; also stands for the dtype. */
export const complex64 = factory('complex64');
/** Makes a complex128 (`{ re, im }` of float64s) Scalar, like NumPy's `complex128(x)`; also stands for the dtype. */
export const complex128 = factory('complex128');
