/**
 * Headless OpenGL through EGL (no display, no window system): the EGL device that is the CUDA
 * device (EGL_NV_device_cuda), a desktop GL context on it, and the few GL calls a program needs
 * around CUDA interop — buffers, 2-D textures, framebuffers, a full-screen draw and readback.
 *
 * A GL context is current on one thread at a time (EGL's rule): each worker_thread makes its own
 * context (or makeCurrent()s one the main thread release()d first); the CUDA side needs nothing.
 */
import { checkSize, describe, knownOptions, rangeError, typeError } from '../base/errors';
import { isAvailable as cudaAvailable } from '../cuda/driver';
import { native } from '../cuda/native';
import { GlError } from './errors';

/** GL enums the helpers take (a subset of GL's; any valid GLenum number works too). */
export const GL = Object.freeze({
  /** Buffer target GL_ARRAY_BUFFER (vertex attributes); the buffer helpers' default. */
  ARRAY_BUFFER: 0x8892,
  /** Buffer target GL_ELEMENT_ARRAY_BUFFER (vertex indices). */
  ELEMENT_ARRAY_BUFFER: 0x8893,
  /** Buffer target GL_PIXEL_PACK_BUFFER: a buffer GL reads pixels into (glReadPixels, glGetTexImage). */
  PIXEL_PACK_BUFFER: 0x88eb,
  /** Buffer target GL_PIXEL_UNPACK_BUFFER: a buffer texture uploads take pixels from (writeTexture's `{ buffer }`). */
  PIXEL_UNPACK_BUFFER: 0x88ec,
  /** Usage hint GL_STREAM_DRAW: written once, used a few times. */
  STREAM_DRAW: 0x88e0,
  /** Usage hint GL_STATIC_DRAW: written once, used many times. */
  STATIC_DRAW: 0x88e4,
  /** Usage hint GL_DYNAMIC_DRAW: written repeatedly, used many times; the buffer helpers' default. */
  DYNAMIC_DRAW: 0x88e8,
  /** Usage hint GL_DYNAMIC_COPY: written repeatedly by GL itself, used many times. */
  DYNAMIC_COPY: 0x88ea,
  /** Texture target GL_TEXTURE_2D; RegisteredImage's default target. */
  TEXTURE_2D: 0x0de1,
  /** GL_RENDERBUFFER: the target to register a renderbuffer with RegisteredImage. */
  RENDERBUFFER: 0x8d41,
  /** Pixel format GL_RED: one channel. */
  RED: 0x1903,
  /** Pixel format GL_RG: two channels. */
  RG: 0x8227,
  /** Pixel format GL_RGB: three channels. */
  RGB: 0x1907,
  /** Pixel format GL_RGBA: four channels; the pixel helpers' default format. */
  RGBA: 0x1908,
  /** Pixel format GL_BGRA: four channels, blue first. */
  BGRA: 0x80e1,
  /** Pixel format GL_RED_INTEGER: one integer channel (for integer textures). */
  RED_INTEGER: 0x8d94,
  /** Pixel format GL_RGBA_INTEGER: four integer channels (for integer textures). */
  RGBA_INTEGER: 0x8d99,
  /** Internal format GL_R8: one 8-bit normalized channel. */
  R8: 0x8229,
  /** Internal format GL_RG8: two 8-bit normalized channels. */
  RG8: 0x822b,
  /** Internal format GL_RGBA8: four 8-bit normalized channels; createTexture's and createRenderbuffer's default. */
  RGBA8: 0x8058,
  /** Internal format GL_R32F: one 32-bit float channel. */
  R32F: 0x822e,
  /** Internal format GL_RG32F: two 32-bit float channels. */
  RG32F: 0x8230,
  /** Internal format GL_RGBA32F: four 32-bit float channels. */
  RGBA32F: 0x8814,
  /** Internal format GL_R16F: one 16-bit float channel. */
  R16F: 0x822d,
  /** Internal format GL_RGBA16F: four 16-bit float channels. */
  RGBA16F: 0x881a,
  /** Internal format GL_R32UI: one 32-bit unsigned integer channel. */
  R32UI: 0x8236,
  /** Internal format GL_RGBA32UI: four 32-bit unsigned integer channels. */
  RGBA32UI: 0x8d70,
  /** Internal format GL_R32I: one 32-bit signed integer channel. */
  R32I: 0x8235,
  /** Pixel type GL_BYTE: int8 components (Int8Array). */
  BYTE: 0x1400,
  /** Pixel type GL_UNSIGNED_BYTE: uint8 components (Uint8Array); the pixel helpers' default type. */
  UNSIGNED_BYTE: 0x1401,
  /** Pixel type GL_SHORT: int16 components (Int16Array). */
  SHORT: 0x1402,
  /** Pixel type GL_UNSIGNED_SHORT: uint16 components (Uint16Array). */
  UNSIGNED_SHORT: 0x1403,
  /** Pixel type GL_INT: int32 components (Int32Array). */
  INT: 0x1404,
  /** Pixel type GL_UNSIGNED_INT: uint32 components (Uint32Array). */
  UNSIGNED_INT: 0x1405,
  /** Pixel type GL_FLOAT: float32 components (Float32Array). */
  FLOAT: 0x1406,
  /** Pixel type GL_HALF_FLOAT: float16 components (their bits in a Uint16Array). */
  HALF_FLOAT: 0x140b,
});

const CHANNELS: Record<number, number> = {
  [GL.RED]: 1, [GL.RED_INTEGER]: 1, [GL.RG]: 2, [GL.RGB]: 3, [GL.RGBA]: 4, [GL.BGRA]: 4, [GL.RGBA_INTEGER]: 4,
};
type PixelArray = Uint8Array | Int8Array | Uint16Array | Int16Array | Uint32Array | Int32Array | Float32Array;
const PIXEL_ARRAYS: Record<number, new (n: number) => PixelArray> = {
  [GL.UNSIGNED_BYTE]: Uint8Array, [GL.BYTE]: Int8Array, [GL.UNSIGNED_SHORT]: Uint16Array, [GL.SHORT]: Int16Array,
  [GL.HALF_FLOAT]: Uint16Array, [GL.UNSIGNED_INT]: Uint32Array, [GL.INT]: Int32Array, [GL.FLOAT]: Float32Array,
};

function pixelArray(format: number, type: number, pixels: number): PixelArray {
  const ch = CHANNELS[format], A = PIXEL_ARRAYS[type];
  if (!ch || !A) throw rangeError('ERR_OUT_OF_RANGE', `Unsupported pixel format/type 0x${format.toString(16)}/0x${type.toString(16)}`);
  return new A(pixels * ch);
}

/** An EGL device as lib/gl sees it. */
export interface EglDeviceInfo {
  /** Index in eglQueryDevicesEXT's list. */
  index: number;
  /** The CUDA device ordinal it is (EGL_NV_device_cuda), or -1. */
  cudaDevice: number;
  /** Mesa's software rasterizer (llvmpipe): GL works, CUDA cannot share with it. */
  software: boolean;
  /** DRM device file, when EGL names one. */
  drm: string;
  /** The device's EGL extension string (eglQueryDeviceStringEXT), space-separated; '' when it reports none. */
  extensions: string;
}

/** What `gl.availability()` reports. Never throws. */
export interface GlAvailability {
  /** libEGL.so.1 and the GL loader open and resolve. */
  ok: boolean;
  /** '' or GL_NOT_AVAILABLE. */
  code: string;
  /** Why not, and what to install. */
  message: string;
  /** The EGL library opened. */
  library: string;
  /** The EGL devices (eglQueryDevicesEXT order); empty when EGL is not usable. */
  devices: EglDeviceInfo[];
  /** An EGL device is a CUDA device and the CUDA driver works: CUDA can share GL objects. */
  interop: boolean;
}

/** @internal */
export function eglDevices(): EglDeviceInfo[] {
  return native.eglDevices().map((d, index) => ({
    index, cudaDevice: d.cuda, software: d.extensions.includes('EGL_MESA_device_software'), drm: d.drm, extensions: d.extensions,
  }));
}

/**
 * Whether EGL and OpenGL can be loaded here (libEGL.so.1 and the GL loader). Never throws.
 * @example
 * if (!gl.isAvailable()) console.log(gl.availability().message);
 */
export function isAvailable(): boolean {
  try {
    return native.glStatus().ok;
  } catch {
    return false;
  }
}

/**
 * EGL/GL status with the reason and what to install when it is not usable, the EGL devices, and
 * whether CUDA interop is possible. Never throws.
 * @example
 * const a = gl.availability(); if (!a.interop) console.log(a.message || 'no CUDA-capable EGL device');
 */
export function availability(): GlAvailability {
  let s: NativeAddon.GlStatus;
  try {
    s = native.glStatus();
  } catch (e) {
    return { ok: false, code: 'GL_NOT_AVAILABLE', message: String((e as Error).message), library: '', devices: [], interop: false };
  }
  let devices: EglDeviceInfo[] = [];
  if (s.ok) {
    try {
      devices = eglDevices();
    } catch {
      devices = [];
    }
  }
  const interop = s.ok && devices.some((d) => d.cudaDevice >= 0) && cudaAvailable();
  return { ok: s.ok, code: s.code, message: s.message, library: s.path, devices, interop };
}

/** Options of createHeadlessContext. */
export interface HeadlessContextOptions {
  /**
   * The CUDA device the context must be on (default: 0 when a CUDA GPU is present). Without a
   * CUDA GPU and without this option, any EGL device is taken (Mesa's software one, for GL alone).
   */
  device?: number;
  /** An EGL device index (eglQueryDevicesEXT order) instead; -1: Mesa's surfaceless platform. */
  eglDevice?: number;
  /** Desktop OpenGL version to ask for (default [3, 3], core profile; drivers give their newest). */
  version?: readonly [number, number];
  /** Make it current on this thread now (default true). */
  makeCurrent?: boolean;
}

function pickDevice(o: HeadlessContextOptions): { index: number; cudaDevice: number } {
  const devices = eglDevices();
  if (o.eglDevice !== undefined) {
    if (!Number.isInteger(o.eglDevice) || o.eglDevice < -1 || o.eglDevice >= devices.length) {
      throw rangeError('ERR_OUT_OF_RANGE', `eglDevice must be -1 or below ${devices.length}. Received ${describe(o.eglDevice)}`);
    }
    return { index: o.eglDevice, cudaDevice: o.eglDevice >= 0 ? devices[o.eglDevice].cudaDevice : -1 };
  }
  const want = o.device !== undefined ? checkSize(o.device, 'device', 2 ** 31 - 1) : cudaAvailable() ? 0 : undefined;
  if (want === undefined) return { index: devices.length ? 0 : -1, cudaDevice: devices[0]?.cudaDevice ?? -1 };
  const match = devices.find((d) => d.cudaDevice === want);
  if (match) return { index: match.index, cudaDevice: want };
  const listed = devices.map((d) => `#${d.index} ${d.software ? 'software' : d.drm || 'device'}${d.cudaDevice >= 0 ? ` (CUDA ${d.cudaDevice})` : ''}`);
  throw new GlError(`No EGL device is CUDA device ${want} (EGL devices: ${listed.join(', ') || 'none'}). ` +
    "NVIDIA's EGL driver (libEGL_nvidia.so.0, part of the NVIDIA driver, with its glvnd vendor file " +
    '/usr/share/glvnd/egl_vendor.d/10_nvidia.json) must be installed; in containers, set ' +
    'NVIDIA_DRIVER_CAPABILITIES to include "graphics".', 'GL_NO_MATCHING_DEVICE');
}

/**
 * A headless OpenGL context (EGL, no window). Its GL helpers act on it and need it current on
 * the calling thread (makeCurrent()); names returned are plain GL object names (numbers).
 * @example
 * using ctx = gl.createHeadlessContext();
 * const buf = ctx.createBuffer(1024 * 4);
 * const out = ctx.readBuffer(buf, new Float32Array(1024));
 */
export class HeadlessContext {
  /** @internal */
  readonly handle_: NativeAddon.GlContextHandle;
  /** EGL platform, surface and version, e.g. 'device, pbuffer, EGL 1.5 (NVIDIA)'. */
  readonly platform: string;
  /** The EGL device index (-1: surfaceless platform). */
  readonly eglDevice: number;
  /** The CUDA device this context is on, or -1 (software or unknown). */
  readonly cudaDevice: number;
  #disposed = false;
  #strings: [string, string, string] | null = null;

  /** @internal Use gl.createHeadlessContext(). */
  constructor(o: HeadlessContextOptions = {}) {
    if (typeof o !== 'object' || o === null) throw typeError('ERR_INVALID_ARG_TYPE', `Options must be an object. Received ${describe(o)}`);
    const [major, minor] = o.version ?? [3, 3];
    const pick = pickDevice(o);
    [this.handle_, this.platform] = native.glContextCreate(pick.index, checkSize(major, 'major', 9), checkSize(minor, 'minor', 9), true);
    this.eglDevice = pick.index;
    this.cudaDevice = pick.cudaDevice;
    if (o.makeCurrent ?? true) this.makeCurrent();
  }

  /** GL_VENDOR, GL_RENDERER and GL_VERSION (the context must be current). */
  get info(): {
    /** GL_VENDOR: who made the GL implementation. */
    vendor: string;
    /** GL_RENDERER: the GPU's name (llvmpipe on Mesa's software device). */
    renderer: string;
    /** GL_VERSION: the OpenGL version the context got, and the driver's. */
    version: string;
  } {
    this.#strings ??= (this.check_(), native.glStrings());
    const [vendor, renderer, version] = this.#strings;
    return { vendor, renderer, version };
  }

  /** Makes this context current on the calling thread (GlError EGL_BAD_ACCESS when another thread holds it). */
  makeCurrent(): this {
    this.checkLive_();
    native.glMakeCurrent(this.handle_);
    return this;
  }
  /** Releases it from the calling thread (so another thread can make it current); false if it was not current here. */
  release(): boolean {
    if (this.#disposed) return false;
    return native.glRelease(this.handle_);
  }
  /** Whether it is current on the calling thread. */
  isCurrent(): boolean {
    return !this.#disposed && native.glIsCurrent(this.handle_);
  }
  /** True after dispose(). */
  get disposed(): boolean {
    return this.#disposed;
  }
  /**
   * Destroys the context (released first when current here; EGL defers the destruction while
   * another thread has it current). GL objects in it go with it; unregister CUDA resources first.
   * Idempotent.
   */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    native.glContextDestroy(this.handle_);
  }
  /** dispose(), for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }

  private checkLive_(): void {
    if (this.#disposed) throw new GlError('The GL context was disposed', 'GL_CONTEXT_DISPOSED');
  }
  /** @internal Throws unless this context is current on this thread. */
  check_(): this {
    this.checkLive_();
    if (!native.glIsCurrent(this.handle_)) {
      throw new GlError('This GL context is not current on this thread: call makeCurrent() first', 'GL_NO_CONTEXT');
    }
    return this;
  }

  // ---- buffers -------------------------------------------------------------------------------

  /**
   * A GL buffer of `size` bytes (zero-filled by GL's rules: undefined contents) or holding `data`.
   * @example
   * const vbo = ctx.createBuffer(new Float32Array([0, 0, 1, 0, 0, 1]));
   */
  createBuffer(sizeOrData: number | ArrayBufferView, o: { target?: number; usage?: number } = {}): number {
    this.check_();
    const target = o.target ?? GL.ARRAY_BUFFER, usage = o.usage ?? GL.DYNAMIC_DRAW;
    if (typeof sizeOrData === 'number') {
      return native.glBufferCreate(target, checkSize(sizeOrData, 'size', 2 ** 31 - 1), null, 0, 0, usage);
    }
    const v = view(sizeOrData, 'data');
    return native.glBufferCreate(target, v.byteLength, v.buffer, v.byteOffset, v.byteLength, usage);
  }
  /** Writes `data` into buffer `name` at byte `offset` (glBufferSubData). */
  writeBuffer(name: number, data: ArrayBufferView, offset = 0, target: number = GL.ARRAY_BUFFER): void {
    this.check_();
    const v = view(data, 'data');
    native.glBufferAccess(true, target, glName(name), checkSize(offset, 'offset'), v.buffer, v.byteOffset, v.byteLength);
  }
  /** Reads buffer `name` from byte `offset` into `out` (glGetBufferSubData); returns `out`. */
  readBuffer<T extends ArrayBufferView>(name: number, out: T, offset = 0, target: number = GL.ARRAY_BUFFER): T {
    this.check_();
    const v = view(out, 'out');
    native.glBufferAccess(false, target, glName(name), checkSize(offset, 'offset'), v.buffer, v.byteOffset, v.byteLength);
    return out;
  }
  /** Size of buffer `name` in bytes. */
  bufferSize(name: number, target: number = GL.ARRAY_BUFFER): number {
    this.check_();
    return native.glBufferSize(target, glName(name));
  }

  // ---- textures, framebuffers, drawing ------------------------------------------------------

  /**
   * A 2-D texture with one level (default RGBA8; `data` rows packed, bottom row first as GL
   * stores them).
   * @example
   * const tex = ctx.createTexture(256, 256, { internalFormat: gl.GL.R32F, format: gl.GL.RED, type: gl.GL.FLOAT });
   */
  createTexture(width: number, height: number, o: {
    internalFormat?: number; format?: number; type?: number; data?: ArrayBufferView; linear?: boolean;
  } = {}): number {
    this.check_();
    const w = checkSize(width, 'width', 65536), h = checkSize(height, 'height', 65536);
    const d = o.data === undefined ? null : view(o.data, 'data');
    return native.glTextureCreate(w, h, o.internalFormat ?? GL.RGBA8, o.format ?? GL.RGBA, o.type ?? GL.UNSIGNED_BYTE,
      d ? d.buffer : null, d?.byteOffset ?? 0, d?.byteLength ?? 0, !!o.linear);
  }
  /**
   * Writes pixels into texture `name` from host memory or from a pixel buffer object
   * (`{ buffer, offset }`: GL copies on the GPU — the path for pixels a CUDA kernel wrote).
   * @example
   * ctx.writeTexture(tex, { buffer: pbo }, { width: 256, height: 256, format: gl.GL.RGBA, type: gl.GL.UNSIGNED_BYTE });
   */
  writeTexture(name: number, src: ArrayBufferView | { buffer: number; offset?: number }, o: {
    x?: number; y?: number; width: number; height: number; format?: number; type?: number;
  }): void {
    this.check_();
    const format = o.format ?? GL.RGBA, type = o.type ?? GL.UNSIGNED_BYTE;
    const w = checkSize(o.width, 'width', 65536), h = checkSize(o.height, 'height', 65536);
    const x = checkSize(o.x ?? 0, 'x', 65536), y = checkSize(o.y ?? 0, 'y', 65536);
    if (ArrayBuffer.isView(src)) {
      const v = view(src, 'src');
      native.glTextureWrite(glName(name), x, y, w, h, format, type, v.buffer, v.byteOffset, v.byteLength, 0, 0);
    } else if (typeof src === 'object' && src !== null && typeof src.buffer === 'number') {
      native.glTextureWrite(glName(name), x, y, w, h, format, type, null, 0, 0, glName(src.buffer), checkSize(src.offset ?? 0, 'offset'));
    } else {
      throw typeError('ERR_INVALID_ARG_TYPE', `writeTexture takes host pixels or { buffer, offset }. Received ${describe(src)}`);
    }
  }
  /** Level 0 of texture `name` as packed rows (glGetTexImage); a new array unless `out` is given. */
  readTexture(name: number, o: { format?: number; type?: number; out?: ArrayBufferView } = {}): ArrayBufferView {
    this.check_();
    const format = o.format ?? GL.RGBA, type = o.type ?? GL.UNSIGNED_BYTE;
    const [w, h] = native.glTextureSize(glName(name));
    const out = o.out ?? pixelArray(format, type, w * h);
    const v = view(out, 'out');
    native.glTextureRead(glName(name), format, type, v.buffer, v.byteOffset, v.byteLength);
    return out;
  }
  /** [width, height] of level 0 of texture `name`. */
  textureSize(name: number): [number, number] {
    this.check_();
    return native.glTextureSize(glName(name));
  }
  /** A renderbuffer (default RGBA8). */
  createRenderbuffer(width: number, height: number, internalFormat: number = GL.RGBA8): number {
    this.check_();
    return native.glRenderbufferCreate(internalFormat, checkSize(width, 'width', 65536), checkSize(height, 'height', 65536));
  }
  /** A complete framebuffer drawing into a texture (or a renderbuffer) as colour attachment 0. */
  createFramebuffer(attachment: number, o: { renderbuffer?: boolean } = {}): number {
    this.check_();
    return native.glFramebufferCreate(glName(attachment), !!o.renderbuffer);
  }
  /** Pixels of framebuffer `fbo` (0: the default surface), rows bottom first (glReadPixels). */
  readPixels(fbo: number, x: number, y: number, width: number, height: number,
    o: { format?: number; type?: number; out?: ArrayBufferView } = {}): ArrayBufferView {
    this.check_();
    const format = o.format ?? GL.RGBA, type = o.type ?? GL.UNSIGNED_BYTE;
    const w = checkSize(width, 'width', 65536), h = checkSize(height, 'height', 65536);
    const out = o.out ?? pixelArray(format, type, w * h);
    const v = view(out, 'out');
    native.glReadPixels(checkSize(fbo, 'fbo', 2 ** 31 - 1), checkSize(x, 'x', 65536), checkSize(y, 'y', 65536), w, h,
      format, type, v.buffer, v.byteOffset, v.byteLength);
    return out;
  }
  /** Compiles and links a GLSL program (GlError GL_COMPILE_FAILED / GL_LINK_FAILED with the log). */
  createProgram(vertexSource: string, fragmentSource: string): number {
    this.check_();
    return native.glProgramCreate(vertexSource, fragmentSource);
  }
  /**
   * Draws one triangle covering a `width`×`height` viewport of framebuffer `fbo` with `program`
   * and `texture` on unit 0 (sampler uniform `tex`); `uniforms` sets float uniforms by name.
   * The vertex shader makes the triangle from gl_VertexID (no vertex buffers).
   */
  drawFullscreen(program: number, fbo: number, texture: number, width: number, height: number,
    uniforms: Record<string, number> = {}): void {
    this.check_();
    native.glDrawFullscreen(glName(program), checkSize(fbo, 'fbo', 2 ** 31 - 1), checkSize(texture, 'texture', 2 ** 31 - 1),
      checkSize(width, 'width', 65536), checkSize(height, 'height', 65536), uniforms);
  }
  /** Clears framebuffer `fbo` to a colour. */
  clear(fbo: number, rgba: readonly [number, number, number, number] = [0, 0, 0, 0]): void {
    this.check_();
    native.glClearFramebuffer(checkSize(fbo, 'fbo', 2 ** 31 - 1), rgba[0], rgba[1], rgba[2], rgba[3]);
  }
  /** Deletes buffer `name` (glDeleteBuffers). */
  deleteBuffer(name: number): void { this.check_(); native.glDelete(0, glName(name)); }
  /** Deletes texture `name` (glDeleteTextures). */
  deleteTexture(name: number): void { this.check_(); native.glDelete(1, glName(name)); }
  /** Deletes framebuffer `name` (glDeleteFramebuffers). */
  deleteFramebuffer(name: number): void { this.check_(); native.glDelete(2, glName(name)); }
  /** Deletes renderbuffer `name` (glDeleteRenderbuffers). */
  deleteRenderbuffer(name: number): void { this.check_(); native.glDelete(3, glName(name)); }
  /** Deletes program `name` (glDeleteProgram). */
  deleteProgram(name: number): void { this.check_(); native.glDelete(4, glName(name)); }
  /** Waits for all GL work (glFinish). */
  finish(): void {
    this.check_();
    native.glFinish();
  }
}

/** @internal A GL object name: a positive 32-bit integer. */
export function glName(n: unknown, what = 'name'): number {
  if (typeof n !== 'number' || !Number.isInteger(n) || n <= 0 || n > 0xffffffff) {
    throw rangeError('ERR_OUT_OF_RANGE', `A GL ${what} is a positive integer (a GL object name). Received ${describe(n)}`);
  }
  return n;
}

function view(v: unknown, name: string): { buffer: ArrayBufferView; byteOffset: number; byteLength: number } {
  if (!ArrayBuffer.isView(v)) throw typeError('ERR_INVALID_ARG_TYPE', `The "${name}" argument must be a TypedArray or DataView. Received ${describe(v)}`);
  // The native side takes the view with offsets relative to its buffer (as memcpyHtod does).
  return { buffer: v, byteOffset: v.byteOffset, byteLength: v.byteLength };
}

/**
 * A headless OpenGL context on the EGL device that is CUDA device `device` (default 0), made
 * current on this thread. Needs libEGL.so.1 (package libegl1) and the NVIDIA driver's EGL part;
 * without a CUDA GPU, Mesa's software device serves GL alone (tests, CI).
 * @example
 * using ctx = gl.createHeadlessContext({ device: 0 });
 * console.log(ctx.info.renderer); // e.g. 'NVIDIA H100 80GB HBM3/PCIe/SSE2'
 */
export function createHeadlessContext(o: HeadlessContextOptions = {}): HeadlessContext {
  if (typeof o !== 'object' || o === null) throw typeError('ERR_INVALID_ARG_TYPE', `Options must be an object. Received ${describe(o)}`);
  // Any other name (a misspelt eglDevice, PyOpenGL's or EGL's attribute names) is refused, not ignored.
  knownOptions(o, 'gl.createHeadlessContext', ['device', 'eglDevice', 'version', 'makeCurrent']);
  return new HeadlessContext(o);
}
