/**
 * The built-in reductions as data (sum, prod, min, max, any, all, mean, var, std, argmin, argmax,
 * and the NaN-skipping nansum, nanprod, nanmin, nanmax, nanmean, nanvar, nanstd, nanargmin, nanargmax):
 * for each, its accumulator and result dtypes (NumPy's, or the `dtype` option) and the kernel parts
 * for an input dtype, and builtinSpec, which turns them into a memoized ReduceSpec
 * (templates/reduction.ts) for reductions.ts to run.
 */
import { DTYPES, DType, DTypeLike, computeDType, dtype as toDType, isFloat16Like, own } from '../base/dtype';
import { typeError } from '../base/errors';
import { ReduceSpec } from '../engine/templates/reduction';

/** @internal Whether `d` is an integer or bool dtype. */
export const isInt = (d: DType) => d.kind === 'i' || d.kind === 'u' || d.kind === 'b';

/** @internal NumPy's sum/prod dtype: small ints and bool → int64 (unsigned → uint64). */
export function sumDtype(d: DType): DType {
  if (d.kind === 'b' || d.kind === 'i') return DTYPES.int64;
  if (d.kind === 'u') return DTYPES.uint64;
  return d;
}

function meanDtype(d: DType): DType {
  return isInt(d) ? DTYPES.float64 : d;
}

/** The real dtype of a (complex) dtype. */
function realOf(d: DType): DType {
  return d.name === 'complex64' ? DTYPES.float32 : d.name === 'complex128' ? DTYPES.float64 : d;
}

// Specs by op, then by the dtypes (acc, out, idx or null, inputs): nested maps, no key strings.
const specs = new Map<unknown, unknown>();
const accBytesOf = new Map<string, number>();

/** @internal The accumulator's bytes of a spec builtinSpec made. */
export function specAccBytes(spec: ReduceSpec): number {
  return accBytesOf.get(spec.name)!;
}

function memo(keys: readonly unknown[], build: () => ReduceSpec): ReduceSpec {
  let m = specs;
  for (let j = 0; j < keys.length - 1; j++) {
    let next = m.get(keys[j]) as Map<unknown, unknown> | undefined;
    if (!next) m.set(keys[j], (next = new Map()));
    m = next;
  }
  const last = keys[keys.length - 1];
  let s = m.get(last) as ReduceSpec | undefined;
  if (!s) m.set(last, (s = build()));
  return s;
}

/** C expression converting compute-typed `x` to the accumulator of dtype `acc` (ints wrap unsigned). */
function toAcc(acc: DType, x: string): string {
  if (isInt(acc) && acc.kind !== 'b') return `(${acc.accUnsignedC})NC_TO(${acc.computeC}, ${x})`;
  if (acc.kind === 'b') return `(unsigned int)NC_TO(bool, ${x})`;
  return `NC_TO(${acc.accC}, ${x})`;
}

function accC(acc: DType): string {
  return isInt(acc) ? acc.accUnsignedC : acc.accC;
}

const INT_LIMITS: Record<string, [string, string]> = {
  bool: ['0', '1'], int8: ['-128', '127'], uint8: ['0u', '255u'], int16: ['-32768', '32767'], uint16: ['0u', '65535u'],
  int32: ['(-2147483647 - 1)', '2147483647'], uint32: ['0u', '4294967295u'],
  int64: ['(-9223372036854775807LL - 1)', '9223372036854775807LL'], uint64: ['0ull', '18446744073709551615ull'],
};

/** [lowest, highest] of values of dtype d as C expressions of d.accC. */
function limits(d: DType): [string, string] {
  if (isInt(d)) return INT_LIMITS[d.name];
  const inf = d.name === 'float64' || d.name === 'complex128' ? 'nc_inf_d()' : 'nc_inf_f()';
  if (d.kind === 'c') return [`${d.accC}(-${inf}, -${inf})`, `${d.accC}(${inf}, ${inf})`];
  return [`-${inf}`, inf];
}

interface Kind {
  /** Map from compute-typed values xs (one per input array) to the accumulator. */
  map(xs: string[]): string;
  acc: string;
  accBytes: number;
  neutral: string;
  reduce: string;
  post: string;
  preamble?: string;
}

/**
 * One reduction, declared like a ufunc row (ufunc.ts): `types` gives its [accumulator, result]
 * dtypes from the input dtype and the `dtype` option, `kernel` the kernel parts for them.
 */
export interface ReductionDef {
  types(d: DType, requested: DTypeLike | undefined): [DType, DType];
  kernel(d: DType, acc: DType, name: string): Kind;
}
type KindOf = ReductionDef['kernel'];

const hasNaN = (d: DType) => d.kind === 'f' || d.kind === 'c';

const sumProd = (op: 'sum' | 'prod'): KindOf => (d, acc) => ({
  map: (xs) => xs.length === 2 ? `${toAcc(acc, xs[0])} * ${toAcc(acc, xs[1])}` : toAcc(acc, xs[0]),
  acc: accC(acc), accBytes: acc.accBytes, neutral: `(${accC(acc)})${op === 'sum' ? 0 : 1}`,
  reduce: op === 'sum' ? 'a + b' : 'a * b', post: 'nc_acc',
});

const extremum = (op: 'max' | 'min'): KindOf => (d) => {
  const cmp = op === 'max' ? '>' : '<';
  const [lo, hi] = limits(d);
  return {
    map: (xs) => `NC_TO(${d.accC}, ${xs[0]})`, acc: d.accC, accBytes: d.accBytes,
    neutral: op === 'max' ? lo : hi,
    reduce: hasNaN(d) ? `nc_isnan(a) ? a : (nc_isnan(b) ? b : (a ${cmp} b ? a : b))` : `a ${cmp} b ? a : b`, post: 'nc_acc',
  };
};

const truth = (op: 'any' | 'all'): KindOf => () => ({
  map: (xs) => `(nc_nonzero(${xs[0]}) ? 1 : 0)`, acc: 'int', accBytes: 4, neutral: op === 'any' ? '0' : '1',
  reduce: op === 'any' ? 'a | b' : 'a & b', post: 'nc_acc',
});

const meanDef: KindOf = (d, acc) => {
  const c = acc.accC;
  return {
    map: (xs) => `NC_TO(${c}, ${xs[0]})`, acc: c, accBytes: acc.accBytes, neutral: `(${c})0`, reduce: 'a + b',
    post: acc.kind === 'c' ? `${c}(nc_acc.re / nc_k, nc_acc.im / nc_k)` : `nc_acc / (${c})nc_k`,
  };
};

const varianceDef = (op: 'var' | 'std'): KindOf => (d, acc) => {
  // acc: the mean's dtype (complex stays complex for the difference); the sum is real.
  const c = acc.accC;
  const r = realOf(acc).accC;
  const div = `(nc_acc / (${r})(nc_k - ddof > 0 ? nc_k - ddof : 0))`;
  return {
    map: (xs) => `nc_sq(NC_TO(${c}, ${xs[0]}) - nc_load(mean_[nc_o]))`, acc: r, accBytes: realOf(acc).accBytes,
    neutral: `(${r})0`, reduce: 'a + b', post: op === 'var' ? div : `${r === 'float' ? 'sqrtf' : 'sqrt'}(${div})`,
  };
};

const argExtremum = (op: 'argmax' | 'argmin'): KindOf => (d, acc, name) => {
  const cmp = op === 'argmax' ? '>' : '<';
  const [lo, hi] = limits(d);
  const v = d.accC;
  const av = `${name}_av`;
  return {
    preamble: `#ifndef ${av}_DEF\n#define ${av}_DEF\nstruct ${av} { ${v} v; long long i; };\n#endif`,
    map: (xs) => `${av}{NC_TO(${v}, ${xs[0]}), (long long)nc_r}`, acc: av,
    accBytes: ((d.accBytes + 7) & -8) + 8,
    neutral: `${av}{${op === 'argmax' ? lo : hi}, 9223372036854775807LL}`,
    reduce: hasNaN(d)
      ? `(nc_isnan(a.v) || nc_isnan(b.v)) ? ((nc_isnan(a.v) && (!nc_isnan(b.v) || a.i < b.i)) ? a : b) : ((a.v ${cmp} b.v || (a.v == b.v && a.i < b.i)) ? a : b)`
      : `(a.v ${cmp} b.v || (a.v == b.v && a.i < b.i)) ? a : b`,
    post: 'nc_acc.i',
  };
};

/**
 * nanargmax, nanargmin: a NaN element (complex: either part) maps to the neutral, whose index
 * (INT64_MAX) loses every tie, so ±Inf still win over it; a slice of nothing but NaN keeps the
 * neutral and stores -1 (NumPy raises; CuPy's -1). Integers and bool: argmax/argmin's kernel.
 */
const nanArgExtremum = (op: 'argmax' | 'argmin'): KindOf => (d, acc, name) => {
  const k = argExtremum(op)(d, acc, name);
  if (!hasNaN(d)) return k;
  const cmp = op === 'argmax' ? '>' : '<';
  return {
    ...k,
    map: (xs) => `(nc_isnan(${xs[0]}) ? ${k.neutral} : ${k.map(xs)})`,
    reduce: `(a.v ${cmp} b.v || (a.v == b.v && a.i < b.i)) ? a : b`,
    post: '(nc_acc.i == 9223372036854775807LL ? -1LL : nc_acc.i)',
  };
};

/** NaN of dtype d's accumulator (complex: both parts) as a C expression. */
function nanOf(d: DType): string {
  const r = d.name === 'float64' || d.name === 'complex128' ? '__longlong_as_double(0x7ff8000000000000LL)' : '__int_as_float(0x7fc00000)';
  return d.kind === 'c' ? `${d.accC}(${r}, ${r})` : r;
}

/** nansum, nanprod: a NaN element (complex: either part) counts as 0 / 1. */
const nanSumProd = (op: 'sum' | 'prod'): KindOf => (d, acc, name) => {
  const k = sumProd(op)(d, acc, name);
  return hasNaN(d) ? { ...k, map: (xs) => `(nc_isnan(${xs[0]}) ? ${k.neutral} : ${k.map(xs)})` } : k;
};

/** nanmax, nanmin: NaN is skipped; NaN is the neutral, so an all-NaN slice stays NaN. */
const nanExtremum = (op: 'max' | 'min'): KindOf => (d, acc, name) => {
  const k = extremum(op)(d, acc, name);
  const cmp = op === 'max' ? '>' : '<';
  return hasNaN(d) ? { ...k, neutral: nanOf(d), reduce: `nc_isnan(a) ? b : (nc_isnan(b) ? a : (a ${cmp} b ? a : b))` } : k;
};

/** A {sum, count} accumulator: the sum of the non-NaN elements' `value` and how many there are. */
function counted(d: DType, sumType: DType, name: string, value: (x: string) => string, post: (s: string, n: string) => string): Kind {
  const c = sumType.accC;
  const t = `${name}_sn`;
  return {
    preamble: `#ifndef ${t}_DEF\n#define ${t}_DEF\nstruct ${t} { ${c} s; long long n; };\n#endif`,
    map: (xs) => (hasNaN(d) ? `(nc_isnan(${xs[0]}) ? ${t}{(${c})0, 0} : ${t}{${value(xs[0])}, 1})` : `${t}{${value(xs[0])}, 1}`),
    acc: t, accBytes: ((sumType.accBytes + 7) & -8) + 8, neutral: `${t}{(${c})0, 0}`,
    reduce: `${t}{a.s + b.s, a.n + b.n}`, post: post('nc_acc.s', 'nc_acc.n'),
  };
}

/** nanmean: the sum and count of the non-NaN elements; none gives 0 / 0 = NaN. */
const nanMeanDef: KindOf = (d, acc, name) => {
  const c = acc.accC, r = realOf(acc).accC;
  return counted(d, acc, name, (x) => `NC_TO(${c}, ${x})`,
    (sum, n) => (acc.kind === 'c' ? `${c}(${sum}.re / (${r})${n}, ${sum}.im / (${r})${n})` : `${sum} / (${c})${n}`));
};

/** nanvar, nanstd: squared deviations from nanmean's `mean_` over the non-NaN elements; NaN where count − ddof ≤ 0. */
const nanVarianceDef = (op: 'var' | 'std'): KindOf => (d, acc, name) => {
  const c = acc.accC, real = realOf(acc), r = real.accC;
  return counted(d, real, name, (x) => `nc_sq(NC_TO(${c}, ${x}) - nc_load(mean_[nc_o]))`, (sum, n) => {
    const div = `(${n} - ddof > 0 ? ${sum} / (${r})(${n} - ddof) : ${nanOf(real)})`;
    return op === 'var' ? div : `${r === 'float' ? 'sqrtf' : 'sqrt'}(${div})`;
  });
};

const withDtype = (requested: DTypeLike | undefined, fallback: DType): DType => (requested === undefined ? fallback : toDType(requested));
const halfToFloat = computeDType;

/** sum, prod: the `dtype` option or NumPy's (small ints and bool → int64, unsigned → uint64). */
const sumTypes: ReductionDef['types'] = (d, requested) => {
  const acc = withDtype(requested, sumDtype(d));
  return [acc, acc];
};

/** min, max: the input dtype (no `dtype` option). */
const ownTypes = (op: string): ReductionDef['types'] => (d, requested) => {
  if (requested !== undefined) throw typeError('ERR_INVALID_ARG_VALUE', `${op} does not take a dtype`);
  return [d, d];
};

/** any/all: bool (as NumPy's, which take no dtype; 'bool' itself is accepted). */
const truthTypes = (op: string): ReductionDef['types'] => (d, requested) => {
  if (requested !== undefined && toDType(requested) !== DTYPES.bool) {
    throw typeError('ERR_INVALID_ARG_VALUE', `${op} returns bool and does not take another dtype`);
  }
  return [DTYPES.bool, DTYPES.bool];
};

/** mean: float64 for integers, float16/bfloat16 accumulate in float32. */
const meanTypes: ReductionDef['types'] = (d, requested) => {
  const out = withDtype(requested, meanDtype(d));
  return isInt(out) ? [DTYPES.float64, DTYPES.float64] : [halfToFloat(out), out];
};

/** var, std: accumulate (and take the mean) like mean; the result is real (float16 in, float16 out; bfloat16 too). */
const varianceTypes: ReductionDef['types'] = (d, requested) => {
  const m = withDtype(requested, meanDtype(d));
  const acc = isInt(m) ? DTYPES.float64 : halfToFloat(m);
  return [acc, realOf(requested === undefined && isFloat16Like(d) ? d : acc)];
};

/**
 * The reductions as data: their dtypes (`types`) and, for input dtype d and accumulator dtype acc,
 * the per-element map, the accumulator and its neutral value, the combining expression and the
 * result (templates/reduction.ts).
 */
const REDUCTIONS: Readonly<Record<string, ReductionDef>> = {
  sum: { types: sumTypes, kernel: sumProd('sum') },
  prod: { types: sumTypes, kernel: sumProd('prod') },
  max: { types: ownTypes('max'), kernel: extremum('max') },
  min: { types: ownTypes('min'), kernel: extremum('min') },
  any: { types: truthTypes('any'), kernel: truth('any') },
  all: { types: truthTypes('all'), kernel: truth('all') },
  mean: { types: meanTypes, kernel: meanDef },
  var: { types: varianceTypes, kernel: varianceDef('var') },
  std: { types: varianceTypes, kernel: varianceDef('std') },
  argmax: { types: (d) => [d, DTYPES.int64], kernel: argExtremum('argmax') },
  argmin: { types: (d) => [d, DTYPES.int64], kernel: argExtremum('argmin') },
  nansum: { types: sumTypes, kernel: nanSumProd('sum') },
  nanprod: { types: sumTypes, kernel: nanSumProd('prod') },
  nanmax: { types: ownTypes('nanmax'), kernel: nanExtremum('max') },
  nanmin: { types: ownTypes('nanmin'), kernel: nanExtremum('min') },
  nanmean: { types: meanTypes, kernel: nanMeanDef },
  nanvar: { types: varianceTypes, kernel: nanVarianceDef('var') },
  nanstd: { types: varianceTypes, kernel: nanVarianceDef('std') },
  nanargmax: { types: (d) => [d, DTYPES.int64], kernel: nanArgExtremum('argmax') },
  nanargmin: { types: (d) => [d, DTYPES.int64], kernel: nanArgExtremum('argmin') },
};

/** @internal The definition of reduction `op`; TypeError for an unknown one. */
export function reduction(op: string): ReductionDef {
  const def = own(REDUCTIONS, op);
  if (!def) throw typeError('ERR_INVALID_ARG_VALUE', `Unknown reduction ${op}`);
  return def;
}

/** The spec of a built-in reduction over `inputs` (dtypes), values read directly or through indices. @internal */
export function builtinSpec(op: string, inputs: DType[], acc: DType, out: DType, idx?: DType): ReduceSpec {
  return memo([op, acc, out, idx ?? null, inputs.length, ...inputs], () => {
    const tag = (d: DType) => d.name.replace('complex', 'c').replace('float', 'f').replace('uint', 'u').replace('int', 'i');
    const name = `nc_${op}_${inputs.map(tag).join('')}_${tag(acc)}_${tag(out)}${idx ? `_x${tag(idx)}` : ''}`;
    const d = inputs[0];
    const k = reduction(op).kernel(d, acc, name);
    accBytesOf.set(name, k.accBytes);
    const arrays = inputs.map((x, j) => `const ${x.storageC} *__restrict__ in${j}`);
    const extra = op.endsWith('var') || op.endsWith('std') ? [`const ${acc.storageC} *__restrict__ mean_`, 'const double ddof'] : [];
    const neutral = k.neutral;
    let params: string[];
    let map: string;
    if (idx) {
      params = [`const ${idx.storageC} *__restrict__ idx_`, ...arrays, 'const long long nsrc', ...extra];
      const xs = inputs.map((_, j) => `nc_load(in${j}[nc_src])`);
      map = `[&]() -> nc_acc_t { const long long nc_src = (long long)idx_[i]; if (nc_src < 0 || nc_src >= nsrc) return (${neutral}); return (${k.map(xs)}); }()`;
    } else {
      params = [...arrays, ...extra];
      map = k.map(inputs.map((_, j) => `nc_load(in${j}[i])`));
    }
    const vecOk = !idx;
    return {
      name, acc: k.acc, neutral, reduce: k.reduce, out: out.storageC, params: params.join(', '), map, post: k.post,
      preamble: k.preamble,
      vec: vecOk ? {
        arrays: inputs.map((x, j) => ({ name: `in${j}`, storage: x.storageC, compute: x.computeC })),
        map: k.map(inputs.map((_, j) => `nc_x${j}`)),
      } : undefined,
    };
  });
}
