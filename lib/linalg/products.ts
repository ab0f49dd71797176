/**
 * NumPy's dot, inner, outer and vdot over matmul (cuBLAS) and the existing reductions: 1-D·1-D
 * products stay reductions (every dtype, integers included), matrix products go to cuBLAS, 0-d
 * operands multiply elementwise. The results and their shapes are NumPy's.
 */
import { checkedOptions, rangeError } from '../base/errors';
import { resultType } from '../base/promote';
import { formatShape, sizeOf } from '../base/shape';
import { Stream } from '../cuda/driver';
import { GPUArray, arrayArg, filled } from '../array/gpuarray';
import { apply, assign } from '../array/operators';
import * as red from '../array/reductions';
import { MATMUL_KEYS, MatmulOptions, checkOutCast, product } from './matmul';
import { checkPrecision } from './plan';

/** A C-ordered array with `x`'s content: `x`, or a copy on `stream` (kept in `temps`). */
function cOrder(x: GPUArray, stream: Stream | null | undefined, temps: GPUArray[]): GPUArray {
  if (x.flags.cContiguous) return x;
  const c = x.copy({ stream });
  temps.push(c);
  return c;
}

/** `x` as a 2-D (rows, cols) array: a view (a C-ordered copy first when x has more than 2 dims). */
function asMatrix(x: GPUArray, rows: number, cols: number, stream: Stream | null | undefined, temps: GPUArray[]): GPUArray {
  if (x.ndim === 2) return x;
  return (x.ndim > 2 ? cOrder(x, stream, temps) : x).reshape([rows, cols]);
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((n, i) => n === b[i]);
}

/** a2·b2 (2-D, through cuBLAS) reshaped to `shape`, written to `o.out` when given. */
function viaMatrices(a2: GPUArray, b2: GPUArray, shape: number[], o: MatmulOptions, what: string): GPUArray {
  const flat = [a2.shape[0], b2.shape[1]];
  if (o.out === undefined) {
    // A new owner of the final shape, written through a 2-D view (dispose() frees it).
    const r = GPUArray.allocate(shape, resultType(a2.dtype, b2.dtype), o.stream);
    return filled(r, () => product(a2, b2, { ...o, out: r.reshape(flat) }, what));
  }
  const out = arrayArg(o.out, 'out');
  if (!sameShape(out.shape, shape)) {
    throw rangeError('ERR_SHAPE_MISMATCH', `${what}: out has shape ${formatShape(out.shape)}; the result has shape ${formatShape(shape)}`);
  }
  // Checked here too: a non-contiguous out is written by a copy, not by the product.
  checkOutCast(resultType(a2.dtype, b2.dtype), out, what);
  if (out.flags.cContiguous) {
    product(a2, b2, { ...o, out: out.reshape(flat) }, what);
    return out;
  }
  const r = product(a2, b2, { ...o, out: undefined }, what);
  try {
    assign(out, r.reshape(shape), o.stream);
  } finally {
    r.dispose();
  }
  return out;
}

/** The operands of a product with a 0-d one: an elementwise multiply, as NumPy. */
function scaled(x: GPUArray, y: GPUArray, o: MatmulOptions): GPUArray {
  return apply('mul', [x, y], { out: o.out, stream: o.stream });
}

/**
 * NumPy's dot: 1-D·1-D is the inner product (the `gpuarray.dot` reduction: every dtype, NumPy's
 * sum dtypes, exact whatever `precision` says), 2-D·2-D the matrix product, N-D·1-D sums over the
 * last axes, N-D·M-D over the last axis of `a` and the second-to-last of `b` (result shape
 * a.shape[:-1] + b.shape[:-2] + b.shape[-1:]); a 0-d operand multiplies. Matrix cases run on
 * cuBLAS with matmul's dtypes and errors. (`gpuarray.dot` keeps PyCUDA's meaning: sum(a * b)
 * over arrays of one shape.)
 * @example
 * linalg.dot(a, b);            // (M, K)·(K, N) → (M, N)
 * linalg.dot(v, w).item();     // 1-D: a number
 */
export function dot(a: GPUArray, b: GPUArray, opts?: MatmulOptions): GPUArray {
  const x = arrayArg(a, 'a'), y = arrayArg(b, 'b');
  const o = checkedOptions(opts, 'dot', MATMUL_KEYS);
  checkPrecision(o.precision, 'dot'); // on every path: the 1-D and 0-d ones below compute exactly whatever it says
  if (x.ndim === 0 || y.ndim === 0) return scaled(x, y, o);
  if (x.ndim === 1 && y.ndim === 1) return red.dot(x, y, { out: o.out, stream: o.stream });
  // With a 1-D a or a 1-D/2-D b, matmul's broadcasting gives dot's result.
  if (x.ndim === 1 || y.ndim <= 2) return product(x, y, o, 'dot');
  const k = x.shape[x.ndim - 1];
  if (y.shape[y.ndim - 2] !== k) {
    throw rangeError('ERR_SHAPE_MISMATCH', `dot: shapes ${formatShape(x.shape)} and ${formatShape(y.shape)} are not aligned: ` +
      `${k} (dim ${x.ndim - 1}) != ${y.shape[y.ndim - 2]} (dim ${y.ndim - 2})`);
  }
  const temps: GPUArray[] = [];
  try {
    const n = y.shape[y.ndim - 1];
    const a2 = asMatrix(x, sizeOf(x.shape.slice(0, -1)), k, o.stream, temps);
    // b's contracted axis first: (K, batch..., N) in C order is a (K, batch·N) matrix.
    const perm = [y.ndim - 2, ...y.shape.slice(0, -2).map((_, i) => i), y.ndim - 1];
    const bt = cOrder(y.transpose(perm), o.stream, temps);
    const b2 = bt.reshape([k, sizeOf(y.shape.slice(0, -2)) * n]);
    return viaMatrices(a2, b2, [...x.shape.slice(0, -1), ...y.shape.slice(0, -2), n], o, 'dot');
  } finally {
    for (const t of temps) t.dispose();
  }
}

/**
 * NumPy's inner: sums over the last axis of both (result shape a.shape[:-1] + b.shape[:-1]);
 * 1-D·1-D is the `gpuarray.dot` reduction, a 0-d operand multiplies, the rest runs on cuBLAS.
 * @example
 * linalg.inner(x, w); // (B, K)·(N, K) → (B, N): x·wᵀ without a copy of w
 */
export function inner(a: GPUArray, b: GPUArray, opts?: MatmulOptions): GPUArray {
  const x = arrayArg(a, 'a'), y = arrayArg(b, 'b');
  const o = checkedOptions(opts, 'inner', MATMUL_KEYS);
  checkPrecision(o.precision, 'inner'); // as in dot
  if (x.ndim === 0 || y.ndim === 0) return scaled(x, y, o);
  if (x.ndim === 1 && y.ndim === 1) return red.dot(x, y, { out: o.out, stream: o.stream });
  const k = x.shape[x.ndim - 1];
  if (y.shape[y.ndim - 1] !== k) {
    throw rangeError('ERR_SHAPE_MISMATCH', `inner: shapes ${formatShape(x.shape)} and ${formatShape(y.shape)} are not aligned: ` +
      `their last dimensions differ (${k} != ${y.shape[y.ndim - 1]})`);
  }
  const temps: GPUArray[] = [];
  try {
    const a2 = asMatrix(x, sizeOf(x.shape.slice(0, -1)), k, o.stream, temps);
    const b2 = asMatrix(y, sizeOf(y.shape.slice(0, -1)), k, o.stream, temps).T;
    return viaMatrices(a2, b2, [...x.shape.slice(0, -1), ...y.shape.slice(0, -1)], o, 'inner');
  } finally {
    for (const t of temps) t.dispose();
  }
}

/**
 * NumPy's outer: out[i, j] = a.ravel()[i] · b.ravel()[j] (an elementwise multiply with
 * broadcasting: every dtype, `{ out, stream }`).
 * @example
 * linalg.outer(u, v); // (M,)⊗(N,) → (M, N)
 */
export function outer(a: GPUArray, b: GPUArray, opts?: { out?: GPUArray; stream?: Stream | null }): GPUArray {
  const x = arrayArg(a, 'a'), y = arrayArg(b, 'b');
  const o = checkedOptions(opts, 'outer', ['out', 'stream']);
  const temps: GPUArray[] = [];
  try {
    const col = (x.ndim === 1 ? x : cOrder(x, o.stream, temps).reshape([x.size])).expandDims(1);
    const row = (y.ndim === 1 ? y : cOrder(y, o.stream, temps).reshape([y.size])).expandDims(0);
    return apply('mul', [col, row], { out: o.out, stream: o.stream });
  } finally {
    for (const t of temps) t.dispose();
  }
}

/**
 * NumPy's vdot: the inner product of the flattened arrays with the first one conjugated (complex:
 * Σ conj(a_i)·b_i on cuBLAS; other dtypes: the `gpuarray.dot` reduction). 0-d result. Sizes must
 * be equal (RangeError `ERR_SHAPE_MISMATCH`).
 * @example
 * linalg.vdot(z, z).item(); // { re: ‖z‖², im: 0 }
 */
export function vdot(a: GPUArray, b: GPUArray, opts?: { out?: GPUArray; stream?: Stream | null }): GPUArray {
  const x = arrayArg(a, 'a'), y = arrayArg(b, 'b');
  const o = checkedOptions(opts, 'vdot', ['out', 'stream']);
  if (x.size !== y.size) {
    throw rangeError('ERR_SHAPE_MISMATCH', `vdot: shapes ${formatShape(x.shape)} and ${formatShape(y.shape)} differ in size`);
  }
  const temps: GPUArray[] = [];
  try {
    const flat = (v: GPUArray): GPUArray => (v.ndim === 1 ? v : cOrder(v, o.stream, temps).reshape([v.size]));
    const xf = flat(x), yf = flat(y);
    if (resultType(x.dtype, y.dtype).kind !== 'c') return red.dot(xf, yf, { out: o.out, stream: o.stream });
    return product(xf, yf, { out: o.out, stream: o.stream }, 'vdot', true);
  } finally {
    for (const t of temps) t.dispose();
  }
}
