/**
 * Type promotion with NumPy 2 rules (NEP 50) over the dtype table: arrays and typed scalars are
 * "strong" dtypes; plain JS values are "weak" Python scalars that take the dtype of the strong
 * operands when their kind allows it. Also NumPy's casting rules (`can_cast`).
 */
import { Complex, DTYPES, DType, DTypeLike, DTypeName, dtype as toDType } from './dtype';
import { describe, rangeError, typeError } from './errors';

/** NumPy casting rules, from strictest to anything goes. */
export type Casting = 'no' | 'equiv' | 'safe' | 'same_kind' | 'unsafe';

/**
 * An operand of {@link resultType}. Strong: a dtype (row or name) or anything with a `dtype`
 * (a GPUArray, a typed scalar like `cuda.float32(1)`). Weak (Python scalars): an integer-valued
 * number or a bigint (Python int), any other number incl. NaN/±Infinity (Python float), a
 * boolean (Python bool), `{re, im}` (Python complex).
 */
export type Operand = DType | DTypeName | {
  /** The dtype the operand promotes as (a GPUArray's or a typed scalar's). */
  readonly dtype: DType;
} | number | bigint | boolean | Complex;

/** Weak scalar kinds in promotion order. */
const Weak = { None: -1, Bool: 0, Int: 1, Float: 2, Complex: 3 } as const;

const T = DTYPES;
const FLOAT_BY_BITS: Record<number, DType> = { 16: T.float16, 32: T.float32, 64: T.float64 };
const COMPLEX_BY_BITS: Record<number, DType> = { 16: T.complex64, 32: T.complex64, 64: T.complex128 };
const INT_BY_BYTES: Record<number, DType> = { 1: T.int8, 2: T.int16, 4: T.int32, 8: T.int64 };
/**
 * NumPy's type numbers (Linux: int64 is `long`): the dtype with the highest one leads the
 * promotion of a sequence (float16 is last, so it leads), as in `PyArray_PromoteDTypeSequence`.
 * bfloat16 is not NumPy's (ml_dtypes registers it after the built-ins): one more.
 */
const TYPE_NUM: Record<DTypeName, number> = {
  bool: 0, int8: 1, uint8: 2, int16: 3, uint16: 4, int32: 5, uint32: 6, int64: 7, uint64: 8,
  float32: 11, float64: 12, complex64: 14, complex128: 15, float16: 23, bfloat16: 24,
};
/** NumPy's kind ordering for 'same_kind' casts: b < u < i < f < c. */
const KIND_ORDER: Record<DType['kind'], number> = { b: 0, u: 1, i: 2, f: 3, c: 4 };

/**
 * Bits of the smallest float that holds every value of `d` exactly enough for NumPy (its
 * component width for complex): int8/uint8 → 16, int16/uint16 → 32, wider ints → 64.
 */
function floatBits(d: DType): number {
  switch (d.kind) {
    case 'b': return 16;
    case 'f': return d.bytes * 8;
    case 'c': return d.bytes * 4;
    default: return d.bytes === 1 ? 16 : d.bytes === 2 ? 32 : 64;
  }
}

function isDType(v: unknown): v is DType {
  return typeof v === 'object' && v !== null && (DTYPES as Record<string, unknown>)[(v as DType).name] === v;
}

/**
 * PyTorch's promotion of bfloat16 (NumPy has none) with `o`: bool and every integer → bfloat16,
 * float16 → float32, float32/float64/complex → `o` (complex64 for complex64, as torch).
 */
function withBf16(o: DType): DType {
  if (o.kind === 'b' || o.kind === 'i' || o.kind === 'u') return T.bfloat16;
  return o === T.float16 ? T.float32 : o;
}

/**
 * NumPy's `promote_types` for two dtypes: the smallest dtype both cast to safely (uint64 with a
 * signed integer gives float64, as in NumPy). bfloat16 follows PyTorch: with bool or any integer
 * it stays bfloat16, with float16 it gives float32, with float32/float64/complex64/complex128 that
 * type.
 * @example
 * promoteTypes(dtype('uint8'), dtype('int8')).name === 'int16';
 * promoteTypes('bfloat16', 'float16').name === 'float32';
 */
export function promoteTypes(a: DTypeLike, b: DTypeLike): DType {
  const x = toDType(a);
  const y = toDType(b);
  if (x === y) return x;
  if (x === T.bfloat16) return withBf16(y);
  if (y === T.bfloat16) return withBf16(x);
  if (y.kind === 'b') return x;
  if (x.kind === 'b') return y;
  if (x.kind === 'f' || x.kind === 'c' || y.kind === 'f' || y.kind === 'c') {
    const bits = Math.max(floatBits(x), floatBits(y));
    return (x.kind === 'c' || y.kind === 'c' ? COMPLEX_BY_BITS : FLOAT_BY_BITS)[bits];
  }
  if (x.kind === y.kind) return x.bytes >= y.bytes ? x : y;
  const [u, i] = x.kind === 'u' ? [x, y] : [y, x];
  if (u.bytes < i.bytes) return i;
  return u.bytes === 8 ? T.float64 : INT_BY_BYTES[u.bytes * 2];
}

function intRange(d: DType): [bigint, bigint] {
  const bits = BigInt(d.bytes * 8);
  return d.kind === 'u' ? [0n, (1n << bits) - 1n] : [-(1n << (bits - 1n)), (1n << (bits - 1n)) - 1n];
}

/**
 * The result dtype of an operation on `operands` (NumPy 2 `result_type`, NEP 50). Strong dtypes
 * promote as NumPy's `result_type` does (led by the highest type; not a pairwise fold). Weak scalars
 * never widen a strong dtype of their kind or higher: `int8 + 1 → int8`, `float32 + 1.5 →
 * float32`, but `int8 + 1.5 → float64`. Only weak operands give int64 / float64 / complex128 /
 * bool. An integer scalar that does not fit an integer result is a RangeError `ERR_OUT_OF_RANGE`
 * (NumPy 2's OverflowError: `uint8 + 300`, `uint8 + -1`).
 * @example
 * resultType(dtype('int8'), 1).name === 'int8';
 * resultType(dtype('int32'), dtype('float32')).name === 'float64';
 * resultType(dtype('float32'), { re: 0, im: 1 }).name === 'complex64';
 */
export function resultType(...operands: Operand[]): DType {
  if (operands.length === 0) {
    throw typeError('ERR_MISSING_ARGS', 'resultType() needs at least one dtype or scalar');
  }
  const strongs: DType[] = [];
  let weak: number = Weak.None;
  const ints: bigint[] = [];
  for (const op of operands) {
    if (typeof op === 'number') {
      if (Number.isInteger(op)) {
        weak = Math.max(weak, Weak.Int);
        ints.push(BigInt(op));
      } else {
        weak = Math.max(weak, Weak.Float);
      }
    } else if (typeof op === 'bigint') {
      weak = Math.max(weak, Weak.Int);
      ints.push(op);
    } else if (typeof op === 'boolean') {
      weak = Math.max(weak, Weak.Bool);
    } else if (typeof op === 'string' || isDType(op)) {
      strongs.push(toDType(op));
    } else if (typeof op === 'object' && op !== null && isDType((op as { dtype?: unknown }).dtype)) {
      strongs.push((op as { dtype: DType }).dtype);
    } else if (typeof op === 'object' && op !== null && typeof (op as Complex).re === 'number'
      && typeof (op as Complex).im === 'number') {
      weak = Weak.Complex;
    } else {
      throw typeError('ERR_INVALID_ARG_TYPE',
        `Expected a dtype, an array, a number, a bigint, a boolean or {re, im}. Received ${describe(op)}`);
    }
  }
  const out = combine(promoteSequence(strongs), weak);
  if ((out.kind === 'i' || out.kind === 'u') && ints.length > 0) {
    const [lo, hi] = intRange(out);
    for (const v of ints) {
      if (v < lo || v > hi) {
        throw rangeError('ERR_OUT_OF_RANGE', `Integer ${v} out of bounds for ${out.name} (range ${lo} to ${hi})`);
      }
    }
  }
  return out;
}

/**
 * Promotes several strong dtypes as NumPy does (pairwise promotion is not associative): the dtype
 * with the highest type number leads, every other one is promoted with it, and those results are
 * promoted together. So int8, uint8, float16 → float16 (not float32) in any order.
 */
function promoteSequence(dts: readonly DType[]): DType | null {
  if (dts.length === 0) return null;
  const main = dts.reduce((m, d) => (TYPE_NUM[d.name] > TYPE_NUM[m.name] ? d : m));
  return dts.reduce((r, d) => promoteTypes(r, promoteTypes(main, d)), main);
}

/** Combines the promoted strong dtype with the highest weak scalar kind (NEP 50). */
function combine(strong: DType | null, weak: number): DType {
  if (!strong) {
    return [T.bool, T.int64, T.float64, T.complex128][weak];
  }
  const k = strong.kind;
  switch (weak) {
    case Weak.Int: return k === 'b' ? T.int64 : strong;
    case Weak.Float: return k === 'f' || k === 'c' ? strong : T.float64;
    case Weak.Complex: return k === 'c' ? strong : k === 'f' ? COMPLEX_BY_BITS[floatBits(strong)] : T.complex128;
    default: return strong;
  }
}

/**
 * The dtype of a true division (`/`) of arrays of `dt`: bool and integers give float64, floats
 * and complex keep their type (float16 stays float16).
 * @example
 * trueDivideType('int32').name === 'float64'; trueDivideType('float32').name === 'float32';
 */
export function trueDivideType(dt: DTypeLike): DType {
  const d = toDType(dt);
  return d.kind === 'f' || d.kind === 'c' ? d : T.float64;
}

function canCastSafely(f: DType, t: DType): boolean {
  if (f === t || f.kind === 'b') return true;
  switch (t.kind) {
    case 'b': return false;
    case 'i': return (f.kind === 'i' && t.bytes >= f.bytes) || (f.kind === 'u' && t.bytes > f.bytes);
    case 'u': return f.kind === 'u' && t.bytes >= f.bytes;
    // float16 and bfloat16 each hold values the other cannot (range / precision).
    case 'f': return f.kind !== 'c' && floatBits(f) <= floatBits(t) && !(f.bytes === 2 && f.kind === 'f' && t.bytes === 2);
    case 'c': return floatBits(f) <= floatBits(t);
  }
}

/**
 * NumPy's `can_cast(from, to, casting)` for dtypes. `'safe'`: every value survives (int64 →
 * float64 counts as safe, as in NumPy); `'same_kind'` (NumPy's default for ufunc `out=`): safe
 * or towards a kind at least as high in bool < unsigned < signed < float < complex (so float64 →
 * float32 and uint → int pass, int → uint and float → int do not); `'unsafe'`: anything;
 * `'no'`/`'equiv'`: the same dtype.
 * @example
 * canCast('int64', 'float64', 'safe') === true; canCast('float64', 'int32', 'same_kind') === false;
 */
export function canCast(from: DTypeLike, to: DTypeLike, casting: Casting = 'safe'): boolean {
  const f = toDType(from);
  const t = toDType(to);
  switch (casting) {
    case 'no': case 'equiv': return f === t;
    case 'safe': return canCastSafely(f, t);
    case 'same_kind': return canCastSafely(f, t) || KIND_ORDER[f.kind] <= KIND_ORDER[t.kind];
    case 'unsafe': return true;
    default:
      throw typeError('ERR_INVALID_ARG_VALUE',
        `casting must be 'no', 'equiv', 'safe', 'same_kind' or 'unsafe'. Received ${describe(casting)}`);
  }
}
