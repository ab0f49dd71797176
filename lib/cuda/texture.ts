/**
 * Texture and surface objects (cuTexObjectCreate / cuSurfObjectCreate): what replaced PyCUDA's
 * texture references, which CUDA 12 removed. A kernel receives one as a 64-bit handle
 * (`cudaTextureObject_t` / `cudaSurfaceObject_t` parameters; pass `tex.handle`).
 */
import { checkSize, describe, knownOptions, rangeError, typeError } from '../base/errors';
import { DeviceLike, deviceRange } from './memory';
import { native } from './native';
import { ArrayFormatLike, CudaArray, addressMode, arrayFlags, filterMode, formatOf, textureFlags } from './cuda_array';

/** How coordinates outside [0, size) are handled. */
export type AddressModeName = 'wrap' | 'clamp' | 'mirror' | 'border';

/** Sampling of a texture object (the fields of CUDA_TEXTURE_DESC, named as in the runtime API). */
export interface TextureDesc {
  /** One mode for all axes, or one per axis [x, y, z]. Default 'clamp'. */
  addressMode?: AddressModeName | readonly AddressModeName[];
  /** 'point' (default) or 'linear' (interpolation; float results only). */
  filterMode?: 'point' | 'linear';
  /** Coordinates in [0, 1) instead of [0, size). Default false. */
  normalizedCoords?: boolean;
  /**
   * 'elementType' (default, like cudaReadModeElementType): integers read as integers;
   * 'normalizedFloat': 8/16-bit integers read as floats in [0, 1] (or [-1, 1]).
   */
  readMode?: 'elementType' | 'normalizedFloat';
  /** sRGB to linear conversion on reads. */
  sRGB?: boolean;
  /** Colour returned outside the texture with addressMode 'border'. */
  borderColor?: readonly [number, number, number, number];
  /** Maximum anisotropy ratio (CUDA_TEXTURE_DESC.maxAnisotropy): an integer from 0 to 16; default 0. */
  maxAnisotropy?: number;
}

/** Linear device memory read through a 1-D texture (`tex1Dfetch`). */
export interface LinearResource {
  /**
   * The memory read (CUDA_RESOURCE_DESC res.linear.devPtr): a DeviceAllocation, a GPUArray, or a
   * bigint address (which needs `sizeInBytes`).
   */
  linear: DeviceLike;
  /** Format of one channel (res.linear.format): a CUarray_format or a dtype ('float32'). */
  format: ArrayFormatLike;
  /** Channels per element: 1, 2 or 4 (default 1). */
  numChannels?: 1 | 2 | 4;
  /** Bytes of the texture (default: the whole allocation). */
  sizeInBytes?: number;
}

/** Pitched device memory (memAllocPitch) read through a 2-D texture. */
export interface Pitch2DResource {
  /** The memory read (res.pitch2D.devPtr), e.g. from memAllocPitch: a DeviceAllocation, a GPUArray or a bigint address. */
  pitch2D: DeviceLike;
  /** Format of one channel (res.pitch2D.format): a CUarray_format or a dtype ('float32'). */
  format: ArrayFormatLike;
  /** Channels per element: 1, 2 or 4 (default 1). */
  numChannels?: 1 | 2 | 4;
  /** Width in elements (res.pitch2D.width); a row of them must fit in `pitchInBytes`. */
  width: number;
  /** Rows (res.pitch2D.height); `pitchInBytes × height` must fit in the memory. */
  height: number;
  /**
   * Bytes between rows (res.pitch2D.pitchInBytes), e.g. memAllocPitch's pitch; the driver refuses a
   * pitch not aligned to the device's texture pitch alignment.
   */
  pitchInBytes: number;
}

/** What a texture object reads. */
export type TextureResource = CudaArray | LinearResource | Pitch2DResource;

const MODES: Record<AddressModeName, number> = {
  wrap: addressMode.WRAP, clamp: addressMode.CLAMP, mirror: addressMode.MIRROR, border: addressMode.BORDER,
};

function modeOf(m: unknown): number {
  const v = MODES[m as AddressModeName];
  if (v === undefined) throw typeError('ERR_INVALID_ARG_VALUE', `addressMode must be wrap, clamp, mirror or border. Received ${describe(m)}`);
  return v;
}

// The fields each descriptor reads: any other (CUDA's filter_mode or address_mode, a misspelt
// numchannels, which would read one channel) is a TypeError, not ignored.
const DESC_KEYS = ['addressMode', 'filterMode', 'normalizedCoords', 'readMode', 'sRGB', 'borderColor', 'maxAnisotropy'];
const LINEAR_KEYS = ['linear', 'format', 'numChannels', 'sizeInBytes'];
const PITCH_KEYS = ['pitch2D', 'format', 'numChannels', 'width', 'height', 'pitchInBytes'];

function texDesc(d: TextureDesc): NativeAddon.TextureDesc {
  if (typeof d !== 'object' || d === null) throw typeError('ERR_INVALID_ARG_TYPE', `The texture desc must be an object. Received ${describe(d)}`);
  knownOptions(d, 'TextureObject desc', DESC_KEYS);
  const am = d.addressMode ?? 'clamp';
  const modes = typeof am === 'string' ? [am, am, am] : [am[0], am[1] ?? am[0], am[2] ?? am[0]];
  if (d.filterMode !== undefined && d.filterMode !== 'point' && d.filterMode !== 'linear') {
    throw typeError('ERR_INVALID_ARG_VALUE', `filterMode must be 'point' or 'linear'. Received ${describe(d.filterMode)}`);
  }
  const readMode = d.readMode ?? 'elementType';
  if (readMode !== 'elementType' && readMode !== 'normalizedFloat') {
    throw typeError('ERR_INVALID_ARG_VALUE', `readMode must be 'elementType' or 'normalizedFloat'. Received ${describe(readMode)}`);
  }
  const flags = (readMode === 'elementType' ? textureFlags.READ_AS_INTEGER : 0) |
    (d.normalizedCoords ? textureFlags.NORMALIZED_COORDINATES : 0) | (d.sRGB ? textureFlags.SRGB : 0);
  const border = d.borderColor ?? [0, 0, 0, 0];
  if (!Array.isArray(border) || border.length !== 4 || !border.every((x) => typeof x === 'number')) {
    throw typeError('ERR_INVALID_ARG_VALUE', 'borderColor must be four numbers');
  }
  return {
    addressMode: modes.map(modeOf),
    filterMode: d.filterMode === 'linear' ? filterMode.LINEAR : filterMode.POINT,
    flags,
    maxAnisotropy: d.maxAnisotropy === undefined ? 0 : checkSize(d.maxAnisotropy, 'maxAnisotropy', 16),
    borderColor: border.slice(),
  };
}

function channels(n: unknown): number {
  if (n === undefined) return 1;
  if (n !== 1 && n !== 2 && n !== 4) throw rangeError('ERR_OUT_OF_RANGE', `numChannels must be 1, 2 or 4. Received ${describe(n)}`);
  return n;
}

/** Common part of texture and surface objects: the handle, disposal, the resource kept alive. */
abstract class ObjectHandle {
  readonly #value: bigint;
  #disposed = false;
  #source: unknown;
  /** The native handle that owns the CUDA object; destroy_() destroys it. */
  protected readonly native_: NativeAddon.TexObjectHandle | NativeAddon.SurfObjectHandle;
  protected constructor(made: [NativeAddon.TexObjectHandle | NativeAddon.SurfObjectHandle, bigint], source: unknown) {
    this.native_ = made[0];
    this.#value = made[1];
    this.#source = source;
    if (source instanceof CudaArray) source.addDependent_(this);
  }
  /** The 64-bit object to pass to a kernel; TypeError after dispose (or after its array ended). */
  get handle(): bigint {
    if (this.#disposed) throw typeError('ERR_USE_AFTER_DISPOSE', `This ${this.constructor.name} was disposed (or its array was freed or unmapped)`);
    return this.#value;
  }
  /** True after dispose(), which freeing or unmapping its array also runs. */
  get disposed(): boolean {
    return this.#disposed;
  }
  /**
   * Destroys the object now (idempotent). Kernels queued with its handle must have finished:
   * synchronize first.
   */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.destroy_();
    if (this.#source instanceof CudaArray) this.#source.removeDependent_(this);
    this.#source = undefined;
  }
  /** dispose(), for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }
  /** Destroys the CUDA object; dispose() calls it once. */
  protected abstract destroy_(): void;
}

/**
 * A texture object over a CUDA array, linear memory or pitched 2-D memory. Freed by dispose(),
 * `using`, with its array, or when collected.
 * @example
 * using tex = new driver.TextureObject(arr, { filterMode: 'linear', addressMode: 'clamp' });
 * fn(tex.handle, out, { block: [16, 16], grid: [4, 4] }); // __global__ void fn(cudaTextureObject_t t, float *o)
 */
export class TextureObject extends ObjectHandle {
  constructor(resource: TextureResource, desc: TextureDesc = {}) {
    const td = texDesc(desc);
    let made: [NativeAddon.TexObjectHandle, bigint];
    let source: unknown = resource;
    if (resource instanceof CudaArray) {
      made = native.texObjectCreate({ kind: 0, array: resource.check_().handle_ }, td);
    } else if (typeof resource === 'object' && resource !== null && 'linear' in resource) {
      knownOptions(resource, 'TextureObject linear resource', LINEAR_KEYS);
      const r = deviceRange(resource.linear, 'linear');
      const bytes = resource.sizeInBytes === undefined ? r.bytes : checkSize(resource.sizeInBytes, 'sizeInBytes');
      if (!Number.isFinite(bytes) || bytes > r.bytes) {
        throw rangeError('ERR_OUT_OF_RANGE', 'sizeInBytes is required for a raw address and must fit the allocation');
      }
      made = native.texObjectCreate({
        kind: 1, ptr: r.ptr, format: formatOf(resource.format), channels: channels(resource.numChannels), bytes,
      }, td);
      source = resource.linear;
    } else if (typeof resource === 'object' && resource !== null && 'pitch2D' in resource) {
      knownOptions(resource, 'TextureObject pitch2D resource', PITCH_KEYS);
      const r = deviceRange(resource.pitch2D, 'pitch2D');
      const width = checkSize(resource.width, 'width'), height = checkSize(resource.height, 'height');
      const pitch = checkSize(resource.pitchInBytes, 'pitchInBytes');
      const fmt = formatOf(resource.format), ch = channels(resource.numChannels);
      if (width * ch * formatBytes(fmt) > pitch || pitch * height > r.bytes) {
        throw rangeError('ERR_OUT_OF_RANGE', `A ${width}×${height} pitched texture with pitch ${pitch} does not fit its memory (${r.bytes} bytes)`);
      }
      made = native.texObjectCreate({ kind: 2, ptr: r.ptr, format: fmt, channels: ch, width, height, pitch }, td);
      source = resource.pitch2D;
    } else {
      throw typeError('ERR_INVALID_ARG_TYPE',
        `A texture reads a CUDA array, { linear, format } or { pitch2D, format, width, height, pitchInBytes }. Received ${describe(resource)}`);
    }
    super(made, source);
  }
  /** Destroys the texture object (cuTexObjectDestroy); dispose() calls it once. */
  protected destroy_(): void {
    native.texObjectDestroy(this.native_ as NativeAddon.TexObjectHandle);
  }
}

function formatBytes(fmt: number): number {
  return fmt === 0x01 || fmt === 0x08 ? 1 : fmt === 0x02 || fmt === 0x09 || fmt === 0x10 ? 2 : 4;
}

/**
 * A surface object over a CUDA array made with `surfaceLoadStore` (arrayFlags.SURFACE_LDST):
 * kernels read and write it with surf2Dread / surf2Dwrite (x in bytes).
 * @example
 * const arr = new driver.Array({ format: 'float32', width: 64, height: 64, flags: driver.arrayFlags.SURFACE_LDST });
 * using surf = new driver.SurfaceObject(arr);
 */
export class SurfaceObject extends ObjectHandle {
  constructor(array: CudaArray) {
    if (!(array instanceof CudaArray)) throw typeError('ERR_INVALID_ARG_TYPE', `A SurfaceObject needs a CUDA array. Received ${describe(array)}`);
    if (!(array.check_().descriptor.flags & arrayFlags.SURFACE_LDST)) {
      throw typeError('ERR_INVALID_ARG_VALUE', 'The array was made without surface load/store (flags: driver.arrayFlags.SURFACE_LDST)');
    }
    super(native.surfObjectCreate(array.handle_), array);
  }
  /** Destroys the surface object (cuSurfObjectDestroy); dispose() calls it once. */
  protected destroy_(): void {
    native.surfObjectDestroy(this.native_ as NativeAddon.SurfObjectHandle);
  }
}
