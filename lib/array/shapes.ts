/**
 * Shape functions with NumPy semantics: views (flip, fliplr, flipud, swapaxes, moveaxis, split,
 * arraySplit) and copies made by strided assignment (roll, tile, repeat, hstack, vstack). clip,
 * isclose and allclose are in clip.ts.
 */
import { DTYPES } from '../base/dtype';
import { checkedOptions, describe, rangeError, typeError } from '../base/errors';
import { Slice } from '../base/indexing';
import { normalizeAxis, normalizeShape } from '../base/shape';
import { Stream } from '../cuda/driver';
import { GPUArray, arrayArg, filled } from './gpuarray';
import { registerArrayMethods } from './methods';
import { assign } from './operators';
import { concatenate, take } from './joins';
import { checkDevices } from './devices';

/** NumPy 2's NPY_MAXDIMS: tile() makes no array of more dimensions (its reps could ask for millions). */
const MAX_DIMS = 64;

/** Options of flip(). */
export interface FlipOptions {
  /** Axis or axes to reverse (negative counts from the end); every axis when null/undefined. */
  axis?: number | readonly number[] | null;
}

/** Options of roll(). */
export interface RollOptions {
  /** Axis or axes to roll along (paired with `shift`); the flattened array when null/undefined. */
  axis?: number | readonly number[] | null;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

/** Options of repeat(). */
export interface RepeatOptions {
  /** Axis to repeat along (negative counts from the end); the flattened array when null/undefined. */
  axis?: number | null;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

/** Options of split() and arraySplit(). */
export interface ArraySplitOptions {
  /** Axis to split along (default 0; negative counts from the end). */
  axis?: number;
}

/** Options of the functions that only make a copy: tile(), hstack(), vstack(). */
export interface ShapeStreamOptions {
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

// ---- arguments --------------------------------------------------------------------------------

/** Integers from a number or an array of numbers; below `min` is a RangeError ERR_OUT_OF_RANGE. */
function ints(v: unknown, what: string, min = -Infinity): number[] {
  const list = typeof v === 'number' ? [v] : Array.isArray(v) ? Array.from(v as unknown[]) : null;
  if (!list || list.some((x) => typeof x !== 'number' || !Number.isSafeInteger(x))) {
    throw typeError('ERR_INVALID_ARG_TYPE', `${what} must be an integer or an array of integers. Received ${describe(v)}`);
  }
  for (const x of list as number[]) {
    if (x < min) throw rangeError('ERR_OUT_OF_RANGE', `${what} may not contain values below ${min}. Received ${x}`);
  }
  return (list as number[]).map((x) => x + 0); // -0 → 0: no -0 dimension in a result's shape
}

/** Normalized axes; a repeated one is RangeError ERR_INVALID_ARG_VALUE (NumPy's ValueError). */
function axesArg(axis: unknown, ndim: number, what: string, repeats = false): number[] {
  if (typeof axis !== 'number' && !Array.isArray(axis)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `${what}: an axis must be an integer or an array of integers. Received ${describe(axis)}`);
  }
  const list = Array.from(typeof axis === 'number' ? [axis] : (axis as unknown[]), (x) => normalizeAxis(x as number, ndim));
  if (!repeats && new Set(list).size !== list.length) {
    throw rangeError('ERR_INVALID_ARG_VALUE', `${what}: repeated axis in (${list.join(', ')})`);
  }
  return list;
}

/** A non-empty list of live GPUArrays of the current device (TypeError otherwise). */
function arrayList(list: unknown, what: string): GPUArray[] {
  // Array.from: a hole reads as undefined, which is refused (some() and map() would skip it).
  const items = Array.isArray(list) ? Array.from(list as unknown[]) : null;
  if (!items || items.length === 0 || items.some((a) => !(a instanceof GPUArray))) {
    throw typeError('ERR_INVALID_ARG_TYPE', `${what} takes a non-empty array of GPUArrays. Received ${describe(list)}`);
  }
  const xs = (items as GPUArray[]).map((a) => a.check());
  checkDevices(what, xs);
  return xs;
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

// ---- views ------------------------------------------------------------------------------------

function flipAxes(a: GPUArray, axes: readonly number[]): GPUArray {
  const set = new Set(axes);
  return a.index(...a.shape.map((_, d) => (set.has(d) ? '::-1' : ':')));
}

/**
 * The array with the order of elements reversed along `axis` (every axis by default), as a view
 * with negative strides (NumPy's flip). A repeated axis is a RangeError ERR_INVALID_ARG_VALUE.
 * @example
 * gpuarray.flip(m, { axis: 1 }); // m[:, ::-1]
 * gpuarray.flip(v);              // v[::-1]
 */
export function flip(a: GPUArray, opts: FlipOptions = {}): GPUArray {
  arrayArg(a, 'a');
  const { axis } = checkedOptions(opts, 'flip', ['axis']);
  return flipAxes(a, axis === undefined || axis === null ? range(a.ndim) : axesArg(axis, a.ndim, 'flip'));
}

/**
 * The array reversed along axis 1 (left/right), a view; the array must be at least 2-d
 * (RangeError ERR_AXIS_OUT_OF_RANGE otherwise).
 * @example
 * gpuarray.fliplr(m); // m[:, ::-1]
 */
export function fliplr(a: GPUArray): GPUArray {
  arrayArg(a, 'a');
  if (a.ndim < 2) throw rangeError('ERR_AXIS_OUT_OF_RANGE', `fliplr: the array must be at least 2-d; it is ${a.ndim}-d`);
  return flipAxes(a, [1]);
}

/**
 * The array reversed along axis 0 (up/down), a view; the array must be at least 1-d
 * (RangeError ERR_AXIS_OUT_OF_RANGE otherwise).
 * @example
 * gpuarray.flipud(m); // m[::-1]
 */
export function flipud(a: GPUArray): GPUArray {
  arrayArg(a, 'a');
  if (a.ndim < 1) throw rangeError('ERR_AXIS_OUT_OF_RANGE', 'flipud: the array must be at least 1-d; it is 0-d');
  return flipAxes(a, [0]);
}

/**
 * The array with two axes interchanged, a view (NumPy's swapaxes; also `a.swapaxes(i, j)`).
 * @example
 * gpuarray.swapaxes(x, 0, -1).shape; // [5, 4, 3] for x of shape [3, 4, 5]
 */
export function swapaxes(a: GPUArray, axis1: number, axis2: number): GPUArray {
  arrayArg(a, 'a');
  const i = normalizeAxis(axis1, a.ndim), j = normalizeAxis(axis2, a.ndim);
  const p = range(a.ndim);
  [p[i], p[j]] = [p[j], p[i]];
  return a.transpose(p);
}

/**
 * The array with axes `source` moved to positions `destination` (the others keep their order),
 * a view (NumPy's moveaxis). Both are an axis or equally long arrays of distinct axes.
 * @example
 * gpuarray.moveaxis(x, 0, -1).shape;        // [4, 5, 3] for x of shape [3, 4, 5]
 * gpuarray.moveaxis(x, [0, 1], [-1, -2]).shape; // [5, 4, 3]
 */
export function moveaxis(a: GPUArray, source: number | readonly number[], destination: number | readonly number[]): GPUArray {
  arrayArg(a, 'a');
  const src = axesArg(source, a.ndim, 'moveaxis source');
  const dst = axesArg(destination, a.ndim, 'moveaxis destination');
  if (src.length !== dst.length) {
    throw rangeError('ERR_INVALID_ARG_VALUE', `moveaxis: source and destination must have the same number of axes (${src.length} and ${dst.length})`);
  }
  const order = range(a.ndim).filter((k) => !src.includes(k));
  const moves = dst.map((d, k) => [d, src[k]]).sort((x, y) => x[0] - y[0]);
  for (const [d, s] of moves) order.splice(d, 0, s);
  return a.transpose(order);
}

/**
 * The most views split() and arraySplit() make: each is a JS object of a few hundred bytes, so
 * millions of them (arraySplit(v, 1e12), or split() of an empty axis, which any count divides)
 * would exhaust the JS heap, a fatal error, rather than throw.
 */
const MAX_PIECES = 2 ** 20;

function tooManyPieces(what: string, pieces: number): never {
  throw rangeError('ERR_OUT_OF_RANGE', `${what}: ${pieces} sections are too many (at most ${MAX_PIECES} views)`);
}

/** Division points along an axis of length n (NumPy's array_split). */
function divisionPoints(what: string, ios: unknown, n: number, equal: boolean): number[] {
  if (typeof ios === 'number') {
    if (!Number.isSafeInteger(ios)) throw typeError('ERR_INVALID_ARG_TYPE', `${what}: sections must be an integer. Received ${ios}`);
    if (ios <= 0) throw rangeError('ERR_OUT_OF_RANGE', `${what}: the number of sections must be larger than 0. Received ${ios}`);
    if (ios > MAX_PIECES) tooManyPieces(what, ios);
    if (equal && n % ios !== 0) {
      throw rangeError('ERR_INVALID_ARG_VALUE', `${what}: an axis of length ${n} does not split into ${ios} equal sections (use arraySplit)`);
    }
    const each = Math.floor(n / ios), extras = n % ios;
    const points = [0];
    for (let i = 0; i < ios; i++) points.push(points[i] + each + (i < extras ? 1 : 0));
    return points;
  }
  if (!Array.isArray(ios)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `${what}: indicesOrSections must be an integer or an array of integers. Received ${describe(ios)}`);
  }
  if (ios.length >= MAX_PIECES) tooManyPieces(what, ios.length + 1);
  return [0, ...ints(ios, `${what}: indices`), n];
}

function splitAt(what: string, a: GPUArray, ios: unknown, opts: ArraySplitOptions, equal: boolean): GPUArray[] {
  arrayArg(a, 'a');
  const { axis = 0 } = checkedOptions(opts, what, ['axis']);
  const ax = normalizeAxis(axis, a.ndim);
  const points = divisionPoints(what, ios, a.shape[ax], equal);
  const lead = new Array<string>(ax).fill(':');
  // Python slices: negative indices count from the end, past the end clamps, start ≥ stop is empty.
  return points.slice(0, -1).map((start, i) => a.index(...lead, new Slice(start, points[i + 1])));
}

/**
 * Views of `a` split along `axis` (default 0): into `sections` equal parts (the axis length must
 * divide, else RangeError ERR_INVALID_ARG_VALUE), or at the given indices (NumPy's split:
 * `[2, 5]` gives `a[:2]`, `a[2:5]`, `a[5:]`). More than 2^20 pieces is a RangeError ERR_OUT_OF_RANGE.
 * @example
 * const [p, q, r] = gpuarray.split(v, 3);          // v of length 9: three views of 3
 * const parts = gpuarray.split(m, [1, 3], { axis: 1 }); // m[:, :1], m[:, 1:3], m[:, 3:]
 */
export function split(a: GPUArray, indicesOrSections: number | readonly number[], opts: ArraySplitOptions = {}): GPUArray[] {
  return splitAt('split', a, indicesOrSections, opts, true);
}

/**
 * split() that allows an unequal division (NumPy's array_split): an axis of length n in k
 * sections gives n % k sections of ⌊n/k⌋ + 1 elements, then sections of ⌊n/k⌋.
 * @example
 * gpuarray.arraySplit(v, 3).map((x) => x.size); // [3, 2, 2] for v of length 7
 */
export function arraySplit(a: GPUArray, indicesOrSections: number | readonly number[], opts: ArraySplitOptions = {}): GPUArray[] {
  return splitAt('arraySplit', a, indicesOrSections, opts, false);
}

// ---- copies -----------------------------------------------------------------------------------

/** `a` as a C-contiguous 1-D array: a view of it, or of a copy (`temp`, for the caller to dispose). */
function flattened(a: GPUArray, stream: Stream | null | undefined): { flat: GPUArray; temp: GPUArray | null } {
  if (a.flags.cContiguous) return { flat: a.reshape(-1), temp: null };
  const temp = a.copy({ stream });
  return { flat: temp.reshape(-1), temp };
}

/** dst = src rolled by `shifts` (one per axis, in [0, n)): 2^k block copies for k rolled axes (NumPy's way). */
function rollInto(dst: GPUArray, src: GPUArray, shifts: readonly number[], stream: Stream | null | undefined): void {
  let blocks: Array<Array<[Slice | string, Slice | string]>> = [[]];
  shifts.forEach((k) => {
    const pairs: Array<[Slice | string, Slice | string]> = k === 0 ? [[':', ':']]
      : [[new Slice(null, -k), new Slice(k, null)], [new Slice(-k, null), new Slice(null, k)]];
    blocks = blocks.flatMap((b) => pairs.map((p) => [...b, p]));
  });
  for (const b of blocks) assign(dst.index(...b.map((p) => p[1])), src.index(...b.map((p) => p[0])), stream);
}

/** Axes rolled together by one rollInto (2^4 block copies); more are rolled in rounds. */
const ROLL_GROUP = 4;

/**
 * dst = src rolled by `shifts`: one rollInto when at most ROLL_GROUP axes move, else rounds of
 * ROLL_GROUP axes each, alternating between dst and a temporary so that the last round writes dst
 * (2^k copies for k rolled axes would be a launch per element of a [2, 2, …] array).
 */
function rollAll(dst: GPUArray, src: GPUArray, shifts: readonly number[], stream: Stream | null | undefined): void {
  const moved = shifts.flatMap((k, d) => (k ? [d] : []));
  if (moved.length <= ROLL_GROUP) return rollInto(dst, src, shifts, stream);
  const rounds: number[][] = [];
  for (let i = 0; i < moved.length; i += ROLL_GROUP) rounds.push(moved.slice(i, i + ROLL_GROUP));
  const temp = GPUArray.allocate(dst.shape, dst.dtype, stream);
  try {
    let from = src;
    rounds.forEach((axes, i) => {
      const to = (rounds.length - 1 - i) % 2 === 0 ? dst : temp;
      rollInto(to, from, shifts.map((k, d) => (axes.includes(d) ? k : 0)), stream);
      from = to;
    });
  } finally {
    temp.dispose(); // stream-ordered: after the copies
  }
}

/**
 * A copy with the elements shifted by `shift` along `axis`; elements shifted past the end come
 * back at the start (NumPy's roll). Without `axis` the flattened array is rolled and the shape
 * kept. `shift` and `axis` may be arrays of equal length (or one of them a single value); shifts
 * on the same axis add up.
 * @example
 * gpuarray.roll(v, 2);                         // [1,2,3,4,5] → [4,5,1,2,3]
 * gpuarray.roll(m, [1, -1], { axis: [0, 1] });
 */
export function roll(a: GPUArray, shift: number | readonly number[], opts: RollOptions = {}): GPUArray {
  arrayArg(a, 'a');
  const { axis, stream } = checkedOptions(opts, 'roll', ['axis', 'stream']);
  const shifts = ints(shift, 'roll: shift');
  checkDevices('roll', [a]);
  const flat = axis === undefined || axis === null;
  const axes = flat ? [0] : axesArg(axis, a.ndim, 'roll', true);
  if (shifts.length !== axes.length && shifts.length !== 1 && axes.length !== 1) {
    throw rangeError('ERR_INVALID_ARG_VALUE', `roll: shift (${shifts.length} values) and axis (${axes.length}) must pair up`);
  }
  const n = Math.max(shifts.length, axes.length) * (shifts.length && axes.length ? 1 : 0);
  const lengths = flat ? [a.size] : a.shape;
  const per = lengths.map(() => 0);
  for (let i = 0; i < n; i++) {
    const ax = axes[axes.length === 1 ? 0 : i], len = lengths[ax] || 1;
    per[ax] = (per[ax] + (shifts[shifts.length === 1 ? 0 : i] % len) + len) % len;
  }
  return filled(GPUArray.allocate(a.shape, a.dtype, stream), (out) => {
    if (out.size === 0) return;
    if (!flat) return rollAll(out, a, per, stream);
    const { flat: src, temp } = flattened(a, stream);
    try {
      rollInto(out.reshape(-1), src, per, stream);
    } finally {
      temp?.dispose(); // stream-ordered: after the copies
    }
  });
}

/**
 * `a` repeated `reps` times along each axis (NumPy's tile): `a` gets leading axes of length 1 when
 * `reps` is longer than its shape, `reps` leading 1s when shorter. One strided copy. A result of
 * more than 64 dimensions (NumPy's limit) or 2^53 elements is a RangeError ERR_OUT_OF_RANGE.
 * @example
 * gpuarray.tile(v, 2);         // [1,2,3] → [1,2,3,1,2,3]
 * gpuarray.tile(v, [2, 1]).shape; // [2, 3]
 */
export function tile(a: GPUArray, reps: number | readonly number[], opts: ShapeStreamOptions = {}): GPUArray {
  arrayArg(a, 'a');
  const { stream } = checkedOptions(opts, 'tile', ['stream']);
  const r0 = ints(reps, 'tile: reps', 0);
  checkDevices('tile', [a]);
  const nd = Math.max(a.ndim, r0.length);
  if (nd > MAX_DIMS) {
    throw rangeError('ERR_OUT_OF_RANGE', `tile: ${r0.length} repetitions make a ${nd}-d array; at most ${MAX_DIMS} dimensions (NumPy's limit)`);
  }
  const s = [...new Array<number>(nd - a.ndim).fill(1), ...a.shape];
  const r = [...new Array<number>(nd - r0.length).fill(1), ...r0];
  // normalizeShape: RangeError for a dimension or size past 2^53 (also next to a 0: no unsafe dimension).
  return filled(GPUArray.allocate(normalizeShape(s.map((n, i) => n * r[i]), 'tile result'), a.dtype, stream), (out) => {
    if (out.size === 0) return;
    // out as [r0, s0, r1, s1, …] (a view of its C order) ← a as [1, s0, 1, s1, …] broadcast.
    const pairs = s.flatMap((n, i) => [r[i], n]);
    const src = a.index(...new Array<null>(nd - a.ndim).fill(null), '...');
    assign(out.reshape(pairs), src.index(...s.flatMap(() => [null, ':'])).broadcastTo(pairs), stream);
  });
}

/**
 * Each element repeated (NumPy's repeat; also `a.repeat(repeats, opts)`): `repeats` is a
 * non-negative integer, or one count per element along `axis` (a 1-element array is broadcast).
 * Without `axis` the flattened array is repeated and the result is 1-D.
 * @example
 * gpuarray.repeat(v, 2);                  // [1,2,3] → [1,1,2,2,3,3]
 * gpuarray.repeat(m, [1, 0, 2], { axis: 1 }); // column 0 once, column 1 dropped, column 2 twice
 */
export function repeat(a: GPUArray, repeats: number | readonly number[], opts: RepeatOptions = {}): GPUArray {
  arrayArg(a, 'a');
  const { axis, stream } = checkedOptions(opts, 'repeat', ['axis', 'stream']);
  const counts = ints(repeats, 'repeat: repeats', 0);
  checkDevices('repeat', [a]);
  const flat = axis === undefined || axis === null;
  const ax = flat ? 0 : normalizeAxis(axis, a.ndim);
  const n = flat ? a.size : a.shape[ax];
  const shapeOf = (len: number) => normalizeShape(flat ? [len] : a.shape.map((m, d) => (d === ax ? len : m)), 'repeat result');
  if (counts.length === 1) {
    const k = counts[0];
    return filled(GPUArray.allocate(shapeOf(n * k), a.dtype, stream), (out) => {
      if (out.size === 0) return;
      // out as a's shape with k inserted after the axis (after the last one when flattened) ← a broadcast there.
      const at = flat ? a.ndim : ax + 1;
      const wide = [...a.shape.slice(0, at), k, ...a.shape.slice(at)];
      assign(out.reshape(wide), a.index(...new Array<string>(at).fill(':'), null, '...').broadcastTo(wide), stream);
    });
  }
  if (counts.length !== n) {
    throw rangeError('ERR_SHAPE_MISMATCH', `repeat: ${counts.length} counts for ${n} elements${flat ? '' : ` along axis ${ax}`}`);
  }
  let total = 0;
  for (const c of counts) total += c;
  if (!Number.isSafeInteger(total)) throw rangeError('ERR_OUT_OF_RANGE', `repeat: the counts add up to ${total}, past 2^53`);
  const shape = shapeOf(total);
  if (total === 0 || a.size === 0) return GPUArray.allocate(shape, a.dtype, stream); // nothing to gather
  const idx = repeatIndices(counts, total, stream);
  try {
    return take(a, idx, flat ? undefined : ax, { stream });
  } finally {
    idx.dispose(); // stream-ordered: after the gather
  }
}

/** Host indices written per copy by repeatIndices (8 MiB). */
const INDEX_CHUNK = 2 ** 20;

/**
 * repeat's gather indices, i repeated counts[i] times, as a device int64 array of `total` (> 0)
 * elements written from the host a chunk at a time: host memory stays bounded however large the
 * counts (a JS array of them all could exhaust the heap, a fatal error).
 */
function repeatIndices(counts: readonly number[], total: number, stream: Stream | null | undefined): GPUArray {
  return filled(GPUArray.allocate([total], DTYPES.int64, stream), (idx) => {
    const buf = new BigInt64Array(Math.min(total, INDEX_CHUNK));
    let used = 0, done = 0;
    const flush = (): void => {
      idx.index(new Slice(done, done + used)).set(used === buf.length ? buf : buf.subarray(0, used));
      done += used;
      used = 0;
    };
    counts.forEach((c, i) => {
      const v = BigInt(i);
      for (let left = c; left > 0;) {
        const m = Math.min(left, buf.length - used);
        buf.fill(v, used, used + m);
        used += m;
        left -= m;
        if (used === buf.length) flush();
      }
    });
    if (used > 0) flush();
  });
}

/**
 * Arrays joined column-wise (NumPy's hstack): 1-D arrays (and 0-d ones, as length 1) are
 * concatenated along axis 0, others along axis 1. Dtypes promote as in concatenate.
 * @example
 * gpuarray.hstack([a, b]); // [1,2] and [3] → [1,2,3]; [2,1] and [2,3] → [2,4]
 */
export function hstack(list: readonly GPUArray[], opts: ShapeStreamOptions = {}): GPUArray {
  const xs = arrayList(list, 'hstack');
  opts = checkedOptions(opts, 'hstack', ['stream']);
  const ys = xs.map((x) => (x.ndim === 0 ? x.index(null) : x));
  return concatenate(ys, ys[0].ndim === 1 ? 0 : 1, opts);
}

/**
 * Arrays joined row-wise (NumPy's vstack): 1-D arrays of length n count as rows [1, n] (0-d ones
 * as [1, 1]), then everything is concatenated along axis 0.
 * @example
 * gpuarray.vstack([a, b]); // [1,2,3] and [4,5,6] → [[1,2,3],[4,5,6]]
 */
export function vstack(list: readonly GPUArray[], opts: ShapeStreamOptions = {}): GPUArray {
  const xs = arrayList(list, 'vstack');
  opts = checkedOptions(opts, 'vstack', ['stream']);
  return concatenate(xs.map((x) => (x.ndim === 0 ? x.index(null, null) : x.ndim === 1 ? x.index(null) : x)), 0, opts);
}

registerArrayMethods({ swapaxes, repeat });
