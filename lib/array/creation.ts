/**
 * Creating GPUArrays: toGpu(Async), empty, zeros, ones, full, arange, linspace, *Like.
 */
import { DTYPES, DType, DTypeLike, computeDType, dtype as toDType, float64 } from '../base/dtype';
import { checkSize, checkedOptions, describe, rangeError, typeError } from '../base/errors';
import { ABORT_KEYS, type AbortOptions, abortable, throwIfAborted } from '../base/abort';
import { Stream, streamHandle } from '../cuda/driver';
import { GPUArray, arrayArg, filled, fromHost } from './gpuarray';
import { hostInput } from './host_input';
import { hostRange } from '../cuda/memory';
import * as cu from '../cuda/door';
import { Operand, elementwise, fill } from './operators';
import { normalizeShape } from '../base/shape';
import { NestedArray } from '../base/host';
import { DeviceId, onDevice, onDeviceAsync } from './devices';

/** Options of creation functions. */
export interface CreateOptions {
  /**
   * Shape of the new array: the host data's element count must match (RangeError
   * `ERR_INVALID_RESHAPE` otherwise). Default: 1-d for flat data, inferred for nested arrays.
   */
  shape?: number | readonly number[];
  /** dtype of the new array (converts or reinterprets the host data; see toGpu). */
  dtype?: DTypeLike;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
  /** Device to create the array on (ordinal or driver.Device; default: the current device). */
  device?: DeviceId;
}

/** Options of the creation functions that take no host data. */
export interface PlaceOptions {
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
  /** Device to create the array on (ordinal or driver.Device; default: the current device). */
  device?: DeviceId;
}

// The option names each function reads: any other (NumPy's order or like, torch's requires_grad or
// pin_memory...) is a TypeError, checked before anything is allocated.
const PLACE_KEYS = ['stream', 'device'];
const CREATE_KEYS = ['shape', 'dtype', 'stream', 'device'];
const CREATE_ASYNC_KEYS = [...CREATE_KEYS, ...ABORT_KEYS];
const LINSPACE_KEYS = ['endpoint', 'dtype', 'stream', 'device'];

/**
 * Copies host data to a new GPUArray. TypedArrays keep their dtype (pass `dtype` to convert, or
 * to reinterpret: Uint16Array bits as float16 or bfloat16, interleaved floats as complex); number arrays
 * (nested allowed, shape inferred) default to float64; ArrayBuffers need a dtype (default uint8).
 * @example
 * gpuarray.toGpu(new Float32Array([1, 2, 3]));
 * gpuarray.toGpu([[1, 2], [3, 4]], { dtype: 'int32' });
 */
export function toGpu(host: ArrayBufferView | ArrayBuffer | NestedArray, opts: CreateOptions = {}): GPUArray {
  opts = checkedOptions(opts, 'toGpu', CREATE_KEYS);
  if (opts.device !== undefined) return onDevice(opts.device, () => toGpu(host, { ...opts, device: undefined }));
  const { h, shape, dtype, convertTo } = hostInput(host, opts);
  const a = fromHost(h, shape, dtype, opts.stream);
  if (!convertTo) return a;
  try {
    return a.astype(convertTo, { stream: opts.stream });
  } finally {
    a.dispose();
  }
}

/** Options of toGpuAsync(). */
export interface CreateAsyncOptions extends CreateOptions, AbortOptions {}

/**
 * Promise form of toGpu (the copy is queued on `stream`; the event loop is not blocked waiting).
 * With `signal`, aborting rejects the Promise at once with an AbortError; the new array is
 * disposed then (its memory goes back once the copy, which still runs to its end, is done).
 * @example
 * const a = await gpuarray.toGpuAsync(data);
 * const b = await gpuarray.toGpuAsync(data, { dtype: 'float32', signal: AbortSignal.timeout(1000) });
 */
export async function toGpuAsync(host: ArrayBufferView | ArrayBuffer | NestedArray,
  opts: CreateAsyncOptions = {}): Promise<GPUArray> {
  opts = checkedOptions(opts, 'toGpuAsync', CREATE_ASYNC_KEYS);
  if (opts.device !== undefined) return onDeviceAsync(opts.device, () => toGpuAsync(host, { ...opts, device: undefined }));
  const { h, shape, dtype, convertTo } = hostInput(host, opts);
  const signal = throwIfAborted(opts.signal); // before allocating: an aborted call queues nothing
  const a = GPUArray.allocate(shape, dtype, opts.stream);
  try {
    await abortable(() => cu.memcpyHtodAsync(a.ptr, h.buffer, h.byteOffset, h.byteLength,
      hostRange(h, 'host').pinned, streamHandle(opts.stream)), signal);
  } catch (e) {
    // Nobody gets `a`: free it now. The free is queued on the stream `a` was allocated on, the
    // copy's, so the pool reuses the memory only after a copy that is still running.
    a.dispose();
    throw e;
  }
  if (!convertTo) return a;
  try {
    return a.astype(convertTo, { stream: opts.stream });
  } finally {
    a.dispose();
  }
}

function dt(d: DTypeLike | undefined): DType {
  return d === undefined ? DTYPES.float64 : toDType(d);
}

/**
 * An uninitialized array.
 * @example
 * gpuarray.empty([1024, 1024], 'float32');
 */
export function empty(shape: number | readonly number[], dtype?: DTypeLike, opts: PlaceOptions = {}): GPUArray {
  opts = checkedOptions(opts, 'empty', PLACE_KEYS);
  return onDevice(opts.device, () => GPUArray.allocate(normalizeShape(shape), dt(dtype), opts.stream));
}

/**
 * An array of zeros.
 * @example
 * gpuarray.zeros(10, 'int32');
 */
export function zeros(shape: number | readonly number[], dtype?: DTypeLike, opts: PlaceOptions = {}): GPUArray {
  opts = checkedOptions(opts, 'zeros', PLACE_KEYS);
  return onDevice(opts.device, () => {
    // A failed memset (or an earlier launch's failure reported by it) leaves nothing behind.
    return filled(empty(shape, dtype, { stream: opts.stream }),
      (a) => a.nbytes && cu.memset(a.ptr, 0, a.nbytes, 1, streamHandle(opts.stream), false));
  });
}

/**
 * An array of ones.
 * @example
 * gpuarray.ones([2, 3]);
 */
export function ones(shape: number | readonly number[], dtype?: DTypeLike, opts: PlaceOptions = {}): GPUArray {
  opts = checkedOptions(opts, 'ones', PLACE_KEYS);
  return onDevice(opts.device, () => filled(empty(shape, dtype, { stream: opts.stream }), (a) => fill(a, 1, opts.stream)));
}

/**
 * An array filled with `value` (dtype: given, else float64 for numbers, like NumPy's full with a
 * Python scalar... bool for booleans, int64 for bigints, complex128 for {re, im}).
 * @example
 * gpuarray.full([3], 7, 'uint8');
 */
export function full(shape: number | readonly number[], value: Operand, dtype?: DTypeLike,
  opts: PlaceOptions = {}): GPUArray {
  opts = checkedOptions(opts, 'full', PLACE_KEYS);
  let d: DType;
  if (dtype !== undefined) d = toDType(dtype);
  else if (typeof value === 'boolean') d = DTYPES.bool;
  else if (typeof value === 'bigint') d = DTYPES.int64;
  else if (typeof value === 'object' && value !== null && 're' in value && !(value instanceof GPUArray)) d = DTYPES.complex128;
  else if (value instanceof GPUArray || value === undefined || value === null) {
    throw typeError('ERR_INVALID_ARG_TYPE', `full() takes a scalar value. Received ${describe(value)}`);
  }
  else d = (value as { dtype?: DType }).dtype ?? DTYPES.float64;
  // A value the dtype cannot hold (RangeError ERR_OUT_OF_RANGE) leaves nothing behind.
  return onDevice(opts.device, () => filled(GPUArray.allocate(normalizeShape(shape), d, opts.stream), (a) => fill(a, value, opts.stream)));
}

function seq(name: string, n: number, start: number, step: number, d: DType, stream?: Stream | null): GPUArray {
  const out = GPUArray.allocate([n], d, stream);
  const compute = d.kind === 'f' || d.kind === 'c' ? computeDType(d) : DTYPES.float64;
  const f = compute.name === 'float32' ? 'float' : 'double';
  // start + i * step in floating point, rounded at each step (no FMA) as NumPy computes it.
  const [add, mul] = f === 'float' ? ['__fadd_rn', '__fmul_rn'] : ['__dadd_rn', '__dmul_rn'];
  return filled(out, () => elementwise(name, `r0 = ${add}((${f})x0, ${mul}((${f})i, (${f})x1));`, [{ value: start }, { value: step }],
    [compute, compute], compute, d, { out, stream }));
}

function finiteNumber(v: unknown, name: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `The "${name}" argument must be a finite number. Received ${describe(v)}`);
  }
  return v;
}

/**
 * Evenly spaced values in [start, stop) (`arange(stop)` starts at 0). Default dtype: int64 when
 * every argument is an integer, else float64 (NumPy).
 * @example
 * gpuarray.arange(5); gpuarray.arange(0, 1, 0.25, 'float32');
 */
export function arange(start: number, stop?: number, step = 1, dtype?: DTypeLike, opts: PlaceOptions = {}): GPUArray {
  opts = checkedOptions(opts, 'arange', PLACE_KEYS);
  if (stop === undefined) {
    stop = start;
    start = 0;
  }
  finiteNumber(start, 'start');
  finiteNumber(stop, 'stop');
  finiteNumber(step, 'step');
  if (step === 0) throw rangeError('ERR_OUT_OF_RANGE', 'arange: step must not be 0');
  const n = Math.max(0, Math.ceil((stop - start) / step));
  const d = dtype !== undefined ? toDType(dtype)
    : [start, stop, step].every(Number.isInteger) ? DTYPES.int64 : DTYPES.float64;
  return onDevice(opts.device, () => seq('arange', checkSize(n, 'length'), start, step, d, opts.stream));
}

/**
 * `num` evenly spaced values from start to stop (inclusive unless `endpoint` is false).
 * @example
 * gpuarray.linspace(0, 1, 5); // [0, 0.25, 0.5, 0.75, 1]
 */
export function linspace(start: number, stop: number, num = 50,
  opts: { endpoint?: boolean; dtype?: DTypeLike; stream?: Stream | null; device?: DeviceId } = {}): GPUArray {
  opts = checkedOptions(opts, 'linspace', LINSPACE_KEYS);
  finiteNumber(start, 'start');
  finiteNumber(stop, 'stop');
  checkSize(num, 'num');
  const endpoint = opts.endpoint ?? true;
  const div = endpoint ? num - 1 : num;
  const step = div > 0 ? (stop - start) / div : 0;
  const d = opts.dtype !== undefined ? toDType(opts.dtype) : DTYPES.float64;
  return onDevice(opts.device, () => {
    // Exact last value, like NumPy; converted like the others (a strong float64: no range check).
    return filled(seq('linspace', num, start, step, d, opts.stream),
      (out) => endpoint && num > 1 && fill(out.index(num - 1), float64(stop), opts.stream));
  });
}

// The *Like functions create on `a`'s device unless `opts.device` says otherwise (like torch's).
function likeOpts(a: GPUArray, opts: PlaceOptions, what: string): PlaceOptions {
  opts = checkedOptions(opts, what, PLACE_KEYS);
  return { stream: opts.stream, device: opts.device ?? arrayArg(a, 'a').device };
}

/** Same shape and dtype (or `dtype`), uninitialized, on `a`'s device. @example gpuarray.emptyLike(a) */
export function emptyLike(a: GPUArray, dtype?: DTypeLike, opts: PlaceOptions = {}): GPUArray {
  return empty(arrayArg(a, 'a').shape, dtype ?? a.dtype, likeOpts(a, opts, 'emptyLike'));
}
/** Same shape and dtype, zeros, on `a`'s device. @example gpuarray.zerosLike(a) */
export function zerosLike(a: GPUArray, dtype?: DTypeLike, opts: PlaceOptions = {}): GPUArray {
  return zeros(arrayArg(a, 'a').shape, dtype ?? a.dtype, likeOpts(a, opts, 'zerosLike'));
}
/** Same shape and dtype, ones, on `a`'s device. @example gpuarray.onesLike(a) */
export function onesLike(a: GPUArray, dtype?: DTypeLike, opts: PlaceOptions = {}): GPUArray {
  return ones(arrayArg(a, 'a').shape, dtype ?? a.dtype, likeOpts(a, opts, 'onesLike'));
}

