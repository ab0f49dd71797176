/**
 * Device memory (DeviceAllocation), host↔device copies, memset and page-locked host memory.
 * Host buffers may be any ArrayBuffer or ArrayBufferView; they are normalised here to
 * (buffer, byteOffset, byteLength) before the native call.
 */
import { constants as bufferConstants } from 'buffer';
import { types } from 'util';
import { markAsUntransferable } from 'worker_threads';
import { DTypeLike, TypedArrayConstructor, dtype } from '../base/dtype';
import { CudaError, checkSize, checkedOptions, describe, rangeError, typeError } from '../base/errors';
import { Stream, streamHandle } from './driver';
import { native } from './native';
import { syncDevice } from './scope';
import { debug } from '../base/debug';
import { ABORT_KEYS, type AbortOptions, abortable } from '../base/abort';

/**
 * @internal Library-owned workspaces (reduction counters, scan status arrays): kept for the life
 * of the process and left out of memory()'s live counts, which describe the user's allocations.
 */
export const workspaceAllocations = new Set<DeviceAllocation>();

/**
 * A block of device memory (pycuda.driver.DeviceAllocation). Freed by `free()`, `using`, or —
 * as a backstop — when garbage collected. Its bytes count toward V8's external memory.
 * @example
 * using buf = driver.memAlloc(1024);
 * driver.memcpyHtod(buf, new Float32Array(256));
 */
export class DeviceAllocation {
  /** Device address. */
  readonly ptr: bigint;
  /** Size in bytes. */
  readonly size: number;
  /** @internal ptr modulo 16, for alignment checks without BigInt arithmetic. */
  readonly align16: number;
  /** @internal The stream it was allocated on (null: the legacy stream); frees go there. */
  readonly stream_: NativeAddon.StreamHandle | null;
  #owning: boolean;
  // eslint-disable-next-line no-unused-private-class-members -- holds the module alive, never read
  #owner: unknown;
  #freed = false;
  /** Other streams recorded with the native side (null: the legacy stream), so each goes once. */
  #usedOn: Array<NativeAddon.StreamHandle | null> | null = null;
  /**
   * @internal Use driver.memAlloc(). With `bytes` a number, allocates from the pool (on
   * `stream`); with `view` set, wraps memory it does not own (a module global).
   */
  constructor(bytes: number, stream: Stream | null = null, view?: { ptr: bigint; owner: unknown }) {
    this.size = bytes;
    this.stream_ = view ? null : streamHandle(stream);
    if (view) {
      this.ptr = view.ptr;
      this.#owning = false;
      this.#owner = view.owner; // keeps the module alive
    } else {
      this.ptr = allocRaw(bytes, stream, this);
      this.#owning = bytes > 0;
    }
    this.align16 = Number(this.ptr & 15n);
  }
  /** True after free(). */
  get freed(): boolean {
    return this.#freed;
  }
  /** Frees the memory now (stream-ordered on `stream`, default: legacy stream). Idempotent. */
  free(stream?: Stream | null): void {
    if (this.#freed) return;
    this.#freed = true;
    if (this.#owning) native.memFree(this.ptr, streamHandle(stream));
    this.#owner = undefined;
  }
  /** free(), for `using`. */
  [Symbol.dispose](): void {
    this.free();
  }
  /**
   * Declares that work queued on `stream` (null: the legacy stream) uses this memory, like
   * PyTorch's `record_stream`: its free, on whatever stream, then waits for that work (on the
   * GPU: no host synchronization), so the memory pool does not give it to a new owner while the
   * work may still read or write it. nodecuda records this itself when it launches a kernel or
   * queues a copy on a stream with this memory (or a GPUArray of it); call it for uses it cannot
   * see (a raw `ptr` passed to a kernel, a CUDA library).
   * @example
   * fn(alloc.ptr, { block: [256], grid: [4], stream: s }); alloc.recordStream(s); alloc.free();
   */
  recordStream(stream: Stream | null): void {
    this.useOn_(streamHandle(stream));
  }
  /** @internal recordStream with a native handle; a no-op for the stream it was allocated on. */
  useOn_(stream: NativeAddon.StreamHandle | null): void {
    if (stream === this.stream_ || this.#freed || !this.#owning) return;
    const used = (this.#usedOn ??= []);
    if (used.includes(stream)) return;
    used.push(stream);
    native.memRecordStream(this.ptr, stream);
  }
  /** Whether `v` is a DeviceAllocation (a brand check that cannot be spoofed). */
  static isDeviceAllocation(v: unknown): v is DeviceAllocation {
    return typeof v === 'object' && v !== null && #owning in v;
  }
  /** The address as a bigint, for arithmetic (`Number(alloc)` is refused: addresses exceed 2^53). */
  [Symbol.toPrimitive](hint: string): bigint | string {
    if (hint === 'number') {
      throw typeError('ERR_INVALID_ARG_TYPE', 'A device address does not fit in a number; use alloc.ptr (a bigint)');
    }
    return hint === 'string' ? `DeviceAllocation(0x${this.ptr.toString(16)}, ${this.size} bytes)` : this.ptr;
  }
}

/**
 * Key of the method by which nodecuda's own device-memory views (GPUArray) expose their memory.
 * Not exported from the package, so a plain object cannot pose as device memory.
 */
export const DEVICE_VIEW: unique symbol = Symbol('nodecuda.deviceView');

/** Device memory owned by nodecuda other than a DeviceAllocation (GPUArray). */
export interface DeviceView {
  /** The view's device memory, for copies, launches and textures; a disposed view throws. */
  [DEVICE_VIEW](): {
    /** Device address of the view's first byte. */
    ptr: bigint;
    /** Bytes from `ptr` to the end of the allocation: the most a copy or a texture may use. */
    bytes: number;
  };
}

/** A device argument: a DeviceAllocation, a nodecuda device view (GPUArray) or a raw bigint address. */
export type DeviceLike = DeviceAllocation | DeviceView | bigint;

/** Whether `v` is device memory nodecuda owns (not a raw address). */
export function isDeviceMemory(v: unknown): v is DeviceAllocation | DeviceView {
  return DeviceAllocation.isDeviceAllocation(v) || (typeof v === 'object' && v !== null && DEVICE_VIEW in v);
}

/** Device address and byte size of a device argument; raw bigints have unknown size. */
export function deviceRange(d: unknown, name: string): { ptr: bigint; bytes: number } {
  if (typeof d === 'bigint') {
    if (d < 0n || d >= 2n ** 64n) throw rangeError('ERR_OUT_OF_RANGE', `The "${name}" address is not a 64-bit address`);
    return { ptr: d, bytes: Infinity };
  }
  if (DeviceAllocation.isDeviceAllocation(d)) {
    if (d.freed) throw typeError('ERR_USE_AFTER_FREE', `The "${name}" DeviceAllocation was freed`);
    return { ptr: d.ptr, bytes: d.size };
  }
  if (typeof d === 'object' && d !== null && DEVICE_VIEW in d) return (d as DeviceView)[DEVICE_VIEW]();
  throw typeError('ERR_INVALID_ARG_TYPE',
    `The "${name}" argument must be a DeviceAllocation, a GPUArray or a bigint address. Received ${describe(d)}`);
}

/**
 * @internal Records that work queued on `stream` uses `d` when it is memory nodecuda owns (a
 * DeviceAllocation or a GPUArray), so freeing it waits for that work; raw bigint addresses are
 * the caller's to order (docs/memory.md). Cheap when `stream` is the memory's own stream.
 */
export function useOn(d: unknown, stream: NativeAddon.StreamHandle | null): void {
  if (typeof d !== 'object' || d === null) return;
  const a = DeviceAllocation.isDeviceAllocation(d) ? d : (d as { alloc?: unknown }).alloc;
  if (DeviceAllocation.isDeviceAllocation(a) && a.stream_ !== stream) a.useOn_(stream);
}

/** `stream`'s handle, after recording that each of `uses` (arrays, allocations) is used on it (useOn). @internal */
export function usedOn(stream: Stream | null | undefined, uses: readonly unknown[]): NativeAddon.StreamHandle | null {
  const sh = streamHandle(stream);
  for (const u of uses) useOn(u, sh);
  return sh;
}

/**
 * A host buffer for copies: an ArrayBuffer, a SharedArrayBuffer (useful with worker_threads:
 * writes by other threads during a copy race with it, as with any shared memory) or any view of
 * one (TypedArray, DataView, Buffer).
 */
export type HostBufferLike = ArrayBuffer | SharedArrayBuffer | ArrayBufferView;

/** A host byte range. */
export interface HostRange {
  buffer: ArrayBuffer | SharedArrayBuffer;
  byteOffset: number;
  byteLength: number;
  /**
   * The page-locked registration covering the range (null: pageable). Asynchronous copies hold
   * it until they settle; the native side checks it really covers the range.
   */
  pinned: NativeAddon.HostRegHandle | null;
}

// Page-locked ranges by buffer, so copies know when they may skip staging.
const pinnedRanges = new WeakMap<ArrayBuffer | SharedArrayBuffer, Array<{ start: number; end: number; reg: NativeAddon.HostRegHandle }>>();

function isPinned(buffer: ArrayBuffer | SharedArrayBuffer, start: number, end: number): NativeAddon.HostRegHandle | null {
  const ranges = pinnedRanges.get(buffer);
  return ranges?.find((r) => r.start <= start && end <= r.end)?.reg ?? null;
}

/** Normalises a host buffer argument. */
/**
 * @internal A transferred (detached) buffer looks empty: refuse it instead of copying nothing.
 * Called only for empty ranges, so the common path pays nothing.
 */
export function checkAttached(buffer: unknown, name: string): void {
  if (native.isDetached(buffer)) {
    throw typeError('ERR_INVALID_STATE',
      `The "${name}" argument's ArrayBuffer was transferred (detached): it has no memory to copy`);
  }
}

export function hostRange(h: unknown, name: string): HostRange {
  if (types.isAnyArrayBuffer(h)) {
    if (h.byteLength === 0) checkAttached(h, name);
    return { buffer: h, byteOffset: 0, byteLength: h.byteLength, pinned: isPinned(h, 0, h.byteLength) };
  }
  if (ArrayBuffer.isView(h)) {
    const start = h.byteOffset, length = h.byteLength; // each getter read once
    if (length === 0) checkAttached(h.buffer, name);
    return { buffer: h.buffer, byteOffset: start, byteLength: length, pinned: isPinned(h.buffer, start, start + length) };
  }
  throw typeError('ERR_INVALID_ARG_TYPE',
    `The "${name}" argument must be an ArrayBuffer, a TypedArray, a DataView or a Buffer. Received ${describe(h)}`);
}

/** @internal Whether `e` is a CudaError CUDA_ERROR_OUT_OF_MEMORY. */
export function isOom(e: unknown): boolean {
  return e instanceof CudaError && e.code === 'CUDA_ERROR_OUT_OF_MEMORY';
}

let forcedGc: (() => void) | null | undefined;

/** A synchronous garbage collection: global.gc when exposed, otherwise V8's, enabled on demand. */
function gcNow(): void {
  if (forcedGc === undefined) {
    forcedGc = (globalThis as { gc?: () => void }).gc ?? null;
    if (!forcedGc) {
      try {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        require('v8').setFlagsFromString('--expose-gc');
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        forcedGc = require('vm').runInNewContext('gc') as () => void;
      } catch {
        forcedGc = null;
      }
    }
  }
  forcedGc?.();
}

// The pool's reserved bytes last reported per device (NODE_DEBUG=nodecuda only).
const poolReserved = new Map<number, number>();

/** Logs when the current device's pool reserved more memory (NODE_DEBUG=nodecuda). */
function notePoolGrowth(bytes: number): void {
  const [reserved] = native.poolInfo();
  const device = native.currentDevice();
  const before = poolReserved.get(device) ?? 0;
  if (reserved <= before) return;
  poolReserved.set(device, reserved);
  const mib = (b: number): string => `${(b / 2 ** 20).toFixed(1)} MiB`;
  debug(`memory pool of device ${device} grew from ${mib(before)} to ${mib(reserved)} (allocating ${bytes} bytes)`);
}

// Out-of-memory recovery steps, tried in order before giving up.
const recover = [
  () => native.memCollect(),
  () => { gcNow(); native.memCollect(); },
  () => native.poolTrim(),
];

/**
 * Allocates from the driver's stream-ordered pool for `owner`. On out-of-memory it frees memory
 * of allocations the garbage collector found unreachable, then collects garbage and tries
 * again, then trims the pool and tries once more, then throws CudaError
 * `CUDA_ERROR_OUT_OF_MEMORY` with `requestedBytes` and `freeBytes`.
 * @internal
 */
export function allocRaw(bytes: number, stream: Stream | null | undefined, owner: object): bigint {
  const s = streamHandle(stream);
  syncDevice();
  for (let attempt = 0; ; attempt++) {
    try {
      const ptr = native.memAlloc(bytes, s, owner);
      if (debug.enabled) notePoolGrowth(bytes);
      return ptr;
    } catch (e) {
      if (!isOom(e)) throw e;
      if (attempt < recover.length) {
        recover[attempt]();
        continue;
      }
      const err = e as CudaError;
      const [free] = native.memGetInfo();
      err.requestedBytes = bytes;
      err.freeBytes = free;
      err.message = `Out of device memory: ${bytes} bytes requested, ${free} bytes free (${err.message})`;
      throw err;
    }
  }
}

/**
 * Allocates `bytes` of device memory.
 * @example
 * const a = driver.memAlloc(4 * n); ... a.free();
 */
export function memAlloc(bytes: number): DeviceAllocation {
  return new DeviceAllocation(checkSize(bytes, 'bytes'));
}

/**
 * Allocates device memory of the same byte size as a host array.
 * @example
 * const d = driver.memAllocLike(hostFloat32Array);
 */
export function memAllocLike(host: HostBufferLike): DeviceAllocation {
  return memAlloc(hostRange(host, 'host').byteLength);
}

function checkFits(bytes: number, room: number, what: string): void {
  if (bytes > room) {
    throw rangeError('ERR_OUT_OF_RANGE', `${what}: ${bytes} bytes do not fit in ${room} bytes`);
  }
}

/**
 * Copies a host buffer to device memory (blocking). Large copies from ordinary (pageable)
 * memory are staged through page-locked buffers on several threads.
 * @example
 * driver.memcpyHtod(alloc, new Float32Array([1, 2, 3]));
 */
export function memcpyHtod(dst: DeviceLike, src: HostBufferLike): void {
  const d = deviceRange(dst, 'dst');
  const h = hostRange(src, 'src');
  checkFits(h.byteLength, d.bytes, 'memcpyHtod: destination too small');
  useOn(dst, null); // a small pageable copy may still be in flight when this returns
  syncDevice();
  native.memcpyHtod(d.ptr, h.buffer, h.byteOffset, h.byteLength, h.pinned);
}

/**
 * Copies device memory into a host buffer (blocking); copies `dst.byteLength` bytes.
 * @example
 * const out = new Float32Array(3); driver.memcpyDtoh(out, alloc);
 */
export function memcpyDtoh(dst: HostBufferLike, src: DeviceLike): void {
  const h = hostRange(dst, 'dst');
  const s = deviceRange(src, 'src');
  checkFits(h.byteLength, s.bytes, 'memcpyDtoh: source too small for the destination');
  syncDevice();
  native.memcpyDtoh(h.buffer, h.byteOffset, h.byteLength, s.ptr, h.pinned);
}

/**
 * Copies `bytes` between device buffers (ordered on the legacy stream).
 * @example
 * driver.memcpyDtod(b, a, a.size);
 */
export function memcpyDtod(dst: DeviceLike,
  src: DeviceLike, bytes: number): void {
  const d = deviceRange(dst, 'dst'), s = deviceRange(src, 'src');
  checkSize(bytes, 'bytes');
  checkFits(bytes, Math.min(d.bytes, s.bytes), 'memcpyDtod');
  useOn(dst, null);
  useOn(src, null);
  syncDevice();
  native.memcpyDtod(d.ptr, s.ptr, bytes, null, false);
}

/**
 * Queues a host→device copy on `stream` and resolves when it is done. The source must not
 * change until then when it is page-locked; pageable sources are staged before this returns
 * (they may be changed or transferred at once).
 * @example
 * await driver.memcpyHtodAsync(alloc, data, stream);
 */
export function memcpyHtodAsync(dst: DeviceLike, src: HostBufferLike,
  stream?: Stream | null, opts: AbortOptions = {}): Promise<void> {
  const d = deviceRange(dst, 'dst');
  const h = hostRange(src, 'src');
  checkFits(h.byteLength, d.bytes, 'memcpyHtodAsync: destination too small');
  const { signal } = checkedOptions(opts, 'memcpyHtodAsync', ABORT_KEYS);
  const sh = streamHandle(stream);
  useOn(dst, sh);
  syncDevice();
  return abortable(() => native.memcpyHtodAsync(d.ptr, h.buffer, h.byteOffset, h.byteLength, h.pinned, sh), signal);
}

/**
 * Queues a device→host copy on `stream`; the destination holds the data when the Promise
 * resolves. The event loop is never blocked. A pageable destination is written when the Promise
 * settles: if its buffer was transferred (detached) or shrunk meanwhile, nothing is written and
 * the Promise rejects with TypeError `ERR_INVALID_STATE` (the device memory is unchanged).
 * Page-locked destinations cannot be transferred (see registerHostMemory).
 * @example
 * const out = new Float32Array(n); await driver.memcpyDtohAsync(out, alloc);
 */
export function memcpyDtohAsync(dst: HostBufferLike, src: DeviceLike,
  stream?: Stream | null, opts: AbortOptions = {}): Promise<void> {
  const h = hostRange(dst, 'dst');
  const s = deviceRange(src, 'src');
  checkFits(h.byteLength, s.bytes, 'memcpyDtohAsync: source too small for the destination');
  const { signal } = checkedOptions(opts, 'memcpyDtohAsync', ABORT_KEYS);
  const sh = streamHandle(stream);
  useOn(src, sh);
  syncDevice();
  return abortable(() => native.memcpyDtohAsync(h.buffer, h.byteOffset, h.byteLength, s.ptr, h.pinned, sh), signal);
}

/**
 * Queues a device→device copy on `stream`; resolves when done.
 * @example
 * await driver.memcpyDtodAsync(b, a, a.size, stream);
 */
export function memcpyDtodAsync(dst: DeviceLike,
  src: DeviceLike, bytes: number, stream?: Stream | null, opts: AbortOptions = {}): Promise<void> {
  const d = deviceRange(dst, 'dst'), s = deviceRange(src, 'src');
  checkSize(bytes, 'bytes');
  checkFits(bytes, Math.min(d.bytes, s.bytes), 'memcpyDtodAsync');
  const { signal } = checkedOptions(opts, 'memcpyDtodAsync', ABORT_KEYS);
  const sh = streamHandle(stream);
  useOn(dst, sh);
  useOn(src, sh);
  syncDevice();
  return abortable(() => native.memcpyDtod(d.ptr, s.ptr, bytes, sh, true), signal);
}

function memsetImpl(width: 1 | 2 | 4, dst: DeviceLike, value: number,
  count: number, stream: Stream | null | undefined, async: boolean): Promise<void> | void {
  const d = deviceRange(dst, 'dst');
  checkSize(count, 'count');
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value >= 2 ** (8 * width)) {
    throw rangeError('ERR_OUT_OF_RANGE', `memsetD${8 * width}: value must be an integer in [0, ${2 ** (8 * width) - 1}]`);
  }
  checkFits(count * width, d.bytes, `memsetD${8 * width}`);
  const sh = streamHandle(stream);
  useOn(dst, sh);
  syncDevice();
  return async
    ? native.memset(d.ptr, value, count, width, sh, true)
    : native.memset(d.ptr, value, count, width, sh, false);
}

/** Sets `count` bytes to `value`. @example driver.memsetD8(alloc, 0, alloc.size); */
export function memsetD8(dst: DeviceLike, value: number, count: number): void {
  memsetImpl(1, dst, value, count, null, false);
}
/** Sets `count` 16-bit words. @example driver.memsetD16(alloc, 0xffff, n); */
export function memsetD16(dst: DeviceLike, value: number, count: number): void {
  memsetImpl(2, dst, value, count, null, false);
}
/** Sets `count` 32-bit words. @example driver.memsetD32(alloc, 0x3f800000, n); // 1.0f */
export function memsetD32(dst: DeviceLike, value: number, count: number): void {
  memsetImpl(4, dst, value, count, null, false);
}
/** Async memsetD8 on `stream`. @example await driver.memsetD8Async(a, 0, a.size, s); */
export function memsetD8Async(dst: DeviceLike, value: number, count: number,
  stream?: Stream | null): Promise<void> {
  return memsetImpl(1, dst, value, count, stream, true) as Promise<void>;
}
/** Async memsetD16 on `stream`. @example await driver.memsetD16Async(a, 1, n, s); */
export function memsetD16Async(dst: DeviceLike, value: number, count: number,
  stream?: Stream | null): Promise<void> {
  return memsetImpl(2, dst, value, count, stream, true) as Promise<void>;
}
/** Async memsetD32 on `stream`. @example await driver.memsetD32Async(a, 1, n, s); */
export function memsetD32Async(dst: DeviceLike, value: number, count: number,
  stream?: Stream | null): Promise<void> {
  return memsetImpl(4, dst, value, count, stream, true) as Promise<void>;
}

// ---- page-locked host memory -------------------------------------------------------------

/** Any of the TypedArrays nodecuda uses for host data. */
export type AnyTypedArray = InstanceType<TypedArrayConstructor>;

// Unregisters when the TypedArray is collected; the held value keeps the buffer alive until then.
const unpin = new FinalizationRegistry<{ reg: NativeAddon.HostRegHandle; buffer: ArrayBuffer | SharedArrayBuffer }>(
  ({ reg, buffer }) => release(buffer, reg),
);

function release(buffer: ArrayBuffer | SharedArrayBuffer, reg: NativeAddon.HostRegHandle): boolean {
  const ranges = pinnedRanges.get(buffer);
  if (ranges) {
    const i = ranges.findIndex((r) => r.reg === reg);
    if (i >= 0) ranges.splice(i, 1);
  }
  return native.hostUnregister(reg);
}

/**
 * Page-locks a view's memory. The DMA engine reads and writes it directly, also while an
 * asynchronous copy is in flight, so the memory must stay where it is: the native registration
 * holds the buffer, the buffer is marked untransferable (postMessage/structuredClone then copy
 * it instead of moving it out from under the registration), and resizable ArrayBuffers are
 * refused. A SharedArrayBuffer cannot be transferred or shrunk and needs neither.
 */
function pin<T extends ArrayBufferView>(view: T): T {
  const h = hostRange(view, 'array');
  if (h.pinned) return view;
  if (!types.isSharedArrayBuffer(h.buffer)) {
    if ((h.buffer as { resizable?: boolean }).resizable) {
      throw typeError('ERR_INVALID_ARG_VALUE',
        'A resizable ArrayBuffer cannot be page-locked: resizing it could release memory the GPU writes. ' +
        'Use a fixed-length ArrayBuffer');
    }
    markAsUntransferable(h.buffer);
  }
  const reg = native.hostRegister(h.buffer, h.byteOffset, h.byteLength);
  const ranges = pinnedRanges.get(h.buffer) ?? [];
  ranges.push({ start: h.byteOffset, end: h.byteOffset + h.byteLength, reg });
  pinnedRanges.set(h.buffer, ranges);
  unpin.register(view, { reg, buffer: h.buffer }, view);
  return view;
}

function shapeSize(shape: number | readonly number[]): number {
  const dims = typeof shape === 'number' ? [shape] : shape;
  if (!Array.isArray(dims) && typeof shape !== 'number') {
    throw typeError('ERR_INVALID_ARG_TYPE', `shape must be a number or an array of numbers. Received ${describe(shape)}`);
  }
  return dims.reduce((n: number, d, i) => n * checkSize(d, `shape[${i}]`), 1);
}

const PAGE = 4096;
// The most elements a TypedArray may have in this runtime (Node 20: 2^32).
const MAX_HOST_LENGTH = bufferConstants.MAX_LENGTH;

/**
 * A TypedArray of `shape`'s size whose memory is page-locked (fast, asynchronous DMA). The
 * memory is an ordinary JS ArrayBuffer registered with the driver, unregistered when the array
 * is garbage collected or by `unregisterHostMemory`.
 * @example
 * const host = driver.pagelockedEmpty([1024, 1024], 'float32');
 */
export function pagelockedEmpty(shape: number | readonly number[], dt: DTypeLike = 'float64'): AnyTypedArray {
  const d = dtype(dt);
  const n = shapeSize(shape) * (d.kind === 'c' ? 2 : 1);
  const bytes = n * d.array.BYTES_PER_ELEMENT;
  // Whole pages of its own, so two registrations never share a page.
  const padded = Math.ceil(bytes / PAGE) * PAGE + PAGE;
  if (n > MAX_HOST_LENGTH) {
    throw rangeError('ERR_OUT_OF_RANGE', `pagelockedEmpty: ${n} elements is more than a TypedArray can hold here (${MAX_HOST_LENGTH})`);
  }
  let buffer: ArrayBuffer;
  try {
    buffer = new ArrayBuffer(padded);
  } catch (e) {
    throw rangeError('ERR_MEMORY_ALLOCATION_FAILED', `pagelockedEmpty: cannot allocate ${bytes} bytes of host memory (${(e as Error).message})`);
  }
  const offset = bytes === 0 ? 0 : native.hostPageOffset(buffer);
  return pin(new d.array(buffer, offset, n) as AnyTypedArray);
}

/** Like pagelockedEmpty (the memory is zeroed). @example driver.pagelockedZeros(16, 'int32') */
export function pagelockedZeros(shape: number | readonly number[], dt: DTypeLike = 'float64'): AnyTypedArray {
  return pagelockedEmpty(shape, dt);
}

/**
 * Page-locks an existing TypedArray's memory in place; returns the same array. Its ArrayBuffer
 * becomes untransferable for good (postMessage and structuredClone copy it instead), and a
 * resizable ArrayBuffer is refused (TypeError `ERR_INVALID_ARG_VALUE`). A SharedArrayBuffer may
 * be registered; other threads writing it during a copy race with the copy, as with any memory.
 * @example
 * const a = driver.registerHostMemory(new Float32Array(1 << 20));
 */
export function registerHostMemory<T extends ArrayBufferView>(array: T): T {
  hostRange(array, 'array');
  return pin(array);
}

/**
 * Unlocks memory locked by registerHostMemory/pagelockedEmpty. Returns false if it was not locked.
 * While asynchronous copies use the memory, it is unlocked when the last of them settles.
 * @example
 * driver.unregisterHostMemory(a);
 */
export function unregisterHostMemory(array: ArrayBufferView): boolean {
  const h = hostRange(array, 'array');
  const ranges = pinnedRanges.get(h.buffer);
  const r = ranges?.find((x) => x.start === h.byteOffset && x.end === h.byteOffset + h.byteLength);
  if (!r) return false;
  unpin.unregister(array);
  return release(h.buffer, r.reg);
}
