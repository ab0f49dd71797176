/**
 * The one ufunc dialect: every elementwise operation nodecuda generates from a declaration (the
 * GPUArray operators here, the cumath functions in cumath.ts) is a `UfuncDef` row: how its compute
 * and result dtypes follow from the promoted operand dtype (`types`) and its C statement per
 * compute dtype (`body`). `resolve()` turns a row and the operand types into a plan, and
 * operators.ts `elementwise()` runs every plan on the elementwise engine (engine/elementwise.ts,
 * template engine/templates/elementwise.ts). Reductions are declared the same way in reduction_specs.ts.
 */
import { DTYPES, DType, own } from '../base/dtype';
import { describe, typeError } from '../base/errors';
import { Operand as OperandType, resultType } from '../base/promote';

/** Compute-type categories an op's C code is written for. */
type Cat = 'b' | 'i' | 'u' | 'f' | 'c';

/** One elementwise operation (an operator or a math function). */
export interface UfuncDef {
  name: string;
  /** Kernel name of its specs: the operator name, `cumath_<name>` for the math functions. */
  kernel: string;
  nin: 1 | 2 | 3;
  nout: 1 | 2;
  /**
   * Given the promoted dtype of its operands, [compute dtype, output dtype(s)]; throws a TypeError
   * (ERR_INVALID_DTYPE) for a dtype it has no loop for.
   */
  types(promoted: DType): [DType, DType] | [DType, DType, DType];
  /** Statement computing r0 (r1) from x0.. (compute-typed) for a compute dtype; `fast`: fastMath asked for. */
  body(compute: DType, fast?: boolean): string;
  /** Device code the body relies on (the kernel's preamble). */
  preamble: string;
  /** Operands left out of promotion, each with its own compute dtype (where's condition, ldexp's exponent). */
  aside?: Readonly<Record<number, (t: OperandType) => DType>>;
  /** The fastMath expression (float16/float32 compute), where the row has one. */
  fast?: string;
  /** Vectors per thread when an operand computes in float64 (the engine's default otherwise). */
  vectors64?: number;
  /**
   * Scalar parameters after the operands (x<nin>…), for a compute dtype: [dtype, default] each
   * (cumath.angle's factor, nanToNum's replacements).
   */
  params?(compute: DType): ReadonlyArray<readonly [DType, number]>;
}

/** A row as a table declares it: its name (the key), kernel name and preamble come from the table. */
export type UfuncRow = Omit<UfuncDef, 'name' | 'kernel' | 'nout' | 'preamble'> & { nout?: 1 | 2 };

/** Builds a table: each row gets its name, `prefix + name` as its kernel name, the table's preamble and `extra`. */
export function ufuncTable(rows: Readonly<Record<string, UfuncRow>>, preamble: string, prefix = '',
  extra: Pick<UfuncDef, 'vectors64'> = {}): Readonly<Record<string, UfuncDef>> {
  return Object.freeze(Object.fromEntries(Object.entries(rows).map(([name, r]) =>
    [name, Object.freeze({ nout: 1, ...extra, ...r, name, kernel: prefix + name, preamble })])));
}

/** A resolved call: compute dtypes per input (the row's scalar parameters last), result dtypes, C statement, the promoted dtype. */
export interface UfuncPlan {
  computes: DType[];
  outs: DType[];
  body: string;
  promoted: DType;
  /** Default values of the row's scalar parameters (their dtypes end `computes`). */
  params: number[];
}

/**
 * Resolves row `def` for operands of dtypes `types` (weak scalars as JS values): the operands not
 * `aside` are promoted (`promote`, NumPy 2's result type unless given), `types()` picks the loop.
 * @example
 * resolve(UFUNCS.add, [DTYPES.int8, 1]).outs[0].name === 'int8';
 */
export function resolve(def: UfuncDef, types: readonly OperandType[], fast = false,
  promote: (types: OperandType[]) => DType = (ts) => resultType(...ts)): UfuncPlan {
  const aside = def.aside;
  const promoted = promote(aside ? types.filter((_, i) => !aside[i]) : types.slice());
  const [compute, ...outs] = def.types(promoted);
  const computes = types.map((t, i) => (aside?.[i] ? aside[i](t) : compute));
  const params = def.params?.(compute) ?? [];
  for (const [d] of params) computes.push(d);
  return { computes, outs, body: def.body(compute, fast), promoted, params: params.map(([, v]) => v) };
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
  // NumPy's npy_cpow: an integral real exponent in (-100, 100) multiplies (1j ** 2 is exactly -1).
  if (b.im == 0 && b.re > -100 && b.re < 100 && b.re == (R)(int)b.re) {
    int n = (int)b.re;
    if (n == 1) return a;
    if (n == 2) return a * a;
    if (n == 3) return a * (a * a);
    nc_complex<R> p(1, 0), aa = a;
    for (int m = n < 0 ? -n : n; m; m >>= 1) {
      if (m & 1) p = aa * p;
      if (m > 1) aa = aa * aa;
    }
    return n < 0 ? nc_complex<R>(1, 0) / p : p;
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
export const UFUNCS: Readonly<Record<string, UfuncDef>> = ufuncTable({
  add: { nin: 2, types: same(NUMERIC, 'add'), body: (d) => d.kind === 'b' ? 'r0 = x0 || x1;' : wrap(d, '+') },
  sub: {
    nin: 2,
    types: (p) => {
      if (p.kind === 'b') throw typeError('ERR_INVALID_DTYPE', 'sub is not supported for bool (use logicalXor)');
      return [p, p];
    },
    body: (d) => wrap(d, '-'),
  },
  mul: { nin: 2, types: same(NUMERIC, 'mul'), body: (d) => d.kind === 'b' ? 'r0 = x0 && x1;' : wrap(d, '*') },
  div: { nin: 2, types: trueDivide, body: () => 'r0 = x0 / x1;' },
  floorDiv: {
    nin: 2, types: boolAsInt8(['i', 'u', 'f'], 'floorDiv'),
    body: (d) => d.kind === 'f' ? 'r0 = nc_floordiv_py(x0, x1);'
      : d.kind === 'u' ? 'r0 = x1 == 0 ? 0 : x0 / x1;'
      : `if (x1 == 0) r0 = 0; else if (x1 == -1) r0 = (${d.ctype})(0u - (${d.twinC})x0); else { r0 = x0 / x1; if ((x0 % x1 != 0) && ((x0 < 0) != (x1 < 0))) r0 -= 1; }`,
  },
  mod: {
    nin: 2, types: boolAsInt8(['i', 'u', 'f'], 'mod'),
    body: (d) => d.kind === 'f' ? 'r0 = nc_fmod_py(x0, x1);'
      : d.kind === 'u' ? 'r0 = x1 == 0 ? 0 : x0 % x1;'
      : 'if (x1 == 0 || x1 == -1) r0 = 0; else { r0 = x0 % x1; if (r0 != 0 && ((r0 < 0) != (x1 < 0))) r0 += x1; }',
  },
  pow: {
    nin: 2, types: boolAsInt8(['i', 'u', 'f', 'c'], 'pow'),
    body: (d) => d.kind === 'f' ? `r0 = pow${fsuffix(d)}(x0, x1);`
      : d.kind === 'c' ? 'r0 = nc_cpow(x0, x1);'
      : 'r0 = nc_ipow(x0, x1);',
  },
  maximum: {
    nin: 2, types: same(NUMERIC, 'maximum'),
    body: (d) => d.kind === 'f' || d.kind === 'c'
      ? 'r0 = nc_isnan(x0) ? x0 : (nc_isnan(x1) ? x1 : (x0 >= x1 ? x0 : x1));'
      : 'r0 = x0 >= x1 ? x0 : x1;',
  },
  minimum: {
    nin: 2, types: same(NUMERIC, 'minimum'),
    body: (d) => d.kind === 'f' || d.kind === 'c'
      ? 'r0 = nc_isnan(x0) ? x0 : (nc_isnan(x1) ? x1 : (x0 <= x1 ? x0 : x1));'
      : 'r0 = x0 <= x1 ? x0 : x1;',
  },
  eq: { nin: 2, types: toBool, body: () => 'r0 = x0 == x1;' },
  ne: { nin: 2, types: toBool, body: () => 'r0 = x0 != x1;' },
  lt: { nin: 2, types: toBool, body: () => 'r0 = x0 < x1;' },
  le: { nin: 2, types: toBool, body: () => 'r0 = x0 <= x1;' },
  gt: { nin: 2, types: toBool, body: () => 'r0 = x0 > x1;' },
  ge: { nin: 2, types: toBool, body: () => 'r0 = x0 >= x1;' },
  and: { nin: 2, types: same(INTEGER, 'and (bitwise)'), body: (d) => d.kind === 'b' ? 'r0 = x0 && x1;' : 'r0 = x0 & x1;' },
  or: { nin: 2, types: same(INTEGER, 'or (bitwise)'), body: (d) => d.kind === 'b' ? 'r0 = x0 || x1;' : 'r0 = x0 | x1;' },
  xor: { nin: 2, types: same(INTEGER, 'xor (bitwise)'), body: (d) => d.kind === 'b' ? 'r0 = x0 != x1;' : 'r0 = x0 ^ x1;' },
  shl: {
    nin: 2, types: boolAsInt8(['i', 'u'], 'shl'),
    body: (d) => `r0 = ((unsigned long long)x1 < ${d.bytes * 8}) ? (${d.ctype})((${d.twinC || d.ctype})x0 << x1) : 0;`,
  },
  shr: {
    nin: 2, types: boolAsInt8(['i', 'u'], 'shr'),
    body: (d) => `r0 = ((unsigned long long)x1 < ${d.bytes * 8}) ? (${d.ctype})(x0 >> x1) : (x0 < 0 ? (${d.ctype})-1 : 0);`,
  },
  logicalAnd: { nin: 2, types: toBool, body: () => 'r0 = nc_nonzero(x0) && nc_nonzero(x1);' },
  logicalOr: { nin: 2, types: toBool, body: () => 'r0 = nc_nonzero(x0) || nc_nonzero(x1);' },
  logicalXor: { nin: 2, types: toBool, body: () => 'r0 = nc_nonzero(x0) != nc_nonzero(x1);' },
  logicalNot: { nin: 1, types: toBool, body: () => 'r0 = !nc_nonzero(x0);' },
  neg: {
    nin: 1,
    types: (p) => {
      if (p.kind === 'b') throw typeError('ERR_INVALID_DTYPE', 'neg is not supported for bool (use logicalNot)');
      return [p, p];
    },
    body: (d) => d.twinC ? `r0 = (${d.ctype})(0u - (${d.twinC})x0);` : d.kind === 'u' ? `r0 = (${d.ctype})(0u - x0);` : 'r0 = -x0;',
  },
  not: { nin: 1, types: same(INTEGER, 'not (bitwise)'), body: (d) => d.kind === 'b' ? 'r0 = !x0;' : `r0 = (${d.ctype})~x0;` },
  abs: {
    nin: 1,
    types: (p) => [p, p.name === 'complex64' ? DTYPES.float32 : p.name === 'complex128' ? DTYPES.float64 : p],
    body: (d) => d.kind === 'c' ? 'r0 = hypot(x0.re, x0.im);'
      : d.kind === 'f' ? `r0 = fabs${fsuffix(d)}(x0);`
      : d.kind === 'i' ? `r0 = x0 < 0 ? (${d.ctype})(0u - (${d.twinC})x0) : x0;`
      : 'r0 = x0;',
  },
  copy: { nin: 1, types: (p) => [p, p], body: () => 'r0 = x0;' },
  where: { nin: 3, types: (p) => [p, p], body: () => 'r0 = x0 ? x1 : x2;', aside: { 0: () => DTYPES.bool } },
}, UFUNC_PREAMBLE);

/** Looks an operator up by name. */
export function ufunc(name: string): UfuncDef {
  const u = own(UFUNCS, name);
  if (!u) throw typeError('ERR_INVALID_ARG_VALUE', `Unknown operator ${describe(name)}`);
  return u;
}
