/**
 * Where an array is nonzero (NumPy semantics; NaN is nonzero, complex when either part is):
 * nonzero, flatnonzero, argwhere, extract (boolean-mask selection, `a[mask]` in NumPy) and
 * countNonzero, with the GPUArray method `a.nonzero()`. The result's length depends on the data:
 * every function but countNonzero reads the count back (it waits for the stream), like NumPy's
 * and torch's nonzero. One count and scan, then one ordered write (engine/compact.ts).
 */
import { DTYPES, DType } from '../base/dtype';
import { checkedOptions, describe, rangeError, typeError } from '../base/errors';
import { Stream } from '../cuda/driver';
import { GPUArray, arrayArg, filled } from './gpuarray';
import { registerArrayMethods } from './methods';
import { checkDevices } from './devices';
import { apply } from './operators';
import { sum } from './reductions';
import { take } from './joins';
import { listOf } from './host_input';
import { compactChunks, compactCount, compactWrite, CompactRun } from '../engine/compact';
import { COMPACT_MAX_DIMS } from '../engine/templates/compact';

/** Options of nonzero, flatnonzero, argwhere and extract. */
export interface NonzeroOptions {
  /** Stream to run on (default: the legacy default stream); the count is read back after its work. */
  stream?: Stream | null;
}

/** Options of countNonzero. */
export interface CountNonzeroOptions extends NonzeroOptions {
  /** Axis or axes to count along (all when null/undefined). */
  axis?: number | readonly number[] | null;
  /** Keep the counted axes as size 1. */
  keepdims?: boolean;
}

/**
 * Counts the nonzero elements of `a` (C order; a contiguous copy of a view), reads the total back
 * and hands it to `fill`, which allocates and writes the results through `write`.
 */
type Write = (out: bigint, mode: 0 | 1 | 2 | 3, dims?: readonly number[], values?: { dt: DType; address: bigint }) => void;

function compacted<T>(what: string, a: GPUArray, stream: Stream | null | undefined, uses: GPUArray[],
  fill: (total: number, write: Write) => T, values: DType | null = null): T {
  const temps: GPUArray[] = [];
  try {
    const src = a.flags.cContiguous ? a : (temps.push(a.copy({ stream })), temps[temps.length - 1]);
    const { G, chunk } = compactChunks(src.size, a.dtype, values);
    const starts = GPUArray.allocate([G + 1], DTYPES.uint64, stream);
    temps.push(starts);
    const run: CompactRun = {
      dt: a.dtype, input: src.address, n: src.size, G, chunk, starts: starts.address, stream, uses: [src, starts, ...uses],
    };
    let total = 0;
    if (src.size > 0) {
      compactCount(run);
      stream?.synchronize();
      total = Number(starts.index(G).item());
      if (!(Number.isInteger(total) && total >= 0 && total <= src.size)) {
        throw rangeError('ERR_OUT_OF_RANGE', `${what}: read back ${total} nonzero elements of ${src.size} (the device result is invalid)`);
      }
    }
    return fill(total, (out, mode, dims, values) => compactWrite(run, out, mode, total, dims, values));
  } finally {
    for (const t of temps) t.dispose(); // stream-ordered: after the write
  }
}

/** A new array of `shape` and `dt`, filled by `fn`; disposed if `fn` throws. */
const made = (shape: number[], dt: DType, stream: Stream | null | undefined, fn: (x: GPUArray) => void): GPUArray =>
  filled(GPUArray.allocate(shape, dt, stream), fn);

/**
 * The int64 indices of `a`'s nonzero elements in its flattened (C-order) form (NumPy `flatnonzero`).
 * @example
 * gpuarray.flatnonzero(gpuarray.toGpu([0, 3, 0, 5])).get(); // BigInt64Array [1n, 3n]
 */
export function flatnonzero(a: GPUArray, opts?: NonzeroOptions): GPUArray {
  const { stream } = checkedOptions(opts, 'flatnonzero', ['stream']);
  a = arrayArg(a, 'a');
  checkDevices('flatnonzero', [a]);
  return compacted('flatnonzero', a, stream, [], (total, write) => made([total], DTYPES.int64, stream, (x) => write(x.address, 0)));
}

/**
 * The int64 indices of `a`'s nonzero elements, one array per dimension (NumPy `nonzero`; in C
 * order, so `[rows, cols]` of a matrix go row by row). A 0-d array is a RangeError (as NumPy 2).
 * @example
 * const [r, c] = gpuarray.nonzero(m); // m[r[i], c[i]] != 0
 */
export function nonzero(a: GPUArray, opts?: NonzeroOptions): GPUArray[] {
  const { stream } = checkedOptions(opts, 'nonzero', ['stream']);
  a = arrayArg(a, 'a');
  if (a.ndim === 0) {
    throw rangeError('ERR_INVALID_ARG_VALUE', 'nonzero: a 0-d array has no dimensions to index (use reshape([1]) or argwhere)');
  }
  if (a.ndim > COMPACT_MAX_DIMS) throw rangeError('ERR_INVALID_ARG_VALUE', `nonzero: at most ${COMPACT_MAX_DIMS} dimensions. Received ${a.ndim}`);
  checkDevices('nonzero', [a]);
  const shape = [...a.shape];
  return compacted('nonzero', a, stream, [], (total, write) => {
    if (a.ndim === 1) return [made([total], DTYPES.int64, stream, (x) => write(x.address, 0))];
    const all = made([a.ndim, total], DTYPES.int64, stream, (x) => write(x.address, 3, shape));
    const out: GPUArray[] = [];
    try {
      for (let d = 0; d < a.ndim; d++) out.push(all.index(d).copy({ stream }));
      return out;
    } catch (e) {
      for (const x of out) x.dispose();
      throw e;
    } finally {
      all.dispose(); // stream-ordered: after the copies
    }
  });
}

/**
 * The int64 coordinates of `a`'s nonzero elements, one row each: shape [count, a.ndim] (NumPy
 * `argwhere`; a 0-d array gives [1, 0] or [0, 0]).
 * @example
 * gpuarray.argwhere(gpuarray.toGpu([[0, 1], [2, 0]])).get(); // BigInt64Array [0n, 1n, 1n, 0n]
 */
export function argwhere(a: GPUArray, opts?: NonzeroOptions): GPUArray {
  const { stream } = checkedOptions(opts, 'argwhere', ['stream']);
  a = arrayArg(a, 'a');
  if (a.ndim > COMPACT_MAX_DIMS) throw rangeError('ERR_INVALID_ARG_VALUE', `argwhere: at most ${COMPACT_MAX_DIMS} dimensions. Received ${a.ndim}`);
  checkDevices('argwhere', [a]);
  const shape = [...a.shape];
  return compacted('argwhere', a, stream, [], (total, write) =>
    made([total, a.ndim], DTYPES.int64, stream, (x) => { if (a.ndim > 0) write(x.address, 2, shape); }));
}

/**
 * The elements of `arr` where `condition` is nonzero, in C order (NumPy `extract`, and NumPy's
 * `arr[mask]` for a mask of arr's shape): a 1-D array of arr's dtype. `condition` (any dtype) and
 * `arr` must have the same number of elements; their shapes may differ.
 * @example
 * const positive = gpuarray.extract(x.gt(0), x);
 */
export function extract(condition: GPUArray, arr: GPUArray, opts?: NonzeroOptions): GPUArray {
  const { stream } = checkedOptions(opts, 'extract', ['stream']);
  condition = arrayArg(condition, 'condition');
  arr = arrayArg(arr, 'arr');
  if (condition.size !== arr.size) {
    throw rangeError('ERR_SHAPE_MISMATCH', `extract: condition has ${condition.size} elements and arr ${arr.size}; they must be equal`);
  }
  checkDevices('extract', [condition, arr]);
  const temps: GPUArray[] = [];
  try {
    const v = arr.flags.cContiguous ? arr : (temps.push(arr.copy({ stream })), temps[temps.length - 1]);
    return compacted('extract', condition, stream, [v], (total, write) =>
      made([total], arr.dtype, stream, (x) => write(x.address, 1, [], { dt: arr.dtype, address: v.address })), arr.dtype);
  } finally {
    for (const t of temps) t.dispose();
  }
}

/** Options of compress. */
export interface CompressOptions extends NonzeroOptions {
  /** The axis to take slices along (default: none, the flattened array, as NumPy). */
  axis?: number | null;
}

/**
 * The slices of `a` along `axis` (NumPy `compress`; default: elements of the flattened array)
 * whose entry in the 1-D `condition` is nonzero: a GPUArray (its nonzero indices are counted on
 * the device and read back) or a JS array of booleans or numbers. A nonzero entry past the axis'
 * length is a RangeError `ERR_INDEX_OUT_OF_RANGE` (NumPy's IndexError); a shorter condition leaves
 * the rest out.
 * @example
 * gpuarray.compress([true, false, true], m, { axis: 1 }); // columns 0 and 2
 */
export function compress(condition: GPUArray | ArrayLike<boolean | number>, a: GPUArray, opts?: CompressOptions): GPUArray {
  const { stream, axis } = checkedOptions(opts, 'compress', ['axis', 'stream']);
  a = arrayArg(a, 'a');
  const ax = axis === null ? undefined : axis;
  if (condition instanceof GPUArray) {
    condition.check();
    if (condition.ndim !== 1) {
      throw rangeError('ERR_INVALID_ARG_VALUE', `compress: condition must be 1-D. Received shape (${condition.shape.join(',')})`);
    }
    const idx = flatnonzero(condition, { stream });
    try {
      return take(a, idx, ax, { stream });
    } finally {
      idx.dispose(); // stream-ordered: after the gather
    }
  }
  if (!Array.isArray(condition) && !ArrayBuffer.isView(condition)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `compress: condition must be a GPUArray or an array of booleans. Received ${describe(condition)}`);
  }
  const idx: number[] = [];
  listOf(condition as ArrayLike<unknown>, 'condition', (c, i) => {
    if (typeof c !== 'boolean' && typeof c !== 'number') {
      throw typeError('ERR_INVALID_ARG_TYPE', `compress: condition must hold booleans or numbers. Received ${describe(c)}`);
    }
    if (c) idx.push(i);
  });
  return take(a, idx, ax, { stream });
}

/**
 * How many elements of `a` are nonzero, over `axis` (all by default): int64, a 0-d array without
 * `axis` (NumPy `count_nonzero`). Nothing is read back.
 */
export function countNonzero(a: GPUArray, opts?: CountNonzeroOptions): GPUArray {
  const o = checkedOptions(opts, 'countNonzero', ['axis', 'keepdims', 'stream']);
  a = arrayArg(a, 'a');
  const mask = apply('ne', [a, 0], { stream: o.stream });
  try {
    return sum(mask, { axis: o.axis, keepdims: o.keepdims, dtype: 'int64', stream: o.stream });
  } finally {
    mask.dispose();
  }
}

registerArrayMethods({ nonzero: (a, opts) => nonzero(a, opts) });
