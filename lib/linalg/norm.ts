/**
 * linalg.norm (NumPy's numpy.linalg.norm) for vectors and matrices, composed from the existing
 * elementwise operators and reductions: 2-norm, 1-norm, ±Infinity, 0 and other p for vectors;
 * Frobenius, 1, -1, ±Infinity for matrices. Matrix 2-norms and nuclear norms need an SVD, which
 * nodecuda does not have: RangeError `ERR_NOT_SUPPORTED`.
 */
import { DTYPES, DType, computeDType } from '../base/dtype';
import { checkedOptions, describe, rangeError, typeError } from '../base/errors';
import { normalizeAxis } from '../base/shape';
import { Stream } from '../cuda/driver';
import { GPUArray, arrayArg } from '../array/gpuarray';
import { tidy } from '../array/tidy';
import { apply } from '../array/operators';
import { cumathFunctions } from '../array/cumath';
import * as red from '../array/reductions';

/** Options of linalg.norm. */
export interface NormOptions {
  /**
   * Vector norm along one axis, or matrix norm over two axes (default: a matrix norm for 2-D
   * input, a vector norm for 1-D input, the 2-norm of the flattened array otherwise).
   */
  axis?: number | readonly [number, number] | null;
  /** Keep the reduced axes as length 1. */
  keepdims?: boolean;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

/** The order of a norm: a number (vectors: any p, ±Infinity, 0; matrices: 1, -1, ±Infinity) or 'fro'. */
export type NormOrder = number | 'fro' | 'nuc';

/** The real dtype norms are computed and returned in (NumPy: integers → float64, complex → its real part). */
function realOf(d: DType): DType {
  if (d.name === 'complex64') return DTYPES.float32;
  if (d.name === 'complex128') return DTYPES.float64;
  return d.kind === 'f' ? d : DTYPES.float64;
}

/**
 * Matrix or vector norm, as `numpy.linalg.norm(x, ord, axis, keepdims)`; a GPUArray (0-d unless
 * `axis` leaves dimensions) of the input's real float dtype (integers: float64). float16 and bfloat16 sum in
 * float32. Unknown orders: RangeError `ERR_INVALID_ARG_VALUE`; matrix ord 2, -2 and 'nuc':
 * RangeError `ERR_NOT_SUPPORTED` (they need an SVD).
 * @example
 * linalg.norm(v).item();                     // Euclidean length
 * linalg.norm(m, 'fro'); linalg.norm(m, Infinity); // max row sum of |m|
 * linalg.norm(batch, 2, { axis: -1 });       // one 2-norm per row
 */
export function norm(x: GPUArray, ord?: NormOrder | null, opts?: NormOptions): GPUArray {
  const a = arrayArg(x, 'x');
  const o = checkedOptions(opts, 'norm', ['axis', 'keepdims', 'stream']);
  if (ord !== undefined && ord !== null && typeof ord !== 'number' && ord !== 'fro' && ord !== 'nuc') {
    throw typeError('ERR_INVALID_ARG_VALUE', `norm: ord must be a number, 'fro', 'nuc' or undefined. Received ${describe(ord)}`);
  }
  const ax = o.axis;
  let axes: number[];
  if (ax === undefined || ax === null) {
    if (ord === undefined || ord === null) return flatNorm(a, o);
    if (a.ndim !== 1 && a.ndim !== 2) throw rangeError('ERR_INVALID_ARG_VALUE', `norm: ord ${String(ord)} needs a 1-D or 2-D array or an axis`);
    axes = a.shape.map((_, i) => i);
  } else {
    if (typeof ax !== 'number' && !Array.isArray(ax)) {
      throw typeError('ERR_INVALID_ARG_TYPE', `norm: axis must be an integer or an array of one or two integers. Received ${describe(ax)}`);
    }
    const list: unknown[] = typeof ax === 'number' ? [ax] : Array.from(ax as readonly unknown[]); // holes as undefined (rejected)
    if (list.length < 1 || list.length > 2) throw rangeError('ERR_INVALID_ARG_VALUE', 'norm: axis must be one axis or two');
    axes = list.map((v) => normalizeAxis(v as number, a.ndim));
    if (axes.length === 2 && axes[0] === axes[1]) throw rangeError('ERR_INVALID_ARG_VALUE', 'norm: duplicate axes');
  }
  return axes.length === 1 ? vectorNorm(a, ord ?? 2, axes[0], o) : matrixNorm(a, ord ?? 'fro', axes as [number, number], o);
}

/** sqrt(Σ|x|²) over `axis` (all when null), accumulated in float32 at least. */
function twoNorm(a: GPUArray, axis: number | readonly number[] | null, o: NormOptions): GPUArray {
  const real = realOf(a.dtype);
  const acc = computeDType(real);
  const s = { stream: o.stream };
  const x = a.dtype.kind === 'c' ? apply('abs', [a], s) : a.dtype === real ? a : a.astype(real, s);
  const sq = apply('mul', [x, x], s);
  const r = cumathFunctions.sqrt(red.sum(sq, { axis, keepdims: o.keepdims, dtype: acc, stream: o.stream }), s);
  return r.dtype === real ? r : r.astype(real, s);
}

function flatNorm(a: GPUArray, o: NormOptions): GPUArray {
  return tidy(() => twoNorm(a, null, o));
}

function vectorNorm(a: GPUArray, ord: NormOrder, axis: number, o: NormOptions): GPUArray {
  if (typeof ord !== 'number') throw rangeError('ERR_INVALID_ARG_VALUE', `norm: invalid order '${ord}' for vectors`);
  return tidy(() => {
    if (ord === 2) return twoNorm(a, axis, o);
    const real = realOf(a.dtype);
    const s = { stream: o.stream };
    const r = { axis, keepdims: o.keepdims, stream: o.stream };
    const abs = (): GPUArray => {
      const m = apply('abs', [a], s);
      return m.dtype === real ? m : m.astype(real, s);
    };
    const acc = computeDType(real);
    let out: GPUArray;
    if (ord === Infinity) out = red.max(abs(), r);
    else if (ord === -Infinity) out = red.min(abs(), r);
    else if (ord === 0) out = red.sum(apply('ne', [a, 0], s), { ...r, dtype: acc });
    else if (ord === 1) out = red.sum(abs(), { ...r, dtype: acc });
    else if (Number.isNaN(ord)) throw rangeError('ERR_INVALID_ARG_VALUE', 'norm: ord is NaN');
    else out = apply('pow', [red.sum(apply('pow', [abs(), ord], s), { ...r, dtype: acc }), 1 / ord], s);
    return out.dtype === real ? out : out.astype(real, s);
  });
}

function matrixNorm(a: GPUArray, ord: NormOrder, [rowAxis, colAxis]: [number, number], o: NormOptions): GPUArray {
  if (ord === 'fro') return tidy(() => twoNorm(a, [rowAxis, colAxis], o));
  if (ord === 2 || ord === -2 || ord === 'nuc') {
    throw rangeError('ERR_NOT_SUPPORTED', `norm: the matrix norm ord=${ord} needs singular values (an SVD), which nodecuda ` +
      "does not compute; use 'fro', 1, -1, Infinity or -Infinity");
  }
  if (ord !== 1 && ord !== -1 && ord !== Infinity && ord !== -Infinity) {
    throw rangeError('ERR_INVALID_ARG_VALUE', `norm: invalid order ${ord} for matrices`);
  }
  return tidy(() => {
    const real = realOf(a.dtype);
    const s = { stream: o.stream };
    const m = apply('abs', [a], s);
    const abs = m.dtype === real ? m : m.astype(real, s);
    // 1: max over columns of the column sums (sum down the rows); Infinity: max of the row sums.
    const [sumAxis, pickAxis] = Math.abs(ord) === 1 ? [rowAxis, colAxis] : [colAxis, rowAxis];
    const acc = computeDType(real);
    const sums = red.sum(abs, { axis: sumAxis, keepdims: true, dtype: acc, stream: o.stream });
    const pick = ord > 0 ? red.max : red.min;
    let out = pick(sums, { axis: pickAxis, keepdims: true, stream: o.stream });
    if (!o.keepdims) out = out.squeeze([rowAxis, colAxis]);
    return out.dtype === real ? out : out.astype(real, s);
  });
}
