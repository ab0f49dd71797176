/**
 * More of NumPy's shape functions and sequences: views (rot90, atleast1d/2d/3d, broadcastTo,
 * broadcastArrays, hsplit/vsplit/dsplit), joins through concatenate (dstack, columnStack), the
 * weighted average (mul, sum and div of the operators and reductions), and logspace/geomspace
 * (one elementwise kernel each, computed in float64 as NumPy's).
 */
import { DTYPES, DType, DTypeLike, dtype as toDType } from '../base/dtype';
import { checkSize, checkedOptions, describe, rangeError, typeError } from '../base/errors';
import { broadcastShapes as shapesBroadcast, normalizeAxis, normalizeShape } from '../base/shape';
import { resultType } from '../base/promote';
import { NestedArray } from '../base/host';
import { Stream } from '../cuda/driver';
import { GPUArray, arrayArg, filled } from './gpuarray';
import { apply, elementwise } from './operators';
import { concatenate } from './joins';
import { flip, split } from './shapes';
import { full, toGpu } from './creation';
import { axesOf, mean, sum } from './reductions';
import { DeviceId, checkDevices, onDevice } from './devices';

/** Options of the joins that take only a stream: dstack(), columnStack(). */
export interface StackOptions {
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

/** Options of average(). */
export interface AverageOptions {
  /** Axis or axes to average over (negative counts from the end); all when null/undefined. */
  axis?: number | readonly number[] | null;
  /**
   * A weight per element: a GPUArray (or numbers, uploaded as float64) of `a`'s shape, or of the
   * shape of `a` along `axis` (`[a.shape[ax] for ax of axis]`, in `axis`'s order).
   */
  weights?: GPUArray | NestedArray | null;
  /** Also return the sum of the weights (the element count without weights), broadcast to the result's shape. */
  returned?: boolean;
  /** Keep the averaged axes as length 1. */
  keepdims?: boolean;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

/** Options of logspace(). */
export interface LogspaceOptions {
  /** Include `base ** stop` as the last value (default true). */
  endpoint?: boolean;
  /** The base of the exponents (default 10). */
  base?: number;
  /** dtype of the result (default float64; values are computed in float64, then converted). */
  dtype?: DTypeLike;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
  /** Device to create the array on (ordinal or driver.Device; default: the current device). */
  device?: DeviceId;
}

/** Options of geomspace(). */
export type GeomspaceOptions = Omit<LogspaceOptions, 'base'>;

// ---- arguments --------------------------------------------------------------------------------

function arrayList(list: unknown, what: string): GPUArray[] {
  const items = Array.isArray(list) ? Array.from(list as unknown[]) : null; // a hole reads as undefined: refused
  if (!items || items.length === 0 || items.some((a) => !(a instanceof GPUArray))) {
    throw typeError('ERR_INVALID_ARG_TYPE', `${what} takes a non-empty array of GPUArrays. Received ${describe(list)}`);
  }
  const xs = (items as GPUArray[]).map((a) => a.check());
  checkDevices(what, xs);
  return xs;
}

function intArg(v: unknown, name: string, what: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `${what}: ${name} must be an integer. Received ${describe(v)}`);
  }
  return v;
}

function boolArg(v: unknown, name: string, what: string): boolean {
  if (v === undefined) return false;
  if (typeof v !== 'boolean') throw typeError('ERR_INVALID_ARG_TYPE', `${what}: ${name} must be a boolean. Received ${describe(v)}`);
  return v;
}

function finite(v: unknown, name: string, what: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `${what}: ${name} must be a finite number. Received ${describe(v)}`);
  }
  return v;
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const sameShape = (x: readonly number[], y: readonly number[]): boolean => x.length === y.length && x.every((n, i) => n === y[i]);

// ---- views ------------------------------------------------------------------------------------

/**
 * The array rotated by 90° `k` times in the plane of `axes` (NumPy's rot90), as a view: the
 * first axis turns towards the second (`k` < 0 the other way; any integer, taken mod 4). `axes`
 * are two different axes (RangeError ERR_INVALID_ARG_VALUE otherwise, ERR_AXIS_OUT_OF_RANGE out
 * of range), so the array is at least 2-d.
 * @example
 * gpuarray.rot90(gpuarray.toGpu([[1, 2], [3, 4]])).toArray(); // [[2, 4], [1, 3]]
 * gpuarray.rot90(m, -1);                                    // clockwise
 * gpuarray.rot90(x, 1, [1, 2]);                             // in the plane of axes 1 and 2
 */
export function rot90(a: GPUArray, k = 1, axes: readonly number[] = [0, 1]): GPUArray {
  arrayArg(a, 'a');
  intArg(k, 'k', 'rot90');
  if (!Array.isArray(axes) || axes.length !== 2) {
    throw rangeError('ERR_INVALID_ARG_VALUE', `rot90: axes must be two axes. Received ${describe(axes)}`);
  }
  const [x0, x1] = axes.map((x) => intArg(x, 'axes', 'rot90'));
  if (x0 === x1 || Math.abs(x0 - x1) === a.ndim) {
    throw rangeError('ERR_INVALID_ARG_VALUE', `rot90: the axes must be different. Received [${x0}, ${x1}]`);
  }
  const ax0 = normalizeAxis(x0, a.ndim), ax1 = normalizeAxis(x1, a.ndim);
  const turns = ((k % 4) + 4) % 4;
  if (turns === 0) return a.index('...');
  if (turns === 2) return flip(a, { axis: [ax0, ax1] });
  const perm = range(a.ndim);
  [perm[ax0], perm[ax1]] = [perm[ax1], perm[ax0]];
  return turns === 1 ? flip(a, { axis: ax1 }).transpose(perm) : flip(a.transpose(perm), { axis: ax1 });
}

function atleast(arrays: GPUArray[], view: (x: GPUArray) => GPUArray): GPUArray | GPUArray[] {
  const r = arrays.map((x, i) => view(arrayArg(x, `arrays[${i}]`)));
  return r.length === 1 ? r[0] : r;
}

/**
 * The arrays with at least one dimension (NumPy's atleast_1d): a 0-d array as a [1] view, others
 * themselves. One array gives one result, several an array of them.
 * @example
 * gpuarray.atleast1d(gpuarray.full([], 5)).shape; // [1]
 * const [x, y] = gpuarray.atleast1d(s, v);
 */
export function atleast1d(a: GPUArray): GPUArray;
export function atleast1d(...arrays: GPUArray[]): GPUArray[];
export function atleast1d(...arrays: GPUArray[]): GPUArray | GPUArray[] {
  return atleast(arrays, (x) => (x.ndim >= 1 ? x : x.index(null)));
}

/**
 * The arrays with at least two dimensions (NumPy's atleast_2d): 0-d → [1, 1], 1-d of n → [1, n]
 * (views); others themselves. One array gives one result, several an array of them.
 * @example
 * gpuarray.atleast2d(v).shape; // [1, 3] for v of shape [3]
 */
export function atleast2d(a: GPUArray): GPUArray;
export function atleast2d(...arrays: GPUArray[]): GPUArray[];
export function atleast2d(...arrays: GPUArray[]): GPUArray | GPUArray[] {
  return atleast(arrays, (x) => (x.ndim === 0 ? x.index(null, null) : x.ndim === 1 ? x.index(null) : x));
}

/**
 * The arrays with at least three dimensions (NumPy's atleast_3d): 0-d → [1, 1, 1], 1-d of n →
 * [1, n, 1], 2-d [m, n] → [m, n, 1] (views); others themselves. One array gives one result,
 * several an array of them.
 * @example
 * gpuarray.atleast3d(m).shape; // [2, 3, 1] for m of shape [2, 3]
 */
export function atleast3d(a: GPUArray): GPUArray;
export function atleast3d(...arrays: GPUArray[]): GPUArray[];
export function atleast3d(...arrays: GPUArray[]): GPUArray | GPUArray[] {
  return atleast(arrays, (x) => (x.ndim === 0 ? x.index(null, null, null)
    : x.ndim === 1 ? x.index(null, ':', null) : x.ndim === 2 ? x.index('...', null) : x));
}

/**
 * A broadcast view of `a` with the given shape (NumPy's broadcast_to; also `a.broadcastTo`):
 * stride 0 on the new and stretched axes, so not writable as an `out`.
 * @example
 * gpuarray.broadcastTo(gpuarray.arange(3), [2, 3]).toArray(); // [[0, 1, 2], [0, 1, 2]]
 */
export function broadcastTo(a: GPUArray, shape: number | readonly number[]): GPUArray {
  return arrayArg(a, 'a').broadcastTo(shape);
}

/**
 * The shape that shapes broadcast to (NumPy's broadcast_shapes); RangeError ERR_SHAPE_MISMATCH
 * when they do not. A number is a 1-d shape.
 * @example
 * gpuarray.broadcastShapes([3, 1], [4], 5); // throws: 4 and 5 do not broadcast
 * gpuarray.broadcastShapes([3, 1], [1, 4]); // [3, 4]
 */
export function broadcastShapes(...shapes: Array<number | readonly number[]>): number[] {
  return shapesBroadcast(...shapes.map((s) => normalizeShape(s)));
}

/**
 * The arrays broadcast against each other (NumPy's broadcast_arrays): views of one shape (the
 * arrays themselves when their shapes already agree, as NumPy). No copy, no kernel.
 * @example
 * const [x, y] = gpuarray.broadcastArrays(col, row); // [n, 1] and [m] → both [n, m]
 */
export function broadcastArrays(...arrays: GPUArray[]): GPUArray[] {
  const xs = arrays.map((x, i) => arrayArg(x, `arrays[${i}]`));
  const shape = shapesBroadcast(...xs.map((x) => x.shape));
  if (xs.every((x) => sameShape(x.shape, shape))) return xs;
  return xs.map((x) => x.broadcastTo(shape));
}

function splitAlong(what: string, a: GPUArray, ios: number | readonly number[], minDims: number, axis: (nd: number) => number): GPUArray[] {
  arrayArg(a, 'a');
  if (a.ndim < minDims) {
    throw rangeError('ERR_AXIS_OUT_OF_RANGE', `${what} only works on arrays of ${minDims} or more dimensions; this one is ${a.ndim}-d`);
  }
  return split(a, ios, { axis: axis(a.ndim) });
}

/**
 * split() along axis 1, or axis 0 of a 1-d array (NumPy's hsplit): views; equal sections or
 * indices. A 0-d array is RangeError ERR_AXIS_OUT_OF_RANGE.
 * @example
 * const [l, r] = gpuarray.hsplit(m, 2); // the left and right halves of m's columns
 */
export function hsplit(a: GPUArray, indicesOrSections: number | readonly number[]): GPUArray[] {
  return splitAlong('hsplit', a, indicesOrSections, 1, (nd) => (nd > 1 ? 1 : 0));
}

/**
 * split() along axis 0 (NumPy's vsplit): views; the array must be at least 2-d.
 * @example
 * const [top, rest] = gpuarray.vsplit(m, [1]);
 */
export function vsplit(a: GPUArray, indicesOrSections: number | readonly number[]): GPUArray[] {
  return splitAlong('vsplit', a, indicesOrSections, 2, () => 0);
}

/**
 * split() along axis 2 (NumPy's dsplit): views; the array must be at least 3-d.
 * @example
 * const [r, g, b] = gpuarray.dsplit(rgb, 3); // [h, w, 3] → three [h, w, 1] views
 */
export function dsplit(a: GPUArray, indicesOrSections: number | readonly number[]): GPUArray[] {
  return splitAlong('dsplit', a, indicesOrSections, 3, () => 2);
}

// ---- joins ------------------------------------------------------------------------------------

/**
 * Arrays joined along a third axis (NumPy's dstack): each as atleast3d (0-d → [1, 1, 1], [n] →
 * [1, n, 1], [m, n] → [m, n, 1]), then concatenated on axis 2 (dtypes promote as concatenate's).
 * @example
 * gpuarray.dstack([r, g, b]).shape; // [h, w, 3] for three [h, w] planes
 */
export function dstack(list: readonly GPUArray[], opts: StackOptions = {}): GPUArray {
  const xs = arrayList(list, 'dstack');
  opts = checkedOptions(opts, 'dstack', ['stream']);
  return concatenate(xs.map((x) => atleast3d(x)), 2, opts);
}

/**
 * 1-d arrays as columns of a 2-d array (NumPy's column_stack): [n] → [n, 1] (0-d → [1, 1]),
 * arrays of 2 or more dimensions as they are, concatenated on axis 1.
 * @example
 * gpuarray.columnStack([x, y]).shape; // [n, 2] for two 1-d arrays of n
 */
export function columnStack(list: readonly GPUArray[], opts: StackOptions = {}): GPUArray {
  const xs = arrayList(list, 'columnStack');
  opts = checkedOptions(opts, 'columnStack', ['stream']);
  return concatenate(xs.map((x) => (x.ndim === 0 ? x.index(null, null) : x.ndim === 1 ? x.index(':', null) : x)), 1, opts);
}

// ---- average ----------------------------------------------------------------------------------

const AVERAGE_KEYS = ['axis', 'weights', 'returned', 'keepdims', 'stream'];

/**
 * The (weighted) average over `axis` (NumPy's average): `sum(a * weights) / sum(weights)`, or
 * mean() without weights. `weights` has `a`'s shape, or the shape of `a` along `axis` (a 1-d
 * array for one axis); otherwise RangeError ERR_SHAPE_MISMATCH (NumPy's TypeError without an
 * axis, ValueError with one). The dtype is NumPy's: integers and bool give float64, otherwise
 * `a`'s and the weights' promoted dtype (float16 with float16 weights stays float16). With
 * `returned: true` the result is `[average, sumOfWeights]`, the sum (the element count without
 * weights) broadcast to the average's shape, of its dtype. Weights that sum to zero give NaN or
 * ±Inf from the division: NumPy and CuPy raise ZeroDivisionError, which needs a read back (CuPy
 * synchronizes for it); average never waits for the GPU.
 * @example
 * gpuarray.average(gpuarray.toGpu([1, 2, 3, 4])).item();                           // 2.5
 * gpuarray.average(m, { axis: 1, weights: gpuarray.toGpu([0.25, 0.75]) });           // one per row
 * const [avg, wsum] = gpuarray.average(m, { axis: 0, weights: w, returned: true });
 */
export function average(a: GPUArray, opts: AverageOptions & { returned: true }): [GPUArray, GPUArray];
export function average(a: GPUArray, opts?: AverageOptions): GPUArray;
export function average(a: GPUArray, opts: AverageOptions = {}): GPUArray | [GPUArray, GPUArray] {
  const x = arrayArg(a, 'a');
  const o = checkedOptions(opts, 'average', AVERAGE_KEYS);
  const returned = boolArg(o.returned, 'returned', 'average'), keepdims = boolArg(o.keepdims, 'keepdims', 'average');
  const { stream } = o;
  const axes = o.axis === undefined || o.axis === null ? null : axesOf(o.axis, x.ndim);
  const reduceOpts = { axis: axes, keepdims, stream };
  if (o.weights === undefined || o.weights === null) {
    const avg = mean(x, reduceOpts);
    if (!returned) return avg;
    try {
      // NumPy: a.size / avg.size in avg's dtype (an empty average has no count to show).
      return [avg, full(avg.shape, avg.size ? x.size / avg.size : 0, avg.dtype, { stream })];
    } catch (e) {
      avg.dispose();
      throw e;
    }
  }
  const temps: GPUArray[] = [];
  let avg: GPUArray | undefined;
  try {
    let w: GPUArray;
    if (o.weights instanceof GPUArray) w = o.weights.check();
    else temps.push((w = toGpu(o.weights as NestedArray)));
    checkDevices('average', [x, w]);
    const exact = x.dtype.kind === 'i' || x.dtype.kind === 'u' || x.dtype.kind === 'b';
    const rd: DType = exact ? resultType(x.dtype, w.dtype, DTYPES.float64) : resultType(x.dtype, w.dtype);
    if (!sameShape(x.shape, w.shape)) {
      if (axes === null) {
        throw rangeError('ERR_SHAPE_MISMATCH', `average: weights of shape (${w.shape.join(',')}) differ from a's (${x.shape.join(',')}); ` +
          'give the axis they go along');
      }
      const along = axes.map((ax) => x.shape[ax]);
      if (!sameShape(w.shape, along)) {
        throw rangeError('ERR_SHAPE_MISMATCH', `average: weights must have a's shape (${x.shape.join(',')}) or its shape along ` +
          `axis ${JSON.stringify(axes)}, (${along.join(',')}). Received (${w.shape.join(',')})`);
      }
      // Their axes in increasing order, then length 1 on a's other axes (NumPy's transpose + reshape).
      const order = axes.map((ax, i) => [ax, i]).sort((p, q) => p[0] - q[0]).map((p) => p[1]);
      w = w.transpose(order).index(...x.shape.map((_, d) => (axes.includes(d) ? ':' : null)));
    }
    const scl = sum(w, { ...reduceOpts, dtype: rd });
    temps.push(scl);
    // a * weights in the result dtype (each converted on load), summed, divided by the weights' sum.
    const prod = elementwise('average', AVERAGE_BODY, [{ arr: x }, { arr: w }], [rd, rd], rd, rd, { stream });
    temps.push(prod);
    const num = sum(prod, reduceOpts);
    temps.push(num);
    avg = apply('div', [num, scl], { stream });
    if (!returned) return avg;
    if (sameShape(scl.shape, avg.shape)) {
      temps.splice(temps.indexOf(scl), 1);
      return [avg, scl];
    }
    return [avg, scl.broadcastTo(avg.shape).copy({ stream })];
  } catch (e) {
    avg?.dispose();
    throw e;
  } finally {
    for (const t of temps) t.dispose(); // stream-ordered: after the kernels that read them
  }
}

// ---- logspace, geomspace ----------------------------------------------------------------------

const SPACE_KEYS = ['endpoint', 'dtype', 'stream', 'device'];

/**
 * `num` values `base ** y` for y evenly spaced from start to stop (NumPy's logspace): y as
 * linspace() computes it in float64 (the last exactly `stop` unless `endpoint` is false), the
 * power in float64, then converted to `dtype` (default float64).
 * @example
 * gpuarray.logspace(0, 3, 4).toArray();             // [1, 10, 100, 1000]
 * gpuarray.logspace(0, 3, 4, { base: 2 }).toArray(); // [1, 2, 4, 8]
 */
export function logspace(start: number, stop: number, num = 50, opts: LogspaceOptions = {}): GPUArray {
  const o = checkedOptions(opts, 'logspace', [...SPACE_KEYS, 'base']);
  finite(start, 'start', 'logspace');
  finite(stop, 'stop', 'logspace');
  const base = o.base ?? 10;
  if (typeof base !== 'number') throw typeError('ERR_INVALID_ARG_TYPE', `logspace: base must be a number. Received ${describe(base)}`);
  checkSize(num, 'num');
  const endpoint = o.endpoint === undefined ? true : boolArg(o.endpoint, 'endpoint', 'logspace');
  const div = endpoint ? num - 1 : num;
  const step = div > 0 ? (stop - start) / div : 0;
  const last = endpoint && num > 1 ? num - 1 : -1;
  const d = o.dtype === undefined ? DTYPES.float64 : toDType(o.dtype);
  return onDevice(o.device, () => spaced('logspace', [start, step, base, last, stop], num, d, o.stream));
}

/**
 * @internal The kernel bodies of logspace (x0 start, x1 step, x2 base, x3 the index whose exponent
 * is exactly x4 = stop, or -1) and geomspace (x0, x1 the logarithms' start and step, x2 and x4 the
 * exact first and last values, x3 the last index or -1, x5 the sign), all float64: y = start +
 * i * step rounded at each step (no FMA), as linspace's values.
 */
export const SPACE_BODIES = {
  logspace: 'const double y = (double)i == x3 ? x4 : __dadd_rn(x0, __dmul_rn((double)i, x1)); r0 = pow(x2, y);',
  geomspace: 'double r = i == 0 ? x2 : (double)i == x3 ? x4 : pow(10.0, __dadd_rn(x0, __dmul_rn((double)i, x1))); r0 = x5 * r;',
} as const;

/** @internal average's product, a * weights in the result dtype (both converted on load). */
export const AVERAGE_BODY = 'r0 = x0 * x1;';

function spaced(name: keyof typeof SPACE_BODIES, scalars: number[], num: number, d: DType, stream: Stream | null | undefined): GPUArray {
  const f64 = DTYPES.float64;
  return filled(GPUArray.allocate([num], d, stream), (out) => num > 0 &&
    elementwise(name, SPACE_BODIES[name], scalars.map((value) => ({ value })), scalars.map(() => f64), f64, d, { out, stream }));
}

/**
 * `num` values in geometric progression from start to stop (NumPy's geomspace): each a power of
 * ten between their logarithms, the first exactly `start` and the last exactly `stop` (unless
 * `endpoint` is false); both negative gives negative values. Computed in float64, then converted
 * to `dtype` (default float64). A zero end is RangeError ERR_INVALID_ARG_VALUE (NumPy's
 * ValueError), so are ends of opposite signs (NumPy returns NaN between them, with a warning).
 * @example
 * gpuarray.geomspace(1, 1000, 4).toArray();   // [1, 10, 100, 1000]
 * gpuarray.geomspace(-1, -16, 5).toArray();   // [-1, -2, -4, -8, -16]
 */
export function geomspace(start: number, stop: number, num = 50, opts: GeomspaceOptions = {}): GPUArray {
  const o = checkedOptions(opts, 'geomspace', SPACE_KEYS);
  finite(start, 'start', 'geomspace');
  finite(stop, 'stop', 'geomspace');
  checkSize(num, 'num');
  if (start === 0 || stop === 0) throw rangeError('ERR_INVALID_ARG_VALUE', 'geomspace: a geometric sequence cannot include zero');
  if ((start < 0) !== (stop < 0)) {
    throw rangeError('ERR_INVALID_ARG_VALUE', `geomspace: start and stop must have the same sign (${start}, ${stop}): the logarithm of one is NaN`);
  }
  const endpoint = o.endpoint === undefined ? true : boolArg(o.endpoint, 'endpoint', 'geomspace');
  const sign = start < 0 ? -1 : 1;
  const s = start / sign, e = stop / sign;
  const ls = Math.log10(s), le = Math.log10(e);
  const div = endpoint ? num - 1 : num;
  const step = div > 0 ? (le - ls) / div : 0;
  const last = endpoint && num > 1 ? num - 1 : -1;
  const d = o.dtype === undefined ? DTYPES.float64 : toDType(o.dtype);
  return onDevice(o.device, () => spaced('geomspace', [ls, step, s, last, e, sign], num, d, o.stream));
}
