/**
 * Elementwise operators declared as data: each entry says how its result and compute dtypes follow
 * from the (promoted) input dtypes and gives one C statement per compute dtype. operators.ts
 * (`apply`, which GPUArray's operator methods call) looks them up here and runs them on the elementwise
 * engine (engine/elementwise.ts, template engine/templates/elementwise.ts).
 */
import { DTYPES, DType, own } from '../base/dtype';
import { describe, typeError } from '../base/errors';

/** Compute-type categories an op's C code is written for. */
type Cat = 'b' | 'i' | 'u' | 'f' | 'c';

export interface UfuncDef {
  name: string;
  nin: 1 | 2 | 3;
  /** Given the promoted input dtype, [compute dtype, output dtype]; throws for unsupported types. */
  types(promoted: DType): [DType, DType];
  /** Statement computing r0 from x0.. (compute-typed) for a compute dtype. */
  body(compute: DType): string;
}

function cat(d: DType): Cat {
  return d.kind;
}

/** Integer arithmetic that wraps like NumPy (no signed-overflow UB): through the unsigned type. */
function wrap(d: DType, op: string): string {
  const u = d.twinC;
  return u ? `r0 = (${d.ctype})((${u})x0 ${op} (${u})x1);` : `r0 = x0 ${op} x1;`;
}

function same(allowed: Cat[], what: string) {
  return (p: DType): [DType, DType] => {
    if (!allowed.includes(cat(p))) {
      throw typeError('ERR_INVALID_DTYPE', `${what} is not supported for ${p.name}`);
    }
    return [p, p];
  };
}

const NUMERIC: Cat[] = ['b', 'i', 'u', 'f', 'c'];
const INTEGER: Cat[] = ['b', 'i', 'u'];

/** NumPy computes these on bool inputs as int8. */
function boolAsInt8(allowed: Cat[], what: string) {
  const inner = same(allowed, what);
  return (p: DType): [DType, DType] => (p.kind === 'b' ? [DTYPES.int8, DTYPES.int8] : inner(p));
}

function toBool(p: DType): [DType, DType] {
  return [p, DTYPES.bool];
}

function trueDivide(p: DType): [DType, DType] {
  const t = p.kind === 'f' || p.kind === 'c' ? p : DTYPES.float64;
  return [t, t];
}

const FLOAT_FLOOR_DIVMOD = `
template <typename T> __device__ __forceinline__ T nc_fmod_py(T a, T b) {
  T m = fmod(a, b);
  if (m != 0 && ((b < 0) != (m < 0))) m += b;
  else if (m == 0) m = copysign((T)0, b);
  return m;
}
template <typename T> __device__ __forceinline__ T nc_floordiv_py(T a, T b) {
  if (b == 0) return a / b;
  T m = fmod(a, b), d = (a - m) / b;
  if (m != 0 && ((b < 0) != (m < 0))) d -= 1;
  T f;
  if (d != 0) { f = floor(d); if (d - f > (T)0.5) f += 1; } else { f = copysign((T)0, a / b); }
  return f;
}
template <typename T> __device__ __forceinline__ T nc_ipow(T b, T e) {
  if (e < 0) return b == 1 ? (T)1 : (b == (T)-1 ? ((e & 1) ? (T)-1 : (T)1) : (T)0);
  // Multiplying in the unsigned type wraps without undefined behaviour.
  unsigned long long r = 1, ub = (unsigned long long)b;
  while (e) { if (e & 1) r *= ub; ub *= ub; e >>= 1; }
  return (T)r;
}
template <typename R> __device__ __forceinline__ nc_complex<R> nc_cpow(nc_complex<R> a, nc_complex<R> b) {
  if (b.re == 0 && b.im == 0) return nc_complex<R>(1, 0);
  if (a.re == 0 && a.im == 0) {
    // NumPy: 0 ** b is 0 for real b > 0, NaN otherwise.
    if (b.im == 0 && b.re > 0) return nc_complex<R>(0, 0);
    const R nan = __int_as_float(0x7fc00000);
    return nc_complex<R>(nan, nan);
  }
  R lr = log(hypot(a.re, a.im)), th = atan2(a.im, a.re);
  R mr = exp(b.re * lr - b.im * th), ang = b.im * lr + b.re * th;
  return nc_complex<R>(mr * cos(ang), mr * sin(ang));
}
`;

/** Device code the ops below rely on (added to every elementwise kernel's preamble). */
export const UFUNC_PREAMBLE = FLOAT_FLOOR_DIVMOD;

function fsuffix(d: DType): string {
  return d.name === 'float64' ? '' : 'f';
}

/** The operators, by name. */
export const UFUNCS: Record<string, UfuncDef> = {
  add: { name: 'add', nin: 2, types: same(NUMERIC, 'add'), body: (d) => d.kind === 'b' ? 'r0 = x0 || x1;' : wrap(d, '+') },
  sub: {
    name: 'sub', nin: 2,
    types: (p) => {
      if (p.kind === 'b') throw typeError('ERR_INVALID_DTYPE', 'sub is not supported for bool (use logicalXor)');
      return [p, p];
    },
    body: (d) => wrap(d, '-'),
  },
  mul: { name: 'mul', nin: 2, types: same(NUMERIC, 'mul'), body: (d) => d.kind === 'b' ? 'r0 = x0 && x1;' : wrap(d, '*') },
  div: { name: 'div', nin: 2, types: trueDivide, body: () => 'r0 = x0 / x1;' },
  floorDiv: {
    name: 'floorDiv', nin: 2, types: boolAsInt8(['i', 'u', 'f'], 'floorDiv'),
    body: (d) => d.kind === 'f' ? 'r0 = nc_floordiv_py(x0, x1);'
      : d.kind === 'u' ? 'r0 = x1 == 0 ? 0 : x0 / x1;'
      : `if (x1 == 0) r0 = 0; else if (x1 == -1) r0 = (${d.ctype})(0u - (${d.twinC})x0); else { r0 = x0 / x1; if ((x0 % x1 != 0) && ((x0 < 0) != (x1 < 0))) r0 -= 1; }`,
  },
  mod: {
    name: 'mod', nin: 2, types: boolAsInt8(['i', 'u', 'f'], 'mod'),
    body: (d) => d.kind === 'f' ? 'r0 = nc_fmod_py(x0, x1);'
      : d.kind === 'u' ? 'r0 = x1 == 0 ? 0 : x0 % x1;'
      : 'if (x1 == 0 || x1 == -1) r0 = 0; else { r0 = x0 % x1; if (r0 != 0 && ((r0 < 0) != (x1 < 0))) r0 += x1; }',
  },
  pow: {
    name: 'pow', nin: 2, types: boolAsInt8(['i', 'u', 'f', 'c'], 'pow'),
    body: (d) => d.kind === 'f' ? `r0 = pow${fsuffix(d)}(x0, x1);`
      : d.kind === 'c' ? 'r0 = nc_cpow(x0, x1);'
      : 'r0 = nc_ipow(x0, x1);',
  },
  maximum: {
    name: 'maximum', nin: 2, types: same(NUMERIC, 'maximum'),
    body: (d) => d.kind === 'f' || d.kind === 'c'
      ? 'r0 = nc_isnan(x0) ? x0 : (nc_isnan(x1) ? x1 : (x0 >= x1 ? x0 : x1));'
      : 'r0 = x0 >= x1 ? x0 : x1;',
  },
  minimum: {
    name: 'minimum', nin: 2, types: same(NUMERIC, 'minimum'),
    body: (d) => d.kind === 'f' || d.kind === 'c'
      ? 'r0 = nc_isnan(x0) ? x0 : (nc_isnan(x1) ? x1 : (x0 <= x1 ? x0 : x1));'
      : 'r0 = x0 <= x1 ? x0 : x1;',
  },
  eq: { name: 'eq', nin: 2, types: toBool, body: () => 'r0 = x0 == x1;' },
  ne: { name: 'ne', nin: 2, types: toBool, body: () => 'r0 = x0 != x1;' },
  lt: { name: 'lt', nin: 2, types: toBool, body: () => 'r0 = x0 < x1;' },
  le: { name: 'le', nin: 2, types: toBool, body: () => 'r0 = x0 <= x1;' },
  gt: { name: 'gt', nin: 2, types: toBool, body: () => 'r0 = x0 > x1;' },
  ge: { name: 'ge', nin: 2, types: toBool, body: () => 'r0 = x0 >= x1;' },
  and: { name: 'and', nin: 2, types: same(INTEGER, 'and (bitwise)'), body: (d) => d.kind === 'b' ? 'r0 = x0 && x1;' : 'r0 = x0 & x1;' },
  or: { name: 'or', nin: 2, types: same(INTEGER, 'or (bitwise)'), body: (d) => d.kind === 'b' ? 'r0 = x0 || x1;' : 'r0 = x0 | x1;' },
  xor: { name: 'xor', nin: 2, types: same(INTEGER, 'xor (bitwise)'), body: (d) => d.kind === 'b' ? 'r0 = x0 != x1;' : 'r0 = x0 ^ x1;' },
  shl: {
    name: 'shl', nin: 2, types: boolAsInt8(['i', 'u'], 'shl'),
    body: (d) => `r0 = ((unsigned long long)x1 < ${d.bytes * 8}) ? (${d.ctype})((${d.twinC || d.ctype})x0 << x1) : 0;`,
  },
  shr: {
    name: 'shr', nin: 2, types: boolAsInt8(['i', 'u'], 'shr'),
    body: (d) => `r0 = ((unsigned long long)x1 < ${d.bytes * 8}) ? (${d.ctype})(x0 >> x1) : (x0 < 0 ? (${d.ctype})-1 : 0);`,
  },
  logicalAnd: { name: 'logicalAnd', nin: 2, types: toBool, body: () => 'r0 = nc_nonzero(x0) && nc_nonzero(x1);' },
  logicalOr: { name: 'logicalOr', nin: 2, types: toBool, body: () => 'r0 = nc_nonzero(x0) || nc_nonzero(x1);' },
  logicalXor: { name: 'logicalXor', nin: 2, types: toBool, body: () => 'r0 = nc_nonzero(x0) != nc_nonzero(x1);' },
  logicalNot: { name: 'logicalNot', nin: 1, types: toBool, body: () => 'r0 = !nc_nonzero(x0);' },
  neg: {
    name: 'neg', nin: 1,
    types: (p) => {
      if (p.kind === 'b') throw typeError('ERR_INVALID_DTYPE', 'neg is not supported for bool (use logicalNot)');
      return [p, p];
    },
    body: (d) => d.twinC ? `r0 = (${d.ctype})(0u - (${d.twinC})x0);` : d.kind === 'u' ? `r0 = (${d.ctype})(0u - x0);` : 'r0 = -x0;',
  },
  not: { name: 'not', nin: 1, types: same(INTEGER, 'not (bitwise)'), body: (d) => d.kind === 'b' ? 'r0 = !x0;' : `r0 = (${d.ctype})~x0;` },
  abs: {
    name: 'abs', nin: 1,
    types: (p) => [p, p.name === 'complex64' ? DTYPES.float32 : p.name === 'complex128' ? DTYPES.float64 : p],
    body: (d) => d.kind === 'c' ? 'r0 = hypot(x0.re, x0.im);'
      : d.kind === 'f' ? `r0 = fabs${fsuffix(d)}(x0);`
      : d.kind === 'i' ? `r0 = x0 < 0 ? (${d.ctype})(0u - (${d.twinC})x0) : x0;`
      : 'r0 = x0;',
  },
  copy: { name: 'copy', nin: 1, types: (p) => [p, p], body: () => 'r0 = x0;' },
  where: { name: 'where', nin: 3, types: (p) => [p, p], body: () => 'r0 = x0 ? x1 : x2;' },
};

/** Looks an operator up by name. */
export function ufunc(name: string): UfuncDef {
  const u = own(UFUNCS, name);
  if (!u) throw typeError('ERR_INVALID_ARG_VALUE', `Unknown operator ${describe(name)}`);
  return u;
}
