/**
 * Matrix helpers with NumPy semantics: eye, identity, diagonal (a view), diag, trace, tril, triu,
 * meshgrid, diff and ptp. Each is built from views (view_ with computed shape, strides and
 * offset), the elementwise operators and the reductions: no kernels of their own.
 */
import { Complex, DTYPES, DType, DTypeLike, Scalar, dtype as toDType } from '../base/dtype';
import { checkSize, checkedOptions, describe, rangeError, typeError } from '../base/errors';
import { normalizeAxis } from '../base/shape';
import { Stream } from '../cuda/driver';
import { GPUArray, arrayArg, filled } from './gpuarray';
import { registerArrayMethods } from './methods';
import { Operand, apply, assign, fill, where } from './operators';
import { PlaceOptions, arange, full, zeros } from './creation';
import { concatenate } from './joins';
import { axesOf, max, min, sum } from './reductions';
import { checkDevices, onDevice } from './devices';

/** Options of eye(). */
export interface EyeOptions extends PlaceOptions {
  /** The diagonal of ones: 0 (default) the main one, k > 0 above it, k < 0 below it. */
  k?: number;
  /** dtype of the result (default float64, as zeros() and NumPy). */
  dtype?: DTypeLike;
}

/** Options of identity(). */
export interface IdentityOptions extends PlaceOptions {
  /** dtype of the result (default float64). */
  dtype?: DTypeLike;
}

/** Which diagonal diagonal() and trace() take. */
export interface DiagonalOptions {
  /** Offset from the main diagonal: > 0 above it (towards higher `axis2` indices), < 0 below (default 0). */
  offset?: number;
  /** First axis of the 2-D slices the diagonal is taken from (default 0; negative counts from the end). */
  axis1?: number;
  /** Second axis of the 2-D slices (default 1). */
  axis2?: number;
}

/** Options of trace(): the diagonal, and the sum's dtype, out and stream. */
export interface TraceOptions extends DiagonalOptions {
  /** Accumulate and return in this dtype (default as sum(): integers and bool in int64/uint64). */
  dtype?: DTypeLike;
  /** Write the result here (shape: the input's without axis1 and axis2; dtype castable 'same_kind'). */
  out?: GPUArray;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

/** Options of the matrix functions that take only a stream (diag, tril, triu). */
export interface MatrixStreamOptions {
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

/** Options of meshgrid(), NumPy's keywords. */
export interface MeshgridOptions {
  /** 'xy' (default: Cartesian, the first two output axes swapped) or 'ij' (matrix indexing). */
  indexing?: 'xy' | 'ij';
  /** Each output keeps length 1 on every axis but its own (default false: full grids). */
  sparse?: boolean;
  /** New C-contiguous arrays (default true); false: views of the inputs (broadcast views when not sparse). */
  copy?: boolean;
  /** Stream the copies run on (default: the legacy default stream). */
  stream?: Stream | null;
}

/** Options of diff(). */
export interface DiffOptions {
  /** How many times to take the difference (default 1; 0 returns the input itself). */
  n?: number;
  /** The axis along which to take it (default -1, the last). */
  axis?: number;
  /**
   * Values put before the array along `axis` first: an array of the input's shape except on `axis`,
   * or a scalar (a 0-d array is broadcast to length 1 on `axis`). The dtypes promote as in NumPy's
   * concatenate: a JS safe integer counts as int64 (NumPy's Python int), another number as float64,
   * a boolean as bool, a bigint as int64 (uint64 from 2^63), a {re, im} as complex128, a typed
   * scalar (cuda.float32(0)) as its dtype.
   */
  prepend?: Operand;
  /** Values put after the array along `axis` first (as `prepend`). */
  append?: Operand;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

/** Options of ptp(). */
export interface PtpOptions {
  /** Axis or axes to reduce (negative counts from the end); all when null/undefined; `[]` reduces none. */
  axis?: number | readonly number[] | null;
  /** Keep reduced dims as size 1. */
  keepdims?: boolean;
  /**
   * Write the result here (the result's shape; dtype castable 'same_kind'). As NumPy's: the maximum
   * is stored in it first, then the difference is taken in its dtype (int8 data into a float64 out
   * does not wrap).
   */
  out?: GPUArray;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

const EYE_KEYS = ['k', 'dtype', 'stream', 'device'];
const IDENTITY_KEYS = ['dtype', 'stream', 'device'];
const DIAGONAL_KEYS = ['offset', 'axis1', 'axis2'];
const TRACE_KEYS = [...DIAGONAL_KEYS, 'dtype', 'out', 'stream'];
const STREAM_KEYS = ['stream'];
const MESHGRID_KEYS = ['indexing', 'sparse', 'copy', 'stream'];
const DIFF_KEYS = ['n', 'axis', 'prepend', 'append', 'stream'];
const PTP_KEYS = ['axis', 'keepdims', 'out', 'stream'];

/** An integer argument of any sign: TypeError ERR_INVALID_ARG_TYPE unless a number, RangeError ERR_OUT_OF_RANGE unless a safe integer. */
function intArg(v: unknown, name: string, what: string): number {
  if (typeof v !== 'number') throw typeError('ERR_INVALID_ARG_TYPE', `${what}: ${name} must be an integer. Received ${describe(v)}`);
  if (!Number.isSafeInteger(v)) throw rangeError('ERR_OUT_OF_RANGE', `${what}: ${name} must be an integer. Received ${v}`);
  return v;
}

function boolArg(v: unknown, name: string, what: string, dflt: boolean): boolean {
  if (v === undefined) return dflt;
  if (typeof v !== 'boolean') throw typeError('ERR_INVALID_ARG_TYPE', `${what}: ${name} must be a boolean. Received ${describe(v)}`);
  return v;
}

const shapeText = (a: GPUArray): string => `(${a.shape.join(',')})`;

/**
 * @internal The layout of the diagonal at `k` over axes `ax1`, `ax2` (distinct, normalized) of an
 * array: the other axes in order, then the diagonal (NumPy's ndarray.diagonal), and the byte offset
 * of its first element from the array's (0 when the view is empty — the diagonal or another axis —
 * so no address past the end: an array of shape [0, 3, 3] has no memory at all).
 */
export function diagonalLayout(shape: readonly number[], strides: readonly number[], k: number, ax1: number, ax2: number):
  { shape: number[]; strides: number[]; byteOffset: number } {
  const n1 = shape[ax1], n2 = shape[ax2];
  const len = Math.max(0, k >= 0 ? Math.min(n1, n2 - k) : Math.min(n1 + k, n2));
  const rest = shape.map((_, d) => d).filter((d) => d !== ax1 && d !== ax2);
  const out = [...rest.map((d) => shape[d]), len];
  return {
    shape: out,
    strides: [...rest.map((d) => strides[d]), strides[ax1] + strides[ax2]],
    byteOffset: out.includes(0) ? 0 : k >= 0 ? k * strides[ax2] : -k * strides[ax1],
  };
}

/** The diagonal view of a live array `x` (the arguments checked here). */
function diagonalOf(x: GPUArray, what: string, offset: unknown, axis1: unknown, axis2: unknown): GPUArray {
  const k = offset === undefined ? 0 : intArg(offset, 'offset', what);
  if (x.ndim < 2) throw rangeError('ERR_INVALID_ARG_VALUE', `${what}: the array must have at least 2 dimensions. Received shape ${shapeText(x)}`);
  const ax1 = normalizeAxis((axis1 ?? 0) as number, x.ndim), ax2 = normalizeAxis((axis2 ?? 1) as number, x.ndim);
  if (ax1 === ax2) throw rangeError('ERR_INVALID_ARG_VALUE', `${what}: axis1 and axis2 cannot be the same axis (${ax1})`);
  const l = diagonalLayout(x.shape, x.strides, k, ax1, ax2);
  return x.view_(l.shape, l.strides, x.offset + l.byteOffset);
}

/**
 * A 2-D array with ones on the k-th diagonal and zeros elsewhere (NumPy's eye): `n` rows, `m`
 * columns (default n; the options may come second). Default dtype float64.
 * @example
 * gpuarray.eye(3);                             // the 3×3 identity, float64
 * gpuarray.eye(2, 4, { k: 1, dtype: 'int32' }); // [[0, 1, 0, 0], [0, 0, 1, 0]]
 * gpuarray.eye(3, { dtype: 'bool', k: -1 });
 */
export function eye(n: number, m?: number | null | EyeOptions, opts?: EyeOptions): GPUArray {
  if (typeof m === 'object' && m !== null && opts === undefined) [m, opts] = [undefined, m];
  const { k: kOpt, dtype, stream, device } = checkedOptions(opts, 'eye', EYE_KEYS);
  const rows = checkSize(n, 'n');
  const cols = m === undefined || m === null ? rows : checkSize(m, 'm');
  const k = kOpt === undefined ? 0 : intArg(kOpt, 'k', 'eye');
  const d = dtype === undefined ? DTYPES.float64 : toDType(dtype);
  return onDevice(device, () => filled(zeros([rows, cols], d, { stream }), (z) => {
    const v = diagonalOf(z, 'eye', k, 0, 1);
    if (v.size) fill(v, 1, stream);
  }));
}

/**
 * The n×n identity matrix (NumPy's identity; default dtype float64).
 * @example
 * gpuarray.identity(4, { dtype: 'float32' });
 */
export function identity(n: number, opts: IdentityOptions = {}): GPUArray {
  const { dtype, stream, device } = checkedOptions(opts, 'identity', IDENTITY_KEYS);
  return eye(n, null, { dtype, stream, device });
}

/**
 * The diagonal at `offset` of the 2-D slices over `axis1` and `axis2`, as a view (no copy): those
 * two axes are removed and the diagonal becomes the last axis (NumPy's ndarray.diagonal). Writing
 * through the view writes the array (NumPy's view is read-only; CuPy's is writable, like this one).
 * @example
 * const m = gpuarray.toGpu([[1, 2, 3], [4, 5, 6]]);
 * gpuarray.diagonal(m).toArray();                // [1, 5]
 * gpuarray.diagonal(m, { offset: 1 }).toArray(); // [2, 6]
 * m.diagonal().fill(0);                          // zeros m's main diagonal
 */
export function diagonal(a: GPUArray, opts: DiagonalOptions = {}): GPUArray {
  const { offset, axis1, axis2 } = checkedOptions(opts, 'diagonal', DIAGONAL_KEYS);
  return diagonalOf(arrayArg(a, 'a'), 'diagonal', offset, axis1, axis2);
}

/**
 * NumPy's diag: of a 1-D `v`, a new square 2-D array with `v` on the k-th diagonal (size
 * `v.size + |k|`); of a 2-D `v`, a copy of its k-th diagonal (NumPy returns a read-only view:
 * diagonal() gives a view). Other dimensions: RangeError ERR_INVALID_ARG_VALUE.
 * @example
 * gpuarray.diag(gpuarray.toGpu([1, 2]), 1).toArray(); // [[0, 1, 0], [0, 0, 2], [0, 0, 0]]
 * gpuarray.diag(m, -1);                               // m's first subdiagonal, copied
 */
export function diag(v: GPUArray, k = 0, opts: MatrixStreamOptions = {}): GPUArray {
  const { stream } = checkedOptions(opts, 'diag', STREAM_KEYS);
  const x = arrayArg(v, 'v');
  const kk = intArg(k, 'k', 'diag');
  if (x.ndim !== 1 && x.ndim !== 2) throw rangeError('ERR_INVALID_ARG_VALUE', `diag: the input must be 1-D or 2-D. Received shape ${shapeText(x)}`);
  checkDevices('diag', [x]);
  if (x.ndim === 2) return diagonalOf(x, 'diag', kk, 0, 1).copy({ stream });
  const n = x.shape[0] + Math.abs(kk);
  return filled(zeros([n, n], x.dtype, { stream }), (out) => {
    if (x.size) assign(diagonalOf(out, 'diag', kk, 0, 1), x, stream);
  });
}

/**
 * The sum along the diagonal (NumPy's trace): of a 2-D array a 0-d array; of more dimensions,
 * the sums of the diagonals over `axis1`, `axis2`, in the shape of the other axes. dtype as
 * sum(): integers and bool accumulate in int64 (uint64 for unsigned), unless `dtype` says.
 * @example
 * gpuarray.trace(gpuarray.eye(3)).item();      // 3
 * m.trace({ offset: 1, dtype: 'float64' });
 */
export function trace(a: GPUArray, opts: TraceOptions = {}): GPUArray {
  const { offset, axis1, axis2, dtype, out, stream } = checkedOptions(opts, 'trace', TRACE_KEYS);
  const d = diagonalOf(arrayArg(a, 'a'), 'trace', offset, axis1, axis2);
  return sum(d, { axis: -1, dtype, out, stream });
}

/**
 * tril and triu: where(mask, x, 0) over the last two axes, the mask built from two aranges.
 * tril keeps (i, j) where j <= i + k; triu keeps j >= i + k. A 1-D x of length n broadcasts to
 * n×n, as NumPy's (its mask is tri(n)).
 */
function triangle(what: 'tril' | 'triu', a: GPUArray, k: unknown, opts: MatrixStreamOptions): GPUArray {
  const { stream } = checkedOptions(opts, what, STREAM_KEYS);
  const x = arrayArg(a, 'a');
  let kk = intArg(k, 'k', what);
  if (x.ndim === 0) throw rangeError('ERR_INVALID_ARG_VALUE', `${what}: the array must have at least 1 dimension (a 0-d array has no rows)`);
  checkDevices(what, [x]);
  const [n, m] = x.ndim === 1 ? [x.shape[0], x.shape[0]] : x.shape.slice(-2);
  kk = Math.min(Math.max(kk, -n), m); // the same masks, and i + k exact in the arange's float64 steps
  const temps: GPUArray[] = [];
  try {
    const rows = arange(kk, kk + n, 1, DTYPES.int64, { stream }); // i + k
    temps.push(rows);
    const cols = arange(0, m, 1, DTYPES.int64, { stream });
    temps.push(cols);
    const mask = apply(what === 'tril' ? 'ge' : 'le', [rows.reshape(n, 1), cols.reshape(1, m)], { stream });
    temps.push(mask);
    // A zero of x's own dtype under NEP 50: a weak 0 keeps every numeric dtype; bool needs false.
    return where(mask, x, x.dtype.kind === 'b' ? false : 0, { stream });
  } finally {
    for (const t of temps) t.dispose();
  }
}

/**
 * The lower triangle of the last two axes (batched over the others): elements above the k-th
 * diagonal set to zero, dtype kept (NumPy's tril; a 1-D input of length n gives n×n).
 * @example
 * gpuarray.tril(gpuarray.ones([3, 3])).toArray(); // [[1, 0, 0], [1, 1, 0], [1, 1, 1]]
 * gpuarray.tril(batch, -1);                       // strictly lower, for each matrix of a [b, n, m] batch
 */
export function tril(a: GPUArray, k = 0, opts: MatrixStreamOptions = {}): GPUArray {
  return triangle('tril', a, k, opts);
}

/**
 * The upper triangle of the last two axes (batched): elements below the k-th diagonal set to
 * zero, dtype kept (NumPy's triu; a 1-D input of length n gives n×n).
 * @example
 * gpuarray.triu(m, 1); // strictly upper
 */
export function triu(a: GPUArray, k = 0, opts: MatrixStreamOptions = {}): GPUArray {
  return triangle('triu', a, k, opts);
}

/**
 * Coordinate arrays from coordinate vectors (NumPy's meshgrid): one output per input, each input
 * flattened. 'xy' indexing (default) gives shape [len(x1), len(x0), len(x2), …]; 'ij' gives
 * [len(x0), len(x1), …]. With `sparse`, each output has length 1 on the others' axes. With
 * `copy: false`, the outputs are views of the inputs (broadcast views, not writable, when not
 * sparse). The options, if any, come last.
 * @example
 * const [X, Y] = gpuarray.meshgrid(gpuarray.arange(3), gpuarray.arange(2)); // X, Y: shape [2, 3]
 * const [I, J] = gpuarray.meshgrid(x, y, { indexing: 'ij', sparse: true }); // [nx, 1] and [1, ny]
 */
export function meshgrid(...args: GPUArray[] | [...GPUArray[], MeshgridOptions]): GPUArray[] {
  const last: unknown = args[args.length - 1];
  const hasOpts = last !== undefined && !(last instanceof GPUArray) && typeof last === 'object' && last !== null && !Array.isArray(last);
  const o = checkedOptions(hasOpts ? last as MeshgridOptions : undefined, 'meshgrid', MESHGRID_KEYS);
  const { indexing = 'xy', stream } = o;
  const sparse = boolArg(o.sparse, 'sparse', 'meshgrid', false), copy = boolArg(o.copy, 'copy', 'meshgrid', true);
  if (indexing !== 'xy' && indexing !== 'ij') {
    throw typeError('ERR_INVALID_ARG_VALUE', `meshgrid: indexing must be 'xy' or 'ij'. Received ${describe(indexing)}`);
  }
  const xs = (hasOpts ? args.slice(0, -1) : args).map((x, i) => arrayArg(x, `xs[${i}]`));
  checkDevices('meshgrid', xs);
  const nd = xs.length;
  const pos = (i: number) => (indexing === 'xy' && nd > 1 && i < 2 ? 1 - i : i); // 'xy': the first two axes swapped
  const grid: number[] = new Array(nd);
  xs.forEach((x, i) => { grid[pos(i)] = x.size; });
  const outs: GPUArray[] = [];
  const flats: GPUArray[] = []; // copies reshape(-1) made of inputs it could not view flat
  try {
    xs.forEach((x, i) => {
      const flat = x.ndim === 1 ? x : x.reshape(-1);
      if (flat.base === null && flat !== x) flats.push(flat);
      const p = pos(i);
      const shape = sparse ? grid.map((len, d) => (d === p ? len : 1)) : grid;
      const v = flat.view_(shape, grid.map((_, d) => (d === p ? flat.strides[0] : 0)), flat.offset);
      outs.push(copy ? v.copy({ stream }) : v);
    });
  } catch (e) {
    if (copy) for (const v of outs) v.dispose();
    for (const f of flats) f.dispose();
    throw e;
  }
  if (copy) {
    for (const f of flats) f.dispose();
  } else {
    // A view of a flat copy owns it (as a view tidy() returns): disposing the view frees the copy.
    for (const f of flats) f.handOver_(outs.filter((v) => v.base === f));
  }
  return outs;
}

/** An end diff() joins to the array: a GPUArray, or a scalar with the dtype NumPy's asanyarray gives it. */
interface Edge { arr?: GPUArray; value?: Operand; dtype?: DType }

function edgeOf(v: unknown, name: string): Edge | undefined {
  if (v === undefined) return undefined;
  if (v instanceof GPUArray) return { arr: v.check() };
  let dtype: DType;
  if (v instanceof Scalar) dtype = v.dtype;
  else if (typeof v === 'boolean') dtype = DTYPES.bool;
  else if (typeof v === 'bigint') dtype = v >= 2n ** 63n ? DTYPES.uint64 : DTYPES.int64;
  else if (typeof v === 'number') dtype = Number.isSafeInteger(v) ? DTYPES.int64 : DTYPES.float64;
  else if (typeof v === 'object' && v !== null && typeof (v as Complex).re === 'number' && typeof (v as Complex).im === 'number') {
    dtype = DTYPES.complex128;
  } else {
    throw typeError('ERR_INVALID_ARG_TYPE', `diff: ${name} must be a GPUArray or a scalar. Received ${describe(v)}`);
  }
  return { value: v as Operand, dtype };
}

/**
 * The n-th discrete difference along `axis` (NumPy's diff): `out[i] = a[i+1] - a[i]`, n times;
 * bool uses not-equal (a bool result). Each step shortens the axis by one: n ≥ its length gives
 * an empty axis; n = 0 returns `a` itself. `prepend` / `append` are joined to `a` first.
 * @example
 * gpuarray.diff(gpuarray.toGpu([1, 4, 9, 16])).toArray();           // [3, 5, 7]
 * gpuarray.diff(gpuarray.toGpu([1, 4, 9, 16]), { n: 2 }).toArray(); // [2, 2]
 * gpuarray.diff(m, { axis: 0, prepend: 0 });                        // first row kept (int64/float64: see prepend)
 */
export function diff(a: GPUArray, opts: DiffOptions = {}): GPUArray {
  const { n: nOpt, axis, prepend, append, stream } = checkedOptions(opts, 'diff', DIFF_KEYS);
  const x = arrayArg(a, 'a');
  const n = nOpt === undefined ? 1 : intArg(nOpt, 'n', 'diff');
  if (n < 0) throw rangeError('ERR_OUT_OF_RANGE', `diff: n must be non-negative. Received ${n}`);
  if (n === 0) return x;
  if (x.ndim === 0) throw rangeError('ERR_INVALID_ARG_VALUE', 'diff: the array must have at least 1 dimension');
  const ax = normalizeAxis((axis ?? -1) as number, x.ndim);
  const pre = edgeOf(prepend, 'prepend'), post = edgeOf(append, 'append');
  checkDevices('diff', [x, pre?.arr, post?.arr]);
  const temps: GPUArray[] = [];
  let cur = x, own = false;
  try {
    if (pre || post) {
      const edge = (e: Edge): GPUArray => {
        let t = e.arr;
        if (!t) temps.push((t = full([], e.value!, e.dtype, { stream })));
        if (t.ndim !== 0) return t;
        const shape = [...x.shape];
        shape[ax] = 1;
        return t.broadcastTo(shape); // NumPy: a 0-d end is broadcast to length 1 on the axis
      };
      cur = concatenate([...(pre ? [edge(pre)] : []), x, ...(post ? [edge(post)] : [])], ax, { stream });
      temps.push(cur);
    }
    const op = cur.dtype.kind === 'b' ? 'ne' : 'sub';
    for (let i = 0; i < n; i++) {
      const len = cur.shape[ax];
      const shape = [...cur.shape];
      shape[ax] = Math.max(0, len - 1);
      const hi = cur.view_(shape, cur.strides, cur.offset + (len > 1 ? cur.strides[ax] : 0)); // cur[1:] (empty: no offset past the end)
      const lo = cur.view_(shape, cur.strides, cur.offset); // cur[:-1]
      const next = apply(op, [hi, lo], { stream });
      if (own) cur.dispose();
      cur = next;
      own = true;
      if (len <= 1) break; // empty along the axis: later steps give the same empty array
    }
    own = false; // the caller's now
    return cur;
  } finally {
    if (own) cur.dispose();
    for (const t of temps) t.dispose();
  }
}

/**
 * Peak to peak, `max - min` over `axis` (NumPy's ptp): the input's dtype (integers wrap, as
 * NumPy's subtract); `axis: []` reduces nothing (`a - a`); an empty reduction is RangeError
 * ERR_EMPTY_REDUCTION as max's; bool is TypeError ERR_INVALID_DTYPE (NumPy: no bool subtract).
 * @example
 * gpuarray.ptp(gpuarray.toGpu([[4, 9, 2], [3, 5, 7]]), { axis: 1 }).toArray(); // [7, 4]
 */
export function ptp(a: GPUArray, opts: PtpOptions = {}): GPUArray {
  const { axis, keepdims, out, stream } = checkedOptions(opts, 'ptp', PTP_KEYS);
  const x = arrayArg(a, 'a');
  if (x.dtype.kind === 'b') throw typeError('ERR_INVALID_DTYPE', 'ptp is not supported for bool (NumPy has no boolean subtract)');
  const axes = axesOf(axis, x.ndim);
  if (axes.length === 0) return apply('sub', [x, x], { out, stream }); // max and min over no axis: x itself
  // The minimum first: an out that shares memory with x (x[:, 0] for axis 1) is written only after
  // both reductions have read x.
  const lo = min(x, { axis: axes, keepdims, stream });
  try {
    const hi = max(x, { axis: axes, keepdims, out, stream }); // into out, as NumPy's: the difference in out's dtype
    try {
      return apply('sub', [hi, lo], { out: hi, stream });
    } catch (e) {
      if (hi !== out) hi.dispose();
      throw e;
    }
  } finally {
    lo.dispose();
  }
}

registerArrayMethods({ diagonal, trace });
