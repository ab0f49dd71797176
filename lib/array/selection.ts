/**
 * Searching and selecting on sorted order (NumPy/torch semantics): searchsorted (a binary search in
 * a sorted 1-D array), topk (torch's k largest or smallest along an axis, with their indices) and
 * partition/argpartition (NumPy), with their GPUArray methods. partition around one kth of a long
 * axis selects (engine/select.ts); otherwise it sorts along the axis (a sorted row is a valid
 * partition for every kth). topk: rows of up to 4096 elements in one kernel
 * that writes only the k ranks (templates/sort_rows.ts); longer rows with k at most a quarter of
 * the row by a radix selection of the k, then a sort of those alone (engine/select.ts); the rest
 * with the radix sort of sorting.ts (docs/sorting.md).
 */
import { Complex, DType, DTYPES } from '../base/dtype';
import { checkedOptions, describe, rangeError, typeError } from '../base/errors';
import { ellipsis, slice } from '../base/indexing';
import { normalizeAxis } from '../base/shape';
import { promoteTypes } from '../base/promote';
import { Stream } from '../cuda/driver';
import { GPUArray } from './gpuarray';
import { registerArrayMethods } from './methods';
import { checkDevices } from './devices';
import { full } from './creation';
import { runRowSort, searchSorted } from '../engine/sort';
import { rowSortable } from '../engine/templates/sort_rows';
import { partitionable, runPartition, runSelect, selectable } from '../engine/select';
import { checkWritable } from './overlap';
import { argsort, arrayIn, checkSize, placed, prepare, sort, sorted } from './sorting';

/** Options of gpuarray.searchsorted. */
export interface SearchsortedOptions {
  /** 'left' (default): the first index i with a[i] >= v; 'right': the first with a[i] > v. */
  side?: 'left' | 'right';
  /** int64 indices that sort `a` (argsort's result), when `a` itself is not sorted. */
  sorter?: GPUArray;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

/** A scalar `v` searched in an array of `dt`: its dtype (NumPy 2: a Python scalar takes the array's kind). */
function scalarDType(v: unknown, dt: DType): DType {
  if (typeof v === 'boolean') return dt.kind === 'b' ? dt : DTYPES.bool;
  if (typeof v === 'bigint') return dt.kind === 'i' || dt.kind === 'u' ? dt : DTYPES.int64;
  if (typeof v === 'number') {
    if (dt.kind === 'f' || dt.kind === 'c') return dt;
    if (!Number.isInteger(v) || dt.kind === 'b') return DTYPES.float64;
    const x = BigInt(v); // exact bounds: 2^64 - 1 and 2^63 - 1 are not doubles
    const bits = BigInt(dt.bytes * 8);
    const [lo, hi] = dt.kind === 'u' ? [0n, (1n << bits) - 1n] : [-(1n << (bits - 1n)), (1n << (bits - 1n)) - 1n];
    if (x >= lo && x <= hi) return dt;
    return x >= -(1n << 63n) && x < 1n << 63n ? DTYPES.int64 : DTYPES.float64; // past int64: compared as the double it is
  }
  if (typeof v === 'object' && v !== null && 're' in v) return dt.kind === 'c' ? dt : DTYPES.complex128;
  throw typeError('ERR_INVALID_ARG_TYPE', `searchsorted: v must be a GPUArray or a scalar. Received ${describe(v)}`);
}

/**
 * Where to insert `v` into the sorted 1-D `a` to keep it sorted (NumPy `searchsorted`): int64
 * indices of `v`'s shape. side 'left': first i with a[i] >= v; 'right': first i with a[i] > v.
 * NaNs order last. With `sorter` (int64 indices that sort `a`) `a` need not be sorted.
 * @example
 * gpuarray.searchsorted(gpuarray.toGpu([1, 2, 2, 3]), gpuarray.toGpu([2, 5]), { side: 'right' }); // [3, 4]
 */
export function searchsorted(a: GPUArray, v: GPUArray | number | bigint | boolean | Complex, opts?: SearchsortedOptions): GPUArray {
  const o = checkedOptions(opts, 'searchsorted', ['side', 'sorter', 'stream']);
  // The options first, each read once: a getter that disposes `a` or `v` is then caught by their checks.
  const { sorter, stream } = o;
  const side = o.side ?? 'left';
  a = arrayIn('searchsorted', a);
  if (side !== 'left' && side !== 'right') {
    throw typeError('ERR_INVALID_ARG_VALUE', `searchsorted: side must be 'left' or 'right'. Received ${describe(side)}`);
  }
  if (a.ndim !== 1) throw rangeError('ERR_INVALID_ARG_VALUE', `searchsorted: a must be 1-D. Received shape (${a.shape.join(',')})`);
  if (sorter !== undefined) {
    if (!(sorter instanceof GPUArray)) throw typeError('ERR_INVALID_ARG_TYPE', `searchsorted: sorter must be a GPUArray. Received ${describe(sorter)}`);
    sorter.check();
    if (sorter.dtype !== DTYPES.int64) throw typeError('ERR_INVALID_DTYPE', `searchsorted: sorter must be int64. Received ${sorter.dtype.name}`);
    if (sorter.ndim !== 1 || sorter.size !== a.size) {
      throw rangeError('ERR_SHAPE_MISMATCH', `searchsorted: sorter must have shape (${a.size}). Received (${sorter.shape.join(',')})`);
    }
  }
  const temps: GPUArray[] = [];
  try {
    let va: GPUArray;
    if (v instanceof GPUArray) va = v.check();
    else temps.push((va = full([], v, scalarDType(v, a.dtype), { stream })));
    checkDevices('searchsorted', [a, va, sorter]);
    const out = GPUArray.allocate(va.shape, DTYPES.int64, stream);
    temps.push(out); // until it is filled: disposed if the search throws
    if (va.size === 0) return temps.pop()!;
    const common = promoteTypes(a.dtype, va.dtype);
    const ac = a.flags.cContiguous ? a : (temps.push(a.copy({ stream })), temps[temps.length - 1]);
    const vc = va.flags.cContiguous ? va : (temps.push(va.copy({ stream })), temps[temps.length - 1]);
    const sc = !sorter || sorter.flags.cContiguous ? sorter : (temps.push(sorter.copy({ stream })), temps[temps.length - 1]);
    searchSorted(a.dtype, va.dtype, common, ac.address, a.size, sc?.address ?? 0n, vc.address, out.address, va.size,
      side === 'right', stream);
    temps.splice(temps.indexOf(out), 1);
    return out;
  } finally {
    for (const t of temps) t.dispose();
  }
}


/** Options of gpuarray.topk. */
export interface TopkOptions {
  /** Axis to select along (default -1, the last); null selects from the flattened array. */
  axis?: number | null;
  /** The k largest (default true, as torch.topk) or, with false, the k smallest. */
  largest?: boolean;
  /** Accepted for torch compatibility: the result is always in order (largest first with `largest`). */
  sorted?: boolean;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

/** What gpuarray.topk returns: the selected values and their int64 positions along the axis. */
export interface TopkResult {
  /** The selected values (the input's dtype), largest first (smallest first with `largest: false`). */
  values: GPUArray;
  /** Their int64 positions along the axis. */
  indices: GPUArray;
}

/** Options of gpuarray.partition and argpartition. */
export interface PartitionOptions {
  /** Axis to partition along (default -1, the last); null partitions the flattened array (NumPy). */
  axis?: number | null;
  /** NumPy's one selection kind, accepted: the result here is a full sort, valid for every kth. */
  kind?: 'introselect' | null;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

function boolOption(what: string, name: string, v: unknown, dflt: boolean): boolean {
  if (v === undefined) return dflt;
  if (typeof v !== 'boolean') throw typeError('ERR_INVALID_ARG_TYPE', `${what}: ${name} must be a boolean. Received ${describe(v)}`);
  return v;
}

/** The length of the axis `what` works along (null: the flattened array), with sort's errors. */
function axisLength(what: string, a: GPUArray, axis: number | null | undefined): number {
  if (axis === null) return a.size;
  if (a.ndim === 0) throw rangeError('ERR_AXIS_OUT_OF_RANGE', `${what}: axis ${describe(axis ?? -1)} is out of bounds for array of dimension 0`);
  return a.shape[normalizeAxis(axis === undefined ? -1 : axis, a.ndim)];
}

/**
 * The `k` largest (or, with `largest: false`, smallest) elements of `a` along `axis` (torch.topk;
 * default the last axis, null: the flattened array), largest first (smallest first), and their
 * int64 positions along the axis. NaN counts as larger than every number (as in torch.topk and in
 * sort's order, where NaNs come last); among equal values the smallest come in index order and the
 * largest in reverse index order. Costs a sort along the axis, or for a small k of a long axis a
 * selection (docs/sorting.md).
 * @example
 * const { values, indices } = gpuarray.topk(scores, 5); // each row's 5 best, best first
 */
export function topk(a: GPUArray, k: number, opts?: TopkOptions): TopkResult {
  const o = checkedOptions(opts, 'topk', ['axis', 'largest', 'sorted', 'stream']);
  // The options first, each read once: a getter that disposes `a` is then caught by arrayIn.
  const { axis, stream } = o;
  const largest = boolOption('topk', 'largest', o.largest, true);
  boolOption('topk', 'sorted', o.sorted, true);
  a = arrayIn('topk', a);
  checkDevices('topk', [a]);
  const len = axisLength('topk', a, axis);
  if (typeof k !== 'number' || !Number.isInteger(k)) throw typeError('ERR_INVALID_ARG_TYPE', `topk: k must be an integer. Received ${describe(k)}`);
  if (k < 0 || k > len) throw rangeError('ERR_OUT_OF_RANGE', `topk: k must be in [0, ${len}] (the axis' length). Received ${k}`);
  checkSize('topk', a.size);
  const shape = axis === null ? [k] : a.shape.slice();
  if (axis !== null) shape[normalizeAxis(axis ?? -1, a.ndim)] = k;
  if (k === 0 || a.size === 0) {
    const values = GPUArray.allocate(shape, a.dtype, stream);
    try {
      return { values, indices: GPUArray.allocate(shape, DTYPES.int64, stream) };
    } catch (e) {
      values.dispose();
      throw e;
    }
  }
  const p = prepare('topk', a, axis, stream);
  try {
    let sel: { values: GPUArray; indices: GPUArray }; // [..., k], the axis last
    let owners: GPUArray[];
    const short = rowSortable(a.dtype, p.len);
    if (short || selectable(a.dtype, p.len, k)) {
      // Short rows: one kernel writes each row's first k ranks (or last k, backwards). Long rows
      // and a small k: a radix selection of the k, then a sort of those alone.
      const rowShape = [...p.src.shape.slice(0, -1), k];
      owners = [];
      try {
        owners.push(GPUArray.allocate(rowShape, a.dtype, stream)); // one at a time: a failed second frees the first
        owners.push(GPUArray.allocate(rowShape, DTYPES.int64, stream));
        const run = {
          input: p.src.address, dt: a.dtype, rows: p.src.size / p.len, len: p.len,
          valuesOut: owners[0].address, indicesOut: owners[1].address, stream, uses: [p.src, ...owners],
        };
        if (short) runRowSort({ ...run, outLen: k, reverse: largest });
        else runSelect({ ...run, k, largest });
      } catch (e) {
        for (const o of owners) o.dispose();
        throw e;
      }
      sel = { values: owners[0], indices: owners[1] };
      if (!p.perm) return sel;
    } else {
      // Sorted ascending along the last axis: the first k, or the last k backwards.
      const all = sorted(p, true, true, stream);
      owners = [all.values!, all.indices!];
      const s = largest ? slice(p.len - 1, k === p.len ? null : p.len - 1 - k, -1) : slice(0, k);
      sel = { values: all.values!.index(ellipsis, s), indices: all.indices!.index(ellipsis, s) };
    }
    try {
      const perm = p.perm;
      const pick = (x: GPUArray): GPUArray => (perm ? x.transpose(perm.map((_, i) => perm.indexOf(i))) : x).copy({ stream });
      const values = pick(sel.values);
      try {
        return { values, indices: pick(sel.indices) };
      } catch (e) {
        values.dispose();
        throw e;
      }
    } finally {
      for (const o of owners) o.dispose(); // stream-ordered: after the copies
    }
  } finally {
    for (const t of p.temps) t.dispose();
  }
}

/** partition's checks: the options, the array, and each kth an integer in [-len, len) (returned in [0, len)). */
function partitionArgs(what: string, a: GPUArray, kth: number | readonly number[], opts: PartitionOptions | undefined) {
  const o = checkedOptions(opts, what, ['axis', 'kind', 'stream']);
  if (o.kind !== undefined && o.kind !== null && o.kind !== 'introselect') {
    throw typeError('ERR_INVALID_ARG_VALUE', `${what}: kind must be 'introselect'. Received ${describe(o.kind)}`);
  }
  a = arrayIn(what, a);
  const len = axisLength(what, a, o.axis);
  const ks: unknown[] = Array.isArray(kth) ? kth : [kth];
  if (!Array.isArray(kth) && typeof kth !== 'number') {
    throw typeError('ERR_INVALID_ARG_TYPE', `${what}: kth must be an integer or an array of integers. Received ${describe(kth)}`);
  }
  for (const k of ks) {
    if (typeof k !== 'number' || !Number.isInteger(k)) throw typeError('ERR_INVALID_ARG_TYPE', `${what}: kth must be integers. Received ${describe(k)}`);
    if (k < -len || k >= len) throw rangeError('ERR_OUT_OF_RANGE', `${what}: kth ${k} is out of bounds for an axis of length ${len}`);
  }
  return { a, o, len, kths: [...new Set((ks as number[]).map((k) => (k < 0 ? k + len : k)))] };
}

/**
 * partition by selection (engine/select.ts) when it applies (one kth, rows past the short-row
 * sort, a real dtype): the values, or the int64 indices, partitioned into a new array or `out`;
 * null when it does not apply (the caller sorts).
 */
function partitioned(what: string, r: ReturnType<typeof partitionArgs>, indices: boolean, out?: GPUArray): GPUArray | null {
  const { a, o } = r;
  if (a.size === 0 || !partitionable(a.dtype, r.len, r.kths.length)) return null;
  checkDevices(what, [a], out);
  checkSize(what, a.size);
  const p = prepare(what, a, o.axis, o.stream);
  try {
    const res = GPUArray.allocate(p.src.shape, indices ? DTYPES.int64 : a.dtype, o.stream);
    try {
      runPartition({
        input: p.src.address, dt: a.dtype, rows: p.src.size / p.len, len: p.len, kth: r.kths[0],
        valuesOut: indices ? undefined : res.address, indicesOut: indices ? res.address : undefined, stream: o.stream,
        uses: [p.src, res],
      });
    } catch (e) {
      res.dispose();
      throw e;
    }
    return placed(p, res, out, o.stream);
  } finally {
    for (const t of p.temps) t.dispose();
  }
}

/**
 * A partitioned copy of `a` (NumPy `partition`): along `axis` (default -1; null: flattened), the
 * element at each `kth` position is where a sort puts it, smaller (or equal) ones before it and
 * larger (or equal) ones after. One kth of a long axis (past 4096 elements, 2048 for 8-byte
 * dtypes) is found by radix selection: the smaller elements, then the equal ones, then the larger,
 * each in index order; otherwise the result is the stable sort itself, a valid partition for every
 * kth (docs/sorting.md).
 * @example
 * const p = gpuarray.partition(x, 3); // p[3] is the 4th smallest; p[0..2] are not larger
 */
export function partition(a: GPUArray, kth: number | readonly number[], opts?: PartitionOptions): GPUArray {
  const r = partitionArgs('partition', a, kth, opts);
  return partitioned('partition', r, false) ?? sort(r.a, { axis: r.o.axis, stream: r.o.stream });
}

/**
 * The int64 indices that partition `a` along `axis` (NumPy `argpartition`): those of partition's
 * result (by selection: the smaller, equal and larger elements' indices, each in index order), or
 * those of a stable sort, valid for every kth.
 */
export function argpartition(a: GPUArray, kth: number | readonly number[], opts?: PartitionOptions): GPUArray {
  const r = partitionArgs('argpartition', a, kth, opts);
  return partitioned('argpartition', r, true) ?? argsort(r.a, { axis: r.o.axis, stream: r.o.stream });
}

/** GPUArray.partition: partitions in place along `axis` (NumPy's ndarray.partition) and returns the array. */
function partitionInPlace(a: GPUArray, kth: number | readonly number[], opts?: PartitionOptions): GPUArray {
  const r = partitionArgs('GPUArray.partition()', a, kth, opts);
  if (r.o.axis === null) {
    throw typeError('ERR_INVALID_ARG_VALUE',
      'GPUArray.partition(): axis null is not supported in place (use gpuarray.partition(a, kth, { axis: null }))');
  }
  checkWritable(r.a, 'GPUArray.partition()');
  return partitioned('GPUArray.partition()', r, false, r.a) ?? sort(r.a, { axis: r.o.axis, stream: r.o.stream, out: r.a });
}

registerArrayMethods({
  searchsorted: (a, v, opts) => searchsorted(a, v, opts),
  topk: (a, k, opts) => topk(a, k, opts),
  partition: partitionInPlace,
  argpartition: (a, kth, opts) => argpartition(a, kth, opts),
});
