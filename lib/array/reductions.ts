/**
 * Array reductions with NumPy semantics: sum, prod, min, max, mean, var, std, argmin, argmax, any,
 * all, dot and the subset forms, and the NaN-skipping nansum, nanprod, nanmin, nanmax, nanmean,
 * nanvar, nanstd, nanargmin, nanargmax, whole-array or over `axis` (int or list) with `keepdims`,
 * `dtype` and `out`. Each is a ReduceSpec (templates/reduction.ts) that reduction_specs.ts builds
 * from the dtypes; the engine (engine/reduce.ts) picks the kernel variant for the layout.
 */
import { DTYPES, DType, DTypeLike, dtype as toDType } from '../base/dtype';
import { checkedOptions, describe, rangeError, typeError } from '../base/errors';
import { Stream } from '../cuda/driver';
import { usedOn } from '../cuda/memory';
import { blasDot, blasDotType } from '../cuda/cublas';
import { GPUArray } from './gpuarray';
import { registerArrayMethods } from './methods';
import { assign } from './operators';
import { canCast, resultType } from '../base/promote';
import { normalizeAxis } from '../base/shape';
import { runReduction } from '../engine/reduce';
import { ParamValue } from '../cuda/args';
import { checkDevices } from './devices';
import { checkWritable, overlaps } from './overlap';
import { builtinSpec, isInt, reduction, specAccBytes, sumDtype } from './reduction_specs';

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

const NO_IDENTITY = new Set(['min', 'max', 'argmin', 'argmax', 'nanmin', 'nanmax', 'nanargmin', 'nanargmax']);

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
  if (k === 0 && m > 0 && NO_IDENTITY.has(p.op)) {
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
      shape: a.shape, strides: elemStrides(a), axes, orderFree: !p.op.includes('arg'), args, out: t.write.address,
      accBytes: specAccBytes(spec),
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

type SimpleOp = 'sum' | 'prod' | 'min' | 'max' | 'any' | 'all' | 'mean' | 'nansum' | 'nanprod' | 'nanmin' | 'nanmax' | 'nanmean';

function simple(op: SimpleOp) {
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
/** Sum with NaN counted as 0 (NumPy nansum). @example gpuarray.nansum(a, { axis: 0 }) */
export const nansum = simple('nansum');
/** Product with NaN counted as 1 (NumPy nanprod). @example gpuarray.nanprod(a) */
export const nanprod = simple('nanprod');
/** Minimum ignoring NaN; NaN where a slice is all NaN (NumPy nanmin). @example gpuarray.nanmin(a, { axis: 1 }) */
export const nanmin = simple('nanmin');
/** Maximum ignoring NaN; NaN where a slice is all NaN (NumPy nanmax). @example gpuarray.nanmax(a) */
export const nanmax = simple('nanmax');
/** Mean of the non-NaN elements; NaN where there are none (NumPy nanmean). @example gpuarray.nanmean(a, { axis: 0 }) */
export const nanmean = simple('nanmean');

function variance(op: 'var' | 'std' | 'nanvar' | 'nanstd') {
  return (a: GPUArray, opts?: VarOptions): GPUArray => {
    const x = checked(a, op);
    opts = checkedOptions(opts, op, [...REDUCE_OPTIONS, 'ddof']);
    const axes = axesOf(opts.axis, x.ndim);
    const ddof = opts.ddof ?? 0;
    if (typeof ddof !== 'number' || !Number.isFinite(ddof)) throw typeError('ERR_INVALID_ARG_TYPE', `${op}: ddof must be a number`);
    const [acc, out] = reduction(op).types(x.dtype, opts.dtype);
    const mean = op.startsWith('nan') ? 'nanmean' : 'mean';
    const mu = execute({ op: mean, arrays: [x], acc, out: acc, opts: { axis: opts.axis, stream: opts.stream }, axes });
    try {
      return execute({ op, arrays: [x], acc, out, opts, axes, extra: [{ ptr: mu.address }, { dtype: DTYPES.float64, value: ddof }] });
    } finally {
      mu.dispose();
    }
  };
}

export const var_ = variance('var');
export const std = variance('std');
/** Variance of the non-NaN elements (divisor: their count − ddof; NaN where that is ≤ 0). @example gpuarray.nanvar(a, { ddof: 1 }) */
export const nanvar = variance('nanvar');
/** Standard deviation of the non-NaN elements (NumPy nanstd). @example gpuarray.nanstd(a, { axis: 0 }) */
export const nanstd = variance('nanstd');

function arg(op: 'argmin' | 'argmax' | 'nanargmin' | 'nanargmax') {
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
/**
 * The int64 index of the minimum ignoring NaN (first on ties; complex: NaN in either part, ordered
 * lexicographically) along `axis`, or into the flattened array. A slice that is all NaN gives -1
 * (NumPy raises a ValueError, which would need a read back; CuPy's -1). NaN never competes:
 * `nanargmin([NaN, Inf])` is 1, as CuPy's (NumPy, which swaps NaN for Inf first, gives 0).
 * Integers and bool: as argmin.
 * @example
 * gpuarray.nanargmin(gpuarray.toGpu([NaN, 3, 1, NaN])).item(); // 2n
 */
export const nanargmin = arg('nanargmin');
/**
 * The int64 index of the maximum ignoring NaN (first on ties) along `axis`, or into the flattened
 * array; -1 where a slice is all NaN. Integers and bool: as argmax.
 * @example
 * gpuarray.nanargmax(m, { axis: 1 }); // int64, one index per row
 */
export const nanargmax = arg('nanargmax');

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
