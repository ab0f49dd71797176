/**
 * NumPy basic indexing (integers, slices, new axes, ellipsis) on a strided layout. Pure
 * TypeScript, no CUDA; re-exported by `lib/shape.ts`.
 */
import { describe, rangeError, typeError } from './errors';
import type { Shape, View } from './shape';

/** NumPy's `newaxis`: an index item that inserts a dimension of size 1. */
export const newaxis = null;

/** NumPy's `Ellipsis` (`...`): as many full slices as needed. The string `'...'` works too. */
export const ellipsis: unique symbol = Symbol.for('nodecuda.ellipsis');

function sliceBound(v: number | null | undefined, what: string): number | null {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `slice ${what} must be an integer, null or undefined. Received ${describe(v)}`);
  }
  return v;
}

/**
 * A slice `start:stop:step` (Python's `slice`). Missing values (`null`/`undefined`) take the
 * defaults; negative values count from the end; out-of-range bounds are clamped.
 * @example
 * new Slice(1, null, 2).indices(5) // { start: 1, stop: 5, step: 2, length: 2 }
 */
export class Slice {
  /** First index, negative from the end; null: the default (0, or the last index for a negative step). */
  readonly start: number | null;
  /** Index to stop before, negative from the end; null: past the end in the step's direction. */
  readonly stop: number | null;
  /** Increment, nonzero; null: 1. */
  readonly step: number | null;
  constructor(start?: number | null, stop?: number | null, step?: number | null) {
    this.start = sliceBound(start, 'start');
    this.stop = sliceBound(stop, 'stop');
    this.step = sliceBound(step, 'step');
    if (this.step === 0) throw rangeError('ERR_OUT_OF_RANGE', 'slice step cannot be zero');
  }

  /** Resolved bounds for an axis of `size` (Python's `slice.indices`) and the element count. */
  indices(size: number): {
    /** First index, in [0, size) when `length` > 0. */
    start: number;
    /** Index to stop before (-1 for a negative step that runs to the front). */
    stop: number;
    /** Increment (1 when the slice's is null). */
    step: number;
    /** Number of indices selected. */
    length: number;
  } {
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
      throw rangeError('ERR_OUT_OF_RANGE', `Slice.indices(size): size must be a non-negative integer. Received ${describe(size)}`);
    }
    const step = this.step ?? 1;
    const neg = step < 0;
    const bound = (v: number | null, dflt: number): number => {
      if (v === null) return dflt;
      if (v < 0) return Math.max(v + size, neg ? -1 : 0);
      return Math.min(v, neg ? size - 1 : size);
    };
    const start = bound(this.start, neg ? size - 1 : 0);
    const stop = bound(this.stop, neg ? -1 : size);
    const span = neg ? start - stop : stop - start;
    const length = span > 0 ? Math.floor((span - 1) / Math.abs(step)) + 1 : 0;
    return { start, stop, step, length };
  }

  /** Python spelling, e.g. `1::2`, `::-1`, `:`. */
  toString(): string {
    const f = (v: number | null): string => (v === null ? '' : String(v));
    return `${f(this.start)}:${f(this.stop)}${this.step === null ? '' : `:${this.step}`}`;
  }
}

/**
 * Makes a {@link Slice}. Arguments are positional like `Array.prototype.slice`: `slice(2)` is
 * `2:` (not Python's `slice(2)`, which is `:2`; write `slice(null, 2)` for that).
 * @example
 * a.index(slice(1, null, 2), -1) // NumPy: a[1::2, -1]
 */
export function slice(start?: number | null, stop?: number | null, step?: number | null): Slice {
  return new Slice(start, stop, step);
}

/**
 * One item of a basic index (NumPy spelling in brackets):
 * - integer, negative from the end (`a[-1]`): removes the dimension; a bigint works too;
 * - {@link Slice} from {@link slice} (`a[1:5:2]`) or a string `'1:5:2'`, `'::-1'`, `':'`;
 * - `null` / {@link newaxis} / `'None'` / `'newaxis'` (`a[None]`): a new dimension of size 1;
 * - {@link ellipsis} / `'...'` (`a[...]`): full slices for the dimensions not indexed;
 * - a string with commas is several items: `'1:3, ..., None'`.
 */
export type IndexItem = number | bigint | Slice | string | null | typeof ellipsis;

type Parsed = { k: 'int'; v: number } | { k: 'slice'; s: Slice } | { k: 'new' } | { k: 'ell' };

const INT_RE = /^[+-]?\d+$/;

function parseString(text: string): Parsed[] {
  return text.split(',').map((raw): Parsed => {
    const t = raw.trim();
    if (t === '...') return { k: 'ell' };
    if (t === 'None' || t === 'newaxis') return { k: 'new' };
    if (INT_RE.test(t)) return { k: 'int', v: Number(t) };
    const parts = t.split(':').map((p) => p.trim());
    if (parts.length >= 2 && parts.length <= 3 && parts.every((p) => p === '' || INT_RE.test(p))) {
      const [a, b, c] = parts.map((p) => (p === '' ? null : Number(p)));
      return { k: 'slice', s: new Slice(a, b, c) };
    }
    throw typeError('ERR_INVALID_ARG_VALUE',
      `Invalid index ${JSON.stringify(t)} in ${JSON.stringify(text)}: expected an integer, 'start:stop:step', '...' or 'None'`);
  });
}

function parseItem(item: unknown): Parsed[] {
  if (typeof item === 'number' && Number.isInteger(item)) return [{ k: 'int', v: item }];
  if (typeof item === 'bigint') return [{ k: 'int', v: Number(item) }];
  if (item instanceof Slice) return [{ k: 'slice', s: item }];
  if (item === null) return [{ k: 'new' }];
  if (item === ellipsis) return [{ k: 'ell' }];
  if (typeof item === 'string') return parseString(item);
  // An array (a GPUArray mask or a list of indices) is NumPy's fancy indexing: point at what does it here.
  const fancy = Array.isArray(item) || (typeof item === 'object' && item !== null && 'dtype' in item)
    ? ' (no boolean or integer-array indexing: gpuarray.extract(mask, a) gives a[mask], gpuarray.where(mask, x, y) ' +
      'selects elementwise, gpuarray.take(a, indices, axis) gathers)'
    : '';
  throw typeError('ERR_INVALID_ARG_TYPE', `Only integers, slices, strings like '1:5:2', null (newaxis) and ` +
    `'...' (ellipsis) are valid indices${item === undefined ? ' (use null for newaxis)' : ''}${fancy}. Received ${describe(item)}`);
}

/**
 * NumPy basic indexing on a layout: the view's shape, byte strides and byte offset from the
 * base. Errors: RangeError `ERR_INDEX_OUT_OF_RANGE` (integer outside its axis),
 * `ERR_TOO_MANY_INDICES`, `ERR_OUT_OF_RANGE` (step 0); TypeError `ERR_INVALID_ARG_VALUE` (two
 * ellipses, a bad string), `ERR_INVALID_ARG_TYPE` (anything else, e.g. booleans or arrays).
 * @example
 * // float32 array of shape [4, 5]: NumPy a[1::2, -1]
 * applyIndex([4, 5], [20, 4], [slice(1, null, 2), -1]) // { shape: [2], strides: [40], offset: 36 }
 * applyIndex([4, 5], [20, 4], ['::-1']) // { shape: [4, 5], strides: [-20, 4], offset: 60 }
 */
export function applyIndex(shape: Shape, strides: readonly number[], items: IndexItem | readonly IndexItem[]): View {
  const list = (Array.isArray(items) ? (items as readonly unknown[]) : [items]).flatMap(parseItem);
  const ndim = shape.length;
  if (list.filter((p) => p.k === 'ell').length > 1) {
    throw typeError('ERR_INVALID_ARG_VALUE', "an index can only have a single ellipsis ('...')");
  }
  const used = list.filter((p) => p.k === 'int' || p.k === 'slice').length;
  if (used > ndim) {
    throw rangeError('ERR_TOO_MANY_INDICES',
      `too many indices for array: array is ${ndim}-dimensional, but ${used} were indexed`);
  }
  const out: View = { shape: [], strides: [], offset: 0 };
  let dim = 0;
  const full = (count: number): void => {
    for (let e = dim + count; dim < e; dim++) { out.shape.push(shape[dim]); out.strides.push(strides[dim]); }
  };
  for (const p of list) {
    if (p.k === 'new') {
      out.shape.push(1);
      out.strides.push(0);
    } else if (p.k === 'ell') {
      full(ndim - used);
    } else if (p.k === 'int') {
      const size = shape[dim];
      if (p.v < -size || p.v >= size) {
        throw rangeError('ERR_INDEX_OUT_OF_RANGE', `index ${p.v} is out of bounds for axis ${dim} with size ${size}`);
      }
      out.offset += (p.v < 0 ? p.v + size : p.v) * strides[dim++];
    } else {
      const { start, step, length } = p.s.indices(shape[dim]);
      // NumPy: an empty slice points at the start of the axis with the axis's own stride.
      out.offset += length > 0 ? start * strides[dim] : 0;
      out.shape.push(length);
      out.strides.push(length > 0 ? step * strides[dim] : strides[dim]);
      dim++;
    }
  }
  full(ndim - dim);
  return out;
}
