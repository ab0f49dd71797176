/**
 * sort, argsort and unique (NumPy semantics) on the radix sort engine (engine/sort.ts), and their
 * GPUArray methods (searchsorted, topk and partition: selection.ts). Every sort is stable. Order:
 * NumPy's, with NaNs last (all NaNs equal, so they keep their input order), -0.0 before +0.0,
 * complex numbers by real part then imaginary part (NaN larger than any number in each part).
 * docs/sorting.md.
 */
import { DType, DTYPES } from '../base/dtype';
import { checkedOptions, describe, rangeError, typeError } from '../base/errors';
import { normalizeAxis } from '../base/shape';
import { Stream, streamHandle } from '../cuda/driver';
import { GPUArray, filled, wrapDeviceMemory } from './gpuarray';
import { registerArrayMethods } from './methods';
import { assign } from './operators';
import { checkDevices } from './devices';
import { checkWritable } from './overlap';
import { zeros } from './creation';
import * as cu from '../cuda/door';
import { DeviceAllocation, isOom } from '../cuda/memory';
import { rowSortable } from '../engine/templates/sort_rows';
import { envFlag } from '../base/env';
import {
  MAX_SORT_SIZE, SortRun, SortStage, UniqueChunks, runRowSort, runSort, uniqueBinsCount, uniqueBinsResults, uniqueBitmap, uniqueChunks,
  uniqueCount, uniqueCounts, uniqueHistogram, uniqueInverse, uniqueMinMax, uniqueResults,
} from '../engine/sort';
import { BITMAP_LOW_PASSES } from '../engine/templates/unique_bitmap';

/** Options of gpuarray.sort. */
export interface SortOptions {
  /** Axis to sort along (default -1, the last); null sorts the flattened array (NumPy). */
  axis?: number | null;
  /** Accepted for NumPy compatibility: every sort here is stable. */
  stable?: boolean;
  /** NumPy's sort kinds, accepted: every sort here is a stable radix sort, a valid result for each. */
  kind?: 'stable' | 'quicksort' | 'mergesort' | 'heapsort' | null;
  /** Write the result here (same shape and dtype as the result; may be the input itself). */
  out?: GPUArray;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

/** Options of gpuarray.argsort. */
export interface ArgsortOptions {
  /** Axis to sort along (default -1, the last); null sorts the flattened array (NumPy). */
  axis?: number | null;
  /** Accepted for NumPy compatibility: every sort here is stable. */
  stable?: boolean;
  /** NumPy's sort kinds, accepted: every sort here is a stable radix sort, a valid result for each. */
  kind?: 'stable' | 'quicksort' | 'mergesort' | 'heapsort' | null;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

/** Options of gpuarray.unique. */
export interface UniqueOptions {
  /** Also return the index of each unique value's first occurrence (int64). */
  returnIndex?: boolean;
  /** Also return, for each input element, the index of its value in `values` (int64, input's size). */
  returnInverse?: boolean;
  /** Also return how often each unique value occurs (int64). */
  returnCounts?: boolean;
  /** NaNs count as one value (default true, NumPy 2). */
  equalNan?: boolean;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

/** What gpuarray.unique returns when a `return*` option is set. */
export interface UniqueResult {
  /** The sorted unique values. */
  values: GPUArray;
  /** First occurrence of each value (returnIndex). */
  indices?: GPUArray;
  /** Index in `values` of each input element (returnInverse). */
  inverse?: GPUArray;
  /** Occurrences of each value (returnCounts). */
  counts?: GPUArray;
}

/** @internal An operand made ready to sort (prepare). */
export interface Prepared { src: GPUArray; len: number; perm: number[] | null; shape: number[]; temps: GPUArray[] }

/** @internal The array with the sorted axis last and contiguous, its row length and the permutation back. */
export function prepare(what: string, a: GPUArray, axisOpt: number | null | undefined, stream: Stream | null | undefined): Prepared {
  const temps: GPUArray[] = [];
  if (axisOpt === null) {
    let src = a.flags.cContiguous ? a : (temps.push(a.copy({ stream })), temps[temps.length - 1]);
    src = src.reshape(a.size);
    return { src, len: Math.max(1, a.size), perm: null, shape: [a.size], temps };
  }
  if (a.ndim === 0) throw rangeError('ERR_AXIS_OUT_OF_RANGE', `${what}: axis ${axisOpt ?? -1} is out of bounds for array of dimension 0`);
  const axis = normalizeAxis(axisOpt === undefined ? -1 : axisOpt, a.ndim);
  let src = a;
  let perm: number[] | null = null;
  if (axis !== a.ndim - 1) {
    perm = a.shape.map((_, i) => i).filter((i) => i !== axis).concat([axis]);
    src = a.transpose(perm);
  }
  if (!src.flags.cContiguous) temps.push((src = src.copy({ stream })));
  return { src, len: Math.max(1, a.shape[axis]), perm, shape: a.shape.slice(), temps };
}

/** The key stages that sort `dt` (least significant first), plus the row stage of a segmented sort. */
function stagesFor(dt: DType, rows: number): SortStage[] {
  const st: SortStage[] = dt.bytes === 16 ? [{ kind: 'im' }, { kind: 're' }] : [{ kind: 'value' }];
  if (rows > 1) st.push({ kind: 'row', rows });
  return st;
}

const SORT_KINDS = ['stable', 'quicksort', 'mergesort', 'heapsort'];
const SORT_OPTIONS = ['axis', 'kind', 'stable', 'out', 'stream'];

/** sort's and argsort's options checked: no unknown key (torch's `descending` is not dropped), a NumPy `kind`. */
function sortOptions<T extends SortOptions>(what: string, opts: T | undefined, keys = SORT_OPTIONS): T {
  const o = checkedOptions(opts, what, keys);
  const kind = o.kind;
  if (kind !== undefined && kind !== null && !SORT_KINDS.includes(kind)) {
    throw typeError('ERR_INVALID_ARG_VALUE', `${what}: kind must be one of ${SORT_KINDS.map((k) => `'${k}'`).join(', ')}. Received ${describe(kind)}`);
  }
  return o;
}

/** @internal */
export function checkSize(what: string, n: number): void {
  if (n > MAX_SORT_SIZE) throw rangeError('ERR_OUT_OF_RANGE', `${what}: at most 2^32 - 1 elements are supported. Received ${n}`);
}

/** A sort of `p` without indices writes un-transformed keys (one stage: a real dtype, one row). */
function isKeysOnly(p: Prepared): boolean {
  return stagesFor(p.src.dtype, p.src.size / p.len).length === 1 && p.src.dtype.kind !== 'c';
}

/** @internal Sorts `p.src` into fresh contiguous arrays: values (dtype of a) and/or int64 indices (`range`: SortRun's). */
export function sorted(p: Prepared, values: boolean, indices: boolean, stream: Stream | null | undefined,
  valuesInto?: GPUArray, indicesInto?: GPUArray, range?: SortRun['range']): { values?: GPUArray; indices?: GPUArray } {
  const { src, len } = p;
  const dt = src.dtype;
  const n = src.size;
  const rows = n / len;
  const stages = stagesFor(dt, rows);
  const keysOnly = !indices && isKeysOnly(p);
  let vals: GPUArray | undefined;
  let idx: GPUArray | undefined;
  try {
    vals = values ? valuesInto ?? GPUArray.allocate(src.shape, dt, stream) : undefined;
    idx = indices ? indicesInto ?? GPUArray.allocate(src.shape, DTYPES.int64, stream) : undefined;
    // One block a row reads its rows before it writes them: the values may overwrite the input
    // itself (in place), but no output may meet the input elsewhere (another block's rows).
    const end = src.address + BigInt(n * dt.bytes);
    const meets = (o: GPUArray | undefined, bytes: number, same: boolean): boolean => o !== undefined &&
      !(same && o.address === src.address) && o.address < end && src.address < o.address + BigInt(bytes);
    if (!range && rowSortable(dt, len) && !meets(vals, n * dt.bytes, true) && !meets(idx, n * 8, false)) {
      runRowSort({
        input: src.address, dt, rows, len, outLen: len, reverse: false, valuesOut: vals?.address, indicesOut: idx?.address, stream,
        uses: [src, vals, idx],
      });
      return { values: vals, indices: idx };
    }
    runSort({
      input: src.address, dt, n, len, stages, stream, uses: [src, vals, idx],
      keysOut: keysOnly ? vals!.address : undefined,
      valuesOut: !keysOnly && vals ? vals.address : undefined,
      indicesOut: idx?.address, range,
    });
  } catch (e) {
    if (vals !== valuesInto) vals?.dispose();
    if (idx !== indicesInto) idx?.dispose();
    throw e;
  }
  return { values: vals, indices: idx };
}

/** @internal `r` (contiguous, axis last) as the result of shape `p.shape`: the axis moved back, into `out` or a new array. */
export function placed(p: Prepared, r: GPUArray, out: GPUArray | undefined, stream: Stream | null | undefined): GPUArray {
  let view = r.shape.length === p.shape.length ? r : r.reshape(p.shape);
  if (p.perm) {
    const perm = p.perm;
    view = view.transpose(perm.map((_, i) => perm.indexOf(i)));
  }
  if (!out && !p.perm) return view;
  try {
    if (out) {
      assign(out, view, stream);
      return out;
    }
    return filled(GPUArray.allocate(p.shape, r.dtype, stream), (x) => assign(x, view, stream));
  } finally {
    r.dispose();
  }
}

/** @internal */
export function arrayIn(what: string, a: unknown): GPUArray {
  if (!(a instanceof GPUArray)) throw typeError('ERR_INVALID_ARG_TYPE', `${what}: expected a GPUArray. Received ${describe(a)}`);
  return a.check();
}

/**
 * A sorted copy of `a` (NumPy `sort`): along `axis` (default -1), or the flattened array when
 * `axis` is null. Stable LSD radix sort; NaNs last, -0.0 before +0.0, complex by real then
 * imaginary part. Nothing waits for the GPU.
 * @example
 * const s = gpuarray.sort(gpuarray.toGpu(new Float32Array([3, 1, NaN, 2]))); // [1, 2, 3, NaN]
 * gpuarray.sort(m, { axis: 0 }); // each column sorted
 */
export function sort(a: GPUArray, opts?: SortOptions): GPUArray {
  // The options first, each read once: a getter that disposes `a` is then caught by arrayIn.
  const { out, axis, stream } = sortOptions('sort', opts);
  a = arrayIn('sort', a);
  const shape = axis === null ? [a.size] : a.shape.slice();
  if (out !== undefined) {
    if (!(out instanceof GPUArray)) throw typeError('ERR_INVALID_ARG_TYPE', `sort: out must be a GPUArray. Received ${describe(out)}`);
    out.check();
    checkWritable(out, 'sort');
    if (out.shape.length !== shape.length || out.shape.some((d, i) => d !== shape[i])) {
      throw rangeError('ERR_SHAPE_MISMATCH', `sort: out has shape (${out.shape.join(',')}); the result has shape (${shape.join(',')})`);
    }
    if (out.dtype !== a.dtype) throw typeError('ERR_INVALID_DTYPE', `sort: out must be ${a.dtype.name}. Received ${out.dtype.name}`);
  }
  checkDevices('sort', [a], out);
  checkSize('sort', a.size); // before prepare: it may copy the input
  const p = prepare('sort', a, axis, stream);
  try {
    if (a.size === 0) return out ?? GPUArray.allocate(shape, a.dtype, stream);
    // Straight into `out` when it is contiguous, needs no transposition and is not read by the gather.
    const direct = out && !p.perm && out.flags.cContiguous &&
      (out.alloc !== p.src.alloc || isKeysOnly(p) || (rowSortable(a.dtype, p.len) && out.address === p.src.address));
    const r = sorted(p, true, false, stream, direct ? out!.reshape(p.src.shape) : undefined).values!;
    if (direct) return out!;
    return placed(p, r, out, stream);
  } finally {
    for (const t of p.temps) t.dispose();
  }
}


/**
 * The int64 indices that sort `a` along `axis` (NumPy `argsort`; default -1, null: flattened),
 * stable: equal elements keep their order. Indices are positions within the sorted axis.
 * @example
 * gpuarray.argsort(gpuarray.toGpu([3, 1, 2])).get(); // BigInt64Array [1n, 2n, 0n]
 */
export function argsort(a: GPUArray, opts?: ArgsortOptions): GPUArray {
  const { axis, stream } = sortOptions('argsort', opts, SORT_OPTIONS.filter((k) => k !== 'out')); // before the input's check, as in sort
  a = arrayIn('argsort', a);
  checkDevices('argsort', [a]);
  checkSize('argsort', a.size); // before prepare: it may copy the input
  const p = prepare('argsort', a, axis, stream);
  try {
    if (a.size === 0) return GPUArray.allocate(p.shape, DTYPES.int64, stream);
    const r = sorted(p, false, true, stream).indices!;
    return placed(p, r, undefined, stream);
  } finally {
    for (const t of p.temps) t.dispose();
  }
}

/** unique takes the counting path from this many elements (integers, bool): below it the sort is cheap. @internal */
export const UNIQUE_COUNTING_MIN = 2 ** 16;

/**
 * Most values the counting path's range may span for `n` elements: n / 4 (16384 at the smallest
 * n), at most 2^24. Its bins (a uint32 count, and a uint32 first index with `returnIndex`) then take
 * at most 2n bytes: no more than the input for 2-byte and wider dtypes; 1-byte dtypes and bool
 * span at most 256 values (2 KiB). @internal
 */
export function uniqueCountingBins(n: number): number {
  return Math.min(2 ** 24, Math.floor(n / 4));
}

/**
 * The results of unique with `k` unique values: allocated on `stream`, filled by `fill`, returned
 * as unique does (the values alone, or the object); disposed if `fill` throws.
 */
function uniqueOutputs(a: GPUArray, k: number, o: UniqueOptions, fill: (r: UniqueResult) => void): GPUArray | UniqueResult {
  const made: GPUArray[] = [];
  const make = (shape: number[], dt: DType): GPUArray => {
    const x = GPUArray.allocate(shape, dt, o.stream);
    made.push(x);
    return x;
  };
  try {
    const I64 = DTYPES.int64;
    const r: UniqueResult = {
      values: make([k], a.dtype), indices: o.returnIndex ? make([k], I64) : undefined,
      inverse: o.returnInverse ? make(a.shape.slice(), I64) : undefined, counts: o.returnCounts ? make([k], I64) : undefined,
    };
    fill(r);
    return o.returnIndex || o.returnInverse || o.returnCounts ? r : r.values;
  } catch (e) {
    for (const x of made) x.dispose();
    throw e;
  }
}

/** For a count over `len` items in chunks: the total (zeroed; unless `total` is false), the chunks, a count per chunk (in `temps`). */
function countBuffers(len: number, stream: Stream | null | undefined, temps: GPUArray[], total = true) {
  const count = total ? zeros([1], DTYPES.uint32, { stream }) : undefined;
  if (count) temps.push(count);
  const ch = uniqueChunks(len);
  const blocks = GPUArray.allocate([ch.grid], DTYPES.uint32, stream);
  temps.push(blocks);
  return { count, ch, blocks };
}

/** The uint32 at `count` (one element), read back after `stream`'s work: a count of unique values in [1, most]. */
function readCount(count: GPUArray, most: number, n: number, stream: Stream | null | undefined): number {
  if (stream) stream.synchronize();
  return checkCount(Number(count.item()), most, n);
}

/** `k`, a count of unique values read back, when it is in [1, most]; else a RangeError. */
function checkCount(k: number, most: number, n: number): number {
  if (!(k >= 1 && k <= most)) throw rangeError('ERR_OUT_OF_RANGE', `unique: read back ${k} unique values of ${n} (the device result is invalid)`);
  return k;
}

/**
 * unique by sorting (every dtype): the radix sort of the flattened `p.src`, then its runs counted
 * per chunk (the total read back) and a second kernel over the same chunks writing the results
 * into arrays of that size (engine/templates/unique.ts).
 *
 * With `probe` (4- and 8-byte integers that may be counted), the sort's prep also finds the min
 * and max, and when they span at most uniqueCountingBins(n) values the sort and the run count do
 * nothing on the device; the min, max and count come back in one read, and such a range is counted
 * (countUnique) without a min/max kernel and read back before the sort. Null when the sort's
 * buffers do not fit (out of memory before any launch): the caller reads the range first instead,
 * which needs no sort buffers for a countable range. With `probe`, the values alone of a 4-byte
 * dtype are sorted by the keys' top 16 bits only and bitmaps give them (uniqueBitmap) instead of
 * the run count and results.
 */
function uniqueBySorting(a: GPUArray, p: Prepared, o: UniqueOptions, probe = false): GPUArray | UniqueResult | null {
  const { stream } = o;
  const temps = p.temps;
  const n = a.size;
  const valuesOnly = !(o.returnIndex || o.returnInverse || o.returnCounts);
  // The values alone go to room for all n (the count is not known yet), written before the count
  // comes back, so the GPU does not wait for the host between the kernels. Near the memory limit,
  // without room, they go out as the other outputs do: allocated for the count once it is read back.
  const roomFor = (): DeviceAllocation | undefined => {
    try {
      return new DeviceAllocation(n * a.dtype.bytes, stream ?? null);
    } catch (e) {
      if (!isOom(e)) throw e;
      return undefined;
    }
  };
  // 4-byte integers: the sort stops at the keys' top 16 bits and bitmaps finish (uniqueBitmap):
  // the room first, as that path needs it (NODECUDA_UNIQUE_BITMAP=0 turns it off; docs/sorting.md).
  let room = probe && valuesOnly && a.dtype.bytes === 4 && envFlag('NODECUDA_UNIQUE_BITMAP', true) ? roomFor() : undefined;
  const bitmap = room !== undefined;
  let range: SortRun['range'];
  let probed: GPUArray | undefined;
  let s: ReturnType<typeof sorted>;
  try {
    if (probe) {
      // uint64 [least key, greatest key, run count]: the keys as the sort transforms them (signed
      // integers with the sign bit flipped), the count a uint32 at byte 16.
      probed = GPUArray.allocate([3], DTYPES.uint64, stream);
      temps.push(probed);
      cu.memset(probed.address, 0xffffffff, 2, 4, streamHandle(stream), false); // least: all ones
      cu.memset(probed.address + 8n, 0, 4, 4, streamHandle(stream), false); // greatest and count: zero
      range = { out: probed.address, narrow: uniqueCountingBins(n), low: bitmap ? BITMAP_LOW_PASSES : 0 };
    }
    try {
      s = sorted(p, true, !!(o.returnIndex || o.returnInverse), stream, undefined, undefined, range);
    } catch (e) {
      if (probe && isOom(e)) { // allocations come before the sort's launches: nothing ran
        room?.free(stream ?? null);
        return null;
      }
      throw e;
    }
    temps.push(s.values!);
    if (s.indices) temps.push(s.indices);
  } catch (e) {
    room?.free(stream ?? null);
    throw e;
  }
  const equalNan = o.equalNan !== false;
  let count: GPUArray | undefined;
  let ch: UniqueChunks | undefined;
  let blocks: GPUArray | undefined;
  try {
    if (bitmap) uniqueBitmap(a.dtype, s.values!.address, room!.ptr, probed!.address + 16n, n, range!, stream, [s.values]);
    else {
      ({ count, ch, blocks } = countBuffers(n, stream, temps, !probed));
      uniqueCount(a.dtype, equalNan, s.values!.address, probed ? probed.address + 16n : count!.address, blocks.address, n, ch,
        stream, range);
      if (valuesOnly) room = roomFor();
      if (room) {
        uniqueResults(a.dtype, equalNan, {
          sorted: s.values!.address, blocks: blocks.address, perm: 0n, vals: room.ptr, first: 0n, starts: 0n, inv: 0n,
        }, n, ch, stream, [s.values, blocks], range);
      }
    }
  } catch (e) {
    room?.free(stream ?? null);
    throw e;
  }
  let k: number;
  try {
    if (probed) {
      if (stream) stream.synchronize();
      const [lo, hi, c] = probed.get() as BigUint64Array;
      // A signed key is its value plus 2^(bits - 1) (the sign bit flipped).
      const offset = a.dtype.kind === 'i' ? 1n << BigInt(a.dtype.bytes * 8 - 1) : 0n;
      const counted = countIfNarrow(a, p, o, lo - offset, hi - offset); // as the device decided (scanhist)
      if (counted) {
        room?.free(stream ?? null); // nothing was written to it
        return counted;
      }
      k = checkCount(Number(c), n, n);
    } else k = readCount(count!, n, n, stream);
  } catch (e) {
    room?.free(stream ?? null);
    throw e;
  }
  if (room) return firstOf(room, k, n, a.dtype, stream);
  return uniqueOutputs(a, k, o, ({ values, indices, inverse, counts }) => {
    const starts = counts ? GPUArray.allocate([k], DTYPES.int64, stream) : undefined;
    if (starts) temps.push(starts);
    uniqueResults(a.dtype, equalNan, {
      sorted: s.values!.address, blocks: blocks!.address, perm: s.indices?.address ?? 0n, vals: values.address,
      first: indices?.address ?? 0n, starts: starts?.address ?? 0n, inv: inverse?.address ?? 0n,
    }, n, ch!, stream, [s.values, s.indices, blocks, values, indices, inverse, starts]);
    if (counts) uniqueCounts(starts!.address, counts.address, k, n, stream);
  });
}

/**
 * The first `k` values in `room` (room for `n`) as an array of `k`: over `room` when it fills more
 * than half of it (as torch.unique's result keeps the sort's size), else a copy and `room` freed.
 */
function firstOf(room: DeviceAllocation, k: number, n: number, dt: DType, stream: Stream | null | undefined): GPUArray {
  const over = wrapDeviceMemory(room, [k], dt);
  if (2 * k > n) return over;
  let copied: GPUArray;
  try {
    copied = over.copy({ stream });
  } catch (e) {
    if (isOom(e)) return over; // no memory for the copy: the room stays under the result
    over.dispose();
    room.free(stream ?? null);
    throw e;
  }
  over.dispose();
  room.free(stream ?? null);
  return copied;
}

/**
 * unique by counting (integers and bool, docs/sorting.md): the input's min and max read back; when
 * they span at most uniqueCountingBins(n) values, a histogram over that range (counts, and first
 * indices with `returnIndex`), the occupied bins counted per chunk (the total read back), then the
 * results at each occupied bin's rank and the inverse from the ranks. Null when the range is wider
 * (the caller sorts).
 */
function uniqueByCounting(a: GPUArray, p: Prepared, o: UniqueOptions): GPUArray | UniqueResult | null {
  const { stream } = o;
  const { src, temps } = p;
  const dt = a.dtype;
  const n = a.size;
  const signed = dt.kind === 'i';
  const range = GPUArray.allocate([2], signed ? DTYPES.int64 : DTYPES.uint64, stream);
  temps.push(range);
  uniqueMinMax(dt, src.address, src.align16, n, range.address, stream, [src, range]);
  if (stream) stream.synchronize();
  const [lo, hi] = range.get() as BigInt64Array | BigUint64Array;
  return countIfNarrow(a, p, o, lo, hi);
}

/**
 * unique by counting over [lo, hi], the min and max of `p.src` read back, when they span at most
 * uniqueCountingBins(n) values; null when wider (the caller sorts). A range outside the dtype or
 * upside down is a RangeError (the device result is invalid).
 */
function countIfNarrow(a: GPUArray, p: Prepared, o: UniqueOptions, lo: bigint, hi: bigint): GPUArray | UniqueResult | null {
  const dt = a.dtype;
  const bits = BigInt(dt.kind === 'b' ? 1 : dt.bytes * 8);
  const [least, most] = dt.kind === 'i' ? [-(1n << (bits - 1n)), (1n << (bits - 1n)) - 1n] : [0n, (1n << bits) - 1n];
  if (!(least <= lo && lo <= hi && hi <= most)) {
    throw rangeError('ERR_OUT_OF_RANGE', `unique: read back the range [${lo}, ${hi}] of a ${dt.name} array (the device result is invalid)`);
  }
  if (hi - lo + 1n > BigInt(uniqueCountingBins(a.size))) return null;
  return countUnique(a, p, o, lo, hi);
}

/** unique by counting over the range [lo, hi] (read back: the min and max of `p.src`). */
function countUnique(a: GPUArray, p: Prepared, o: UniqueOptions, lo: bigint, hi: bigint): GPUArray | UniqueResult {
  const { stream } = o;
  const { src, temps } = p;
  const dt = a.dtype;
  const n = a.size;
  const bins = Number(hi - lo + 1n);
  const base = BigInt.asUintN(64, lo); // the kernels take lo as its 64-bit two's complement
  const withFirst = !!o.returnIndex;
  const hist = GPUArray.allocate([withFirst ? 2 * bins : bins], DTYPES.uint32, stream);
  temps.push(hist);
  uniqueHistogram(dt, src.address, hist.address, withFirst, n, base, bins, stream, [src, hist]);
  const { count, ch, blocks } = countBuffers(bins, stream, temps);
  uniqueBinsCount(hist.address, count!.address, blocks.address, bins, ch, stream);
  const k = readCount(count!, Math.min(bins, n), n, stream);
  return uniqueOutputs(a, k, o, ({ values, indices, inverse, counts }) => {
    uniqueBinsResults(dt, {
      hist: hist.address, blocks: blocks.address, vals: values.address, first: indices?.address ?? 0n,
      counts: counts?.address ?? 0n,
    }, withFirst, base, bins, ch, !!inverse, stream, [hist, blocks, values, indices, counts]);
    if (inverse) uniqueInverse(dt, src.address, hist.address, inverse.address, n, base, bins, stream, [src, hist, inverse]);
  });
}

/**
 * The sorted unique elements of `a` (flattened; NumPy `unique`). With `returnIndex`,
 * `returnInverse` or `returnCounts` an object `{ values, indices?, inverse?, counts? }` (int64).
 * NaNs collapse to one (first occurrence) unless `equalNan` is false. Integers and bool of a
 * small range (at least 2^16 elements spanning at most n / 4 values) are counted instead of
 * sorted (`NODECUDA_UNIQUE_COUNTING=0` turns that off; docs/sorting.md); the values alone of a
 * wider int32/uint32 range are sorted by their top 16 bits only and finished with bitmaps
 * (`NODECUDA_UNIQUE_BITMAP=0` turns that off). Reads the count of
 * unique values back from the device (and, to pick the path, the min and max), so it waits for
 * the stream. There is no `axis` (NumPy's unique rows or columns): passing one is a TypeError.
 * @example
 * gpuarray.unique(gpuarray.toGpu([3, 1, 3, 2])).get(); // [1, 2, 3]
 * const { values, counts } = gpuarray.unique(a, { returnCounts: true });
 */
export function unique(a: GPUArray, opts?: UniqueOptions & { returnIndex?: false; returnInverse?: false; returnCounts?: false }): GPUArray;
export function unique(a: GPUArray, opts: UniqueOptions): GPUArray | UniqueResult;
export function unique(a: GPUArray, opts?: UniqueOptions): GPUArray | UniqueResult {
  const x = checkedOptions(opts, 'unique', ['returnIndex', 'returnInverse', 'returnCounts', 'equalNan', 'stream', 'axis']);
  // NumPy's unique takes an axis (unique rows or columns); this one flattens: refused, not ignored.
  const axis = (x as { axis?: unknown }).axis;
  if (axis !== undefined && axis !== null) {
    throw typeError('ERR_INVALID_ARG_VALUE', `unique: axis is not supported (unique works on the flattened array, NumPy's axis=None). Received ${describe(axis)}`);
  }
  // The options first, each read once: a getter that disposes `a` is then caught by arrayIn.
  const o: UniqueOptions = {
    returnIndex: x.returnIndex, returnInverse: x.returnInverse, returnCounts: x.returnCounts, equalNan: x.equalNan, stream: x.stream,
  };
  a = arrayIn('unique', a);
  const stream = o.stream;
  checkDevices('unique', [a]);
  const n = a.size;
  checkSize('unique', n);
  if (n === 0) return uniqueOutputs(a, 0, o, () => {});
  // Read on every call (a comparison may toggle it); an invalid value is ERR_INVALID_ENV.
  const counting = 'biu'.includes(a.dtype.kind) && n >= UNIQUE_COUNTING_MIN && envFlag('NODECUDA_UNIQUE_COUNTING', true);
  const p = prepare('unique', a, null, stream);
  try {
    // 4- and 8-byte integers: the sort finds the range itself (no min/max read back before it).
    // Not with indices or the inverse: their payload sort's buffers (8n bytes and more) would be
    // allocated for nothing whenever the range is counted.
    const probe = counting && a.dtype.kind !== 'b' && a.dtype.bytes >= 4 && !o.returnIndex && !o.returnInverse;
    return (probe ? uniqueBySorting(a, p, o, true) : null) ?? (counting ? uniqueByCounting(a, p, o) : null)
      ?? uniqueBySorting(a, p, o)!;
  } finally {
    for (const t of p.temps) t.dispose();
  }
}

/** GPUArray.sort: sorts in place along `axis` (NumPy's ndarray.sort) and returns the array. */
function sortInPlace(a: GPUArray, opts?: Omit<SortOptions, 'out'>): GPUArray {
  const o = sortOptions('GPUArray.sort()', opts, SORT_OPTIONS.filter((k) => k !== 'out'));
  if (o.axis === null) {
    throw typeError('ERR_INVALID_ARG_VALUE', 'GPUArray.sort(): axis null is not supported in place (use gpuarray.sort(a, { axis: null }))');
  }
  return sort(a, { ...o, out: a });
}

registerArrayMethods({ sort: sortInPlace, argsort });
