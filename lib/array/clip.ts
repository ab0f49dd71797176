/**
 * clip, isclose and allclose with NumPy 2 semantics: one elementwise kernel each (clip follows
 * NumPy's own clip loop; isclose compares |a - b| <= atol + rtol * |b| without fused multiply-add).
 * Split from shapes.ts, which keeps the shape functions.
 */
import { DTYPES, DType } from '../base/dtype';
import { checkedOptions, describe, rangeError, typeError } from '../base/errors';
import { resultType } from '../base/promote';
import { Stream } from '../cuda/driver';
import { GPUArray, arrayArg } from './gpuarray';
import { registerArrayMethods } from './methods';
import { OpOptions, Operand, Parsed, elementwise, operandType, parse } from './operators';

/** A bound of clip(): an array (broadcast), a JS or typed scalar, or null/undefined for none. */
export type ClipBound = Operand | null | undefined;

/** Options of isclose() and allclose(). */
export interface IscloseOptions {
  /** Relative tolerance (default 1e-5): a finite number ≥ 0. */
  rtol?: number;
  /** Absolute tolerance (default 1e-8): a finite number ≥ 0. */
  atol?: number;
  /** NaN compares equal to NaN (default false). */
  equalNan?: boolean;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

/** Options of isclose(): IscloseOptions and an `out` for the bool result. */
export interface IscloseOutOptions extends IscloseOptions {
  /** Write the result here (shape of the broadcast operands; any dtype: bool casts 'same_kind' to all). */
  out?: GPUArray;
}

// ---- clip -------------------------------------------------------------------------------------

const INT_LIMITS = (d: DType): [bigint, bigint] => {
  const bits = BigInt(d.bytes * 8);
  return d.kind === 'u' ? [0n, (1n << bits) - 1n] : [-(1n << (bits - 1n)), (1n << (bits - 1n)) - 1n];
};

/** A weak (JS) integer, as NumPy's Python int. */
function weakInt(p: Parsed): bigint | null {
  if (p.arr || p.strong) return null;
  const v = p.value;
  if (typeof v === 'bigint') return v;
  return typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : null;
}

/**
 * @internal clip's kernel body for dtype `dt` with a lower (`lo`) and/or upper (`hi`) bound: NumPy's
 * clip loop (clip.cpp), Max(x, lo) = isnan(x) || x > lo ? x : lo, then Min with hi; NaN anywhere wins.
 */
export function clipBody(dt: DType, lo: boolean, hi: boolean): string {
  const nan = dt.kind === 'f' || dt.kind === 'c';
  const keep = (op: string, x: string) => (nan ? `nc_isnan(r0) || r0 ${op} ${x}` : `r0 ${op} ${x}`);
  let body = 'r0 = x0;';
  if (lo) body += ` if (!(${keep('>', 'x1')})) r0 = x1;`;
  if (hi) body += ` if (!(${keep('<', lo ? 'x2' : 'x1')})) r0 = ${lo ? 'x2' : 'x1'};`;
  return body;
}

/**
 * `a` limited to [min, max] elementwise (NumPy 2's clip; also `a.clip(min, max, opts)`). Bounds
 * are arrays (broadcast with `a`) or scalars, either may be null/undefined (neither: a copy). NaN
 * propagates (from `a` or a bound); where min > max the result is max. The result dtype is NumPy 2's
 * (a JS number is a weak Python scalar: int8 with 0 and 100 stays int8, float32 with 0.5 stays
 * float32, int8 with 0.5 gives float64), and as in NumPy a JS integer bound beyond an integer
 * array's range on the side where it cannot bind (min below the minimum, max above the maximum) is
 * dropped, while one that would bind but cannot be stored is a RangeError ERR_OUT_OF_RANGE.
 * `{ out, stream }` as for the operators.
 * @example
 * gpuarray.clip(x, 0, 1);            // each element in [0, 1]
 * gpuarray.clip(x, null, 6, { out: x }); // in place, upper bound only
 * gpuarray.clip(u8, -5, 300);        // uint8: both bounds past the range, a copy of u8
 */
export function clip(a: GPUArray, min?: ClipBound, max?: ClipBound, opts: OpOptions = {}): GPUArray {
  arrayArg(a, 'a');
  opts = checkedOptions(opts, 'clip', ['out', 'stream']);
  let lo = min === null || min === undefined ? null : parse(min, 'clip');
  let hi = max === null || max === undefined ? null : parse(max, 'clip');
  if (a.dtype.kind === 'i' || a.dtype.kind === 'u') {
    const [least, most] = INT_LIMITS(a.dtype);
    const l = lo ? weakInt(lo) : null, h = hi ? weakInt(hi) : null;
    if (l !== null && l <= least) lo = null;
    if (h !== null && h >= most) hi = null;
  }
  const inputs: Parsed[] = [{ arr: a }];
  if (lo) inputs.push(lo);
  if (hi) inputs.push(hi);
  const dt = resultType(...inputs.map(operandType));
  return elementwise('clip', clipBody(dt, !!lo, !!hi), inputs, inputs.map(() => dt), dt, dt, opts);
}

// ---- isclose, allclose ------------------------------------------------------------------------

const ISCLOSE_KEYS = ['rtol', 'atol', 'equalNan', 'stream'];

function tolerance(v: unknown, dflt: number, what: string): number {
  if (v === undefined) return dflt;
  if (typeof v !== 'number') throw typeError('ERR_INVALID_ARG_TYPE', `${what} must be a number. Received ${describe(v)}`);
  if (!Number.isFinite(v) || v < 0) throw rangeError('ERR_OUT_OF_RANGE', `${what} must be a finite number ≥ 0. Received ${v}`);
  return v;
}

type CloseOptions = IscloseOutOptions & { rtol: number; atol: number };

function closeOptions(opts: IscloseOutOptions | undefined, what: string, keys: string[]): CloseOptions {
  const o = checkedOptions(opts, what, keys);
  if (o.equalNan !== undefined && typeof o.equalNan !== 'boolean') {
    throw typeError('ERR_INVALID_ARG_TYPE', `${what}: equalNan must be a boolean. Received ${describe(o.equalNan)}`);
  }
  return { ...o, rtol: tolerance(o.rtol, 1e-5, `${what}: rtol`), atol: tolerance(o.atol, 1e-8, `${what}: atol`) };
}

/**
 * @internal The dtype isclose's tolerances are passed in for a b of dtype `d`: its real part type
 * (float16/bfloat16 stay themselves: the scalars are rounded to them, as NumPy's weak floats are).
 */
export const realOf = (d: DType): DType => (d.kind === 'c' ? (d.name === 'complex64' ? DTYPES.float32 : DTYPES.float64) : d);

/** `e` (a float) rounded to a 16-bit float dtype `d` and back, as NumPy's float16 loops round each result. */
function round16(d: DType, e: string): string {
  return d.name === 'float16' ? `nc_h2f(nc_f2h(${e}))` : d.name === 'bfloat16' ? `nc_bf2f(nc_f2bf(${e}))` : e;
}

/**
 * @internal isclose's kernel body: x0 in the common dtype `c`, x1 (b) in `y`, x2 = atol and x3 =
 * rtol in y's real type. NumPy: |a - b| <= atol + rtol·|b| and b finite, or a == b (so ±Inf equals
 * itself). Each step rounds like NumPy's ufunc of it: the multiply and the add separately (no FMA),
 * float16/bfloat16 results to 16 bits.
 */
export function closeBody(c: DType, y: DType, equalNan: boolean): string {
  const rc = realOf(c).computeC, ry = realOf(y).computeC;
  const f = (t: string) => (t === 'double' ? '' : 'f'); // fabsf/hypotf for float
  const b = c === y ? 'x1' : `${c.computeC}(x1)`;
  const absY = y.kind === 'c' ? `hypot${f(ry)}(x1.re, x1.im)` : `fabs${f(ry)}(x1)`;
  const finite = y.kind === 'c' ? 'isfinite(x1.re) && isfinite(x1.im)' : 'isfinite(x1)';
  const diff = c.kind === 'c'
    ? `const ${c.computeC} nc_e = x0 - ${b}; const ${rc} nc_d = hypot${f(rc)}(nc_e.re, nc_e.im);`
    : `const ${rc} nc_d = ${round16(c, `fabs${f(rc)}(x0 - ${b})`)};`;
  const rn = ry === 'double' ? 'd' : 'f';
  const t = round16(y, `__${rn}add_rn(x2, ${round16(y, `__${rn}mul_rn(x3, ${absY})`)})`);
  return `${diff} const ${ry} nc_t = ${t}; ` +
    `r0 = (nc_d <= nc_t && ${finite}) || x0 == ${b}${equalNan ? ' || (nc_isnan(x0) && nc_isnan(x1))' : ''};`;
}

/**
 * Elementwise "a is close to b" → bool array (NumPy's isclose): |a − b| ≤ atol + rtol·|b| where b
 * is finite, or a == b (so ±Inf matches only itself); NaN matches NaN only with `equalNan`. Not
 * symmetric (rtol scales |b|). As in NumPy, an integer or bool b becomes float64 first and the
 * comparison runs in the dtype a and b promote to (so integers compare in float64), each step
 * rounded as NumPy's (float16 results to float16). One operand may be a JS scalar; shapes
 * broadcast. `rtol` and `atol` are numbers, finite and ≥ 0 (RangeError ERR_OUT_OF_RANGE; NumPy
 * only warns about non-finite ones and also takes arrays).
 * @example
 * gpuarray.isclose(x, y);                          // bool array
 * gpuarray.isclose(x, 0, { atol: 1e-6, rtol: 0 });
 * gpuarray.isclose(x, y, { equalNan: true });
 */
export function isclose(a: Operand, b: Operand, opts: IscloseOutOptions = {}): GPUArray {
  const o = closeOptions(opts, 'isclose', [...ISCLOSE_KEYS, 'out']);
  const x = parse(a, 'isclose'), y0 = parse(b, 'isclose');
  if (!x.arr && !y0.arr) throw typeError('ERR_INVALID_ARG_TYPE', 'isclose: at least one operand must be a GPUArray');
  // NumPy makes b inexact first (result_type(b, 1.0): ints and bool become float64); a weak b
  // takes part in promotion as a Python float and is converted to the common dtype.
  const strong = y0.arr?.dtype ?? y0.strong;
  const y = strong && (strong.kind === 'f' || strong.kind === 'c' ? strong : DTYPES.float64);
  const c = resultType(operandType(x), y ?? (typeof y0.value === 'object' ? y0.value : 0.5));
  const yc = y ?? c;
  const tol = realOf(yc);
  const inputs: Parsed[] = [x, y0, { value: o.atol }, { value: o.rtol }];
  return elementwise('isclose', closeBody(c, yc, !!o.equalNan), inputs, [c, yc, tol, tol], DTYPES.bool, DTYPES.bool,
    { out: o.out, stream: o.stream });
}

/**
 * Whether every element of isclose(a, b, opts) is true, as a JS boolean (NumPy's allclose: waits
 * for the stream and reads the answer back). Empty arrays are all close.
 * @example
 * if (!gpuarray.allclose(result, expected, { rtol: 1e-4 })) throw new Error('mismatch');
 */
export function allclose(a: Operand, b: Operand, opts: IscloseOptions = {}): boolean {
  const o = closeOptions(opts, 'allclose', ISCLOSE_KEYS);
  const close = isclose(a, b, o);
  try {
    const all = close.all({ stream: o.stream });
    try {
      o.stream?.synchronize();
      return Boolean(all.item());
    } finally {
      all.dispose();
    }
  } finally {
    close.dispose();
  }
}

registerArrayMethods({ clip });
