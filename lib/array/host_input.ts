/**
 * Host data in and out of GPUArrays: toGpu's input (array/creation.ts) — TypedArrays, ArrayBuffers,
 * numbers and nested arrays turned into a host array, a shape and a dtype (gpuarray.ts fromHost
 * copies it into a new GPUArray) — and the host side of GPUArray's get() and set(). No CUDA here.
 */
import { types } from 'util';
import { DTypeLike, DType, dtype as toDType, dtypeOfArray } from '../base/dtype';
import { describe, rangeError, typeError } from '../base/errors';
import { checkAttached, hostRange } from '../cuda/memory';
import { HostArray, NestedArray, flatten, hostArray, hostView, inferKind, inferShape, setElement } from '../base/host';
import { normalizeShape, sizeOf } from '../base/shape';

/** Normalises toGpu input to (host array, shape, dtype) — converting when a dtype is asked for. */
export function hostInput(host: unknown, opts: { shape?: number | readonly number[]; dtype?: DTypeLike }):
  { h: HostArray; shape: number[]; dtype: DType; convertTo: DType | null } {
  const want = opts.dtype === undefined ? null : toDType(opts.dtype);
  if (ArrayBuffer.isView(host) && !(host instanceof DataView)) {
    const own = dtypeOfArray(host);
    if (!own) throw typeError('ERR_INVALID_ARG_TYPE', `Unsupported TypedArray ${host.constructor.name}`);
    // A dtype whose host type is this array's type reinterprets it (float16 and bfloat16 from
    // Uint16Array bits, complex from interleaved floats, bool from Uint8Array); a Float16Array's
    // values convert to bfloat16.
    const dt = want && want.array === own.array && !(own.name === 'float16' && want.name === 'bfloat16') ? want : own;
    const n = host.byteLength / dt.bytes;
    if (!Number.isInteger(n)) throw rangeError('ERR_OUT_OF_RANGE', `${host.byteLength} bytes are not a whole number of ${dt.name}`);
    const shape = opts.shape === undefined ? [n] : normalizeShape(opts.shape);
    if (sizeOf(shape) !== n) throw rangeError('ERR_INVALID_RESHAPE', `cannot reshape array of size ${n} into shape (${shape.join(',')})`);
    const r = hostRange(host, 'host');
    return { h: normalizeBool(hostView(dt, r.buffer, r.byteOffset, n), dt), shape, dtype: dt,
      convertTo: want && want !== dt ? want : null };
  }
  if (types.isAnyArrayBuffer(host)) {
    const dt = want ?? toDType('uint8');
    if (host.byteLength === 0) checkAttached(host, 'host');
    const n = host.byteLength / dt.bytes;
    if (!Number.isInteger(n)) throw rangeError('ERR_OUT_OF_RANGE', `${host.byteLength} bytes are not a whole number of ${dt.name}`);
    const shape = opts.shape === undefined ? [n] : normalizeShape(opts.shape);
    if (sizeOf(shape) !== n) throw rangeError('ERR_INVALID_RESHAPE', `cannot reshape array of size ${n} into shape (${shape.join(',')})`);
    return { h: normalizeBool(hostView(dt, host as ArrayBuffer, 0, n), dt), shape, dtype: dt, convertTo: null };
  }
  if (Array.isArray(host) || typeof host === 'number' || typeof host === 'bigint' || typeof host === 'boolean' ||
    (typeof host === 'object' && host !== null && 're' in host)) {
    const data = host as NestedArray;
    const inferred = inferShape(data);
    const flat = flatten(data);
    const dt = want ?? toDType(inferKind(flat));
    const shape = opts.shape === undefined ? inferred : normalizeShape(opts.shape);
    if (sizeOf(shape) !== flat.length) {
      throw rangeError('ERR_INVALID_RESHAPE', `cannot reshape array of size ${flat.length} into shape (${shape.join(',')})`);
    }
    const h = hostArray(dt, flat.length);
    flat.forEach((v, i) => setElement(h, dt, i, v));
    return { h, shape, dtype: dt, convertTo: null };
  }
  throw typeError('ERR_INVALID_ARG_TYPE',
    `toGpu() takes a TypedArray, an ArrayBuffer, a number or nested arrays. Received ${describe(host)}`);
}

/** @internal Bool data from raw bytes: any nonzero byte is true (a copy, only when some byte is not 0/1). */
export function normalizeBool(h: HostArray, dt: DType): HostArray {
  if (dt.name !== 'bool' || (h as Uint8Array).every((b) => b <= 1)) return h;
  return Uint8Array.from(h as Uint8Array, (b) => (b ? 1 : 0));
}

/** @internal Where get(out) puts `n` elements of `dt`: a new host array, or a view of `out` (checked for size). */
export function hostOut(dt: DType, n: number, out: ArrayBufferView | undefined): HostArray {
  if (out === undefined) return hostArray(dt, n);
  const h = hostRange(out, 'out');
  const need = n * dt.bytes;
  if (h.byteLength !== need) {
    throw rangeError('ERR_OUT_OF_RANGE', `get(out): out has ${h.byteLength} bytes; this array needs ${need}`);
  }
  return hostView(dt, h.buffer, h.byteOffset, n);
}

/** @internal Host data for set() of an array of `n` elements of `dt`: bytes in that dtype's layout, C order. */
export function hostIn(dt: DType, n: number, host: unknown): HostArray {
  let h: HostArray;
  if (ArrayBuffer.isView(host) || types.isAnyArrayBuffer(host)) {
    const r = hostRange(host, 'host');
    const fromType = ArrayBuffer.isView(host) ? dtypeOfArray(host) : undefined;
    // Same host type: bits (Uint16Array into float16/bfloat16…); a Float16Array's values are not bfloat16 bits.
    if (fromType && fromType !== dt && (fromType.array !== dt.array || (fromType.name === 'float16' && dt.name === 'bfloat16'))) {
      throw typeError('ERR_INVALID_ARG_TYPE', `set(): a ${host.constructor.name} does not hold ${dt.name} data; convert it or use astype()`);
    }
    if (r.byteLength !== n * dt.bytes) {
      throw rangeError('ERR_OUT_OF_RANGE', `set(): ${r.byteLength} bytes given; this array needs ${n * dt.bytes}`);
    }
    h = normalizeBool(hostView(dt, r.buffer, r.byteOffset, n), dt);
  } else if (Array.isArray(host) || typeof host !== 'object') {
    const flat = flatten(host as NestedArray);
    if (flat.length !== n) throw rangeError('ERR_OUT_OF_RANGE', `set(): ${flat.length} values given; this array has ${n}`);
    h = hostArray(dt, n);
    flat.forEach((v, i) => setElement(h, dt, i, v));
  } else {
    throw typeError('ERR_INVALID_ARG_TYPE', `set() takes a TypedArray, an ArrayBuffer or nested arrays. Received ${describe(host)}`);
  }
  return h;
}

/**
 * The elements of a JS array or TypedArray `xs`, each through `each` (which throws the caller's
 * errors). A view whose buffer was transferred (detached) or shrunk below it is a TypeError
 * `ERR_INVALID_STATE`, not V8's error without a code. @internal
 */
export function listOf<T>(xs: ArrayLike<unknown>, name: string, each: (x: unknown, i: number) => T): T[] {
  try {
    return Array.from(xs, each);
  } catch (e) {
    if ((e as { code?: unknown })?.code !== undefined || !ArrayBuffer.isView(xs)) throw e;
    throw typeError('ERR_INVALID_STATE', `The "${name}" argument's ArrayBuffer was transferred (detached) or shrunk below it: it has no elements to read`);
  }
}

