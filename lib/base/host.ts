/**
 * Host-side data for GPUArray: nested JS arrays ↔ flat TypedArrays of a dtype's host type
 * (BigInt64Array for 64-bit ints, Uint8Array for bool, interleaved re/im for complex, Uint16Array
 * bits — or Float16Array where the runtime has it — for float16, Uint16Array bits for bfloat16), and
 * NumPy-style printing.
 */
import { Complex, DType, TypedArrayConstructor, checkStorable, fromBits16, isFloat16Like, toBits16 } from './dtype';
import { describe, rangeError, typeError } from './errors';

/** A host array of some dtype. */
export type HostArray = InstanceType<TypedArrayConstructor>;

/** A scalar element as JS sees it. */
export type Element = number | bigint | boolean | Complex;

/** Nested JS arrays of elements. */
export type NestedArray = Element | NestedArray[];

const F16 = (globalThis as { Float16Array?: new (n: number | ArrayBuffer, o?: number, l?: number) => ArrayBufferView }).Float16Array;

/** Host elements per array element (2 for complex). */
export const lanes = (d: DType): number => (d.kind === 'c' ? 2 : 1);

/** A new host array for `n` elements of `d`. */
export function hostArray(d: DType, n: number): HostArray {
  return new d.array(n * lanes(d)) as HostArray;
}

/** A host array of `d` viewing `bytes` of `buffer` (no copy). */
export function hostView(d: DType, buffer: ArrayBufferLike, byteOffset: number, n: number): HostArray {
  return new d.array(buffer as ArrayBuffer, byteOffset, n * lanes(d)) as HostArray;
}

/** Shape of nested arrays; RangeError for ragged input. */
export function inferShape(data: NestedArray): number[] {
  const shape: number[] = [];
  let cur: NestedArray = data;
  while (Array.isArray(cur)) {
    shape.push(cur.length);
    cur = cur[0];
    if (cur === undefined) break;
  }
  const check = (v: NestedArray, d: number): void => {
    if (d === shape.length) {
      if (Array.isArray(v)) throw rangeError('ERR_RAGGED_ARRAY', 'Nested arrays are ragged (inhomogeneous shape)');
      return;
    }
    if (!Array.isArray(v) || v.length !== shape[d]) {
      throw rangeError('ERR_RAGGED_ARRAY', `Nested arrays are ragged: expected length ${shape[d]} at depth ${d}`);
    }
    for (const x of v) check(x, d + 1);
  };
  check(data, 0);
  return shape;
}

/** The dtype nested data suggests: bool for booleans, int64 for bigints, complex128 for {re,im}, else float64. */
export function inferKind(flat: Element[]): 'bool' | 'int64' | 'complex128' | 'float64' {
  if (flat.length && flat.every((x) => typeof x === 'boolean')) return 'bool';
  if (flat.length && flat.every((x) => typeof x === 'bigint')) return 'int64';
  if (flat.some((x) => typeof x === 'object' && x !== null)) return 'complex128';
  return 'float64';
}

export function flatten(data: NestedArray, out: Element[] = []): Element[] {
  if (Array.isArray(data)) for (const x of data) flatten(x, out);
  else out.push(data);
  return out;
}

/** Writes element `v` at index `i` of a host array of dtype `d`, converting like NumPy's array(). */
export function setElement(h: HostArray, d: DType, i: number, v: Element): void {
  if (d.kind === 'c') {
    const c = typeof v === 'object' ? v : { re: Number(v), im: 0 };
    (h as Float64Array)[2 * i] = c.re;
    (h as Float64Array)[2 * i + 1] = c.im;
    return;
  }
  if (typeof v === 'object') {
    throw typeError('ERR_INVALID_ARG_TYPE', `A complex value cannot be stored in a ${d.name} array`);
  }
  // A JS number or bigint is weak (a Python scalar): out of an integer dtype's range → RangeError.
  if (typeof v === 'number' || typeof v === 'bigint') checkStorable(d, v, `element ${i}`);
  if (d.name === 'int64' || d.name === 'uint64') {
    (h as BigInt64Array)[i] = typeof v === 'bigint' ? v : BigInt(Math.trunc(Number(v)));
  } else if (isFloat16Like(d)) {
    (h as Uint16Array)[i] = toBits16(d, Number(v));
  } else if (d.name === 'bool') {
    (h as Uint8Array)[i] = v !== 0 && v !== 0n && v !== false ? 1 : 0; // NaN is true, as in NumPy
  } else if (typeof v === 'bigint' || typeof v === 'boolean' || typeof v === 'number') {
    (h as Float64Array)[i] = Number(v);
  } else {
    throw typeError('ERR_INVALID_ARG_TYPE', `Cannot store ${describe(v)} in a ${d.name} array`);
  }
}

/** Element `i` of a host array of dtype `d` as JS sees it. */
export function getElement(h: HostArray, d: DType, i: number): Element {
  if (d.kind === 'c') return { re: Number(h[2 * i]), im: Number(h[2 * i + 1]) };
  if (isFloat16Like(d)) return fromBits16(d, (h as Uint16Array)[i]);
  if (d.name === 'bool') return (h as Uint8Array)[i] !== 0;
  return h[i] as number | bigint;
}

/** The user-facing host array: Float16Array for float16 where available, else the storage array. */
export function publicHost(d: DType, h: HostArray): ArrayBufferView {
  if (d.name === 'float16' && F16) return new F16(h.buffer as ArrayBuffer, h.byteOffset, h.length);
  return h;
}

/** Nested JS arrays of a C-ordered host array. */
export function nest(h: HostArray, d: DType, shape: readonly number[]): NestedArray {
  let i = 0;
  const build = (dim: number): NestedArray => {
    if (dim === shape.length) return getElement(h, d, i++);
    const out: NestedArray[] = [];
    for (let k = 0; k < shape[dim]; k++) out.push(build(dim + 1));
    return out;
  };
  return build(0);
}

function fmt(v: Element, d: DType): string {
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'object') return `${fmt(v.re, d)}${v.im < 0 || Object.is(v.im, -0) ? '-' : '+'}${fmt(Math.abs(v.im), d)}j`;
  if (d.kind === 'f' || d.kind === 'c') {
    if (Number.isNaN(v)) return 'NaN';
    if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
    const s = d.name === 'float32' || d.kind === 'c' && d.bytes === 8 ? String(Number(v.toPrecision(8))) : String(v);
    return s;
  }
  return String(v);
}

/** NumPy-like text of a C-ordered host array: edges only (3 per side) when it has over 1000 elements. */
export function format(h: HostArray, d: DType, shape: readonly number[]): string {
  const size = shape.reduce((a, b) => a * b, 1);
  const elide = size > 1000;
  const strides: number[] = [];
  let s = 1;
  for (let k = shape.length - 1; k >= 0; k--) { strides[k] = s; s *= shape[k]; }
  const rec = (dim: number, base: number, indent: string, flat = false): string => {
    if (dim === shape.length) return fmt(getElement(h, d, base), d);
    const n = shape[dim];
    const idx = elide && n > 6 ? [0, 1, 2, -1, n - 3, n - 2, n - 1] : [...Array(n).keys()];
    const parts = idx.map((k) => (k < 0 ? '...' : rec(dim + 1, base + k * strides[dim], indent + ' ', flat)));
    const sep = flat || dim === shape.length - 1 ? ', ' : `,\n${'\n'.repeat(Math.max(0, shape.length - dim - 2))}${indent} `;
    return `[${parts.join(sep)}]`;
  };
  // Short arrays on one line (GPUArray([[1, 2], [3, 4]], dtype=float32)); longer ones like NumPy.
  const oneLine = rec(0, 0, '', true);
  return oneLine.length <= 60 ? oneLine : rec(0, 0, '');
}
