/**
 * Shapes, strides (in BYTES, like NumPy), broadcasting, reshape and basic indexing: the layout
 * logic behind GPUArray views. Pure TypeScript, no CUDA.
 */
import { describe, rangeError, typeError } from './errors';
import type { DType } from './dtype';

/** An array shape: one non-negative integer per dimension (`[]` for 0-d). */
export type Shape = readonly number[];

/** Shape and byte strides of a view. */
export interface Layout { shape: number[]; strides: number[] }

/** A view of a base buffer: shape, byte strides and the byte offset from the base. */
export interface View extends Layout { offset: number }

/**
 * Formats a shape as NumPy prints it.
 * @example
 * formatShape([3, 4]) === '(3,4)'; formatShape([5]) === '(5,)'; formatShape([]) === '()';
 */
export function formatShape(shape: Shape): string {
  // String() on each: a Symbol in a user's shape must not make the error message itself throw.
  const s = Array.from(shape, String);
  return s.length === 1 ? `(${s[0]},)` : `(${s.join(',')})`;
}

/**
 * Validates a shape (a number or an array of non-negative safe integers) and returns a copy.
 * TypeError `ERR_INVALID_ARG_TYPE` for non-numbers, RangeError `ERR_OUT_OF_RANGE` for negative,
 * fractional or too large dimensions (or a total size beyond 2^53).
 * @example
 * normalizeShape(5) // [5]
 * normalizeShape([2, 3]) // [2, 3]
 */
export function normalizeShape(shape: number | readonly number[], name = 'shape'): number[] {
  const dims: readonly unknown[] | null = typeof shape === 'number' ? [shape] : Array.isArray(shape) ? shape : null;
  if (!dims) {
    throw typeError('ERR_INVALID_ARG_TYPE',
      `The "${name}" argument must be a number or an array of numbers. Received ${describe(shape)}`);
  }
  const out: number[] = [];
  let size = 1;
  for (let i = 0; i < dims.length; i++) {
    const d = dims[i];
    const what = typeof shape === 'number' ? `The "${name}" argument` : `${name}[${i}]`;
    if (typeof d !== 'number') throw typeError('ERR_INVALID_ARG_TYPE', `${what} must be a number. Received ${describe(d)}`);
    if (!Number.isSafeInteger(d) || d < 0) {
      throw rangeError('ERR_OUT_OF_RANGE', `${what} must be a non-negative integer (at most 2^53 - 1). Received ${d}`);
    }
    size *= d;
    out.push(d);
  }
  if (!Number.isSafeInteger(size)) {
    throw rangeError('ERR_OUT_OF_RANGE', `An array of shape ${formatShape(out)} is too big (${size} elements)`);
  }
  return out;
}

/**
 * Number of elements (1 for a 0-d shape).
 * @example
 * sizeOf([2, 3]) === 6; sizeOf([]) === 1; sizeOf([4, 0]) === 0;
 */
export function sizeOf(shape: Shape): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

/**
 * Byte strides of a contiguous array (C order by default), as NumPy computes them: a dimension
 * of size 0 counts as 1 for the strides of the dimensions outside it.
 * @example
 * contiguousStrides([4, 5], 4) // [20, 4]
 * contiguousStrides([4, 5], 4, 'F') // [4, 16]
 */
export function contiguousStrides(shape: Shape, itemsize: number, order: 'C' | 'F' = 'C'): number[] {
  const n = shape.length;
  const s = new Array<number>(n);
  let acc = itemsize;
  for (let k = 0; k < n; k++) {
    const i = order === 'C' ? n - 1 - k : k;
    s[i] = acc;
    if (shape[i]) acc *= shape[i];
  }
  return s;
}

function isContiguous(shape: Shape, strides: readonly number[], itemsize: number, c: boolean): boolean {
  if (shape.includes(0)) return true;
  const n = shape.length;
  let expected = itemsize;
  for (let k = 0; k < n; k++) {
    const i = c ? n - 1 - k : k;
    if (shape[i] === 1) continue;
    if (strides[i] !== expected) return false;
    expected *= shape[i];
  }
  return true;
}

/**
 * NumPy's C_CONTIGUOUS flag: dimensions of size 1 are ignored; size-0 arrays are contiguous.
 * @example
 * isCContiguous([4, 5], [20, 4], 4) === true; isCContiguous([4, 5], [4, 16], 4) === false;
 */
export function isCContiguous(shape: Shape, strides: readonly number[], itemsize: number): boolean {
  return isContiguous(shape, strides, itemsize, true);
}

/**
 * NumPy's F_CONTIGUOUS flag (column-major), same rules as {@link isCContiguous}.
 * @example
 * isFContiguous([4, 5], [4, 16], 4) === true;
 */
export function isFContiguous(shape: Shape, strides: readonly number[], itemsize: number): boolean {
  return isContiguous(shape, strides, itemsize, false);
}

function mismatch(message: string): RangeError {
  return rangeError('ERR_SHAPE_MISMATCH', message);
}

/**
 * The broadcast shape of several shapes (NumPy rules: align on the right, 1 stretches).
 * RangeError `ERR_SHAPE_MISMATCH` naming every shape when they do not broadcast.
 * @example
 * broadcastShapes([3, 1], [4]) // [3, 4]
 * broadcastShapes([3, 4], [5]) // throws: ... shapes (3,4) (5,)
 */
export function broadcastShapes(...shapes: Shape[]): number[] {
  const nd = shapes.reduce((m, s) => Math.max(m, s.length), 0);
  const out = new Array<number>(nd).fill(1);
  for (const s of shapes) {
    for (let i = 0; i < s.length; i++) {
      const j = nd - s.length + i;
      if (s[i] === out[j] || s[i] === 1) continue;
      if (out[j] !== 1) {
        throw mismatch(`operands could not be broadcast together with shapes ${shapes.map(formatShape).join(' ')}`);
      }
      out[j] = s[i];
    }
  }
  return out;
}

/**
 * Strides that view an array of `shape`/`strides` as the larger `target` shape: 0 on new and
 * stretched dimensions. RangeError `ERR_SHAPE_MISMATCH` if `shape` does not broadcast to `target`.
 * @example
 * broadcastStrides([3, 1], [4, 4], [2, 3, 5]) // [0, 4, 0]
 */
export function broadcastStrides(shape: Shape, strides: readonly number[], target: Shape): number[] {
  const off = target.length - shape.length;
  const fail = (): RangeError => mismatch(
    `cannot broadcast an array of shape ${formatShape(shape)} to shape ${formatShape(target)}`);
  if (off < 0) throw fail();
  const out = new Array<number>(target.length).fill(0);
  for (let i = 0; i < shape.length; i++) {
    if (shape[i] === target[off + i]) out[off + i] = strides[i];
    else if (shape[i] !== 1) throw fail();
  }
  return out;
}

/**
 * Simplifies the iteration space of an elementwise operation over several operands: drops
 * dimensions of size 1 and merges dimensions i, i+1 when, for every operand,
 * `strides[i] === shape[i+1] * strides[i+1]` (strides in any unit). A 0-d shape stays `[]`; a
 * size-0 shape is returned unchanged; a size-1 shape becomes `[1]` (with the strides of the last
 * dimension). Dimensions are never reordered.
 * @example
 * collapseDims([2, 3, 4], [[48, 16, 4], [0, 0, 4]]) // { shape: [6, 4], strides: [[16, 4], [0, 4]] }
 */
export function collapseDims(shape: Shape, stridesList: readonly (readonly number[])[]):
  { shape: number[]; strides: number[][] } {
  for (const s of stridesList) {
    if (s.length !== shape.length) {
      throw rangeError('ERR_INVALID_ARG_VALUE', `strides ${formatShape(s)} do not match shape ${formatShape(shape)}`);
    }
  }
  if (shape.length === 0 || shape.includes(0)) return { shape: [...shape], strides: stridesList.map((s) => [...s]) };
  const outShape: number[] = [];
  const outStrides: number[][] = stridesList.map(() => []);
  for (let i = 0; i < shape.length; i++) {
    if (shape[i] === 1) continue;
    const last = outShape.length - 1;
    if (last >= 0 && stridesList.every((s, k) => outStrides[k][last] === shape[i] * s[i])) {
      outShape[last] *= shape[i];
      stridesList.forEach((s, k) => { outStrides[k][last] = s[i]; });
    } else {
      outShape.push(shape[i]);
      stridesList.forEach((s, k) => outStrides[k].push(s[i]));
    }
  }
  if (outShape.length === 0) return { shape: [1], strides: stridesList.map((s) => [s[s.length - 1]]) };
  return { shape: outShape, strides: outStrides };
}

/**
 * Byte strides of a C-order reshape of `shape`/`strides` to `newShape` as a view (no copy), or
 * `null` when NumPy would have to copy. Port of NumPy's `_attempt_nocopy_reshape`; contiguous
 * arrays get contiguous strides. RangeError `ERR_INVALID_RESHAPE` if the sizes differ.
 * @example
 * reshapeStrides([4, 5], [20, 4], [20], 4) // [4]
 * reshapeStrides([4, 5], [4, 16], [20], 4) // null (a transposed array needs a copy)
 */
export function reshapeStrides(shape: Shape, strides: readonly number[], newShape: Shape,
  itemsize: number): number[] | null {
  if (sizeOf(shape) !== sizeOf(newShape)) {
    throw rangeError('ERR_INVALID_RESHAPE',
      `cannot reshape array of size ${sizeOf(shape)} into shape ${formatShape(newShape)}`);
  }
  if (isCContiguous(shape, strides, itemsize)) return contiguousStrides(newShape, itemsize);
  const od: number[] = [];
  const os: number[] = [];
  shape.forEach((d, i) => { if (d !== 1) { od.push(d); os.push(strides[i]); } });
  const ns = new Array<number>(newShape.length);
  let oi = 0, oj = 1, ni = 0, nj = 1;
  while (ni < newShape.length && oi < od.length) {
    let np = newShape[ni];
    let op = od[oi];
    while (np !== op) {
      if (np < op) np *= newShape[nj++];
      else op *= od[oj++];
    }
    for (let ok = oi; ok < oj - 1; ok++) if (os[ok] !== od[ok + 1] * os[ok + 1]) return null;
    ns[nj - 1] = os[oj - 1];
    for (let nk = nj - 1; nk > ni; nk--) ns[nk - 1] = ns[nk] * newShape[nk];
    ni = nj++;
    oi = oj++;
  }
  const lastStride = ni >= 1 ? ns[ni - 1] : itemsize;
  for (let nk = ni; nk < newShape.length; nk++) ns[nk] = lastStride;
  return ns;
}

/**
 * Resolves a requested shape for an array of `size` elements; one dimension may be -1.
 * RangeError `ERR_INVALID_RESHAPE` ("cannot reshape array of size N into shape (a,b)") when
 * impossible or with two -1s; `ERR_OUT_OF_RANGE` for other negative or fractional dimensions.
 * @example
 * resolveReshape(12, [3, -1]) // [3, 4]
 */
export function resolveReshape(size: number, newShape: number | readonly number[]): number[] {
  const asked: readonly number[] | null = typeof newShape === 'number' ? [newShape] : Array.isArray(newShape) ? newShape : null;
  if (!asked) throw typeError('ERR_INVALID_ARG_TYPE', `A shape must be a number or an array. Received ${describe(newShape)}`);
  const dims = normalizeShape(asked.map((d) => (d === -1 ? 0 : d)), 'newShape');
  let unknown = -1;
  let known = 1;
  const fail = (): RangeError => rangeError('ERR_INVALID_RESHAPE',
    `cannot reshape array of size ${size} into shape ${formatShape(asked)}`);
  asked.forEach((d, i) => {
    if (d !== -1) known *= d;
    else if (unknown >= 0) throw rangeError('ERR_INVALID_RESHAPE', 'can only specify one unknown dimension (-1)');
    else unknown = i;
  });
  if (unknown >= 0) {
    if (known === 0 || size % known !== 0) throw fail();
    dims[unknown] = size / known;
  } else if (known !== size) {
    throw fail();
  }
  return dims;
}

/**
 * Normalizes an axis (negative counts from the end). TypeError `ERR_INVALID_ARG_TYPE` for a
 * non-integer, RangeError `ERR_AXIS_OUT_OF_RANGE` outside `[-ndim, ndim)`.
 * @example
 * normalizeAxis(-1, 3) === 2;
 */
export function normalizeAxis(axis: number, ndim: number): number {
  if (typeof axis !== 'number' || !Number.isInteger(axis)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `An axis must be an integer. Received ${describe(axis)}`);
  }
  if (axis < -ndim || axis >= ndim) {
    throw rangeError('ERR_AXIS_OUT_OF_RANGE', `axis ${axis} is out of bounds for array of dimension ${ndim}`);
  }
  return axis < 0 ? axis + ndim : axis;
}

function axisList(axis: number | readonly number[], ndim: number): number[] {
  if (typeof axis !== 'number' && !Array.isArray(axis)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `An axis must be an integer or an array of integers. Received ${describe(axis)}`);
  }
  // Array.from: a hole reads as undefined, which normalizeAxis rejects (map would skip it).
  const list = Array.from(typeof axis === 'number' ? [axis] : axis, (a) => normalizeAxis(a, ndim));
  if (new Set(list).size !== list.length) throw rangeError('ERR_INVALID_ARG_VALUE', `repeated axis in ${formatShape(list)}`);
  return list;
}

/**
 * The permutation for a transpose: `axes` (negative allowed) or, by default, reversed axes.
 * RangeError `ERR_INVALID_ARG_VALUE` if `axes` is not a permutation of the dimensions.
 * @example
 * transposeAxes(3) // [2, 1, 0]
 * transposeAxes(3, [0, -1, 1]) // [0, 2, 1]
 */
export function transposeAxes(ndim: number, axes?: readonly number[] | null): number[] {
  if (axes === undefined || axes === null) return Array.from({ length: ndim }, (_, i) => ndim - 1 - i);
  if (!Array.isArray(axes)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `axes must be an array of integers. Received ${describe(axes)}`);
  }
  if (axes.length !== ndim) {
    throw rangeError('ERR_INVALID_ARG_VALUE', `axes ${formatShape(axes)} don't match an array of dimension ${ndim}`);
  }
  return axisList(axes, ndim);
}

/**
 * The axes a squeeze removes, ascending: every axis of size 1 (`axis` undefined or null, as NumPy's
 * `axis=None`), or the normalized `axis` list
 * (RangeError `ERR_INVALID_ARG_VALUE` if one of those is not of size 1).
 * @example
 * squeezeAxes([1, 3, 1]) // [0, 2]
 * squeezeAxes([1, 3, 1], -1) // [2]
 */
export function squeezeAxes(shape: Shape, axis?: number | readonly number[] | null): number[] {
  if (axis === undefined || axis === null) return shape.flatMap((d, i) => (d === 1 ? [i] : []));
  const drop = axisList(axis, shape.length).sort((a, b) => a - b);
  for (const a of drop) {
    if (shape[a] !== 1) {
      throw rangeError('ERR_INVALID_ARG_VALUE', `cannot squeeze axis ${a}: its size is ${shape[a]}, not 1`);
    }
  }
  return drop;
}

/**
 * Inserts dimensions of size 1 at `axis` (positions in the result, negative allowed, like
 * `np.expand_dims`). New axes get the strides NumPy's reshape gives them: the next dimension's
 * `stride * size`, or for trailing ones the stride of the last original dimension (`itemsize`
 * for a 0-d array, 0 if not given).
 * @example
 * expandDims([4, 5], [20, 4], 0) // { shape: [1, 4, 5], strides: [80, 20, 4] }
 * expandDims([4, 5], [20, 4], -1) // { shape: [4, 5, 1], strides: [20, 4, 4] }
 */
export function expandDims(shape: Shape, strides: readonly number[], axis: number | readonly number[],
  itemsize = 0): Layout {
  if (typeof axis !== 'number' && !Array.isArray(axis)) axisList(axis, 0); // the TypeError
  const n = shape.length + (typeof axis === 'number' ? 1 : axis.length);
  const isNew = new Array<boolean>(n).fill(false);
  for (const a of axisList(axis, n)) isNew[a] = true;
  const out: Layout = { shape: new Array<number>(n), strides: new Array<number>(n) };
  const trailing = shape.length > 0 ? strides[shape.length - 1] : itemsize;
  for (let i = n - 1, j = shape.length - 1; i >= 0; i--) {
    if (!isNew[i]) {
      out.shape[i] = shape[j];
      out.strides[i] = strides[j--];
    } else {
      out.shape[i] = 1;
      out.strides[i] = i === n - 1 ? trailing : out.strides[i + 1] * out.shape[i + 1];
    }
  }
  return out;
}

/**
 * Every element of a view must be aligned for its C type (complex128 is `__align__(16)`, float64 8,
 * ...): kernels load elements with aligned accesses, and a misaligned one faults the context
 * (CUDA_ERROR_MISALIGNED_ADDRESS, sticky) while a stride that is not a whole number of elements
 * reads the wrong bytes. So the byte offset and each stride (of axes longer than 1) must be
 * multiples of the alignment, which equals the itemsize for every dtype. RangeError
 * `ERR_MISALIGNED_VIEW` otherwise; stricter than NumPy, which allows unaligned views. @internal
 */
export function checkAligned(address16: number, shape: readonly number[], strides: readonly number[], dt: DType): void {
  const a = dt.align;
  let bad = (address16 & (a - 1)) !== 0 || dt.bytes % a !== 0;
  for (let i = 0; i < shape.length && !bad; i++) bad = shape[i] > 1 && strides[i] % dt.bytes !== 0;
  if (!bad || sizeOf(shape) === 0) return;
  throw rangeError('ERR_MISALIGNED_VIEW', `Cannot make a ${dt.name} view at byte offset ${address16 & 15} (mod 16) ` +
    `with byte strides (${strides.join(', ')}): ${dt.name} elements must start at multiples of ${a} bytes and ` +
    `strides must be multiples of ${dt.bytes} (GPU loads of ${dt.ctype} need that alignment). ` +
    'View a contiguous copy instead: a.copy().view(...)');
}
