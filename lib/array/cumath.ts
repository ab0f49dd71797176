/**
 * cumath (pycuda.cumath + common NumPy ufuncs): elementwise math functions declared as data in
 * one table and expanded by the elementwise template family. Types follow NumPy 2's loops:
 * float32 stays float32 (the `f` functions), float16 computes in float and stores half, integers
 * and bool promote to the smallest float holding them, complex where NumPy has a loop.
 */
import { DTYPES, DType, Scalar, own } from '../base/dtype';
import { describe, typeError, rangeError } from '../base/errors';
import { Stream, streamHandle } from '../cuda/driver';
import { GPUArray } from './gpuarray';
import { ArrayOperand, runElementwise } from '../engine/elementwise';
import { Operand, OpOptions, assign, elementwise } from './operators';
import { canCast, promoteTypes, resultType } from '../base/promote';
import { broadcastShapes, broadcastStrides } from '../base/shape';
import { ElementwiseSpec } from '../engine/templates/elementwise';
import { checkDevices } from './devices';

/** Options of the cumath functions. */
export interface MathOptions extends OpOptions {
  /** float32/float16: use the hardware intrinsics (`__sinf`, `__expf`, `__logf` …): faster, less accurate. */
  fastMath?: boolean;
}

/** Options of frexp and modf (two results: `out` is a pair). */
export interface SplitOptions {
  /** Write the two results here (shapes must match; dtypes castable 'same_kind'). */
  out?: [GPUArray, GPUArray];
  stream?: Stream | null;
}

/**
 * How NumPy picks a function's loop from the (promoted) operand dtype:
 * - inexact: floats and complex (integers/bool → smallest float holding them)
 * - real: floats only (complex is a TypeError)
 * - keepInt: integers and bool keep their dtype (NumPy ≥ 2.1 floor/ceil/trunc), floats; no complex
 * - round: np.round: integers keep their dtype, bool → float16, floats and complex round half to even
 * - sign: integers, floats, complex (z/|z|); bool is a TypeError
 * - test: any dtype → bool
 * - fmod: integers (bool as int8) and floats; no complex
 * - ldexp: float x, integer exponent
 * - split: two outputs from a float input (frexp: [float, int32], modf: [float, float])
 */
type Loop = 'inexact' | 'real' | 'keepInt' | 'round' | 'sign' | 'test' | 'fmod' | 'ldexp' | 'split';

/** One math function. Expressions read x0 (x1) and give r0; `#` is `f` for float compute, `` for double. */
export interface MathDef {
  nin: 1 | 2;
  loop: Loop;
  /** Real float compute (float16/float32/float64). A statement when it assigns r0 itself. */
  real: string;
  /** Complex compute (x0 is nc_complex<R>). */
  complex?: string;
  /** Integer/bool compute. */
  int?: string;
  /** fastMath expression for float compute (float16/float32). */
  fast?: string;
}

const inexact = (f: string, fast?: string): MathDef =>
  ({ nin: 1, loop: 'inexact', real: `${f}#(x0)`, complex: `nc_c${f}(x0)`, fast });
const real = (f: string): MathDef => ({ nin: 1, loop: 'real', real: `${f}#(x0)` });
const keepInt = (f: string): MathDef => ({ nin: 1, loop: 'keepInt', real: `${f}#(x0)`, int: 'x0' });

/** The functions, by name. */
export const MATH: Readonly<Record<string, MathDef>> = {
  fabs: real('fabs'),
  ceil: keepInt('ceil'),
  floor: keepInt('floor'),
  trunc: keepInt('trunc'),
  round: { nin: 1, loop: 'round', real: 'rint#(x0)', complex: 'nc_crint(x0)', int: 'x0' },
  sign: { nin: 1, loop: 'sign', real: 'nc_sign(x0)', complex: 'nc_csign(x0)', int: 'nc_sign(x0)' },
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
  isnan: { nin: 1, loop: 'test', real: 'isnan(x0)', complex: 'nc_isnan(x0)', int: 'false' },
  isinf: { nin: 1, loop: 'test', real: 'isinf(x0)', complex: 'isinf(x0.re) || isinf(x0.im)', int: 'false' },
  isfinite: { nin: 1, loop: 'test', real: 'isfinite(x0)', complex: 'isfinite(x0.re) && isfinite(x0.im)', int: 'true' },
  fmod: { nin: 2, loop: 'fmod', real: 'fmod#(x0, x1)', int: 'nc_ifmod(x0, x1)' },
  atan2: { nin: 2, loop: 'real', real: 'atan2#(x0, x1)' },
  hypot: { nin: 2, loop: 'real', real: 'hypot#(x0, x1)' },
  ldexp: { nin: 2, loop: 'ldexp', real: 'ldexp#(x0, nc_exponent(x1))' },
  frexp: { nin: 1, loop: 'split', real: 'r0 = frexp#(x0, &r1);' },
  modf: { nin: 1, loop: 'split', real: 'r0 = modf#(x0, &r1);' },
};

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

type Parsed = Parameters<typeof elementwise>[2][number];

function parse(x: unknown, name: string): Parsed {
  if (x instanceof GPUArray) return { arr: x.check() };
  if (x instanceof Scalar) return { value: x.value, strong: x.dtype };
  if (typeof x === 'number' || typeof x === 'bigint' || typeof x === 'boolean') return { value: x };
  if (typeof x === 'object' && x !== null && typeof (x as { re?: unknown }).re === 'number') {
    return { value: x as { re: number; im: number } };
  }
  throw typeError('ERR_INVALID_ARG_TYPE', `cumath.${name}: operands must be GPUArrays or scalars. Received ${describe(x)}`);
}

const typeOf = (p: Parsed) => (p.arr ? p.arr.dtype : p.strong ?? p.value!);

/** NumPy's float loop for a real dtype: the smallest float that holds it (int8 → float16, int32 → float64). */
const toFloat = (d: DType): DType => promoteTypes(d, DTYPES.float16);

function unsupported(name: string, d: DType): never {
  throw typeError('ERR_INVALID_DTYPE', `cumath.${name} is not supported for ${d.name} (NumPy has no such loop)`);
}

/** A resolved call: compute dtypes per input, result dtypes, C statement. */
export interface MathPlan {
  computes: DType[];
  outs: DType[];
  body: string;
}

/**
 * Resolves function `name` for operands of dtypes `types` (weak scalars as JS values), as NumPy 2
 * picks its loop. Throws a TypeError (ERR_INVALID_DTYPE) where NumPy has no loop.
 * @example
 * mathPlan('sin', [DTYPES.int16]).outs[0].name === 'float32';
 */
export function mathPlan(name: string, types: Parameters<typeof resultType>, fastMath = false): MathPlan {
  const def = own(MATH, name);
  if (!def) throw typeError('ERR_INVALID_ARG_VALUE', `Unknown cumath function ${describe(name)}`);
  const fexpr = (d: DType, e: string): string => e.replace(/#/g, d.name === 'float64' ? '' : 'f');
  const stmt = (e: string): string => (/\br0 =/.test(e) ? e : `r0 = ${e};`);
  if (def.loop === 'ldexp') return ldexpPlan(def, types, fexpr);
  const p = resultType(...types);
  const c = p.kind === 'c', i = p.kind === 'i' || p.kind === 'u', b = p.kind === 'b';
  let compute: DType, outs: DType[], expr: string;
  const floating = (): void => {
    compute = toFloat(p);
    outs = [compute];
    expr = fexpr(compute, fastMath && def.fast && compute.name !== 'float64' ? def.fast : def.real);
  };
  switch (def.loop) {
    case 'inexact':
      if (c) [compute, outs, expr] = [p, [p], def.complex!]; else floating();
      break;
    case 'real': case 'split':
      if (c) unsupported(name, p);
      floating();
      if (def.loop === 'split') outs!.push(name === 'frexp' ? DTYPES.int32 : compute!);
      break;
    case 'keepInt':
      if (c) unsupported(name, p);
      if (i || b) [compute, outs, expr] = [p, [p], def.int!]; else floating();
      break;
    case 'round':
      if (c) [compute, outs, expr] = [p, [p], def.complex!];
      else if (i) [compute, outs, expr] = [p, [p], def.int!];
      else floating();
      break;
    case 'sign':
      if (b) unsupported(name, p);
      if (c) [compute, outs, expr] = [p, [p], def.complex!];
      else if (i) [compute, outs, expr] = [p, [p], def.int!];
      else floating();
      break;
    case 'test':
      compute = p;
      outs = [DTYPES.bool];
      expr = c ? def.complex! : i || b ? def.int! : fexpr(p, def.real);
      break;
    case 'fmod':
      if (c) unsupported(name, p);
      if (i || b) [compute, outs, expr] = [b ? DTYPES.int8 : p, [b ? DTYPES.int8 : p], def.int!]; else floating();
      break;
  }
  return { computes: types.map(() => compute!), outs: outs!, body: stmt(expr!) };
}

function ldexpPlan(def: MathDef, types: Parameters<typeof resultType>, fexpr: (d: DType, e: string) => string): MathPlan {
  const [xt, et] = types;
  const x = resultType(xt);
  if (x.kind === 'c') unsupported('ldexp', x);
  const fl = toFloat(x);
  let e: DType;
  if (typeof et === 'number' || typeof et === 'bigint' || typeof et === 'boolean') {
    if (typeof et === 'number' && !Number.isInteger(et)) {
      throw typeError('ERR_INVALID_DTYPE', 'cumath.ldexp: the exponent must be an integer (NumPy has no float exponent loop)');
    }
    e = DTYPES.int64;
  } else {
    const d = resultType(et);
    if (d.kind === 'f' || d.kind === 'c' || d.name === 'uint64') {
      throw typeError('ERR_INVALID_DTYPE', `cumath.ldexp: the exponent must be an integer type that fits int64, not ${d.name}`);
    }
    e = d.bytes === 8 || d.name === 'uint32' ? DTYPES.int64 : DTYPES.int32;
  }
  return { computes: [fl, e], outs: [fl], body: `r0 = ${fexpr(fl, def.real)};` };
}

// Specs by a key of the function, body, operand dtypes and result dtypes (compiled kernels hang off them).
const specs = new Map<string, ElementwiseSpec>();

function specFor(name: string, plan: MathPlan, parsed: Parsed[], stored: DType[]): ElementwiseSpec {
  let key = `${name}|${plan.body}|${stored.map((d) => d.name).join(',')}|${plan.outs.map((d) => d.name).join(',')}`;
  parsed.forEach((p, i) => { key += `|${p.arr ? p.arr.dtype.name : 's'}:${plan.computes[i].name}`; });
  let spec = specs.get(key);
  if (!spec) {
    spec = {
      name: `cumath_${name}`, body: plan.body, preamble: MATH_PREAMBLE,
      inputs: parsed.map((p, i) => ({ dtype: p.arr ? p.arr.dtype : plan.computes[i], compute: plan.computes[i], scalar: !p.arr })),
      outputs: stored.map((d, i) => ({ dtype: d, compute: plan.outs[i] })),
    };
    // float64 math: two vectors per thread (H200, exp float64 2^28: 3.81 → 4.22 TB/s; copy 4.23).
    if (plan.computes.some((d) => d.name === 'float64')) spec.vectors = 2;
    specs.set(key, spec);
  }
  return spec;
}

function checkOpts(name: string, opts: unknown, pair = false): void {
  if (opts !== undefined && (typeof opts !== 'object' || opts === null)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `cumath.${name}: options must be an object. Received ${describe(opts)}`);
  }
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
 * Applies cumath function `name` to its operands (one or two; frexp/modf: see {@link frexp}).
 * @example
 * cumath.apply('sin', [a], { fastMath: true });
 */
export function apply(name: string, operands: unknown[], opts: MathOptions = {}): GPUArray {
  const def = own(MATH, name);
  if (!def || def.loop === 'split') throw typeError('ERR_INVALID_ARG_VALUE', `Unknown single-result cumath function ${describe(name)}`);
  if (operands.length !== def.nin) throw typeError('ERR_INVALID_ARG_COUNT', `cumath.${name} takes ${def.nin} operand(s)`);
  checkOpts(name, opts);
  const parsed = operands.map((x) => parse(x, name));
  if (!parsed.some((p) => p.arr)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `cumath.${name}: ${def.nin === 1 ? 'the operand' : 'at least one operand'} must be a GPUArray`);
  }
  const plan = mathPlan(name, parsed.map(typeOf), opts.fastMath === true);
  const e = parsed[1];
  if (def.loop === 'ldexp' && !e.arr && !e.strong) {
    // A weak exponent travels as int64: clamp it first (the kernel clamps to ±100000 anyway).
    e.value = Math.max(-100000, Math.min(100000, Number(e.value as number | bigint | boolean)));
  }
  // The engine reuses a spec given for the out dtype: ours carries the math preamble.
  const stored = opts.out instanceof GPUArray ? opts.out.dtype : plan.outs[0];
  const cache = new Map([[stored.name, specFor(name, plan, parsed, [stored])]]);
  return elementwise(`cumath_${name}`, plan.body, parsed, plan.computes, plan.outs[0], plan.outs[0], opts, cache);
}

function operand(a: GPUArray, shape: readonly number[]): ArrayOperand {
  const same = a.shape.length === shape.length && a.shape.every((n, i) => n === shape[i]);
  const strides = same ? a.strides : broadcastStrides(a.shape, a.strides, shape);
  return { dtype: a.dtype, shape, strides, ptr: a.address, align16: a.align16, mem: a.alloc };
}

/** Two results from one kernel (frexp, modf); `out` may alias the input. */
function split(name: 'frexp' | 'modf', x: unknown, opts: SplitOptions = {}): [GPUArray, GPUArray] {
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
    out.forEach((o) => o.check());
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
    const spec = specFor(name, plan, [{ arr: a }], writes.map((w) => w.dtype));
    runElementwise(spec, shape, writes.map((w) => operand(w, shape)), [operand(a, shape)], streamHandle(stream));
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
  /** x * 2**e for an integer e (array or integer scalar). @example cumath.ldexp(m, e) */
  ldexp: Binary;
  frexp: typeof frexp;
  modf: typeof modf;
}

const unary = (name: string): Unary => (x, opts) => apply(name, [x], opts);
const binary = (name: string): Binary => (x, y, opts) => apply(name, [x, y], opts);

/** Every cumath function by name. */
export const cumathFunctions: CumathFunctions = {
  ...(Object.fromEntries(Object.entries(MATH).filter(([, d]) => d.loop !== 'split')
    .map(([n, d]) => [n, d.nin === 1 ? unary(n) : binary(n)])) as Omit<CumathFunctions, 'frexp' | 'modf'>),
  frexp,
  modf,
};
