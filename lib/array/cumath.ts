/**
 * cumath (pycuda.cumath + common NumPy ufuncs): elementwise math functions declared as rows of
 * the ufunc dialect (ufunc.ts; docs/design/ufuncs.md) in two tables (BASE, MORE: their device
 * helpers in cumath_device.ts) and run on the same path as the GPUArray operators (operators.ts
 * elementwise()). Types follow NumPy 2's loops:
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
import { MATH_MORE_PREAMBLE, MATH_PREAMBLE } from './cumath_device';

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


export { MATH_PREAMBLE } from './cumath_device';


/** NumPy's float loop for a real dtype: floats keep theirs, else the smallest float that holds it (int8 → float16, int32 → float64). */
const toFloat = (d: DType): DType => (d.kind === 'f' ? d : promoteTypes(d, DTYPES.float16));

function unsupported(name: string, d: DType): never {
  throw typeError('ERR_INVALID_DTYPE', `cumath.${name} is not supported for ${d.name} (NumPy has no such loop)`);
}

type Types = UfuncDef['types'];
const floating = (p: DType): [DType, DType] => [toFloat(p), toFloat(p)];
/** The real dtype of a float or complex compute dtype's values: float64 for float64/complex128, else float32 (float16's compute type). */
const partOf = (d: DType): DType => (d.name === 'float64' || d.name === 'complex128' ? DTYPES.float64 : DTYPES.float32);
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
  // ints + inexact (square, reciprocal, conjugate): every dtype keeps its own, bool computes as int8
  keep: (): Types => (p) => (p.kind === 'b' ? [DTYPES.int8, DTYPES.int8] : [p, p]),
  // every dtype keeps its own (fmax, fmin, nanToNum)
  any: (): Types => (p) => [p, p],
  // integers only (gcd, lcm): bool computes as int8
  integer: (name: string): Types => (p) => (p.kind === 'f' || p.kind === 'c' ? unsupported(name, p)
    : p.kind === 'b' ? [DTYPES.int8, DTYPES.int8] : [p, p]),
  // np.sinc computes pi * x: floats and complex keep theirs, integers and bool give float64
  sinc: (): Types => (p) => (p.kind === 'f' || p.kind === 'c' ? [p, p] : [DTYPES.float64, DTYPES.float64]),
  // np.angle is arctan2(z.imag, z.real): complex → its part dtype; real x is arctan2(0, x) (bool with 0 → int64 → float64)
  angle: (): Types => (p) => (p.kind === 'c' ? [p, partOf(p)] : floating(p.kind === 'b' ? DTYPES.int64 : p)),
};

/**
 * A math row from its expressions, which read x0 (x1) and give r0 (a statement when it assigns r0
 * itself); `#` is `f` for float compute, `` for double. `real`: float compute (float16/float32/
 * float64); `complex`: complex compute (x0 is nc_complex<R>); `int`: integer/bool compute; `fast`:
 * the fastMath expression for float16/float32 compute.
 */
function math(nin: 1 | 2, types: Types, real: string,
  more: { complex?: string; int?: string | ((d: DType) => string); fast?: string } = {}): UfuncRow {
  const { complex, int: integer, fast } = more;
  const stmt = (e: string): string => (/\br0[ .]/.test(e) ? e : `r0 = ${e};`);
  return {
    nin, types, fast,
    body: (d, fastMath = false) => stmt(d.kind === 'c' ? complex!
      : d.kind === 'f' ? (fastMath && fast && d.name !== 'float64' ? fast : real).replace(/#/g, d.name === 'float64' ? '' : 'f')
      : typeof integer === 'function' ? integer(d) : integer!),
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

/** The first functions, by name (MORE below has the rest). */
const BASE = ufuncTable({
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

/** Unsigned C type of an integer dtype's gcd/square arithmetic (wrapping, no signed overflow). */
const unsignedOf = (d: DType): string => (d.bytes === 8 ? 'unsigned long long' : 'unsigned');
/** |v| of an integer operand in its unsigned arithmetic type. */
const uabs = (d: DType, v: string): string => (d.kind === 'i' ? `nc_uabs<${unsignedOf(d)}>(${v})` : `(${unsignedOf(d)})${v}`);
const onInts = (f: string) => (d: DType): string => `r0 = (${d.ctype})${f}(${uabs(d, 'x0')}, ${uabs(d, 'x1')});`;
/** Largest finite value of a float dtype (np.finfo(d).max): nanToNum's default for ±Inf. */
const FMAX: Readonly<Record<string, number>> = {
  float16: 65504, bfloat16: 3.3895313892515355e38, float32: 3.4028234663852886e38, float64: Number.MAX_VALUE,
};
const NEXTAFTER: Readonly<Record<string, string>> = {
  float16: 'nc_nextafter16<false>', bfloat16: 'nc_nextafter16<true>', float64: 'nextafter',
};

/** The rows added later, with their own device helpers (cumath_device.ts); kernels `cumath_<name>` too. */
const MORE = ufuncTable({
  square: math(1, LOOPS.keep(), 'x0 * x0', { complex: 'x0 * x0', int: (d) => `r0 = (${d.ctype})((${unsignedOf(d)})x0 * (${unsignedOf(d)})x0);` }),
  // Integers: 1 / x truncated (1 and -1 keep their value, others give 0, and so does 0, which NumPy leaves undefined).
  reciprocal: math(1, LOOPS.keep(), '1 / x0',
    { complex: 'nc_crecip(x0)', int: (d) => (d.kind === 'u' ? 'x0 == 1' : 'x0 == 1 || x0 == -1 ? x0 : 0') }),
  conj: math(1, LOOPS.keep(), 'x0', { complex: 'r0 = x0; r0.im = -x0.im;', int: 'x0' }),
  sinc: math(1, LOOPS.sinc(), 'nc_sinc(x0)', { complex: 'nc_csinc(x0)' }),
  fmax: math(2, LOOPS.any(), 'fmax#(x0, x1)', { complex: 'nc_cfmax(x0, x1)', int: 'x0 >= x1 ? x0 : x1' }),
  fmin: math(2, LOOPS.any(), 'fmin#(x0, x1)', { complex: 'nc_cfmin(x0, x1)', int: 'x0 <= x1 ? x0 : x1' }),
  logaddexp: math(2, LOOPS.real('logaddexp'), 'nc_logaddexp(x0, x1)'),
  logaddexp2: math(2, LOOPS.real('logaddexp2'), 'nc_logaddexp2(x0, x1)'),
  heaviside: math(2, LOOPS.real('heaviside'), 'nc_heaviside(x0, x1)'),
  nextafter: { nin: 2, types: LOOPS.real('nextafter'), body: (d) => `r0 = ${own(NEXTAFTER, d.name) ?? 'nextafterf'}(x0, x1);` },
  gcd: math(2, LOOPS.integer('gcd'), '', { int: onInts('nc_gcdu') }),
  lcm: math(2, LOOPS.integer('lcm'), '', { int: onInts('nc_lcmu') }),
  // x1: the factor (1, or 180/pi for degrees), in the part dtype.
  angle: { ...math(1, LOOPS.angle(), 'atan2#(0.0#, x0) * x1', { complex: 'atan2(x0.im, x0.re) * x1' }), params: (c) => [[partOf(c), 1]] },
  // x1, x2, x3: the values for NaN, +Inf, -Inf, in the dtype of the values they replace (float16 rounds them).
  nanToNum: {
    ...math(1, LOOPS.any(), 'nc_nan2num(x0, x1, x2, x3)',
      { complex: 'r0.re = nc_nan2num(x0.re, x1, x2, x3); r0.im = nc_nan2num(x0.im, x1, x2, x3);', int: 'x0' }),
    params: (c) => {
      if (c.kind !== 'f' && c.kind !== 'c') return [];
      const p = c.kind === 'c' ? partOf(c) : c;
      return [[p, 0], [p, FMAX[p.name]], [p, -FMAX[p.name]]];
    },
  },
}, MATH_PREAMBLE + MATH_MORE_PREAMBLE, 'cumath_', { vectors64: 2 });

/** Every function, by name: rows of the ufunc dialect (ufunc.ts), kernels `cumath_<name>`. */
export const MATH: Readonly<Record<string, UfuncDef>> = Object.freeze({ ...BASE, ...MORE });

/** A resolved call: compute dtypes per input, result dtypes, C statement. */
export type MathPlan = UfuncPlan;

/** NumPy's other names of table rows (same kernel). */
const ALIASES: Readonly<Record<string, string>> = Object.freeze({ degrees: 'rad2deg', radians: 'deg2rad', conjugate: 'conj' });
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

const MATH_KEYS = ['out', 'stream', 'fastMath'];

/** Checks the options object of cumath.`name`: its keys, `out` (a GPUArray unless `pair`), booleans `fastMath` and `deg`. */
function checkOpts(name: string, opts: unknown, keys = MATH_KEYS, pair = false): void {
  if (opts !== undefined && (typeof opts !== 'object' || opts === null)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `cumath.${name}: options must be an object. Received ${describe(opts)}`);
  }
  if (opts) knownOptions(opts, `cumath.${name}`, keys);
  const out = (opts as MathOptions | undefined)?.out;
  if (out !== undefined && !pair && !(out instanceof GPUArray)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `cumath.${name}: out must be a GPUArray. Received ${describe(out)}`);
  }
  for (const flag of ['fastMath', 'deg']) {
    const v = (opts as Record<string, unknown> | undefined)?.[flag];
    if (v !== undefined && typeof v !== 'boolean') {
      throw typeError('ERR_INVALID_ARG_TYPE', `cumath.${name}: ${flag} must be a boolean. Received ${describe(v)}`);
    }
  }
}

/**
 * Runs function `name` on its operands (checked), its scalar parameters set from `params` where
 * given (the row's defaults otherwise).
 */
function run(name: string, operands: unknown[], opts: MathOptions, params: ReadonlyArray<number | undefined> = []): GPUArray {
  const def = rowOf(name)!;
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
  plan.params.forEach((v, i) => parsed.push({ value: params[i] ?? v, strong: plan.computes[def.nin + i] }));
  return elementwise(def, plan.body, parsed, plan.computes, plan.outs[0], plan.outs[0], opts);
}

/**
 * Applies cumath function `name` to its operands (one or two; frexp/modf: see {@link cumath.frexp | frexp};
 * angle and nanToNum with their default parameters).
 * @example
 * cumath.apply('sin', [a], { fastMath: true });
 */
export function apply(name: string, operands: unknown[], opts: MathOptions = {}): GPUArray {
  opts ??= {}; // null: no options, as in the operators
  const def = rowOf(name);
  if (!def || def.nout !== 1) throw typeError('ERR_INVALID_ARG_VALUE', `Unknown single-result cumath function ${describe(name)}`);
  if (operands.length !== def.nin) throw typeError('ERR_INVALID_ARG_COUNT', `cumath.${name} takes ${def.nin} operand(s)`);
  checkOpts(name, opts);
  return run(name, operands, opts);
}

/** Options of cumath.angle. */
export interface AngleOptions extends OpOptions {
  /** The angle in degrees (`* 180/π` in the result dtype, as NumPy's `deg=True`); radians by default. */
  deg?: boolean;
}

/**
 * The argument (phase angle) of complex values, `atan2(z.im, z.re)`, as float32 (complex64) or
 * float64 (complex128); real values give 0 (x ≥ +0) or π (x ≤ -0), NaN for NaN, in the float
 * dtype NumPy picks (`np.angle`: integers as for atan2, bool → float64).
 * @example
 * const phase = cumath.angle(z);                 // radians
 * const deg = cumath.angle(z, { deg: true });    // degrees
 */
export function angle(z: GPUArray, opts: AngleOptions = {}): GPUArray {
  opts ??= {};
  checkOpts('angle', opts, ['out', 'stream', 'deg']);
  if (!(z instanceof GPUArray)) throw typeError('ERR_INVALID_ARG_TYPE', `cumath.angle: z must be a GPUArray. Received ${describe(z)}`);
  return run('angle', [z], opts, [opts.deg ? 180 / Math.PI : 1]);
}

/** Options of cumath.nanToNum (NumPy's nan_to_num; `out: x` works in place, as `copy=False`). */
export interface NanToNumOptions extends OpOptions {
  /** The value for NaN (default 0). */
  nan?: number;
  /** The value for +Inf (default the dtype's largest finite value). */
  posinf?: number;
  /** The value for -Inf (default the dtype's most negative finite value). */
  neginf?: number;
}

/**
 * NaN → 0, +Inf → the largest finite value, -Inf → the most negative one (or the values given),
 * in the input's dtype; complex: to both parts (with the part dtype's limits); integer and bool
 * arrays: an unchanged copy. The values are converted to the dtype (float16: rounded to half).
 * @example
 * const clean = cumath.nanToNum(x);
 * cumath.nanToNum(x, { nan: -1, posinf: 1e6, out: x });   // in place
 */
export function nanToNum(x: GPUArray, opts: NanToNumOptions = {}): GPUArray {
  opts ??= {};
  checkOpts('nanToNum', opts, ['out', 'stream', 'nan', 'posinf', 'neginf']);
  if (!(x instanceof GPUArray)) throw typeError('ERR_INVALID_ARG_TYPE', `cumath.nanToNum: x must be a GPUArray. Received ${describe(x)}`);
  const values = (['nan', 'posinf', 'neginf'] as const).map((k) => {
    const v = opts[k];
    if (v !== undefined && typeof v !== 'number') {
      throw typeError('ERR_INVALID_ARG_TYPE', `cumath.nanToNum: ${k} must be a number. Received ${describe(v)}`);
    }
    return v;
  });
  return run('nanToNum', [x], opts, values);
}

/** Two results from one kernel (frexp, modf); `out` may alias the input. */
function split(name: 'frexp' | 'modf', x: unknown, opts: SplitOptions = {}): [GPUArray, GPUArray] {
  opts ??= {};
  checkOpts(name, opts, ['out', 'stream'], true);
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
  /** x * x; integers wrap and keep their dtype, bool → int8; complex too. @example cumath.square(a) */
  square: Unary;
  /** 1 / x; integers keep their dtype (1 / x truncated: ±1 stay, others and 0 give 0), bool → int8. @example cumath.reciprocal(a) */
  reciprocal: Unary;
  /** Normalized sinc, sin(πx) / (πx), 1 at 0 (np.sinc: integers and bool → float64; complex too). @example cumath.sinc(a) */
  sinc: Unary;
  /** Complex conjugate; real and integer dtypes: a copy (bool → int8, as NumPy's ufunc). @example cumath.conj(z) */
  conj: Unary;
  /** NumPy's other name of `conj`. @example cumath.conjugate(z) */
  conjugate: Unary;
  /** Maximum ignoring NaN (the other operand wins; NaN only when both are); complex: lexicographic. @example cumath.fmax(a, 0) */
  fmax: Binary;
  /** Minimum ignoring NaN (the other operand wins; NaN only when both are); complex: lexicographic. @example cumath.fmin(a, b) */
  fmin: Binary;
  /** log(e**x + e**y) without overflow (NumPy's formula: logaddexp(-Inf, -Inf) is -Inf); floats. @example cumath.logaddexp(a, b) */
  logaddexp: Binary;
  /** log2(2**x + 2**y) without overflow; floats. @example cumath.logaddexp2(a, b) */
  logaddexp2: Binary;
  /** Step function: 0 for x < 0, h0 at 0, 1 for x > 0, NaN for NaN; floats. @example cumath.heaviside(x, 0.5) */
  heaviside: Binary;
  /** The next representable value after x toward y (y when equal; float16: x, as NumPy); floats. @example cumath.nextafter(a, Infinity) */
  nextafter: Binary;
  /** Greatest common divisor of |x| and |y| (0 for two zeros); integer dtypes only, bool → int8. @example cumath.gcd(a, 12) */
  gcd: Binary;
  /** Least common multiple of |x| and |y| (0 if either is 0; wraps like NumPy); integer dtypes only. @example cumath.lcm(a, b) */
  lcm: Binary;
  /** The argument of complex values (radians, or degrees with `deg`). @example cumath.angle(z, { deg: true }) */
  angle: typeof angle;
  /** NaN and ±Inf replaced by finite values (`nan`, `posinf`, `neginf`). @example cumath.nanToNum(x, { nan: 0 }) */
  nanToNum: typeof nanToNum;
}

const unary = (name: string): Unary => (x, opts) => apply(name, [x], opts);
const binary = (name: string): Binary => (x, y, opts) => apply(name, [x, y], opts);

/** Every cumath function by name. */
export const cumathFunctions: CumathFunctions = {
  ...(Object.fromEntries(Object.entries(MATH).filter(([, d]) => d.nout === 1)
    .map(([n, d]) => [n, d.nin === 1 ? unary(n) : binary(n)])) as
    Omit<CumathFunctions, 'frexp' | 'modf' | 'degrees' | 'radians' | 'conjugate' | 'angle' | 'nanToNum'>),
  degrees: unary('degrees'),
  radians: unary('radians'),
  conjugate: unary('conjugate'),
  frexp,
  modf,
  angle,
  nanToNum,
};
