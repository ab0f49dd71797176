/**
 * cumath (pycuda.cumath + common NumPy ufuncs): elementwise math functions declared as rows of
 * the ufunc dialect (ufunc.ts; docs/design/ufuncs.md) in one table and run on the same path as the
 * GPUArray operators (operators.ts elementwise()). Types follow NumPy 2's loops:
 * float32 stays float32 (the `f` functions), float16 computes in float and stores half, integers
 * and bool promote to the smallest float holding them, complex where NumPy has a loop.
 */
import { DTYPES, DType, own } from '../base/dtype';
import { describe, knownOptions, typeError, rangeError } from '../base/errors';
import { Stream, streamHandle } from '../cuda/driver';
import { GPUArray } from './gpuarray';
import { runElementwise } from '../engine/elementwise';
import { Operand, OpOptions, asOperand, assign, elementwise, operandType, parse, specFor } from './operators';
import { Operand as OperandType, canCast, promoteTypes, resultType } from '../base/promote';
import { broadcastShapes } from '../base/shape';
import { UfuncDef, UfuncPlan, UfuncRow, resolve, ufuncTable } from './ufunc';
import { checkDevices } from './devices';
import { checkWritable } from './overlap';

/** Options of the cumath functions. */
export interface MathOptions extends OpOptions {
  /** float32/float16: use the hardware intrinsics (`__sinf`, `__expf`, `__logf` …): faster, less accurate. */
  fastMath?: boolean;
}

/** Options of frexp and modf (two results: `out` is a pair). */
export interface SplitOptions {
  /** Write the two results here (shapes must match; dtypes castable 'same_kind'). */
  out?: [GPUArray, GPUArray];
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}


/** Device helpers the table's complex and integer expressions use. */
export const MATH_PREAMBLE = String.raw`
template <typename T> __device__ __forceinline__ T nc_sign(T x) {
  return x > 0 ? (T)1 : (x < (T)0 ? (T)-1 : (x == 0 ? (T)0 : x));
}
template <typename T> __device__ __forceinline__ T nc_ifmod(T a, T b) {
  // C remainder (sign of a) like NumPy's integer fmod; 0 for b == 0 and for MIN % -1.
  if (b == 0 || ((T)-1 < (T)0 && b == (T)-1)) return 0;
  return a % b;
}
template <typename T> __device__ __forceinline__ int nc_exponent(T e) {
  return e > (T)100000 ? 100000 : (e < (T)-100000 ? -100000 : (int)e);
}
#define NC_C(R) nc_complex<R>
template <typename R> __device__ __forceinline__ NC_C(R) nc_cexp(NC_C(R) z) {
  if (z.im == 0) return NC_C(R)(exp(z.re), z.im);
  const R e = exp(z.re);
  return NC_C(R)(e * cos(z.im), e * sin(z.im));
}
template <typename R> __device__ __forceinline__ NC_C(R) nc_clog(NC_C(R) z) { return NC_C(R)(log(hypot(z.re, z.im)), atan2(z.im, z.re)); }
template <typename R> __device__ __forceinline__ NC_C(R) nc_cscale(NC_C(R) z, R s) { return NC_C(R)(z.re * s, z.im * s); }
template <typename R> __device__ __forceinline__ NC_C(R) nc_cexp2(NC_C(R) z) { return nc_cexp(nc_cscale(z, (R)0.693147180559945309417)); }
template <typename R> __device__ __forceinline__ NC_C(R) nc_clog2(NC_C(R) z) { return nc_cscale(nc_clog(z), (R)1.44269504088896340736); }
template <typename R> __device__ __forceinline__ NC_C(R) nc_clog10(NC_C(R) z) { return nc_cscale(nc_clog(z), (R)0.434294481903251827651); }
template <typename R> __device__ __forceinline__ NC_C(R) nc_cexpm1(NC_C(R) z) {
  // NumPy's nc_expm1: no cancellation for small |z|.
  const R a = sin(z.im / 2);
  return NC_C(R)(expm1(z.re) * cos(z.im) - 2 * a * a, exp(z.re) * sin(z.im));
}
template <typename R> __device__ __forceinline__ NC_C(R) nc_clog1p(NC_C(R) z) {
  return NC_C(R)(log(hypot(z.re + 1, z.im)), atan2(z.im, z.re + 1));
}
template <typename R> __device__ __forceinline__ NC_C(R) nc_csqrt(NC_C(R) z) {
  if (z.re == 0 && z.im == 0) return NC_C(R)(0, z.im);
  if (isinf(z.im)) return NC_C(R)(fabs(z.im), z.im);
  const R t = sqrt((fabs(z.re) + hypot(z.re, z.im)) / 2);
  if (z.re >= 0) return NC_C(R)(t, z.im / (2 * t));
  return NC_C(R)(fabs(z.im) / (2 * t), copysign(t, z.im));
}
template <typename R> __device__ __forceinline__ NC_C(R) nc_csinh(NC_C(R) z) { return NC_C(R)(sinh(z.re) * cos(z.im), cosh(z.re) * sin(z.im)); }
template <typename R> __device__ __forceinline__ NC_C(R) nc_ccosh(NC_C(R) z) { return NC_C(R)(cosh(z.re) * cos(z.im), sinh(z.re) * sin(z.im)); }
template <typename R> __device__ __forceinline__ NC_C(R) nc_csin(NC_C(R) z) { return NC_C(R)(sin(z.re) * cosh(z.im), cos(z.re) * sinh(z.im)); }
template <typename R> __device__ __forceinline__ NC_C(R) nc_ccos(NC_C(R) z) { return NC_C(R)(cos(z.re) * cosh(z.im), -(sin(z.re) * sinh(z.im))); }
template <typename R> __device__ __forceinline__ NC_C(R) nc_ctanh(NC_C(R) z) {
  // Kahan's algorithm (as C99 ctanh in FreeBSD's libm).
  const R x = z.re, y = z.im;
  if (isnan(x)) return NC_C(R)(x, y == 0 ? y : x);
  if (isinf(x)) return NC_C(R)(copysign((R)1, x), copysign((R)0, isinf(y) ? y : sin(y) * cos(y)));
  if (!isfinite(y)) return NC_C(R)(y - y, y - y);
  if (fabs(x) >= (sizeof(R) == 4 ? (R)9 : (R)22)) {
    return NC_C(R)(copysign((R)1, x), 4 * sin(y) * cos(y) * exp(-2 * fabs(x)));
  }
  const R t = tan(y), beta = 1 + t * t, s = sinh(x), rho = sqrt(1 + s * s), den = 1 + beta * s * s;
  return NC_C(R)(beta * rho * s / den, t / den);
}
template <typename R> __device__ __forceinline__ NC_C(R) nc_ctan(NC_C(R) z) {
  const NC_C(R) w = nc_ctanh(NC_C(R)(-z.im, z.re)); // tan z = -i tanh(iz)
  return NC_C(R)(w.im, -w.re);
}
template <typename R> __device__ __forceinline__ NC_C(R) nc_casin(NC_C(R) z) {
  // asin z = -i log(iz + sqrt(1 - z^2))
  const NC_C(R) w = nc_clog(NC_C(R)(-z.im, z.re) + nc_csqrt(NC_C(R)(1, 0) - z * z));
  return NC_C(R)(w.im, -w.re);
}
template <typename R> __device__ __forceinline__ NC_C(R) nc_cacos(NC_C(R) z) {
  // acos z = -i log(z + i sqrt(1 - z^2))
  const NC_C(R) s = nc_csqrt(NC_C(R)(1, 0) - z * z);
  const NC_C(R) w = nc_clog(z + NC_C(R)(-s.im, s.re));
  return NC_C(R)(w.im, -w.re);
}
template <typename R> __device__ __forceinline__ NC_C(R) nc_catan(NC_C(R) z) {
  // atan z = (i/2) (log(1 - iz) - log(1 + iz))
  const NC_C(R) d = nc_clog(NC_C(R)(1 + z.im, -z.re)) - nc_clog(NC_C(R)(1 - z.im, z.re));
  return NC_C(R)(-d.im / 2, d.re / 2);
}
template <typename R> __device__ __forceinline__ NC_C(R) nc_casinh(NC_C(R) z) {
  // asinh z = -i asin(iz)
  const NC_C(R) w = nc_casin(NC_C(R)(-z.im, z.re));
  return NC_C(R)(w.im, -w.re);
}
template <typename R> __device__ __forceinline__ NC_C(R) nc_cacosh(NC_C(R) z) {
  // acosh z = log(z + sqrt(z + 1) sqrt(z - 1)): the principal branch (DLMF 4.37.21)
  return nc_clog(z + nc_csqrt(z + NC_C(R)(1, 0)) * nc_csqrt(z - NC_C(R)(1, 0)));
}
template <typename R> __device__ __forceinline__ NC_C(R) nc_catanh(NC_C(R) z) {
  // atanh z = -i atan(iz) = (log(1 + z) - log(1 - z)) / 2
  const NC_C(R) w = nc_catan(NC_C(R)(-z.im, z.re));
  return NC_C(R)(w.im, -w.re);
}
template <typename R> __device__ __forceinline__ NC_C(R) nc_crint(NC_C(R) z) { return NC_C(R)(rint(z.re), rint(z.im)); }
template <typename R> __device__ __forceinline__ NC_C(R) nc_csign(NC_C(R) z) {
  // NumPy 2: z / |z| (0 for 0; unit along an infinite part; NaN when both are infinite or any is NaN).
  const R a = hypot(z.re, z.im);
  if (isnan(a) || (isinf(z.re) && isinf(z.im))) { const R n = (R)__int_as_float(0x7fc00000); return NC_C(R)(n, n); }
  if (isinf(a)) return isinf(z.re) ? NC_C(R)(copysign((R)1, z.re), 0) : NC_C(R)(0, copysign((R)1, z.im));
  if (a == 0) return NC_C(R)(0, 0);
  return NC_C(R)(z.re / a, z.im / a);
}
#undef NC_C
`;


/** NumPy's float loop for a real dtype: floats keep theirs, else the smallest float that holds it (int8 → float16, int32 → float64). */
const toFloat = (d: DType): DType => (d.kind === 'f' ? d : promoteTypes(d, DTYPES.float16));

function unsupported(name: string, d: DType): never {
  throw typeError('ERR_INVALID_DTYPE', `cumath.${name} is not supported for ${d.name} (NumPy has no such loop)`);
}

type Types = UfuncDef['types'];
const floating = (p: DType): [DType, DType] => [toFloat(p), toFloat(p)];
const int = (p: DType) => p.kind === 'i' || p.kind === 'u';

/**
 * How NumPy picks a function's loop from the (promoted) operand dtype: the rows' `types`.
 * - inexact: floats and complex (integers/bool → smallest float holding them)
 * - real: floats only (complex is a TypeError)
 * - keepInt: integers and bool keep their dtype (NumPy ≥ 2.1 floor/ceil/trunc), floats; no complex
 * - round: np.round: integers keep their dtype, bool → float16, floats and complex round half to even
 * - sign: integers, floats, complex (z/|z|); bool is a TypeError
 * - test: any dtype → bool
 * - fmod: integers (bool as int8) and floats; no complex
 * - frexp, modf: two outputs from a float input (frexp: [float, int32], modf: [float, float])
 */
const LOOPS = {
  inexact: (): Types => (p) => (p.kind === 'c' ? [p, p] : floating(p)),
  real: (name: string): Types => (p) => (p.kind === 'c' ? unsupported(name, p) : floating(p)),
  keepInt: (name: string): Types => (p) => (p.kind === 'c' ? unsupported(name, p) : int(p) || p.kind === 'b' ? [p, p] : floating(p)),
  round: (): Types => (p) => (p.kind === 'c' || int(p) ? [p, p] : floating(p)),
  sign: (name: string): Types => (p) => (p.kind === 'b' ? unsupported(name, p) : p.kind === 'c' || int(p) ? [p, p] : floating(p)),
  test: (): Types => (p) => [p, DTYPES.bool],
  fmod: (name: string): Types => (p) => (p.kind === 'c' ? unsupported(name, p)
    : p.kind === 'b' ? [DTYPES.int8, DTYPES.int8] : int(p) ? [p, p] : floating(p)),
  split: (name: string, second?: DType): Types => (p) => {
    const [f] = p.kind === 'c' ? unsupported(name, p) : floating(p);
    return [f, f, second ?? f];
  },
};

/**
 * A math row from its expressions, which read x0 (x1) and give r0 (a statement when it assigns r0
 * itself); `#` is `f` for float compute, `` for double. `real`: float compute (float16/float32/
 * float64); `complex`: complex compute (x0 is nc_complex<R>); `int`: integer/bool compute; `fast`:
 * the fastMath expression for float16/float32 compute.
 */
function math(nin: 1 | 2, types: Types, real: string, more: { complex?: string; int?: string; fast?: string } = {}): UfuncRow {
  const { complex, int: integer, fast } = more;
  const stmt = (e: string): string => (/\br0 =/.test(e) ? e : `r0 = ${e};`);
  return {
    nin, types, fast,
    body: (d, fastMath = false) => stmt(d.kind === 'c' ? complex!
      : d.kind === 'f' ? (fastMath && fast && d.name !== 'float64' ? fast : real).replace(/#/g, d.name === 'float64' ? '' : 'f')
      : integer!),
  };
}

const inexact = (f: string, fast?: string): UfuncRow => math(1, LOOPS.inexact(), `${f}#(x0)`, { complex: `nc_c${f}(x0)`, fast });
const real = (f: string, nin: 1 | 2 = 1): UfuncRow => math(nin, LOOPS.real(f), nin === 1 ? `${f}#(x0)` : `${f}#(x0, x1)`);
const keepInt = (f: string): UfuncRow => math(1, LOOPS.keepInt(f), `${f}#(x0)`, { int: 'x0' });
const test = (real: string, complex: string, int: string): UfuncRow => math(1, LOOPS.test(), real, { complex, int });

/**
 * NumPy's rad2deg/deg2rad factors in the compute type: npy_rad2degf is `x * (180.0f / NPY_PIf)`,
 * a float quotient (57.2957763671875, not the float nearest 180/π), npy_rad2deg the double one.
 * JS's double quotient rounded to float is the correctly rounded float quotient (53 ≥ 2·24 + 2).
 */
function scaled(name: string, float: number, double: number): UfuncRow {
  return { nin: 1, types: LOOPS.real(name), body: (d) => `r0 = x0 * ${d.name === 'float64' ? String(double) : `${String(float)}f`};` };
}
const f32 = Math.fround;

/** ldexp's exponent: an integer (array or scalar) computed as int32 or int64. */
function exponent(t: OperandType): DType {
  if (typeof t === 'number' || typeof t === 'bigint' || typeof t === 'boolean') {
    if (typeof t === 'number' && !Number.isInteger(t)) {
      throw typeError('ERR_INVALID_DTYPE', 'cumath.ldexp: the exponent must be an integer (NumPy has no float exponent loop)');
    }
    return DTYPES.int64;
  }
  const d = resultType(t);
  if (d.kind === 'f' || d.kind === 'c' || d.name === 'uint64') {
    throw typeError('ERR_INVALID_DTYPE', `cumath.ldexp: the exponent must be an integer type that fits int64, not ${d.name}`);
  }
  return d.bytes === 8 || d.name === 'uint32' ? DTYPES.int64 : DTYPES.int32;
}

/** The functions, by name: rows of the ufunc dialect (ufunc.ts), kernels `cumath_<name>`. */
export const MATH: Readonly<Record<string, UfuncDef>> = ufuncTable({
  fabs: real('fabs'),
  ceil: keepInt('ceil'),
  floor: keepInt('floor'),
  trunc: keepInt('trunc'),
  round: math(1, LOOPS.round(), 'rint#(x0)', { complex: 'nc_crint(x0)', int: 'x0' }),
  sign: math(1, LOOPS.sign('sign'), 'nc_sign(x0)', { complex: 'nc_csign(x0)', int: 'nc_sign(x0)' }),
  exp: inexact('exp', '__expf(x0)'),
  exp2: inexact('exp2'),
  expm1: inexact('expm1'),
  log: inexact('log', '__logf(x0)'),
  log2: inexact('log2', '__log2f(x0)'),
  log10: inexact('log10', '__log10f(x0)'),
  log1p: inexact('log1p'),
  sqrt: inexact('sqrt'),
  cbrt: real('cbrt'),
  sin: inexact('sin', '__sinf(x0)'),
  cos: inexact('cos', '__cosf(x0)'),
  tan: inexact('tan', '__tanf(x0)'),
  asin: inexact('asin'),
  acos: inexact('acos'),
  atan: inexact('atan'),
  sinh: inexact('sinh'),
  cosh: inexact('cosh'),
  tanh: inexact('tanh'),
  asinh: inexact('asinh'),
  acosh: inexact('acosh'),
  atanh: inexact('atanh'),
  rad2deg: scaled('rad2deg', f32(180 / f32(Math.PI)), 180 / Math.PI),
  deg2rad: scaled('deg2rad', f32(f32(Math.PI) / 180), Math.PI / 180),
  isnan: test('isnan(x0)', 'nc_isnan(x0)', 'false'),
  isinf: test('isinf(x0)', 'isinf(x0.re) || isinf(x0.im)', 'false'),
  isfinite: test('isfinite(x0)', 'isfinite(x0.re) && isfinite(x0.im)', 'true'),
  fmod: math(2, LOOPS.fmod('fmod'), 'fmod#(x0, x1)', { int: 'nc_ifmod(x0, x1)' }),
  atan2: real('atan2', 2),
  hypot: real('hypot', 2),
  copysign: real('copysign', 2),
  // The exponent stays out of promotion: float x, integer e.
  ldexp: { ...math(2, LOOPS.real('ldexp'), 'ldexp#(x0, nc_exponent(x1))'), aside: { 1: exponent } },
  frexp: { ...math(1, LOOPS.split('frexp', DTYPES.int32), 'r0 = frexp#(x0, &r1);'), nout: 2 },
  modf: { ...math(1, LOOPS.split('modf'), 'r0 = modf#(x0, &r1);'), nout: 2 },
}, MATH_PREAMBLE, 'cumath_', { vectors64: 2 });

/** A resolved call: compute dtypes per input, result dtypes, C statement. */
export type MathPlan = UfuncPlan;

/** NumPy's other names of table rows (same kernel). */
const ALIASES: Readonly<Record<string, string>> = Object.freeze({ degrees: 'rad2deg', radians: 'deg2rad' });
/** The row of function `name` (or of the row an alias names); undefined for an unknown name. */
const rowOf = (name: string): UfuncDef | undefined => own(MATH, own(ALIASES, name) ?? name);

/**
 * Resolves function `name` for operands of dtypes `types` (weak scalars as JS values), as NumPy 2
 * picks its loop. Throws a TypeError (ERR_INVALID_DTYPE) where NumPy has no loop.
 * @example
 * mathPlan('sin', [DTYPES.int16]).outs[0].name === 'float32';
 */
export function mathPlan(name: string, types: OperandType[], fastMath = false): MathPlan {
  const def = rowOf(name);
  if (!def) throw typeError('ERR_INVALID_ARG_VALUE', `Unknown cumath function ${describe(name)}`);
  return resolve(def, types, fastMath);
}

function checkOpts(name: string, opts: unknown, pair = false): void {
  if (opts !== undefined && (typeof opts !== 'object' || opts === null)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `cumath.${name}: options must be an object. Received ${describe(opts)}`);
  }
  if (opts) knownOptions(opts, `cumath.${name}`, pair ? ['out', 'stream'] : ['out', 'stream', 'fastMath']);
  const out = (opts as MathOptions | undefined)?.out;
  if (out !== undefined && !pair && !(out instanceof GPUArray)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `cumath.${name}: out must be a GPUArray. Received ${describe(out)}`);
  }
  const fast = (opts as MathOptions | undefined)?.fastMath;
  if (fast !== undefined && typeof fast !== 'boolean') {
    throw typeError('ERR_INVALID_ARG_TYPE', `cumath.${name}: fastMath must be a boolean. Received ${describe(fast)}`);
  }
}

/**
 * Applies cumath function `name` to its operands (one or two; frexp/modf: see {@link cumath.frexp | frexp}).
 * @example
 * cumath.apply('sin', [a], { fastMath: true });
 */
export function apply(name: string, operands: unknown[], opts: MathOptions = {}): GPUArray {
  opts ??= {}; // null: no options, as in the operators
  const def = rowOf(name);
  if (!def || def.nout !== 1) throw typeError('ERR_INVALID_ARG_VALUE', `Unknown single-result cumath function ${describe(name)}`);
  if (operands.length !== def.nin) throw typeError('ERR_INVALID_ARG_COUNT', `cumath.${name} takes ${def.nin} operand(s)`);
  checkOpts(name, opts);
  const parsed = operands.map((x) => parse(x, `cumath.${name}`));
  if (!parsed.some((p) => p.arr)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `cumath.${name}: ${def.nin === 1 ? 'the operand' : 'at least one operand'} must be a GPUArray`);
  }
  const plan = mathPlan(name, parsed.map(operandType), opts.fastMath === true);
  const e = parsed[1];
  if (name === 'ldexp' && !e.arr && !e.strong) {
    // A weak exponent travels as int64: clamp it first (the kernel clamps to ±100000 anyway).
    e.value = Math.max(-100000, Math.min(100000, Number(e.value as number | bigint | boolean)));
  }
  return elementwise(def, plan.body, parsed, plan.computes, plan.outs[0], plan.outs[0], opts);
}

/** Two results from one kernel (frexp, modf); `out` may alias the input. */
function split(name: 'frexp' | 'modf', x: unknown, opts: SplitOptions = {}): [GPUArray, GPUArray] {
  opts ??= {};
  checkOpts(name, opts, true);
  if (!(x instanceof GPUArray)) throw typeError('ERR_INVALID_ARG_TYPE', `cumath.${name}: x must be a GPUArray. Received ${describe(x)}`);
  const a = x.check();
  const plan = mathPlan(name, [a.dtype]);
  const { out, stream } = opts;
  if (out === undefined) checkDevices(`cumath.${name}`, [a]);
  let shape: readonly number[] = a.shape;
  if (out !== undefined) {
    if (!Array.isArray(out) || out.length !== 2 || !out.every((o) => o instanceof GPUArray)) {
      throw typeError('ERR_INVALID_ARG_TYPE', `cumath.${name}: out must be a pair [GPUArray, GPUArray]. Received ${describe(out)}`);
    }
    out.forEach((o) => checkWritable(o.check(), `cumath.${name}`));
    checkDevices(`cumath.${name}`, [a, ...out]);
    shape = broadcastShapes(a.shape, out[0].shape, out[1].shape);
    out.forEach((o, i) => {
      if (o.shape.length !== shape.length || o.shape.some((n, d) => n !== shape[d])) {
        throw rangeError('ERR_SHAPE_MISMATCH', `cumath.${name}: out[${i}] has shape (${o.shape.join(',')}); the result has shape (${shape.join(',')})`);
      }
      if (!canCast(plan.outs[i], o.dtype, 'same_kind')) {
        throw typeError('ERR_INVALID_DTYPE', `cumath.${name}: cannot store a ${plan.outs[i].name} result in a ${o.dtype.name} out array (same_kind casting)`);
      }
    });
  }
  const results = out ? [out[0], out[1]] : plan.outs.map((d) => GPUArray.allocate(shape, d, stream));
  // An out array sharing memory with the input (or with the other out) is written through a temporary.
  const writes = results.map((r, i) => (r.alloc === a.alloc || (i === 1 && r.alloc === results[0].alloc)
    ? GPUArray.allocate(shape, r.dtype, stream) : r));
  try {
    const spec = specFor(MATH[name], plan.body, [{ arr: a }], plan.computes, writes.map((w) => w.dtype), plan.outs);
    runElementwise(spec, shape, writes.map((w) => asOperand(w, shape)), [asOperand(a, shape)], streamHandle(stream));
    writes.forEach((w, i) => { if (w !== results[i]) assign(results[i], w, stream); });
  } finally {
    writes.forEach((w, i) => { if (w !== results[i]) w.dispose(); });
  }
  return [results[0], results[1]];
}

/**
 * Mantissa and exponent: `x = m * 2**e` with `0.5 <= |m| < 1` (m = x, e = 0 for 0, ±Inf, NaN).
 * Returns `[m (float), e (int32)]` from one kernel.
 * @example
 * const [m, e] = cumath.frexp(a);
 */
export function frexp(x: GPUArray, opts?: SplitOptions): [GPUArray, GPUArray] {
  return split('frexp', x, opts);
}

/**
 * Fractional and integral parts, both with the sign of x: returns `[frac, int]` from one kernel.
 * @example
 * const [frac, whole] = cumath.modf(a);
 */
export function modf(x: GPUArray, opts?: SplitOptions): [GPUArray, GPUArray] {
  return split('modf', x, opts);
}

/** A one-operand cumath function. */
export type Unary = (x: GPUArray, opts?: MathOptions) => GPUArray;
/** A two-operand cumath function. */
export type Binary = (x: Operand, y: Operand, opts?: MathOptions) => GPUArray;

/** The cumath namespace's functions (each documented with an example). */
export interface CumathFunctions {
  /** |x| for real dtypes (complex: TypeError, use gpuarray.abs). @example cumath.fabs(a) */
  fabs: Unary;
  /** Smallest integer ≥ x; integer and bool arrays keep their dtype (NumPy 2). @example cumath.ceil(a) */
  ceil: Unary;
  /** Largest integer ≤ x; integer and bool arrays keep their dtype. @example cumath.floor(a) */
  floor: Unary;
  /** x rounded toward zero; integer and bool arrays keep their dtype. @example cumath.trunc(a) */
  trunc: Unary;
  /** np.round: half to even (rint); integers keep their dtype; complex rounds both parts. @example cumath.round(a) */
  round: Unary;
  /** -1, 0 or 1 (NaN for NaN); complex: z/|z| (NumPy 2). @example cumath.sign(a) */
  sign: Unary;
  /** e**x. @example cumath.exp(a, { fastMath: true }) */
  exp: Unary;
  /** 2**x. @example cumath.exp2(a) */
  exp2: Unary;
  /** e**x - 1, accurate near 0. @example cumath.expm1(a) */
  expm1: Unary;
  /** Natural logarithm (NaN below 0, -Inf at 0). @example cumath.log(a) */
  log: Unary;
  /** Base-2 logarithm. @example cumath.log2(a) */
  log2: Unary;
  /** Base-10 logarithm. @example cumath.log10(a) */
  log10: Unary;
  /** log(1 + x), accurate near 0. @example cumath.log1p(a) */
  log1p: Unary;
  /** Square root (NaN below 0; complex: principal root). @example cumath.sqrt(a) */
  sqrt: Unary;
  /** Cube root. @example cumath.cbrt(a) */
  cbrt: Unary;
  /** Sine. @example cumath.sin(a, { out: a }) */
  sin: Unary;
  /** Cosine. @example cumath.cos(a) */
  cos: Unary;
  /** Tangent. @example cumath.tan(a) */
  tan: Unary;
  /** Arcsine (NaN outside [-1, 1]). @example cumath.asin(a) */
  asin: Unary;
  /** Arccosine (NaN outside [-1, 1]). @example cumath.acos(a) */
  acos: Unary;
  /** Arctangent. @example cumath.atan(a) */
  atan: Unary;
  /** Hyperbolic sine. @example cumath.sinh(a) */
  sinh: Unary;
  /** Hyperbolic cosine. @example cumath.cosh(a) */
  cosh: Unary;
  /** Hyperbolic tangent. @example cumath.tanh(a) */
  tanh: Unary;
  /** Inverse hyperbolic sine (complex: principal branch). @example cumath.asinh(a) */
  asinh: Unary;
  /** Inverse hyperbolic cosine (NaN below 1; complex: principal branch). @example cumath.acosh(a) */
  acosh: Unary;
  /** Inverse hyperbolic tangent (±Inf at ±1, NaN outside [-1, 1]; complex: principal branch). @example cumath.atanh(a) */
  atanh: Unary;
  /** Radians to degrees: `x * (180 / π)` with NumPy's constant in the compute type; real dtypes only. @example cumath.rad2deg(a) */
  rad2deg: Unary;
  /** Degrees to radians: `x * (π / 180)` with NumPy's constant in the compute type; real dtypes only. @example cumath.deg2rad(a) */
  deg2rad: Unary;
  /** NumPy's other name of `rad2deg`. @example cumath.degrees(a) */
  degrees: Unary;
  /** NumPy's other name of `deg2rad`. @example cumath.radians(a) */
  radians: Unary;
  /** NaN test → bool (false for integers). @example cumath.isnan(a) */
  isnan: Unary;
  /** ±Inf test → bool. @example cumath.isinf(a) */
  isinf: Unary;
  /** Neither NaN nor ±Inf → bool. @example cumath.isfinite(a) */
  isfinite: Unary;
  /** C remainder x - trunc(x/y)*y (sign of x); integers: 0 where y is 0. @example cumath.fmod(a, 3) */
  fmod: Binary;
  /** atan(y/x) in the right quadrant: `atan2(y, x)`. @example cumath.atan2(y, x) */
  atan2: Binary;
  /** sqrt(x² + y²) without overflow. @example cumath.hypot(a, b) */
  hypot: Binary;
  /** |x| with the sign (bit) of y; integers and bool promote to float (NumPy 2); complex: TypeError. @example cumath.copysign(a, -1) */
  copysign: Binary;
  /** x * 2**e for an integer e (array or integer scalar). @example cumath.ldexp(m, e) */
  ldexp: Binary;
  frexp: typeof frexp;
  modf: typeof modf;
}

const unary = (name: string): Unary => (x, opts) => apply(name, [x], opts);
const binary = (name: string): Binary => (x, y, opts) => apply(name, [x, y], opts);

/** Every cumath function by name. */
export const cumathFunctions: CumathFunctions = {
  ...(Object.fromEntries(Object.entries(MATH).filter(([, d]) => d.nout === 1)
    .map(([n, d]) => [n, d.nin === 1 ? unary(n) : binary(n)])) as Omit<CumathFunctions, 'frexp' | 'modf' | 'degrees' | 'radians'>),
  degrees: unary('degrees'),
  radians: unary('radians'),
  frexp,
  modf,
};
