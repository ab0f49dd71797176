/**
 * toGpu's input (array/creation.ts): TypedArrays, ArrayBuffers, numbers and nested arrays turned
 * into a host array, a shape and a dtype (gpuarray.ts fromHost copies it into a new GPUArray).
 */
import { types } from 'util';
import { DTypeLike, DType, dtype as toDType, dtypeOfArray } from '../base/dtype';
import { describe, rangeError, typeError } from '../base/errors';
import { checkAttached, hostRange } from '../cuda/memory';
import { HostArray, NestedArray, flatten, hostArray, hostView, inferKind, inferShape, setElement } from '../base/host';
import { normalizeShape, sizeOf } from '../base/shape';
import { normalizeBool } from './gpuarray';

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
