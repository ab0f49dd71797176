/**
 * Array reductions with NumPy semantics: sum, prod, min, max, mean, var, std, argmin, argmax, any,
 * all, dot and the subset forms, whole-array or over `axis` (int or list) with `keepdims`,
 * `dtype` and `out`. Each is a ReduceSpec (templates/reduction.ts) built from the dtypes; the
 * engine (engine/reduce.ts) picks the kernel variant for the layout.
 */
import { DTYPES, DType, DTypeLike, computeDType, dtype as toDType, isFloat16Like, own } from '../base/dtype';
import { checkedOptions, describe, rangeError, typeError } from '../base/errors';
import { Stream } from '../cuda/driver';
import { usedOn } from '../cuda/memory';
import { blasDot, blasDotType } from '../cuda/cublas';
import { GPUArray } from './gpuarray';
import { registerArrayMethods } from './methods';
import { assign } from './operators';
import { canCast, resultType } from '../base/promote';
import { normalizeAxis } from '../base/shape';
import { ReduceSpec } from '../engine/templates/reduction';
import { runReduction } from '../engine/reduce';
import { ParamValue } from '../cuda/args';
import { checkDevices } from './devices';
import { checkWritable, overlaps } from './overlap';

/** Options of the reductions. */
export interface ReduceOptions {
  /** Axis or axes to reduce (negative counts from the end); all when null/undefined. */
  axis?: number | readonly number[] | null;
  /** Keep reduced dims as size 1. */
  keepdims?: boolean;
  /** Accumulate and return in this dtype (sum, prod, mean, var, std, dot). */
  dtype?: DTypeLike;
  /** Write the result here (shape of the result; dtype castable 'same_kind'). */
  out?: GPUArray;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

/** dot and the subset reductions: a reduction's options without `axis` (they reduce everything). */
export type DotOptions = Omit<ReduceOptions, 'axis'>;

/** var/std: delta degrees of freedom (divide by n - ddof). */
export interface VarOptions extends ReduceOptions {
  /** Delta degrees of freedom: the sum of squares is divided by n - ddof (default 0). */
  ddof?: number;
}

/** argmin/argmax take one axis (or none: the flattened index). */
export interface ArgOptions {
  /** The one axis to search along (negative counts from the end); the flattened index when null/undefined. */
  axis?: number | null;
  /** Keep the reduced dim as size 1. */
  keepdims?: boolean;
  /** Write the indices here (shape of the result). */
  out?: GPUArray;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

const isInt = (d: DType) => d.kind === 'i' || d.kind === 'u' || d.kind === 'b';

/** NumPy's sum/prod dtype: small ints and bool → int64 (unsigned → uint64). */
function sumDtype(d: DType): DType {
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
interface ReductionDef {
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
};

function reduction(op: string): ReductionDef {
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
    const extra = op === 'var' || op === 'std' ? [`const ${acc.storageC} *__restrict__ mean_`, 'const double ddof'] : [];
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

/** All axes of an array of each rank, frozen and shared. */
const ALL_AXES: number[][] = [];

/** @internal */
export function axesOf(axis: unknown, ndim: number): number[] {
  if (axis === undefined || axis === null) return (ALL_AXES[ndim] ??= Object.freeze(Array.from({ length: ndim }, (_, i) => i)) as number[]);
  if (typeof axis === 'number') return [normalizeAxis(axis, ndim)];
  const list = Array.isArray(axis) ? axis : null;
  if (!list) throw typeError('ERR_INVALID_ARG_TYPE', `axis must be an integer or a list of integers. Received ${describe(axis)}`);
  const out = Array.from(list, (a) => normalizeAxis(a as number, ndim)); // a hole reads as undefined: rejected
  if (new Set(out).size !== out.length) throw rangeError('ERR_AXIS_OUT_OF_RANGE', `repeated axis in [${list.join(', ')}]`);
  return out;
}

function elemStrides(a: GPUArray): number[] {
  return a.strides.map((s) => s / a.dtype.bytes);
}

/** @internal */
export interface Target {
  result: GPUArray;
  write: GPUArray;
  /** Whether `write` was made here (the new result or a temporary), not the caller's out. */
  own: boolean;
}

/** The output: `out` itself when contiguous of the right dtype, else a temporary copied over after. @internal */
export function target(shape: number[], keptShape: number[], outDt: DType,
  opts: { out?: GPUArray; stream?: Stream | null }, what: string, inputs: ReadonlyArray<GPUArray | undefined>): Target {
  const out = opts.out;
  if (out === undefined) {
    const r = GPUArray.allocate(shape, outDt, opts.stream);
    return { result: r, write: r, own: true };
  }
  if (!(out instanceof GPUArray)) throw typeError('ERR_INVALID_ARG_TYPE', `${what}: out must be a GPUArray. Received ${describe(out)}`);
  out.check();
  const same = (x: readonly number[]) => x.length === out.shape.length && x.every((n, i) => n === out.shape[i]);
  if (!same(shape) && !same(keptShape)) {
    throw rangeError('ERR_SHAPE_MISMATCH', `${what}: out has shape (${out.shape.join(',')}); the result has shape (${shape.join(',')})`);
  }
  if (!canCast(outDt, out.dtype, 'same_kind')) {
    throw typeError('ERR_INVALID_DTYPE', `${what}: cannot store a ${outDt.name} result in a ${out.dtype.name} out array (same_kind casting)`);
  }
  checkWritable(out, what);
  // Into the caller's out only when no input shares its bytes: a block could store a result over
  // input elements another block has yet to read (sum(m, { axis: 1, out: m[-1] })).
  if (out.dtype === outDt && out.flags.cContiguous && !inputs.some((x) => x && overlaps(out, x))) {
    return { result: out, write: out, own: false };
  }
  return { result: out, write: GPUArray.allocate(shape, outDt, opts.stream), own: true };
}

/**
 * `run` (the reduction writing `t.write`), then the temporary copied into `out`: the result. When
 * either throws, what target() made (the new result or the temporary) is disposed, never the
 * caller's out. @internal
 */
export function finish(t: Target, stream: Stream | null | undefined, run: () => void): GPUArray {
  try {
    run();
    if (t.write !== t.result) {
      assign(t.result, t.write.reshape(t.result.shape), stream);
      t.write.dispose();
    }
    return t.result;
  } catch (e) {
    if (t.own) t.write.dispose();
    throw e;
  }
}

interface Plan {
  op: string;
  arrays: GPUArray[];
  acc: DType;
  out: DType;
  opts: ReduceOptions & { ddof?: number };
  axes: number[];
  idx?: GPUArray;
  extra?: ParamValue[];
}

function execute(p: Plan): GPUArray {
  checkDevices(p.op, p.idx ? [...p.arrays, p.idx] : p.arrays, p.opts.out instanceof GPUArray ? p.opts.out : undefined);
  const a = p.idx ?? p.arrays[0];
  const axes = p.axes;
  let keptShape: number[], shape: number[], k: number, m: number;
  if (axes.length === a.ndim) { // the whole array
    keptShape = [];
    shape = p.opts.keepdims ? a.shape.map(() => 1) : keptShape;
    k = a.size;
    m = 1;
  } else {
    const keep = new Set(axes);
    keptShape = a.shape.filter((_, d) => !keep.has(d));
    shape = p.opts.keepdims ? a.shape.map((n, d) => (keep.has(d) ? 1 : n)) : keptShape;
    k = axes.reduce((s, d) => s * a.shape[d], 1);
    m = keptShape.reduce((s, n) => s * n, 1);
  }
  if (k === 0 && m > 0 && (p.op === 'min' || p.op === 'max' || p.op === 'argmin' || p.op === 'argmax')) {
    throw rangeError('ERR_EMPTY_REDUCTION', `zero-size array to reduction operation ${p.op} which has no identity`);
  }
  const t = target(shape, keptShape, p.out, p.opts, p.op, p.idx ? [...p.arrays, p.idx] : p.arrays);
  return finish(t, p.opts.stream, () => {
    const spec = builtinSpec(p.op, p.arrays.map((x) => x.dtype), p.acc, p.out, p.idx?.dtype);
    const args: ParamValue[] = [];
    if (p.idx) args.push({ ptr: p.idx.address });
    for (const x of p.arrays) args.push({ ptr: x.address });
    if (p.idx) args.push({ dtype: DTYPES.int64, value: BigInt(p.arrays[0].size) });
    args.push(...(p.extra ?? []));
    usedOn(p.opts.stream, [...p.arrays, p.idx, t.write]); // memory of another stream is recorded (memory.ts useOn)
    runReduction(spec, {
      shape: a.shape, strides: elemStrides(a), axes, orderFree: !p.op.startsWith('arg'), args, out: t.write.address,
      accBytes: accBytesOf.get(spec.name)!,
      vec: p.arrays.map((x) => ({ bytes: x.dtype.bytes, align16: x.align16 })), stream: p.opts.stream,
    });
  });
}

function checked(a: unknown, what: string): GPUArray {
  if (!(a instanceof GPUArray)) throw typeError('ERR_INVALID_ARG_TYPE', `${what}: expected a GPUArray. Received ${describe(a)}`);
  return a.check();
}

// A reduction's options: NumPy's `where` and `initial` are refused, not dropped (they change the result).
const REDUCE_OPTIONS = ['axis', 'keepdims', 'dtype', 'out', 'stream'];

function simple(op: 'sum' | 'prod' | 'min' | 'max' | 'any' | 'all' | 'mean') {
  return (a: GPUArray, opts?: ReduceOptions): GPUArray => {
    const x = checked(a, op);
    opts = checkedOptions(opts, op, REDUCE_OPTIONS);
    const axes = axesOf(opts.axis, x.ndim);
    const [acc, out] = reduction(op).types(x.dtype, opts.dtype);
    return execute({ op, arrays: [x], acc, out, opts, axes });
  };
}

export const sum = simple('sum');
export const prod = simple('prod');
export const min = simple('min');
export const max = simple('max');
export const any = simple('any');
export const all = simple('all');
export const mean = simple('mean');

function variance(op: 'var' | 'std') {
  return (a: GPUArray, opts?: VarOptions): GPUArray => {
    const x = checked(a, op);
    opts = checkedOptions(opts, op, [...REDUCE_OPTIONS, 'ddof']);
    const axes = axesOf(opts.axis, x.ndim);
    const ddof = opts.ddof ?? 0;
    if (typeof ddof !== 'number' || !Number.isFinite(ddof)) throw typeError('ERR_INVALID_ARG_TYPE', `${op}: ddof must be a number`);
    const [acc, out] = reduction(op).types(x.dtype, opts.dtype);
    const mu = execute({ op: 'mean', arrays: [x], acc, out: acc, opts: { axis: opts.axis, stream: opts.stream }, axes });
    try {
      return execute({ op, arrays: [x], acc, out, opts, axes, extra: [{ ptr: mu.address }, { dtype: DTYPES.float64, value: ddof }] });
    } finally {
      mu.dispose();
    }
  };
}

export const var_ = variance('var');
export const std = variance('std');

function arg(op: 'argmin' | 'argmax') {
  return (a: GPUArray, opts?: ArgOptions): GPUArray => {
    const x = checked(a, op);
    opts = checkedOptions(opts, op, ['axis', 'keepdims', 'out', 'stream']);
    if (opts.axis !== undefined && opts.axis !== null && typeof opts.axis !== 'number') {
      throw typeError('ERR_INVALID_ARG_TYPE', `${op}: axis must be an integer or null`);
    }
    const axes = axesOf(opts.axis, x.ndim);
    const [acc, out] = reduction(op).types(x.dtype, undefined);
    return execute({ op, arrays: [x], acc, out, opts, axes });
  };
}

export const argmin = arg('argmin');
export const argmax = arg('argmax');

/** `t`, added to `temps` (disposed by the caller). */
const temp = (temps: GPUArray[], t: GPUArray): GPUArray => (temps.push(t), t);

/** The two operands of dot with one shared layout (contiguous copies when theirs differ). */
function sameLayout(a: GPUArray, b: GPUArray, what: string, stream: Stream | null | undefined): [GPUArray, GPUArray, GPUArray[]] {
  if (a.shape.length !== b.shape.length || a.shape.some((n, i) => n !== b.shape[i])) {
    throw rangeError('ERR_SHAPE_MISMATCH', `${what}: shapes (${a.shape.join(',')}) and (${b.shape.join(',')}) differ`);
  }
  checkDevices(what, [a, b]);
  if (a.strides.every((s, i) => s / a.dtype.bytes === b.strides[i] / b.dtype.bytes)) return [a, b, []];
  const temps: GPUArray[] = [];
  // Copied on the call's stream, which reads them (a non-blocking stream does not wait for the legacy one).
  const c = (x: GPUArray) => (x.flags.cContiguous ? x : temp(temps, x.copy({ stream })));
  return [c(a), c(b), temps];
}

const INT32_MAX = 2 ** 31 - 1;

// One element stride > 0 that walks all of `v` (C-contiguous, or 1-D with a positive step), or 0.
function unitWalk(v: GPUArray): number {
  if (v.flags.cContiguous) return 1;
  const s = v.ndim === 1 ? v.strides[0] / v.dtype.bytes : 0;
  return Number.isInteger(s) && s > 0 ? s : 0;
}

/**
 * dot through cuBLAS (cublasDotEx, as PyTorch's torch.dot) for float32/float64/complex64/
 * complex128 operands of one dtype that each walk with one positive stride, no `dtype` or `out`
 * option, 1 ≤ n < 2^31 and libcublas present; null otherwise (the reduction kernel then runs).
 */
function blasDotOf(x: GPUArray, y: GPUArray, opts: ReduceOptions): GPUArray | null {
  const n = x.size;
  if (opts.dtype !== undefined || opts.out !== undefined || opts.keepdims || x.dtype !== y.dtype || n < 1 || n > INT32_MAX) return null;
  const incx = unitWalk(x), incy = unitWalk(y);
  if (!incx || !incy || incx * (n - 1) > INT32_MAX || incy * (n - 1) > INT32_MAX) return null; // cuBLAS's int indexing
  const type = blasDotType(x.dtype.name);
  if (type === null) return null;
  const r = GPUArray.allocate([], x.dtype, opts.stream);
  try {
    blasDot(usedOn(opts.stream, [x, y, r]), type, n, x.ptr, incx, y.ptr, incy, r.ptr);
    return r;
  } catch (e) {
    r.dispose();
    throw e;
  }
}

function dotDtypes(a: GPUArray, b: GPUArray, opts: ReduceOptions): [DType, DType] {
  const p = resultType(a.dtype, b.dtype);
  if (opts.dtype !== undefined) {
    const d = toDType(opts.dtype);
    return [d, d];
  }
  return p.kind === 'b' ? [DTYPES.uint64, DTYPES.bool] : [sumDtype(p), sumDtype(p)];
}

/**
 * Sum of the elementwise product of two arrays of one shape (no conjugation); 0-d.
 * @example
 * gpuarray.dot(a, b).item();
 */
export function dot(a: GPUArray, b: GPUArray, opts?: DotOptions): GPUArray {
  opts = checkedOptions(opts, 'dot', ['dtype', 'keepdims', 'out', 'stream']);
  const [x, y, temps] = sameLayout(checked(a, 'dot'), checked(b, 'dot'), 'dot', opts.stream);
  try {
    const blas = blasDotOf(x, y, opts);
    if (blas) return blas;
    const [acc, out] = dotDtypes(x, y, opts);
    const p = resultType(x.dtype, y.dtype);
    const xs = [x, y].map((v) => (v.dtype === p ? v : temp(temps, v.astype(p, { stream: opts.stream }))));
    return execute({ op: 'sum', arrays: xs, acc, out, opts: { ...opts, axis: null }, axes: axesOf(null, x.ndim) });
  } finally {
    for (const t of temps) t.dispose();
  }
}

function subset(op: 'sum' | 'min' | 'max' | 'dot') {
  return (indices: GPUArray, a: GPUArray, b?: GPUArray, opts?: DotOptions): GPUArray => {
    opts = checkedOptions(opts, `subset${op}`, ['dtype', 'keepdims', 'out', 'stream']);
    const idx = checked(indices, `subset${op}`);
    if (!isInt(idx.dtype) || idx.dtype.kind === 'b') throw typeError('ERR_INVALID_DTYPE', `subset indices must be integers, not ${idx.dtype.name}`);
    const srcs = [checked(a, `subset${op}`), ...(op === 'dot' ? [checked(b, 'subsetDot')] : [])];
    const temps: GPUArray[] = [];
    const flat = srcs.map((s) => (s.flags.cContiguous ? s : temp(temps, s.copy({ stream: opts.stream }))));
    try {
      let acc: DType, out: DType, arrays = flat;
      if (op === 'dot') {
        [acc, out] = dotDtypes(flat[0], flat[1], opts);
        const p = resultType(flat[0].dtype, flat[1].dtype);
        arrays = flat.map((v) => (v.dtype === p ? v : temp(temps, v.astype(p, { stream: opts.stream }))));
        if (flat[0].size !== flat[1].size) throw rangeError('ERR_SHAPE_MISMATCH', 'subsetDot: arrays differ in size');
      } else if (op === 'sum') [acc, out] = reduction('sum').types(flat[0].dtype, opts.dtype);
      else [acc, out] = reduction(op).types(flat[0].dtype, opts.dtype); // min/max: no dtype
      if ((op === 'min' || op === 'max') && idx.size === 0) {
        throw rangeError('ERR_EMPTY_REDUCTION', `zero-size array to reduction operation ${op} which has no identity`);
      }
      return execute({ op: op === 'dot' ? 'sum' : op, arrays, acc, out, opts: { ...opts, axis: null }, axes: axesOf(null, idx.ndim), idx });
    } finally {
      for (const t of temps) t.dispose();
    }
  };
}

const subsetSumImpl = subset('sum');
const subsetMinImpl = subset('min');
const subsetMaxImpl = subset('max');
const subsetDotImpl = subset('dot');

/**
 * Sum of `a.ravel()[indices]` (indices outside [0, a.size) are skipped).
 * @example
 * gpuarray.subsetSum(idx, a).item();
 */
export function subsetSum(indices: GPUArray, a: GPUArray, opts?: DotOptions): GPUArray {
  return subsetSumImpl(indices, a, undefined, opts);
}
/** Min of `a.ravel()[indices]`. @example gpuarray.subsetMin(idx, a) */
export function subsetMin(indices: GPUArray, a: GPUArray, opts?: DotOptions): GPUArray {
  return subsetMinImpl(indices, a, undefined, opts);
}
/** Max of `a.ravel()[indices]`. @example gpuarray.subsetMax(idx, a) */
export function subsetMax(indices: GPUArray, a: GPUArray, opts?: DotOptions): GPUArray {
  return subsetMaxImpl(indices, a, undefined, opts);
}
/** Dot product over `indices` of `a.ravel()` and `b.ravel()`. @example gpuarray.subsetDot(idx, a, b) */
export function subsetDot(indices: GPUArray, a: GPUArray, b: GPUArray, opts?: DotOptions): GPUArray {
  return subsetDotImpl(indices, a, b, opts);
}

registerArrayMethods({ sum, prod, min, max, mean, var: var_, std, any, all, argmin, argmax, dot });
