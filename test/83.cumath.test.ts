/**
 * cumath on a real GPU against JS Math in float64 (NumPy 2 semantics): every function × every
 * dtype (TypeError where NumPy has no loop), special values (±0, ±Inf, NaN, domain errors → NaN,
 * subnormals), strided and broadcast operands, scalars, sizes 0/1/31/2^20+3, `out` (aliasing,
 * partial overlap, other dtype), fastMath, streams and errors.
 *
 * Tolerances, relative to |expected| (plus a few subnormal ulps, see reference.ts):
 * - float64: ULPS64[f] × 2^-52: CUDA's documented max ulp error (Programming Guide, "Mathematical
 *   Functions") + 1 for V8's own error; 0 for the exact functions (fabs ceil floor trunc round
 *   sqrt fmod ldexp frexp modf sign, and square reciprocal conj nanToNum fmax fmin heaviside
 *   nextafter gcd lcm); sinc as sin plus a division, angle as atan2. More cases of the later
 *   functions (logaddexp, edge cases, real/imag views): test/83.cumath-extra.test.ts.
 * - float32: ULPS32[f] × 2^-23: CUDA's max ulp error + 1 (the reference is Math.fround of the
 *   float64 result, itself within 0.5 ulp).
 * - float16 (computed in float32, stored as half): one half ulp, 2^-10 (double rounding).
 * - bfloat16 (computed in float32, stored as bfloat16): one bfloat16 ulp, 2^-7 (double rounding).
 * - complex64 2e-5 and complex128 1e-13 relative to |expected| (formula-based kernels).
 * - fastMath float32: 2^-19 relative + 2^-20 absolute (intrinsics, arguments in their good range).
 */
import * as cuda from '../lib';
import { GPUArray, cumath, driver, gpuarray } from '../lib';
import type { DTypeName } from '../lib';
import { collect, describeGpu, expectCode, settledLive } from './helpers';
import { C, DTYPE_NAMES, V, broadcast2, download, expectArray, expectSame, halfOf, kind, pool, show, store, upload, viewOf } from './reference';
import { cfmaxmin, crecip, fmaxmin, gcdRef, lcmRef, nanToNumRef, nextafterRef, sincRef } from './cumath-reference';
// Module-local aliases: global lookups are slow inside Jest's vm context (hot reference loops).
const { Math, Number, BigInt } = globalThis;

type Fn = (...args: unknown[]) => GPUArray;
const call = (name: string, ...args: unknown[]): GPUArray => (cumath as unknown as Record<string, Fn>)[name](...args);
const cyc = (xs: V[], n: number, from = 0): V[] => Array.from({ length: n }, (_, i) => xs[(from + i) % xs.length]);
const live = (): number => cuda.memory().liveAllocations;

const UNARY = ['fabs', 'ceil', 'floor', 'trunc', 'round', 'sign', 'exp', 'exp2', 'expm1', 'log', 'log2', 'log10', 'log1p', 'sqrt',
  'cbrt', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'sinh', 'cosh', 'tanh', 'asinh', 'acosh', 'atanh', 'rad2deg', 'deg2rad',
  'isnan', 'isinf', 'isfinite', 'square', 'reciprocal', 'sinc', 'conj', 'angle', 'nanToNum'];
const BINARY = ['fmod', 'atan2', 'hypot', 'copysign', 'fmax', 'fmin', 'heaviside', 'nextafter', 'gcd', 'lcm'];
/** NumPy leaves the sign of a zero fmax/fmin of -0 and 0 open. */
const ANY_ZERO_SIGN = ['fmax', 'fmin'];
/** float16/bfloat16/float32 results that are one float32 operation (then the 16-bit rounding, as NumPy's float16 loops). */
const ONE_F32_OP = ['square', 'reciprocal'];
const INEXACT = ['exp', 'exp2', 'expm1', 'log', 'log2', 'log10', 'log1p', 'sqrt', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan',
  'sinh', 'cosh', 'tanh', 'asinh', 'acosh', 'atanh'];
const TESTS = ['isnan', 'isinf', 'isfinite'];

const ULPS64: Record<string, number> = {
  exp: 2, exp2: 3, expm1: 2, log: 2, log2: 2, log10: 2, log1p: 2, cbrt: 2, sin: 3, cos: 3, tan: 3, asin: 3, acos: 3, atan: 3,
  sinh: 3, cosh: 2, tanh: 2, atan2: 3, hypot: 3, asinh: 4, acosh: 4, atanh: 3, sinc: 4, angle: 3,
};
const ULPS32: Record<string, number> = {
  exp: 3, exp2: 3, expm1: 2, log: 2, log2: 2, log10: 3, log1p: 2, cbrt: 2, sin: 3, cos: 3, tan: 5, asin: 3, acos: 3, atan: 3,
  sinh: 4, cosh: 3, tanh: 3, atan2: 4, hypot: 4, asinh: 4, acosh: 5, atanh: 4, sinc: 4, angle: 4,
};

/** Tolerance for a float result dtype. */
function tolFor(name: string, d: DTypeName): number {
  if (kind(d) === 'c' && name !== 'round') return d === 'complex64' ? 2e-5 : 1e-13;
  if (!(name in ULPS64)) return 0;
  switch (d) {
    case 'float64': return ULPS64[name] * 2 ** -52;
    case 'float32': return ULPS32[name] * 2 ** -23;
    case 'float16': return 2 ** -10;
    case 'bfloat16': return 2 ** -7;
    default: return 0;
  }
}

const FLOAT_OF: Record<string, DTypeName> = {
  bool: 'float16', int8: 'float16', uint8: 'float16', int16: 'float32', uint16: 'float32', int32: 'float64',
  uint32: 'float64', int64: 'float64', uint64: 'float64', float16: 'float16', bfloat16: 'bfloat16', float32: 'float32',
  float64: 'float64',
};

/** NumPy 2's result dtype (null: TypeError). */
function outType(name: string, d: DTypeName): DTypeName | null {
  const k = kind(d), int = k === 'i' || k === 'u';
  if (TESTS.includes(name)) return 'bool';
  if (['square', 'reciprocal', 'conj'].includes(name)) return k === 'b' ? 'int8' : d;
  if (['fmax', 'fmin', 'nanToNum'].includes(name)) return d;
  if (name === 'sinc') return k === 'f' || k === 'c' ? d : 'float64'; // np.sinc: pi * x
  if (name === 'angle') return d === 'complex64' ? 'float32' : d === 'complex128' || k === 'b' ? 'float64' : FLOAT_OF[d];
  if (name === 'gcd' || name === 'lcm') return k === 'f' || k === 'c' ? null : k === 'b' ? 'int8' : d;
  if (INEXACT.includes(name)) return k === 'c' ? d : FLOAT_OF[d];
  if (name === 'round') return int || k === 'c' ? d : FLOAT_OF[d];
  if (name === 'sign') return k === 'b' ? null : int || k === 'c' ? d : FLOAT_OF[d];
  if (k === 'c') return null;
  if (['ceil', 'floor', 'trunc'].includes(name)) return int || k === 'b' ? d : FLOAT_OF[d];
  if (name === 'fmod') return k === 'b' ? 'int8' : int ? d : FLOAT_OF[d];
  return FLOAT_OF[d];
}

// ---- float64 references ---------------------------------------------------------------------------

/** C rint: round half to even, keeping the sign of zero. */
function rint(x: number): number {
  if (!Number.isFinite(x)) return x;
  let r = Math.round(x);
  if (r - x === 0.5 && r % 2 !== 0) r -= 1;
  return r;
}
const copysign0 = (x: number): number => (x < 0 || Object.is(x, -0) ? -0 : 0);

/** x * 2**e exactly (one rounding at most, for the exponents used here). */
function ldexpRef(x: number, e: number): number {
  let r = x;
  e = Math.max(-3000, Math.min(3000, e)); // beyond ±3000 every finite non-zero x over/underflows alike
  while (e > 1000) { r *= 2 ** 1000; e -= 1000; }
  while (e < -1000) { r *= 2 ** -1000; e += 1000; }
  return r * 2 ** e;
}

function frexpRef(x: number): [number, number] {
  if (x === 0 || !Number.isFinite(x)) return [x, 0];
  let m = x, e = 0;
  while (Math.abs(m) >= 1) { m /= 2; e++; }
  while (Math.abs(m) < 0.5) { m *= 2; e--; }
  return [m, e];
}

function modfRef(x: number): [number, number] {
  if (Number.isNaN(x)) return [NaN, NaN];
  if (!Number.isFinite(x)) return [copysign0(x), x];
  const i = Math.trunc(x), f = x - i;
  return [f === 0 ? copysign0(x) : f, i];
}

const REAL: Record<string, (x: number, y: number) => number | boolean> = {
  fabs: Math.abs, ceil: Math.ceil, floor: Math.floor, trunc: Math.trunc, round: rint,
  sign: (x) => (x > 0 ? 1 : x < 0 ? -1 : x === 0 ? 0 : NaN),
  exp: Math.exp, exp2: (x) => 2 ** x, expm1: Math.expm1, log: Math.log, log2: Math.log2, log10: Math.log10,
  log1p: Math.log1p, sqrt: Math.sqrt, cbrt: Math.cbrt, sin: Math.sin, cos: Math.cos, tan: Math.tan, asin: Math.asin,
  acos: Math.acos, atan: Math.atan, sinh: Math.sinh, cosh: Math.cosh, tanh: Math.tanh,
  asinh: Math.asinh, acosh: Math.acosh, atanh: Math.atanh,
  isnan: (x) => Number.isNaN(x), isinf: (x) => x === Infinity || x === -Infinity, isfinite: (x) => Number.isFinite(x),
  square: (x) => x * x, reciprocal: (x) => 1 / x, conj: (x) => x, angle: (x) => Math.atan2(0, x),
  fmax: (x, y) => fmaxmin(true, x, y), fmin: (x, y) => fmaxmin(false, x, y),
  heaviside: (x, y) => (Number.isNaN(x) ? NaN : x === 0 ? y : x < 0 ? 0 : 1),
  fmod: (x, y) => x % y, atan2: Math.atan2, hypot: Math.hypot, ldexp: ldexpRef,
  // the inputs' NaNs have the sign bit clear (V8's NaN, floatToHalfBits/floatToBf16Bits of it)
  copysign: (x, y) => (y < 0 || Object.is(y, -0) ? -Math.abs(x) : Math.abs(x)),
};
/**
 * rad2deg/deg2rad: x times NumPy's factor in the compute type, [float, double]: float16, bfloat16
 * and float32 compute `x * (180.0f / NPY_PIf)` (57.2957763671875, not fround(180/π)), float64
 * `x * (180.0 / NPY_PI)`. One IEEE multiplication (exact in double for float operands, then rounded).
 */
const DEG: Record<string, [number, number]> = {
  rad2deg: [Math.fround(180 / Math.fround(Math.PI)), 180 / Math.PI],
  deg2rad: [Math.fround(Math.fround(Math.PI) / 180), Math.PI / 180],
};

// Complex references in float64, written differently from the kernels where it is easy.
const cx = (re: number, im: number): C => ({ re, im });
const add = (a: C, b: C): C => cx(a.re + b.re, a.im + b.im);
const sub = (a: C, b: C): C => cx(a.re - b.re, a.im - b.im);
const mul = (a: C, b: C): C => cx(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
const scale = (a: C, s: number): C => cx(a.re * s, a.im * s);
const div = (a: C, b: C): C => scale(mul(a, cx(b.re, -b.im)), 1 / (b.re * b.re + b.im * b.im));
const cexp = (z: C): C => scale(cx(Math.cos(z.im), Math.sin(z.im)), Math.exp(z.re));
const clog = (z: C): C => cx(Math.log(Math.hypot(z.re, z.im)), Math.atan2(z.im, z.re));
const csqrt = (z: C): C => {
  const t = Math.atan2(z.im, z.re) / 2;
  return scale(cx(Math.cos(t), Math.sin(t)), Math.sqrt(Math.hypot(z.re, z.im)));
};
const I = cx(0, 1), ONE = cx(1, 0);
const timesI = (z: C): C => cx(-z.im, z.re);
const csin = (z: C): C => { const d = sub(cexp(timesI(z)), cexp(scale(timesI(z), -1))); return cx(d.im / 2, -d.re / 2); };
const ccos = (z: C): C => scale(add(cexp(timesI(z)), cexp(scale(timesI(z), -1))), 0.5);
const csinh = (z: C): C => scale(sub(cexp(z), cexp(scale(z, -1))), 0.5);
const ccosh = (z: C): C => scale(add(cexp(z), cexp(scale(z, -1))), 0.5);
const casin = (z: C): C => { const w = clog(add(timesI(z), csqrt(sub(ONE, mul(z, z))))); return cx(w.im, -w.re); };
// The inverse hyperbolic functions by their log formulas (principal branches off the cuts, DLMF 4.37).
const casinh = (z: C): C => clog(add(z, csqrt(add(mul(z, z), ONE))));
const cacosh = (z: C): C => clog(add(z, mul(csqrt(add(z, ONE)), csqrt(sub(z, ONE)))));
const catanh = (z: C): C => scale(sub(clog(add(ONE, z)), clog(sub(ONE, z))), 0.5);
const COMPLEX: Record<string, (z: C) => C> = {
  exp: cexp, log: clog, sqrt: csqrt, sin: csin, cos: ccos, sinh: csinh, cosh: ccosh,
  tan: (z) => div(csin(z), ccos(z)), tanh: (z) => div(csinh(z), ccosh(z)),
  exp2: (z) => cexp(scale(z, Math.LN2)), log2: (z) => scale(clog(z), 1 / Math.LN2), log10: (z) => scale(clog(z), 1 / Math.LN10),
  expm1: (z) => sub(cexp(z), ONE), log1p: (z) => clog(add(ONE, z)),
  asin: casin, acos: (z) => sub(cx(Math.PI / 2, 0), casin(z)),
  atan: (z) => { const w = clog(div(add(I, z), sub(I, z))); return cx(-w.im / 2, w.re / 2); },
  asinh: casinh, acosh: cacosh, atanh: catanh,
  round: (z) => cx(rint(z.re), rint(z.im)),
  square: (z) => mul(z, z), reciprocal: crecip, conj: (z) => cx(z.re, -z.im), angle: (z) => cx(Math.atan2(z.im, z.re), 0),
  sinc: (z) => { const y = scale(z, Math.PI); return y.re === 0 && y.im === 0 ? ONE : div(csin(y), y); },
  sign: (z) => {
    const a = Math.hypot(z.re, z.im);
    if (Number.isNaN(a) || (!Number.isFinite(z.re) && !Number.isFinite(z.im))) return cx(NaN, NaN);
    if (a === Infinity) return Number.isFinite(z.re) ? cx(0, Math.sign(z.im)) : cx(Math.sign(z.re), 0);
    return a === 0 ? cx(0, 0) : cx(z.re / a, z.im / a);
  },
};
const cnan = (z: C): boolean => Number.isNaN(z.re) || Number.isNaN(z.im);
const cinf = (z: C): boolean => Math.abs(z.re) === Infinity || Math.abs(z.im) === Infinity;

/** The expected stored result of `name` for input value x of dtype d (result dtype o). */
function expected(name: string, d: DTypeName, o: DTypeName, x: V, y?: V): V {
  const k = kind(d);
  if (name === 'nanToNum') return store(o, nanToNumRef(o, x));
  if (k === 'c') {
    const z = x as C;
    if (name === 'fmax' || name === 'fmin') return store(o, cfmaxmin(name === 'fmax', z, y as C));
    if (name === 'isnan') return cnan(z) ? 1 : 0;
    if (name === 'isinf') return cinf(z) ? 1 : 0;
    if (name === 'isfinite') return !cnan(z) && !cinf(z) ? 1 : 0;
    return store(o, COMPLEX[name](z));
  }
  if ((k === 'i' || k === 'u' || k === 'b') && kind(o) !== 'f') {
    // Integer loops: exact, in the integer type.
    const b = BigInt(x as number | bigint);
    if (TESTS.includes(name)) return name === 'isfinite' ? 1 : 0;
    if (name === 'sign') return store(o, b > 0n ? 1n : b < 0n ? -1n : 0n);
    const c = BigInt(y as number | bigint ?? 0);
    if (name === 'fmod') return store(o, c === 0n ? 0n : b % c);
    if (name === 'square') return store(o, b * b);
    if (name === 'reciprocal') return store(o, b === 1n || b === -1n ? b : 0n);
    if (name === 'fmax' || name === 'fmin') return store(o, (name === 'fmax') === (b >= c) ? b : c);
    if (name === 'gcd' || name === 'lcm') return (name === 'gcd' ? gcdRef : lcmRef)(o, b, c);
    return store(o, b); // ceil floor trunc round conj
  }
  const fx = Number(x), fy = Number(y);
  if (name in DEG) return store(o, o === 'float64' ? fx * DEG[name][1] : Math.fround(fx * DEG[name][0]));
  if (name === 'nextafter') return nextafterRef(o, fx, fy);
  const r = name === 'sinc' ? sincRef(o, fx) : REAL[name](fx, fy);
  if (typeof r === 'boolean') return r ? 1 : 0;
  const rf = ONE_F32_OP.includes(name) && o !== 'float64' ? Math.fround(r) : r;
  return o === 'float16' ? halfOf(rf) : store(o, rf);
}

// ---- inputs -------------------------------------------------------------------------------------

const MORE = [0.1, -0.3, 0.9, -0.99, 1.5, 10, -20, 100, 1e-3, 2 ** -10, 2, -2, 0.25, 4.5, -5.5, 1.0000001];
/** Float inputs of dtype d: specials, subnormals, extremes and ordinary values (stored in d). */
const floatPool = (d: DTypeName): V[] => [...pool(d), ...MORE.map((v) => store(d, v))];
const COMPLEX_VALUES: C[] = [[0.5, 0.25], [1, 2], [-1.5, 0.5], [2.5, -0.5], [-0.3, -0.7], [0.1, 1.5], [3, -4], [-2, -0.25]]
  .map(([re, im]) => cx(re, im));
/** Inputs for function `name` on dtype d: complex uses finite values off the branch cuts, plus specials where defined. */
function inputs(name: string, d: DTypeName): V[] {
  if (kind(d) === 'c') {
    const vals = COMPLEX_VALUES.map((z) => store(d, z));
    return ['isnan', 'isinf', 'isfinite', 'round', 'sign', 'conj', 'nanToNum', 'angle', 'fmax', 'fmin'].includes(name) ? [...vals, ...pool(d)] : vals;
  }
  return kind(d) === 'f' ? floatPool(d) : pool(d);
}

function checkUnary(name: string, d: DTypeName): void {
  const o = outType(name, d);
  cuda.tidy(() => {
    const A = cyc(inputs(name, d), 67);
    const a = upload(d, A);
    if (o === null) {
      expectCode(() => call(name, a), TypeError, 'ERR_INVALID_DTYPE');
      return;
    }
    const tol = tolFor(name, o);
    const want = A.map((x) => expected(name, d, o, x));
    const r = call(name, a);
    expect(r.dtype.name).toBe(o);
    expectSame(download(r), want, tol, o, `${name} ${d}`, (i) => `x=${show(A[i])}`);
    // Strided: transposed with a negative step.
    const base = cyc(inputs(name, d), 30, 3);
    const v = upload(d, base, [5, 2, 3]).T.index('::-1');
    expectArray(call(name, v), o, [3, 2, 5], viewOf(base, [3, 2, 5], [-1, 3, 6], 2).map((x) => expected(name, d, o, x)), tol, 'strided');
  });
}

function checkBinary(name: string, d: DTypeName): void {
  const o = outType(name, d);
  cuda.tidy(() => {
    const xs = inputs(name, d).slice(0, 24), ys = inputs(name, d).slice(0, 24).reverse();
    const X: V[] = [], Y: V[] = [];
    for (const y of ys) for (const x of xs) { X.push(x); Y.push(y); }
    const a = upload(d, X), b = upload(d, Y);
    if (o === null) {
      expectCode(() => call(name, a, b), TypeError, 'ERR_INVALID_DTYPE');
      return;
    }
    const tol = tolFor(name, o);
    const f = (x: V, y: V): V => expected(name, d, o, x, y);
    const signedZero = !ANY_ZERO_SIGN.includes(name);
    expectArray(call(name, a, b), o, [X.length], X.map((x, i) => f(x, Y[i])), tol, `${name} ${d}`, signedZero);
    // Broadcast of strided operands with different ranks: [3,1,5] with [4,1].
    const bx = cyc(xs, 30, 1), by = cyc(ys, 8, 2);
    const sx = upload(d, bx, [5, 2, 3]).T.index(':', '1:', ':'), sy = upload(d, by, [4, 2]).index('::-1', '::2');
    const want = broadcast2(viewOf(bx, [3, 1, 5], [1, 3, 6], 3), [3, 1, 5], viewOf(by, [4, 1], [-2, 2], 6), [4, 1], f);
    expectArray(call(name, sx, sy), o, [3, 4, 5], want.out, tol, 'strided+broadcast', signedZero);
  });
}

describeGpu('cumath × dtypes (JS Math reference, NumPy 2 types)', () => {
  let baseline = 0;
  beforeAll(async () => {
    await collect();
    baseline = settledLive();
  });

  for (const name of UNARY) {
    describe(name, () => {
      for (const d of DTYPE_NAMES) test(d, () => checkUnary(name, d));
    });
  }
  for (const name of BINARY) {
    describe(name, () => {
      for (const d of DTYPE_NAMES) test(d, () => checkBinary(name, d));
    });
  }

  describe('scalars as operands (NumPy 2 weak scalars)', () => {
    test('fmod, atan2, hypot with a scalar on either side', () => cuda.tidy(() => {
      const A = floatPool('float32'), a = upload('float32', A);
      expectArray(cumath.atan2(a, 2.5), 'float32', [A.length], A.map((x) => Math.fround(Math.atan2(x as number, 2.5))), tolFor('atan2', 'float32'));
      expectArray(cumath.atan2(-1, a), 'float32', [A.length], A.map((x) => Math.fround(Math.atan2(-1, x as number))), tolFor('atan2', 'float32'));
      expectArray(cumath.hypot(3, a), 'float32', [A.length], A.map((x) => Math.fround(Math.hypot(3, x as number))), tolFor('hypot', 'float32'));
      expectArray(cumath.fmod(a, -1.5), 'float32', [A.length], A.map((x) => Math.fround((x as number) % -1.5)));
      const I = [-7, -1, 0, 1, 7, 100, -128, 127], i8 = upload('int8', I);
      expectArray(cumath.fmod(i8, 3), 'int8', [8], I.map((x) => x % 3 || 0));
      expectArray(cumath.fmod(i8, -1), 'int8', [8], I.map(() => 0));
      expectArray(cumath.fmod(100, i8), 'int8', [8], I.map((x) => (x === 0 ? 0 : 100 % x) || 0));
      expectArray(cumath.fmod(i8, 0), 'int8', [8], I.map(() => 0));
      expectArray(cumath.atan2(i8, 2.5), 'float64', [8], I.map((x) => Math.atan2(x, 2.5)), tolFor('atan2', 'float64'));
      expectArray(cumath.atan2(i8, cuda.float32(2)), 'float32', [8], I.map((x) => Math.fround(Math.atan2(x, 2))), tolFor('atan2', 'float32'));
      expectCode(() => cumath.fmod(i8, 1000), RangeError, 'ERR_OUT_OF_RANGE');
      expectCode(() => cumath.atan2(1, 2), TypeError, 'ERR_INVALID_ARG_TYPE');
    }));
  });

  describe('inverse hyperbolic domains, rad2deg/deg2rad (and degrees/radians), copysign', () => {
    const N = NaN, I = Infinity;
    test.each(['float16', 'bfloat16', 'float32', 'float64'] as DTypeName[])('%s: NaN outside the domain, atanh(±1) = ±Inf, signed zeros', (d) => cuda.tidy(() => {
      expectArray(cumath.atanh(upload(d, [1, -1, 2, -2, I, -I, N, -0, 0])), d, [9], [I, -I, N, N, N, N, N, -0, 0], 0, 'atanh');
      expectArray(cumath.acosh(upload(d, [1, 0.5, -1, 0, -0, I, -I, N])), d, [8], [0, N, N, N, N, I, N, N], 0, 'acosh');
      expectArray(cumath.asinh(upload(d, [I, -I, -0, 0, N])), d, [5], [I, -I, -0, 0, N], 0, 'asinh');
      // just inside the domains: atanh near ±1, acosh near 1 (within the table's tolerance)
      const near = [0.99, -0.999, 0.9999, 1 - 2 ** -11, -(1 - 2 ** -11)].map((x) => store(d, x) as number);
      expectArray(cumath.atanh(upload(d, near)), d, [5], near.map((x) => (d === 'float16' ? halfOf(Math.atanh(x)) : store(d, Math.atanh(x)))),
        tolFor('atanh', d), 'atanh near ±1');
      const above = [1 + 2 ** -10, 1 + 2 ** -7, 1.0625, 1.5].map((x) => store(d, x) as number);
      expectArray(cumath.acosh(upload(d, above)), d, [4], above.map((x) => (d === 'float16' ? halfOf(Math.acosh(x)) : store(d, Math.acosh(x)))),
        tolFor('acosh', d), 'acosh near 1');
    }));
    test('integers promote (NumPy 2): int8 → float16, int16 → float32, int32 → float64', () => cuda.tidy(() => {
      expectArray(cumath.atanh(upload('int8', [1, -1, 0, 2])), 'float16', [4], [I, -I, 0, N]);
      expectArray(cumath.acosh(upload('int16', [1, 0])), 'float32', [2], [0, N]);
      expectArray(cumath.asinh(upload('int32', [0, 3])), 'float64', [2], [0, Math.asinh(3)], tolFor('asinh', 'float64'));
      expectArray(cumath.rad2deg(upload('uint8', [0, 1])), 'float16', [2], [0, halfOf(Math.fround(180 / Math.fround(Math.PI)))]);
    }));
    test('rad2deg/deg2rad with NumPy\'s factors; degrees and radians are the same functions', () => cuda.tidy(() => {
      const x64 = upload('float64', [Math.PI, -Math.PI / 2, 0, -0, I, N]);
      expectArray(cumath.rad2deg(x64), 'float64', [6], [180, -90, 0, -0, I, N]);
      expectArray(cumath.degrees(x64), 'float64', [6], [180, -90, 0, -0, I, N]);
      const deg = upload('float64', [180, -90, 0, 360]);
      expectArray(cumath.deg2rad(deg), 'float64', [4], [180, -90, 0, 360].map((x) => x * (Math.PI / 180)));
      expectArray(cumath.radians(deg), 'float64', [4], [180, -90, 0, 360].map((x) => x * (Math.PI / 180)));
      // float32: x * (180.0f / NPY_PIf) = x * 57.2957763671875 (NumPy's float loop), not fround(x * 180 / π)
      const X = [1, 1.2345678, -3.75, 1e30, 2 ** -140].map(Math.fround), x32 = upload('float32', X);
      expectArray(cumath.rad2deg(x32), 'float32', [5], X.map((x) => Math.fround(x * 57.2957763671875)));
      expectArray(cumath.degrees(x32), 'float32', [5], X.map((x) => Math.fround(x * 57.2957763671875)));
      expectArray(cumath.deg2rad(x32), 'float32', [5], X.map((x) => Math.fround(x * Math.fround(Math.fround(Math.PI) / 180))));
      expectArray(cumath.apply('radians', [x32]), 'float32', [5], X.map((x) => Math.fround(x * Math.fround(Math.fround(Math.PI) / 180))));
      expectCode(() => cumath.degrees(upload('complex64', [{ re: 1, im: 0 }])), TypeError, 'ERR_INVALID_DTYPE');
    }));
    test('copysign: |x| with the sign of y (zeros too), weak scalars, integer promotion; complex refused', () => cuda.tidy(() => {
      const X = [3, -3, 0, -0, I, -I, N], a = upload('float32', X);
      expectArray(cumath.copysign(a, -1), 'float32', [7], [-3, -3, -0, -0, -I, -I, N]);
      expectArray(cumath.copysign(a, 0), 'float32', [7], [3, 3, 0, 0, I, I, N]);
      expectArray(cumath.copysign(a, -0), 'float32', [7], [-3, -3, -0, -0, -I, -I, N]);
      expectArray(cumath.copysign(2.5, a.index(':6')), 'float32', [6], [2.5, -2.5, 2.5, -2.5, 2.5, -2.5]);
      expectArray(cumath.copysign(upload('int16', [5, -5, 7]), upload('int8', [-1, 1, 0])), 'float32', [3], [-5, 5, 7]);
      expectArray(cumath.copysign(upload('bool', [1, 1]), upload('bool', [0, 1])), 'float16', [2], [1, 1]);
      const b = upload('float64', [1.5, -2, 0], [3, 1]), c = upload('float64', [-1, 1]);
      expectArray(cumath.copysign(b, c), 'float64', [3, 2], [-1.5, 1.5, -2, 2, -0, 0]);
      expectCode(() => cumath.copysign(upload('complex64', [{ re: 1, im: 0 }]), -1), TypeError, 'ERR_INVALID_DTYPE');
    }));
  });

  describe('ldexp', () => {
    const E = [-3, 0, 1, 5, -20, 60, -1060, 1100, -150, 14];
    for (const d of ['float16', 'float32', 'float64', 'int8', 'int32', 'bool'] as DTypeName[]) {
      for (const e of ['int8', 'int16', 'int32', 'int64', 'uint16', 'uint32'] as DTypeName[]) {
        test(`${d} × ${e}`, () => cuda.tidy(() => {
          const xs = kind(d) === 'f' ? floatPool(d) : pool(d);
          const es = E.map((v) => store(e, v));
          const X: V[] = [], Es: V[] = [];
          for (const v of es) for (const x of xs) { X.push(x); Es.push(v); }
          const o = FLOAT_OF[d];
          const ref = (x: V, k: V): V => store(o, ldexpRef(Number(x), Number(k)));
          const r = cumath.ldexp(upload(d, X), upload(e, Es));
          expectArray(r, o, [X.length], X.map((x, i) => (o === 'float16' ? halfOf(ldexpRef(Number(x), Number(Es[i]))) : ref(x, Es[i]))), 0, `ldexp ${d} ${e}`);
        }));
      }
    }
    test('scalar exponent, scalar mantissa, broadcast; float or uint64 exponents refused', () => cuda.tidy(() => {
      const X = floatPool('float32'), a = upload('float32', X);
      expectArray(cumath.ldexp(a, 3), 'float32', [X.length], X.map((x) => Math.fround(ldexpRef(x as number, 3))));
      expectArray(cumath.ldexp(a, -200), 'float32', [X.length], X.map((x) => Math.fround(ldexpRef(x as number, -200))));
      expectArray(cumath.ldexp(a, 10n ** 12n), 'float32', [X.length], X.map((x) => Math.fround(ldexpRef(x as number, 100000))));
      const e = upload('int32', [1, 2, 3, -1], [4, 1]);
      const want = broadcast2([1.5, -3], [2], [1, 2, 3, -1], [4, 1], (x, k) => ldexpRef(x, k));
      expectArray(cumath.ldexp(upload('float64', [1.5, -3]), e), 'float64', want.shape, want.out);
      expectArray(cumath.ldexp(0.75, e), 'float64', [4, 1], [1.5, 3, 6, 0.375]);
      expectCode(() => cumath.ldexp(a, 2.5), TypeError, 'ERR_INVALID_DTYPE');
      expectCode(() => cumath.ldexp(a, a), TypeError, 'ERR_INVALID_DTYPE');
      expectCode(() => cumath.ldexp(a, upload('uint64', [1n])), TypeError, 'ERR_INVALID_DTYPE');
      expectCode(() => cumath.ldexp(upload('complex64', [{ re: 1, im: 0 }]), 1), TypeError, 'ERR_INVALID_DTYPE');
    }));
  });

  describe('frexp and modf (two results from one kernel)', () => {
    for (const d of DTYPE_NAMES) {
      test(d, () => cuda.tidy(() => {
        const X = kind(d) === 'f' ? floatPool(d) : pool(d);
        const a = upload(d, X);
        if (kind(d) === 'c') {
          expectCode(() => cumath.frexp(a), TypeError, 'ERR_INVALID_DTYPE');
          expectCode(() => cumath.modf(a), TypeError, 'ERR_INVALID_DTYPE');
          return;
        }
        const o = FLOAT_OF[d];
        const [m, e] = cumath.frexp(a);
        const fr = X.map((x) => frexpRef(Number(x)));
        expectArray(m, o, [X.length], fr.map(([v]) => store(o, v)), 0, 'mantissa');
        expectArray(e, 'int32', [X.length], fr.map(([, k]) => k), 0, 'exponent');
        const [f, w] = cumath.modf(a);
        const mr = X.map((x) => modfRef(Number(x)));
        expectArray(f, o, [X.length], mr.map(([v]) => store(o, v)), 0, 'fraction');
        expectArray(w, o, [X.length], mr.map(([, v]) => store(o, v)), 0, 'integral');
        // Strided input.
        const s = upload(d, [...X, ...X]).index('::-2');
        const sx = [...X, ...X].filter((_, i) => i % 2 === 1).reverse();
        expectArray(cumath.modf(s)[1], o, [sx.length], sx.map((x) => store(o, modfRef(Number(x))[1])), 0, 'strided');
      }));
    }
    test('out pairs: other dtypes, aliasing the input, errors', () => cuda.tidy(() => {
      const X = [0.75, -3.5, 1e10, 2 ** -1070, -0, Infinity], a = upload('float64', X);
      const m = gpuarray.empty([6], 'float32'), e = gpuarray.empty([6], 'int64');
      const r = cumath.frexp(a, { out: [m, e] });
      expect(r[0]).toBe(m);
      expect(r[1]).toBe(e);
      expectArray(m, 'float32', [6], X.map((x) => Math.fround(frexpRef(x)[0])));
      expectArray(e, 'int64', [6], X.map((x) => BigInt(frexpRef(x)[1])));
      const w = gpuarray.empty([6], 'float64');
      cumath.modf(a, { out: [a, w] }); // the fraction overwrites the input
      expectArray(w, 'float64', [6], X.map((x) => modfRef(x)[1]));
      expectArray(a, 'float64', [6], X.map((x) => modfRef(x)[0]));
      expectCode(() => cumath.frexp(a, { out: [m] as never }), TypeError, 'ERR_INVALID_ARG_TYPE');
      expectCode(() => cumath.frexp(a, { out: [gpuarray.empty([6], 'int32'), e] }), TypeError, 'ERR_INVALID_DTYPE');
      expectCode(() => cumath.modf(a, { out: [gpuarray.empty([5], 'float64'), w] }), RangeError, 'ERR_SHAPE_MISMATCH');
      expectCode(() => cumath.modf(3 as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    }));
  });

  describe('sizes, out, streams, fastMath, errors', () => {
    test('sizes 0, 1, 31 and 2^20+3 (float32 sin, float64 exp, float16 log)', () => cuda.tidy(() => {
      for (const n of [0, 1, 31, 2 ** 20 + 3]) {
        const X = Array.from({ length: n }, (_, i) => ((i * 7919) % 2001) / 100 - 10);
        const a32 = upload('float32', X), a64 = upload('float64', X);
        const s = cumath.sin(a32), x = cumath.exp(a64), l = cumath.log(upload('float16', X.map((v) => Math.abs(v))));
        expectArray(s, 'float32', [n], download(a32).map((v) => Math.fround(Math.sin(v as number))), tolFor('sin', 'float32'));
        expectArray(x, 'float64', [n], X.map(Math.exp), tolFor('exp', 'float64'));
        const hx = X.map((v) => halfOf(Math.abs(v)));
        expectArray(l, 'float16', [n], hx.map((v) => halfOf(Math.log(v))), tolFor('log', 'float16'));
      }
    }));

    test('out: in place, other dtype, partial overlap, strided; errors', () => cuda.tidy(() => {
      const X = Array.from({ length: 37 }, (_, i) => i / 4 - 3);
      const a = upload('float64', X);
      expect(cumath.sin(a, { out: a })).toBe(a);
      expectArray(a, 'float64', [37], X.map(Math.sin), tolFor('sin', 'float64'));
      const b = upload('float64', X);
      cumath.exp(b.index(':-1'), { out: b.index('1:') }); // out = x[1:] reads x[:-1]
      expectArray(b, 'float64', [37], [X[0], ...X.slice(0, -1).map(Math.exp)], tolFor('exp', 'float64'));
      const f32 = upload('float32', X), o64 = gpuarray.empty([37], 'float64');
      cumath.cos(f32, { out: o64 }); // computed in float32, stored as float64
      expectArray(o64, 'float64', [37], X.map((x) => Math.fround(Math.cos(Math.fround(x)))), tolFor('cos', 'float32'));
      const big = gpuarray.zeros([74], 'float32'), strided = big.index('::2');
      cumath.sqrt(upload('float32', X.map(Math.abs)), { out: strided });
      expectArray(big.index('::2'), 'float32', [37], X.map((x) => Math.fround(Math.sqrt(Math.abs(x)))));
      expectArray(big.index('1::2'), 'float32', [37], X.map(() => 0));
      const m = upload('float32', X.slice(0, 36), [6, 6]);
      cumath.floor(m.T, { out: m });
      expectArray(m, 'float32', [6, 6], viewOf(X.slice(0, 36), [6, 6], [1, 6]).map(Math.floor));
      const bc = gpuarray.empty([3, 37], 'float64');
      cumath.tanh(upload('float64', X), { out: bc }); // the input broadcasts to out's shape
      expectArray(bc, 'float64', [3, 37], [...X, ...X, ...X].map(Math.tanh), tolFor('tanh', 'float64'));
      expectCode(() => cumath.sin(f32, { out: gpuarray.empty([36], 'float32') }), RangeError, 'ERR_SHAPE_MISMATCH');
      expectCode(() => cumath.sin(f32, { out: gpuarray.empty([37], 'int32') }), TypeError, 'ERR_INVALID_DTYPE');
      expectCode(() => cumath.sin(f32, { out: gpuarray.empty([37], 'bool') }), TypeError, 'ERR_INVALID_DTYPE');
      expectArray(cumath.isnan(f32, { out: gpuarray.empty([37], 'float32') }), 'float32', [37], X.map(() => 0)); // bool → float32 is safe
    }));

    test('on a stream', async () => {
      const s = new driver.Stream();
      const X = Array.from({ length: 1000 }, (_, i) => i / 10);
      const a = upload('float32', X);
      const r = cumath.log1p(a, { stream: s });
      const [m, e] = cumath.frexp(a, { stream: s });
      s.synchronize();
      expectArray(r, 'float32', [1000], X.map((x) => Math.fround(Math.log1p(Math.fround(x)))), tolFor('log1p', 'float32'));
      expectArray(e, 'int32', [1000], X.map((x) => frexpRef(Math.fround(x))[1]));
      for (const t of [a, r, m, e]) t.dispose();
    });

    test('fastMath: float32/float16 intrinsics within their documented error', () => cuda.tidy(() => {
      const X = Array.from({ length: 257 }, (_, i) => (i - 128) / 128 * Math.PI);
      const a = upload('float32', X), h = upload('float16', X);
      const near = (name: string, got: GPUArray, f: (x: number) => number, xs: V[]): void => {
        const g = download(got) as number[];
        const bad = xs.map((x, i) => [x, g[i], f(x as number)] as const)
          .filter(([, gv, w]) => !(Math.abs(gv - w) <= 2 ** -19 * Math.abs(w) + 2 ** -20 + (got.dtype.name === 'float16' ? 2 ** -10 * Math.abs(w) : 0)));
        expect([name, bad.slice(0, 5)]).toEqual([name, []]);
      };
      const ax = download(a), hx = download(h);
      near('sin', cumath.sin(a, { fastMath: true }), Math.sin, ax);
      near('cos', cumath.cos(a, { fastMath: true }), Math.cos, ax);
      near('sin f16', cumath.sin(h, { fastMath: true }), Math.sin, hx);
      const P = X.map((x) => Math.abs(x) + 0.5), p = upload('float32', P), px = download(p);
      near('log', cumath.log(p, { fastMath: true }), Math.log, px);
      near('log2', cumath.log2(p, { fastMath: true }), Math.log2, px);
      near('exp', cumath.exp(p, { fastMath: true }), Math.exp, px);
      // float64 has no intrinsics: fastMath changes nothing.
      const d = upload('float64', X);
      expectSame(download(cumath.sin(d, { fastMath: true })), download(cumath.sin(d)), 0);
    }));

    test('bad arguments', () => cuda.tidy(() => {
      const a = upload('float32', [1, 2]);
      expectCode(() => cumath.sin([1, 2] as never), TypeError, 'ERR_INVALID_ARG_TYPE');
      expectCode(() => cumath.sin(3 as never), TypeError, 'ERR_INVALID_ARG_TYPE');
      expectCode(() => cumath.sin(a, { fastMath: 'yes' as never }), TypeError, 'ERR_INVALID_ARG_TYPE');
      expectCode(() => cumath.sin(a, 5 as never), TypeError, 'ERR_INVALID_ARG_TYPE');
      expectCode(() => cumath.sin(a, { out: new Float32Array(2) as never }), TypeError, 'ERR_INVALID_ARG_TYPE');
      expectCode(() => cumath.fabs(upload('complex64', [{ re: 1, im: 1 }])), TypeError, 'ERR_INVALID_DTYPE');
      expectCode(() => cumath.sign(upload('bool', [1])), TypeError, 'ERR_INVALID_DTYPE');
      expectCode(() => cumath.hypot(a, 'x' as never), TypeError, 'ERR_INVALID_ARG_TYPE');
      expectCode(() => cumath.apply('nope', [a]), TypeError, 'ERR_INVALID_ARG_VALUE');
      expectCode(() => cumath.apply('sin', [a, a]), TypeError, 'ERR_INVALID_ARG_COUNT');
      const gone = upload('float32', [1]);
      gone.dispose();
      expectCode(() => cumath.exp(gone), TypeError, 'ERR_USE_AFTER_DISPOSE');
      expectCode(() => cumath.frexp(gone), TypeError, 'ERR_USE_AFTER_DISPOSE');
    }));
  });

  test('no leaked device memory', async () => {
    await collect();
    expect(live()).toBe(baseline);
  });
});
