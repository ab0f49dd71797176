/**
 * CUDA arrays (pycuda.driver.Array), 2-D/3-D copies (Memcpy2D/Memcpy3D), pitched allocations,
 * and texture and surface objects (the CUDA 12+ replacement for PyCUDA's texture references).
 * Layouts, defaults and range checks are decided here; src/array.cc calls the driver.
 */
import { DTypeLike, DType, dtype as toDType, dtypeOfArray } from '../base/dtype';
import { checkSize, checkedOptions, describe, knownOptions, rangeError, typeError } from '../base/errors';
import { Stream, streamHandle } from './driver';
import { DeviceAllocation, DeviceLike, deviceRange, hostRange, isDeviceMemory, useOn } from './memory';
import { native } from './native';
import type { GPUArray } from '../array/gpuarray';

/** CUarray_format values (pycuda.driver.array_format). */
export const arrayFormat = Object.freeze({
  /** CU_AD_FORMAT_UNSIGNED_INT8: uint8 channels. */
  UNSIGNED_INT8: 0x01,
  /** CU_AD_FORMAT_UNSIGNED_INT16: uint16 channels. */
  UNSIGNED_INT16: 0x02,
  /** CU_AD_FORMAT_UNSIGNED_INT32: uint32 channels. */
  UNSIGNED_INT32: 0x03,
  /** CU_AD_FORMAT_SIGNED_INT8: int8 channels. */
  SIGNED_INT8: 0x08,
  /** CU_AD_FORMAT_SIGNED_INT16: int16 channels. */
  SIGNED_INT16: 0x09,
  /** CU_AD_FORMAT_SIGNED_INT32: int32 channels. */
  SIGNED_INT32: 0x0a,
  /** CU_AD_FORMAT_HALF: float16 channels. */
  HALF: 0x10,
  /** CU_AD_FORMAT_FLOAT: float32 channels. */
  FLOAT: 0x20,
});
/** CUDA_ARRAY3D_* flags (pycuda.driver.array3d_flags). */
export const arrayFlags = Object.freeze({
  /** CUDA_ARRAY3D_LAYERED: an array of layers; `depth` is the number of layers. */
  LAYERED: 0x01,
  /** CUDA_ARRAY3D_SURFACE_LDST: surface objects may read and write the array (SurfaceObject requires it). */
  SURFACE_LDST: 0x02,
  /** CUDA_ARRAY3D_CUBEMAP: a cube map; width equals height, depth is 6 (a multiple of 6 with LAYERED). */
  CUBEMAP: 0x04,
  /** CUDA_ARRAY3D_TEXTURE_GATHER: a 2-D array that texture gather (tex2Dgather) may read. */
  TEXTURE_GATHER: 0x08,
});
/** CUaddress_mode values. */
export const addressMode = Object.freeze({
  /** CU_TR_ADDRESS_MODE_WRAP: coordinates wrap around (normalized coordinates only). */
  WRAP: 0,
  /** CU_TR_ADDRESS_MODE_CLAMP: coordinates are clamped to the edge. */
  CLAMP: 1,
  /** CU_TR_ADDRESS_MODE_MIRROR: coordinates are mirrored at the edges (normalized coordinates only). */
  MIRROR: 2,
  /** CU_TR_ADDRESS_MODE_BORDER: reads outside the texture return the border colour. */
  BORDER: 3,
});
/** CUfilter_mode values. */
export const filterMode = Object.freeze({
  /** CU_TR_FILTER_MODE_POINT: the nearest element. */
  POINT: 0,
  /** CU_TR_FILTER_MODE_LINEAR: linear interpolation between neighbouring elements (float results only). */
  LINEAR: 1,
});
/** CU_TRSF_* texture flags (pycuda.driver.TRSF_*). */
export const textureFlags = Object.freeze({
  /** CU_TRSF_READ_AS_INTEGER: integer formats read as integers, not converted to normalized floats. */
  READ_AS_INTEGER: 0x01,
  /** CU_TRSF_NORMALIZED_COORDINATES: coordinates in [0, 1) instead of [0, size). */
  NORMALIZED_COORDINATES: 0x02,
  /** CU_TRSF_SRGB: sRGB to linear conversion on reads. */
  SRGB: 0x10,
});

const FORMAT_DTYPE: Record<number, DType['name']> = {
  0x01: 'uint8', 0x02: 'uint16', 0x03: 'uint32', 0x08: 'int8', 0x09: 'int16', 0x0a: 'int32', 0x10: 'float16', 0x20: 'float32',
};
const DTYPE_FORMAT: Record<string, number> = Object.fromEntries(
  Object.entries(FORMAT_DTYPE).map(([f, d]) => [d, Number(f)]));

/** A format given as a CUarray_format number or as the dtype of one channel. */
export type ArrayFormatLike = number | DTypeLike;

/** @internal The CUarray_format of `f`; TypeError for a dtype arrays cannot hold (float64, …). */
export function formatOf(f: ArrayFormatLike, name = 'format'): number {
  if (typeof f === 'number') {
    if (FORMAT_DTYPE[f] === undefined) throw rangeError('ERR_OUT_OF_RANGE', `The "${name}" ${f} is not a CUarray_format`);
    return f;
  }
  const dt = toDType(f);
  const fmt = DTYPE_FORMAT[dt.name];
  if (fmt === undefined) {
    throw typeError('ERR_INVALID_ARG_VALUE',
      `CUDA arrays and textures hold uint8/16/32, int8/16/32, float16 or float32 channels, not ${dt.name}`);
  }
  return fmt;
}

/** The dtype of one channel of a CUarray_format. */
export function formatDType(format: number): DType {
  return toDType(FORMAT_DTYPE[format]);
}

function channelsOf(n: unknown, name = 'numChannels'): 1 | 2 | 4 {
  if (n === undefined) return 1;
  if (n !== 1 && n !== 2 && n !== 4) throw rangeError('ERR_OUT_OF_RANGE', `The "${name}" must be 1, 2 or 4. Received ${describe(n)}`);
  return n;
}

/**
 * Shape and element format of a CUDA array (pycuda.driver.ArrayDescriptor / ArrayDescriptor3D):
 * `height` 0 (or absent) makes a 1-D array, `depth` 0 a 2-D one.
 */
export interface ArrayDescriptor {
  /** A CUarray_format (`driver.arrayFormat.FLOAT`) or the dtype of one channel ('float32'). */
  format: ArrayFormatLike;
  /** Channels per element: 1, 2 or 4 (default 1). */
  numChannels?: 1 | 2 | 4;
  /** Width in elements (CUDA_ARRAY3D_DESCRIPTOR.Width); at least 1. */
  width: number;
  /** Height in elements (Height); 0 or absent for a 1-D array. */
  height?: number;
  /** Depth in elements (Depth); 0 or absent for a 1-D or 2-D array. A depth needs a height of at least 1. */
  depth?: number;
  /** `driver.arrayFlags` bits; `SURFACE_LDST` lets surface objects read and write it. */
  flags?: number;
}

/** An ArrayDescriptor as the driver reports it. */
export interface ArrayDescriptorInfo {
  /** CUarray_format of each channel (CUDA_ARRAY3D_DESCRIPTOR.Format), a `driver.arrayFormat` value. */
  format: number;
  /** Channels per element (NumChannels). */
  numChannels: 1 | 2 | 4;
  /** Width in elements (Width). */
  width: number;
  /** Height in elements (Height); 0 for a 1-D array. */
  height: number;
  /** Depth in elements (Depth); 0 for a 1-D or 2-D array. */
  depth: number;
  /** `driver.arrayFlags` bits (Flags). */
  flags: number;
  /** dtype of one channel. */
  dtype: DType;
  /** Bytes per element (all channels). */
  elementBytes: number;
}

function describeArray(raw: readonly number[]): ArrayDescriptorInfo {
  const [format, channels, width, height, depth, flags] = raw;
  const dt = formatDType(format);
  return Object.freeze({
    format, numChannels: channels as 1 | 2 | 4, width, height, depth, flags, dtype: dt, elementBytes: dt.bytes * channels,
  });
}

/** Something disposed with the array it reads (texture and surface objects). */
interface Dependent { dispose(): void }

/**
 * A CUDA array (pycuda.driver.Array): opaque texture-layout memory for texture and surface
 * objects; filled and read with memcpy2D/memcpy3D. Freed by `free()`, `using`, or when collected.
 * @example
 * using arr = new driver.Array({ format: 'float32', width: 64, height: 32 });
 * driver.memcpy2D({ src: new Float32Array(64 * 32), dst: arr });
 */
export class CudaArray {
  /** @internal */
  readonly handle_: NativeAddon.ArrayHandle;
  /** The descriptor the driver reports. */
  readonly descriptor: ArrayDescriptorInfo;
  #freed = false;
  #reason = 'was freed';
  readonly #dependents = new Set<Dependent>();
  // eslint-disable-next-line no-unused-private-class-members -- keeps a mapping alive, never read
  #owner: unknown;

  constructor(desc: ArrayDescriptor);
  /** @internal Wraps an array nodecuda does not own (a mapped GL texture). */
  constructor(desc: ArrayDescriptor | null, mapped: { handle: NativeAddon.ArrayHandle; owner: unknown });
  constructor(desc: ArrayDescriptor | null, mapped?: { handle: NativeAddon.ArrayHandle; owner: unknown }) {
    if (mapped) {
      this.handle_ = mapped.handle;
      this.#owner = mapped.owner;
    } else {
      if (typeof desc !== 'object' || desc === null) {
        throw typeError('ERR_INVALID_ARG_TYPE', `An ArrayDescriptor object is required. Received ${describe(desc)}`);
      }
      const width = checkSize(desc.width, 'width');
      const height = desc.height === undefined ? 0 : checkSize(desc.height, 'height');
      const depth = desc.depth === undefined ? 0 : checkSize(desc.depth, 'depth');
      if (width === 0 || (depth > 0 && height === 0)) {
        throw rangeError('ERR_OUT_OF_RANGE', 'A CUDA array needs width ≥ 1 (and height ≥ 1 when depth is given)');
      }
      const flags = desc.flags === undefined ? 0 : checkSize(desc.flags, 'flags', 0xffff);
      this.handle_ = native.arrayCreate(formatOf(desc.format), channelsOf(desc.numChannels), width, height, depth, flags);
    }
    this.descriptor = describeArray(native.arrayDescriptor(this.handle_));
  }

  /** pycuda's `get_descriptor()` / `get_descriptor_3d()`. */
  getDescriptor(): ArrayDescriptorInfo {
    this.check_();
    return this.descriptor;
  }

  /** True after free() (or, for a mapped texture's array, after unmap). */
  get freed(): boolean {
    return this.#freed;
  }

  /** Frees the array now, with the texture and surface objects made from it. Idempotent. */
  free(): void {
    this.invalidate_('was freed');
  }

  /** free(), for `using`. */
  [Symbol.dispose](): void {
    this.free();
  }

  /** @internal Ends the array's use (free, or its mapping ended), disposing its dependents. */
  invalidate_(reason: string): void {
    if (this.#freed) return;
    this.#freed = true;
    this.#reason = reason;
    for (const d of this.#dependents) d.dispose();
    this.#dependents.clear();
    native.arrayDestroy(this.handle_);
    this.#owner = undefined;
  }

  /** @internal Throws ERR_USE_AFTER_FREE after free()/unmap. */
  check_(): this {
    if (this.#freed) throw typeError('ERR_USE_AFTER_FREE', `This CUDA array ${this.#reason}`);
    return this;
  }

  /** @internal A texture/surface object disposed with this array. */
  addDependent_(d: Dependent): void {
    this.#dependents.add(d);
  }

  /** @internal */
  removeDependent_(d: Dependent): void {
    this.#dependents.delete(d);
  }
}

// ---- pitched memory ----------------------------------------------------------------------------

/**
 * Row pitch of memAllocPitch: rows start on 512-byte boundaries, which satisfies every GPU's
 * texture pitch alignment (32 on sm_90) and what cuMemAllocPitch chooses for coalescing.
 */
const PITCH_ALIGN = 512;

const pitches = new WeakMap<DeviceAllocation, number>();

/**
 * Device memory for `height` rows of `widthInBytes` bytes, rows `pitch` bytes apart
 * (pycuda.driver.mem_alloc_pitch). The pitch is remembered: memcpy2D/3D use it by default.
 * @example
 * const [dev, pitch] = driver.memAllocPitch(640 * 4, 480, 4);
 */
export function memAllocPitch(widthInBytes: number, height: number, elementSize = 4): [DeviceAllocation, number] {
  checkSize(widthInBytes, 'widthInBytes');
  checkSize(height, 'height');
  if (![4, 8, 16].includes(elementSize)) {
    throw rangeError('ERR_OUT_OF_RANGE', `The "elementSize" must be 4, 8 or 16. Received ${describe(elementSize)}`);
  }
  const pitch = Math.max(PITCH_ALIGN, Math.ceil(widthInBytes / PITCH_ALIGN) * PITCH_ALIGN);
  const alloc = new DeviceAllocation(pitch * height);
  pitches.set(alloc, pitch);
  return [alloc, pitch];
}

// ---- 2-D / 3-D copies --------------------------------------------------------------------------

/** One end of a 2-D/3-D copy: host memory, device memory or a CUDA array. */
export type CopyEnd = ArrayBuffer | ArrayBufferView | DeviceLike | CudaArray;

/** A 2-D copy (cuMemcpy2D): `widthInBytes` × `height` bytes; x offsets are in bytes. */
export interface Memcpy2DOptions {
  /** Where the copy reads: a host buffer, device memory or a CudaArray. */
  src: CopyEnd;
  /** Where the copy writes: a host buffer, device memory or a CudaArray. */
  dst: CopyEnd;
  /** Bytes per row copied (default: the array's row, else the source pitch). */
  widthInBytes?: number;
  /** Rows copied (default: the array's height, else 1). */
  height?: number;
  /**
   * Bytes between rows of a host/device source (CUDA_MEMCPY3D.srcPitch); default: memAllocPitch's
   * pitch, else widthInBytes. Unused for a CudaArray.
   */
  srcPitch?: number;
  /**
   * Bytes between rows of a host/device destination (dstPitch); default: memAllocPitch's pitch,
   * else widthInBytes. Unused for a CudaArray.
   */
  dstPitch?: number;
  /** Byte offset in each source row where the copy starts (srcXInBytes); default 0. */
  srcXInBytes?: number;
  /** First source row copied (srcY); default 0. */
  srcY?: number;
  /** Byte offset in each destination row where the copy starts (dstXInBytes); default 0. */
  dstXInBytes?: number;
  /** First destination row written (dstY); default 0. */
  dstY?: number;
}

/** A 3-D copy (cuMemcpy3D): `depth` slices of `height` rows. */
export interface Memcpy3DOptions extends Memcpy2DOptions {
  /** Slices copied (CUDA_MEMCPY3D.Depth); default: the array's depth, else 1. */
  depth?: number;
  /**
   * Rows per slice of a host/device source (srcHeight); default srcY + height, the rows the copy
   * reaches. Unused for a CudaArray.
   */
  srcHeight?: number;
  /** Rows per slice of a host/device destination (dstHeight); default dstY + height. Unused for a CudaArray. */
  dstHeight?: number;
  /** First source slice copied (srcZ); default 0. */
  srcZ?: number;
  /** First destination slice written (dstZ); default 0. */
  dstZ?: number;
}

/** @internal */
export interface Side {
  kind: 0 | 1 | 2;
  host?: ArrayBuffer | Uint8Array;
  byteOffset?: number;
  byteLength?: number;
  ptr?: bigint;
  array?: NativeAddon.ArrayHandle;
  x: number; y: number; z: number; pitch: number; height: number;
}

function optSize(v: number | undefined, name: string, dflt: number): number {
  return v === undefined ? dflt : checkSize(v, name);
}

function arrayExtent(a: CudaArray): { rowBytes: number; rows: number; slices: number } {
  const d = a.check_().descriptor;
  return { rowBytes: d.width * d.elementBytes, rows: Math.max(d.height, 1), slices: Math.max(d.depth, 1) };
}

function side(end: CopyEnd, which: 'src' | 'dst', o: Memcpy3DOptions, width: number, height: number,
  depth: number): Side {
  const x = optSize(o[`${which}XInBytes`], `${which}XInBytes`, 0);
  const y = optSize(o[`${which}Y`], `${which}Y`, 0);
  const z = optSize(o[`${which}Z`], `${which}Z`, 0);
  if (end instanceof CudaArray) {
    const e = arrayExtent(end);
    if (x + width > e.rowBytes || y + height > e.rows || z + depth > e.slices) {
      throw rangeError('ERR_OUT_OF_RANGE',
        `The copy (${width} bytes × ${height} rows × ${depth} at x=${x}, y=${y}, z=${z}) does not fit the ${which} ` +
        `array (${e.rowBytes} bytes × ${e.rows} × ${e.slices})`);
    }
    return { kind: 2, array: end.handle_, x, y, z, pitch: 0, height: 0 };
  }
  const pitch = optSize(o[`${which}Pitch`], `${which}Pitch`,
    (DeviceAllocation.isDeviceAllocation(end) && pitches.get(end)) || width);
  // Rows per slice: the driver wants y + height within it even for one slice, so the default
  // is the rows the copy reaches (give srcHeight/dstHeight for sub-boxes of taller slices).
  const rows = optSize(o[`${which}Height`], `${which}Height`, y + height);
  if (height > 1 && pitch < x + width) {
    throw rangeError('ERR_OUT_OF_RANGE', `The "${which}Pitch" (${pitch}) is less than x + widthInBytes (${x + width})`);
  }
  if (depth > 1 && rows < y + height) {
    throw rangeError('ERR_OUT_OF_RANGE', `The "${which}Height" (${rows}) is less than y + height (${y + height})`);
  }
  const need = width && height && depth ? (z + depth - 1) * pitch * rows + (y + height - 1) * pitch + x + width : 0;
  if (isDeviceMemory(end) || typeof end === 'bigint') {
    const r = deviceRange(end, which);
    if (need > r.bytes) {
      throw rangeError('ERR_OUT_OF_RANGE', `The copy reaches byte ${need} of the ${which} device memory of ${r.bytes} bytes`);
    }
    return { kind: 1, ptr: r.ptr, x, y, z, pitch, height: rows };
  }
  const h = hostRange(end, which);
  if (need > h.byteLength) {
    throw rangeError('ERR_OUT_OF_RANGE', `The copy reaches byte ${need} of the ${which} host buffer of ${h.byteLength} bytes`);
  }
  // The native side takes an ArrayBuffer or a view (a SharedArrayBuffer travels as a view).
  const host = h.buffer instanceof ArrayBuffer ? h.buffer : new Uint8Array(h.buffer);
  return { kind: 0, host, byteOffset: h.byteOffset, byteLength: h.byteLength, x, y, z, pitch, height: rows };
}

// The fields each copy reads: any other (PyCUDA's WidthInBytes or width_in_bytes, a misspelt
// srcPitch) would copy with a default in its place, so it is a TypeError. A 2-D copy takes a z of
// 0 unlisted; its depth and other z are refused with a message that names memcpy3D.
const COPY_2D_KEYS = ['src', 'dst', 'widthInBytes', 'height', 'srcPitch', 'dstPitch', 'srcXInBytes', 'srcY', 'dstXInBytes', 'dstY'];
const COPY_3D_KEYS = [...COPY_2D_KEYS, 'depth', 'srcHeight', 'dstHeight', 'srcZ', 'dstZ'];

/** @internal The native copy's two sides and extent (exported for tests); `what` names the call in errors. */
export function plan(o: Memcpy3DOptions, is3D: boolean, what = is3D ? 'memcpy3D' : 'memcpy2D'): [Side, Side, number, number, number] {
  if (typeof o !== 'object' || o === null) {
    throw typeError('ERR_INVALID_ARG_TYPE', `The copy options must be an object. Received ${describe(o)}`);
  }
  if (!is3D && (o.depth !== undefined || o.srcZ || o.dstZ || o.srcHeight !== undefined || o.dstHeight !== undefined)) {
    throw typeError('ERR_INVALID_ARG_VALUE', 'memcpy2D copies one slice: use memcpy3D for depth, z and slice heights');
  }
  knownOptions(o, what, is3D ? COPY_3D_KEYS : COPY_2D_KEYS, is3D ? [] : ['srcZ', 'dstZ']);
  const arr = o.src instanceof CudaArray ? o.src : o.dst instanceof CudaArray ? o.dst : null;
  const ext = arr ? arrayExtent(arr) : null;
  const hostWidth = (o.srcPitch ?? (DeviceAllocation.isDeviceAllocation(o.src) ? pitches.get(o.src) : undefined));
  const width = optSize(o.widthInBytes, 'widthInBytes', ext?.rowBytes ?? hostWidth ?? NaN);
  if (Number.isNaN(width)) throw typeError('ERR_MISSING_ARGS', 'The "widthInBytes" option is required when no end is a CUDA array');
  const height = optSize(o.height, 'height', ext?.rows ?? 1);
  const depth = is3D ? optSize(o.depth, 'depth', ext?.slices ?? 1) : 1;
  return [side(o.src, 'src', o, width, height, depth), side(o.dst, 'dst', o, width, height, depth), width, height, depth];
}

function copy(o: Memcpy3DOptions, is3D: boolean, stream: Stream | null | undefined, async: boolean,
  what: string): Promise<void> | void {
  const [s, d, w, h, depth] = plan(o, is3D, what);
  const sh = streamHandle(stream);
  if (sh) {
    useOn(o.src, sh);
    useOn(o.dst, sh);
  }
  return async ? native.memcpy3D(s, d, w, h, depth, sh, true) : native.memcpy3D(s, d, w, h, depth, sh, false);
}

/**
 * A 2-D copy between host memory, (pitched) device memory and CUDA arrays (cuMemcpy2D; pycuda's
 * Memcpy2D). Returns when the copy is done.
 * @example
 * driver.memcpy2D({ src: hostFloats, dst: arr });                       // fill a 2-D array
 * driver.memcpy2D({ src: arr, dst: dev, dstPitch: pitch });               // array → pitched memory
 */
export function memcpy2D(opts: Memcpy2DOptions): void {
  copy(opts, false, null, false, 'memcpy2D');
}
/**
 * memcpy2D queued on `stream`; the Promise settles when it is done. Host buffers must stay
 * unchanged until then (they are kept alive).
 * @example
 * await driver.memcpy2DAsync({ src: arr, dst: out }, stream);
 */
export function memcpy2DAsync(opts: Memcpy2DOptions, stream?: Stream | null): Promise<void> {
  return copy(opts, false, stream, true, 'memcpy2DAsync') as Promise<void>;
}
/**
 * A 3-D copy (cuMemcpy3D; pycuda's Memcpy3D): `depth` slices of `height` rows of `widthInBytes`.
 * @example
 * driver.memcpy3D({ src: volume, dst: arr3d });
 */
export function memcpy3D(opts: Memcpy3DOptions): void {
  copy(opts, true, null, false, 'memcpy3D');
}
/**
 * memcpy3D queued on `stream`; the Promise settles when it is done.
 * @example
 * await driver.memcpy3DAsync({ src: arr3d, dst: host }, stream);
 */
export function memcpy3DAsync(opts: Memcpy3DOptions, stream?: Stream | null): Promise<void> {
  return copy(opts, true, stream, true, 'memcpy3DAsync') as Promise<void>;
}

/**
 * PyCUDA's copy-descriptor style: set the ends and sizes, then call it.
 * @example
 * const c = new driver.Memcpy2D(); c.setSrcHost(img); c.setDstArray(arr);
 * c.widthInBytes = 64 * 4; c.height = 32; c.call();
 */
export class Memcpy2D {
  /** Where the copy reads (set by setSrcHost/Device/Array); required before call(). */
  src?: CopyEnd;
  /** Where the copy writes (set by setDstHost/Device/Array); required before call(). */
  dst?: CopyEnd;
  /** Bytes per row copied (WidthInBytes); default: the array's row, else the source pitch. */
  widthInBytes?: number;
  /** Rows copied (Height); default: the array's height, else 1. */
  height?: number;
  /** Bytes between rows of a host/device source (srcPitch); default: memAllocPitch's pitch, else widthInBytes. */
  srcPitch?: number;
  /** Bytes between rows of a host/device destination (dstPitch); default: memAllocPitch's pitch, else widthInBytes. */
  dstPitch?: number;
  /** Byte offset in each source row where the copy starts (srcXInBytes); default 0. */
  srcXInBytes?: number;
  /** First source row copied (srcY); default 0. */
  srcY?: number;
  /** Byte offset in each destination row where the copy starts (dstXInBytes); default 0. */
  dstXInBytes?: number;
  /** First destination row written (dstY); default 0. */
  dstY?: number;
  /** Reads from host memory (pycuda's set_src_host). */
  setSrcHost(h: ArrayBuffer | ArrayBufferView): void { this.src = h; }
  /** Reads from device memory (set_src_device). */
  setSrcDevice(d: DeviceLike): void { this.src = d; }
  /** Reads from a CUDA array (set_src_array). */
  setSrcArray(a: CudaArray): void { this.src = a; }
  /** Writes to host memory (set_dst_host). */
  setDstHost(h: ArrayBuffer | ArrayBufferView): void { this.dst = h; }
  /** Writes to device memory (set_dst_device). */
  setDstDevice(d: DeviceLike): void { this.dst = d; }
  /** Writes to a CUDA array (set_dst_array). */
  setDstArray(a: CudaArray): void { this.dst = a; }
  /** Copies now (returns when done). */
  call(): void { copy(this.options_(), this instanceof Memcpy3D, null, false, `${this.constructor.name}.call()`); }
  /** Queues the copy on `stream`; the Promise settles when it is done. */
  callAsync(stream?: Stream | null): Promise<void> {
    return copy(this.options_(), this instanceof Memcpy3D, stream, true, `${this.constructor.name}.callAsync()`) as Promise<void>;
  }
  /** @internal The fields as a plain object (one set by mistake, say width_in_bytes, is refused by name). */
  options_(): Memcpy3DOptions {
    if (this.src === undefined || this.dst === undefined) {
      throw typeError('ERR_MISSING_ARGS', 'Set both ends (setSrcHost/Device/Array, setDstHost/Device/Array) before call()');
    }
    return { ...this } as Memcpy3DOptions;
  }
}

/**
 * Memcpy2D with depth, slice heights and z offsets.
 * @example
 * const c = new driver.Memcpy3D(); c.setSrcHost(vol); c.setDstArray(arr3d); c.call();
 */
export class Memcpy3D extends Memcpy2D {
  /** Slices copied (Depth); default: the array's depth, else 1. */
  depth?: number;
  /** Rows per slice of a host/device source (srcHeight); default srcY + height. */
  srcHeight?: number;
  /** Rows per slice of a host/device destination (dstHeight); default dstY + height. */
  dstHeight?: number;
  /** First source slice copied (srcZ); default 0. */
  srcZ?: number;
  /** First destination slice written (dstZ); default 0. */
  dstZ?: number;
}

// ---- arrays from host and GPUArray data --------------------------------------------------------

/** Options of matrixToArray / arrayFromGPUArray. */
export interface ToArrayOptions {
  /** Treat the last axis as channels (its length 1, 2 or 4). Default false. */
  channels?: boolean;
  /** Make the array usable by surface objects (arrayFlags.SURFACE_LDST). */
  surfaceLoadStore?: boolean;
}

const TO_ARRAY_KEYS = ['channels', 'surfaceLoadStore'];

function arrayFor(shape: readonly number[], dt: DType, o: ToArrayOptions): CudaArray {
  const dims = shape.slice();
  const numChannels = o.channels ? channelsOf(dims.pop(), 'last axis (channels)') : 1;
  if (dims.length < 1 || dims.length > 3) {
    throw rangeError('ERR_OUT_OF_RANGE', `A CUDA array has 1 to 3 dimensions (plus channels); shape is [${shape.join(', ')}]`);
  }
  // C order: the last axis is the width (x), the first the depth or height.
  const [width, height = 0, depth = 0] = dims.slice().reverse();
  return new CudaArray({
    format: formatOf(dt), numChannels, width, height, depth, flags: o.surfaceLoadStore ? arrayFlags.SURFACE_LDST : 0,
  });
}

/**
 * A CUDA array holding a C-ordered host matrix (pycuda.driver.matrix_to_array): shape [h, w]
 * (or [d, h, w]; with `channels`, a last axis of 1, 2 or 4 channels).
 * @example
 * const arr = driver.matrixToArray(new Float32Array(32 * 64), [32, 64]);
 */
export function matrixToArray(host: ArrayBufferView, shape: readonly number[], o: ToArrayOptions = {}): CudaArray {
  o = checkedOptions(o, 'matrixToArray', TO_ARRAY_KEYS);
  const dt = ArrayBuffer.isView(host) ? dtypeOfArray(host) : undefined;
  if (!dt) throw typeError('ERR_INVALID_ARG_TYPE', `matrixToArray needs a TypedArray. Received ${describe(host)}`);
  if (!Array.isArray(shape)) throw typeError('ERR_INVALID_ARG_TYPE', `matrixToArray: shape must be an array of sizes. Received ${describe(shape)}`);
  const n = shape.reduce((a, b) => a * checkSize(b, 'shape'), 1);
  if (n * dt.bytes !== host.byteLength) {
    throw rangeError('ERR_OUT_OF_RANGE', `shape [${shape.join(', ')}] holds ${n} elements; the array has ${host.byteLength / dt.bytes}`);
  }
  const arr = arrayFor(shape, dt, o);
  memcpy3D({ src: host, dst: arr });
  return arr;
}

/**
 * A CUDA array with a copy of a C-contiguous GPUArray's data (pycuda.driver.gpuarray_to_array),
 * device to device.
 * @example
 * const arr = driver.arrayFromGPUArray(gpuarray.toGpu(img, { shape: [h, w] }));
 */
export function arrayFromGPUArray(a: GPUArray, o: ToArrayOptions = {}): CudaArray {
  o = checkedOptions(o, 'arrayFromGPUArray', TO_ARRAY_KEYS);
  // GPUArray is imported as a type only (no cycle): its shape and flags say what it is.
  const like = a as Partial<GPUArray> | null;
  if (typeof like !== 'object' || like === null || !Array.isArray(like.shape) || typeof like.flags !== 'object') {
    throw typeError('ERR_INVALID_ARG_TYPE', `arrayFromGPUArray needs a GPUArray. Received ${describe(a)}`);
  }
  if (!a.flags.cContiguous) throw typeError('ERR_INVALID_ARG_VALUE', 'arrayFromGPUArray needs a C-contiguous GPUArray');
  const arr = arrayFor(a.shape, a.dtype, o);
  memcpy3D({ src: a, dst: arr });
  return arr;
}

