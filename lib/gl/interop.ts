/**
 * CUDA ↔ OpenGL sharing (pycuda.gl): register a GL buffer or texture/renderbuffer with CUDA, map
 * it (one or many at once, stream-ordered), use the mapped memory (a device pointer, a GPUArray
 * view, or a CUDA array for images), unmap, unregister. While mapped, GL must not touch the
 * object; after unmap, every view CUDA had of it is refused (typed errors, no use-after-unmap).
 */
import { DTypeLike, dtype as toDType } from '../base/dtype';
import { describe, rangeError, typeError } from '../base/errors';
import { Stream, streamHandle } from '../cuda/driver';
import { DeviceAllocation } from '../cuda/memory';
import { GPUArray, wrapDeviceMemory } from '../array/gpuarray';
import { normalizeShape, sizeOf } from '../base/shape';
import { CudaArray } from '../cuda/cuda_array';
import { native } from '../cuda/native';
import { GlError } from './errors';
import { GL, glName } from './context';

/** CU_GRAPHICS_MAP_RESOURCE_FLAGS: how CUDA will use a mapping (set before map()). */
export const graphicsMapFlags = Object.freeze({
  /** CU_GRAPHICS_MAP_RESOURCE_FLAGS_NONE: CUDA may read and write it (the default). */
  NONE: 0,
  /** CU_GRAPHICS_MAP_RESOURCE_FLAGS_READ_ONLY: CUDA will not write to it. */
  READ_ONLY: 1,
  /** CU_GRAPHICS_MAP_RESOURCE_FLAGS_WRITE_DISCARD: CUDA will not read it and overwrites all of it. */
  WRITE_DISCARD: 2,
});
/** CU_GRAPHICS_REGISTER_FLAGS: fixed at registration (SURFACE_LDST: surface objects on an image's array). */
export const graphicsRegisterFlags = Object.freeze({
  /** CU_GRAPHICS_REGISTER_FLAGS_NONE: CUDA may read and write it (the default). */
  NONE: 0,
  /** CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY: CUDA will not write to it. */
  READ_ONLY: 1,
  /** CU_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD: CUDA will not read it and overwrites all of it. */
  WRITE_DISCARD: 2,
  /** CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST: CUDA will use the image's array through surface objects (images only). */
  SURFACE_LDST: 4,
  /** CU_GRAPHICS_REGISTER_FLAGS_TEXTURE_GATHER: CUDA will do texture gather operations on it (images only). */
  TEXTURE_GATHER: 8,
});

function flagsArg(f: unknown, allowed: number, what: string): number {
  if (typeof f !== 'number' || !Number.isInteger(f) || f < 0 || (f & ~allowed) !== 0) {
    throw rangeError('ERR_OUT_OF_RANGE', `Unknown ${what} flags ${describe(f)}`);
  }
  return f;
}

function needCurrentGl(what: string): void {
  if (!native.glStatus().ok) throw new GlError(native.glStatus().message, 'GL_NOT_AVAILABLE');
  if (!native.glIsCurrent(null)) {
    throw new GlError(`${what}: no OpenGL context is current on this thread (make the context that owns the object current first)`,
      'GL_NO_CONTEXT');
  }
}

/** Common part of RegisteredBuffer and RegisteredImage (pycuda.gl.RegisteredObject). */
export abstract class RegisteredObject {
  /** @internal */
  readonly handle_: NativeAddon.GraphicsResourceHandle;
  /** The GL object name. */
  readonly glName: number;
  #registered = true;
  #mapping: RegisteredMapping | null = null;

  protected constructor(handle: NativeAddon.GraphicsResourceHandle, name: number) {
    this.handle_ = handle;
    this.glName = name;
  }
  /** Whether a buffer (devicePtrAndSize, asGPUArray) or an image (array()). */
  abstract readonly isImage: boolean;
  /** True until unregister() or dispose(). */
  get registered(): boolean {
    return this.#registered;
  }
  /** The current mapping, or null. */
  get mapping(): RegisteredMapping | null {
    return this.#mapping;
  }
  /** @internal */
  check_(): this {
    if (!this.#registered) throw typeError('ERR_USE_AFTER_UNREGISTER', `This ${this.constructor.name} was unregistered`);
    return this;
  }
  /**
   * Maps it for CUDA, ordered on `stream` (default: the legacy stream): GL work issued before is
   * finished first. TypeError ERR_ALREADY_MAPPED when mapped already.
   * @example
   * const m = reg.map(); const [ptr, bytes] = m.devicePtrAndSize(); ... m.unmap();
   */
  map(stream?: Stream | null): RegisteredMapping {
    return mapResources([this], stream)[0];
  }
  /** Unmaps the current mapping (TypeError ERR_NOT_MAPPED when not mapped). */
  unmap(stream?: Stream | null): void {
    this.check_();
    if (!this.#mapping) throw typeError('ERR_NOT_MAPPED', `This ${this.constructor.name} is not mapped`);
    this.#mapping.unmap(stream);
  }
  /** How CUDA uses the next mappings (graphicsMapFlags); only while unmapped. */
  setMapFlags(flags: number): void {
    this.check_();
    native.graphicsSetMapFlags(this.handle_, flagsArg(flags, 3, 'map'));
  }
  /**
   * Unmaps (if mapped) and unregisters. TypeError ERR_USE_AFTER_UNREGISTER when done already;
   * dispose() is the idempotent form.
   */
  unregister(): void {
    this.check_();
    this.#mapping?.end_();
    this.#mapping = null;
    this.#registered = false;
    native.graphicsUnregister(this.handle_);
  }
  /** Unmaps (if mapped) and unregisters, unless done already (idempotent). */
  dispose(): void {
    if (this.#registered) this.unregister();
  }
  /** dispose(), for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }
  /** @internal */
  setMapping_(m: RegisteredMapping | null): void {
    this.#mapping = m;
  }
}

/**
 * A GL buffer object registered with CUDA (pycuda.gl.RegisteredBuffer). The GL context that owns
 * the buffer must be current on this thread.
 * @example
 * using reg = new gl.RegisteredBuffer(vbo, gl.graphicsRegisterFlags.WRITE_DISCARD);
 * using m = reg.map();
 * const pos = m.asGPUArray([n, 2], 'float32'); fillPositions(pos); m.unmap();
 */
export class RegisteredBuffer extends RegisteredObject {
  readonly isImage = false;
  constructor(bufferName: number, flags: number = graphicsRegisterFlags.NONE) {
    const name = glName(bufferName, 'buffer name');
    const f = flagsArg(flags, 3, 'register');
    needCurrentGl('RegisteredBuffer');
    super(native.glRegisterBuffer(name, f), name);
  }
}

/**
 * A GL texture or renderbuffer registered with CUDA (pycuda.gl.RegisteredImage); mapped, it is a
 * CUDA array (mapping.array()) for memcpy2D/3D, texture objects and — with
 * graphicsRegisterFlags.SURFACE_LDST — surface objects.
 * @example
 * using reg = new gl.RegisteredImage(tex, gl.GL.TEXTURE_2D, gl.graphicsRegisterFlags.SURFACE_LDST);
 */
export class RegisteredImage extends RegisteredObject {
  readonly isImage = true;
  /** The GL target it was registered as (cuGraphicsGLRegisterImage's `target`: gl.GL.TEXTURE_2D, gl.GL.RENDERBUFFER, …). */
  readonly target: number;
  constructor(name: number, target: number = GL.TEXTURE_2D, flags: number = graphicsRegisterFlags.NONE) {
    const n = glName(name, 'texture or renderbuffer name');
    const f = flagsArg(flags, 15, 'register');
    if (typeof target !== 'number' || !Number.isInteger(target)) {
      throw typeError('ERR_INVALID_ARG_TYPE', `The "target" must be a GL enum (gl.GL.TEXTURE_2D, gl.GL.RENDERBUFFER…). Received ${describe(target)}`);
    }
    needCurrentGl('RegisteredImage');
    super(native.glRegisterImage(n, target, f), n);
    this.target = target;
  }
}

/**
 * A mapped resource (pycuda.gl.RegisteredMapping): valid until unmap(); everything taken from it
 * (GPUArray views, CUDA arrays, their texture/surface objects) is refused afterwards.
 */
export class RegisteredMapping {
  /** The registered object this maps. */
  readonly resource: RegisteredObject;
  #open = true;
  #views: GPUArray[] = [];
  #allocs: DeviceAllocation[] = [];
  #arrays = new Map<string, CudaArray>();
  #range: [bigint, number] | null = null;

  /** @internal Use resource.map() or gl.mapResources(). */
  constructor(resource: RegisteredObject) {
    this.resource = resource;
  }
  /** True until unmapped (unmap(), gl.unmapResources(), or unregistering the resource). */
  get mapped(): boolean {
    return this.#open;
  }
  private check_(): void {
    if (!this.#open) throw typeError('ERR_NOT_MAPPED', 'This mapping was unmapped');
    this.resource.check_();
  }
  /** [device address, bytes] of a mapped buffer (TypeError ERR_NOT_A_BUFFER for images). */
  devicePtrAndSize(): [bigint, number] {
    this.check_();
    if (this.resource.isImage) {
      throw typeError('ERR_NOT_A_BUFFER', 'An image has no device pointer: use mapping.array() (a CUDA array)');
    }
    this.#range ??= native.graphicsMappedPointer(this.resource.handle_);
    return [this.#range[0], this.#range[1]];
  }
  /**
   * A GPUArray over the mapped buffer (C order, from byte 0). It is disposed by unmap(); using it
   * afterwards throws ERR_USE_AFTER_DISPOSE.
   * @example
   * const img = m.asGPUArray([h, w, 4], 'uint8');
   */
  asGPUArray(shape: number | readonly number[], dt: DTypeLike = 'float32'): GPUArray {
    const [ptr, bytes] = this.devicePtrAndSize();
    const s = normalizeShape(shape);
    const d = toDType(dt);
    const need = sizeOf(s) * d.bytes;
    if (need > bytes) throw rangeError('ERR_OUT_OF_RANGE', `shape [${s.join(', ')}] of ${d.name} needs ${need} bytes; the buffer has ${bytes}`);
    const alloc = new DeviceAllocation(need, null, { ptr, owner: this });
    this.#allocs.push(alloc);
    const a = wrapDeviceMemory(alloc, s, d);
    this.#views.push(a);
    return a;
  }
  /**
   * The CUDA array of a mapped image: `index` is the array index (cube face / layer), `level`
   * the mip level. Valid until unmap (then ERR_USE_AFTER_FREE, and its texture/surface objects are
   * disposed).
   */
  array(index = 0, level = 0): CudaArray {
    this.check_();
    if (!this.resource.isImage) throw typeError('ERR_NOT_AN_IMAGE', 'A buffer has no CUDA array: use devicePtrAndSize() or asGPUArray()');
    const key = `${index}/${level}`;
    let a = this.#arrays.get(key);
    if (!a) {
      a = new CudaArray(null, { handle: native.graphicsMappedArray(this.resource.handle_, index, level), owner: this });
      this.#arrays.set(key, a);
    }
    return a;
  }
  /** Unmaps, ordered on `stream`; TypeError ERR_NOT_MAPPED when done already. */
  unmap(stream?: Stream | null): void {
    this.check_();
    unmapResources([this], stream);
  }
  /** Unmaps if still mapped (idempotent). */
  [Symbol.dispose](): void {
    if (this.#open && this.resource.registered) this.unmap();
  }
  /** @internal Ends every view (before the native unmap). */
  end_(): void {
    if (!this.#open) return;
    this.#open = false;
    for (const v of this.#views) v.dispose();
    for (const a of this.#allocs) a.free();
    for (const a of this.#arrays.values()) a.invalidate_('belonged to a mapping that was unmapped');
    this.#views = [];
    this.#allocs = [];
    this.#arrays.clear();
    this.resource.setMapping_(null);
  }
}

/**
 * Maps several registered objects with one driver call (pycuda.gl's map of many), ordered on
 * `stream`. TypeError ERR_ALREADY_MAPPED when one is mapped already.
 * @example
 * const [mv, mt] = gl.mapResources([vboReg, texReg], stream);
 */
export function mapResources(resources: readonly RegisteredObject[], stream?: Stream | null): RegisteredMapping[] {
  if (!Array.isArray(resources)) throw typeError('ERR_INVALID_ARG_TYPE', `mapResources takes an array. Received ${describe(resources)}`);
  for (const r of resources) {
    if (!(r instanceof RegisteredObject)) throw typeError('ERR_INVALID_ARG_TYPE', `Not a registered GL object: ${describe(r)}`);
    r.check_();
    if (r.mapping) throw typeError('ERR_ALREADY_MAPPED', `This ${r.constructor.name} (GL name ${r.glName}) is mapped already`);
  }
  if (new Set(resources).size !== resources.length) throw typeError('ERR_INVALID_ARG_VALUE', 'A resource is listed twice');
  native.graphicsMap(resources.map((r) => r.handle_), streamHandle(stream));
  return resources.map((r) => {
    const m = new RegisteredMapping(r);
    r.setMapping_(m);
    return m;
  });
}

/**
 * Unmaps several mappings with one driver call, ordered on `stream`.
 * @example
 * gl.unmapResources([mv, mt], stream);
 */
export function unmapResources(mappings: readonly RegisteredMapping[], stream?: Stream | null): void {
  if (!Array.isArray(mappings)) throw typeError('ERR_INVALID_ARG_TYPE', `unmapResources takes an array. Received ${describe(mappings)}`);
  for (const m of mappings) {
    if (!(m instanceof RegisteredMapping)) throw typeError('ERR_INVALID_ARG_TYPE', `Not a mapping: ${describe(m)}`);
    if (!m.mapped) throw typeError('ERR_NOT_MAPPED', 'This mapping was unmapped');
    m.resource.check_();
  }
  const handles = mappings.map((m) => m.resource.handle_);
  for (const m of mappings) m.end_();
  native.graphicsUnmap(handles, streamHandle(stream));
}
