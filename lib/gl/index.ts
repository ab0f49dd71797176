/**
 * The `gl` namespace (pycuda.gl): OpenGL interop and headless EGL contexts.
 * @example
 * import { gl } from 'nodecuda';
 * using ctx = gl.createHeadlessContext();
 * const vbo = ctx.createBuffer(4096);
 * using reg = new gl.RegisteredBuffer(vbo);
 */
import { Context, useDevice } from '../cuda/driver';
import { checkSize } from '../base/errors';
import { native } from '../cuda/native';
import { GlError } from './errors';
import {
  GL, HeadlessContext, HeadlessContextOptions, availability, createHeadlessContext, glName, isAvailable,
} from './context';
import {
  RegisteredBuffer, RegisteredImage, RegisteredMapping, RegisteredObject, graphicsMapFlags, graphicsRegisterFlags,
  mapResources, unmapResources,
} from './interop';

/**
 * Loads EGL/GL and the CUDA driver (pycuda.gl.init). cuGLInit has been a no-op since CUDA 5, so
 * this only checks: GlError GL_NOT_AVAILABLE (with what to install) when EGL cannot be loaded,
 * CudaError when the CUDA driver cannot. Optional: everything loads on first use.
 * @example
 * gl.init();
 */
export function init(): void {
  const s = native.glStatus();
  if (!s.ok) throw new GlError(s.message, s.code || 'GL_NOT_AVAILABLE');
  native.deviceCount();
}

/**
 * A CUDA context for use with the calling thread's current GL context (pycuda.gl.make_context).
 * cuGLCtxCreate is deprecated since CUDA 5 and no longer needed: any context can share GL
 * objects of a GL context on the same GPU. So this makes device `device`'s primary context
 * current for this thread (driver.useDevice) and returns it.
 * @example
 * const cudaCtx = gl.makeContext(0);
 */
export function makeContext(device = 0): Context {
  useDevice(checkSize(device, 'device', 2 ** 31 - 1));
  return Context.getCurrent();
}

/**
 * pycuda.gl.autoinit: a headless GL context on CUDA device `device` (default 0) made current on
 * this thread, and that device's CUDA context current too.
 * @example
 * const { glContext } = gl.autoinit();
 */
export function autoinit(o: HeadlessContextOptions = {}): {
  /** The headless GL context, current on this thread. */
  glContext: HeadlessContext;
  /** The CUDA context makeContext() made current for the GL context's CUDA device (`device`, default 0, when that is -1). */
  cudaContext: Context;
} {
  const glContext = createHeadlessContext(o);
  const cudaContext = makeContext(glContext.cudaDevice >= 0 ? glContext.cudaDevice : o.device ?? 0);
  return { glContext, cudaContext };
}

/**
 * A GL buffer nodecuda creates in the current GL context (pycuda.gl.BufferObject); register()
 * shares it with CUDA. dispose() deletes it (its context must be current).
 * @example
 * using bo = new gl.BufferObject(1 << 20);
 * using reg = bo.register();
 */
export class BufferObject {
  /** The GL buffer name. */
  readonly handle: number;
  /** Its size in bytes. */
  readonly size: number;
  readonly #ctx: HeadlessContext | null;
  #deleted = false;
  constructor(size: number, o: { usage?: number; target?: number; context?: HeadlessContext } = {}) {
    this.size = checkSize(size, 'size', 2 ** 31 - 1);
    this.#ctx = o.context ?? null;
    if (this.#ctx) this.#ctx.check_();
    else if (!native.glIsCurrent(null)) throw new GlError('BufferObject: no OpenGL context is current on this thread', 'GL_NO_CONTEXT');
    this.handle = native.glBufferCreate(o.target ?? GL.ARRAY_BUFFER, this.size, null, 0, 0, o.usage ?? GL.DYNAMIC_DRAW);
  }
  /** Registers the buffer with CUDA (graphicsRegisterFlags). */
  register(flags = graphicsRegisterFlags.NONE): RegisteredBuffer {
    if (this.#deleted) throw new GlError('The BufferObject was deleted', 'GL_CONTEXT_DISPOSED');
    return new RegisteredBuffer(this.handle, flags);
  }
  /** Deletes the GL buffer (unregister its CUDA registrations first). Idempotent. */
  dispose(): void {
    if (this.#deleted) return;
    this.#deleted = true;
    if (this.#ctx?.disposed) return; // went with its context
    if (native.glIsCurrent(null)) native.glDelete(0, glName(this.handle));
  }
  /** dispose(), for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }
  /** `BufferObject(handle, size bytes)`. */
  toString(): string {
    return `BufferObject(${this.handle}, ${this.size} bytes)`;
  }
}

/** pycuda.gl: OpenGL interop and headless EGL contexts. */
export const gl = Object.freeze({
  isAvailable,
  availability,
  init,
  makeContext,
  autoinit,
  createHeadlessContext,
  /** A headless OpenGL context (EGL, no window); made by gl.createHeadlessContext(). */
  HeadlessContext,
  /** A GL buffer nodecuda creates in the current GL context (pycuda.gl.BufferObject). */
  BufferObject,
  /** A GL buffer object registered with CUDA (pycuda.gl.RegisteredBuffer). */
  RegisteredBuffer,
  /** A GL texture or renderbuffer registered with CUDA (pycuda.gl.RegisteredImage). */
  RegisteredImage,
  /** A mapped resource (pycuda.gl.RegisteredMapping), valid until unmap(). */
  RegisteredMapping,
  /** Common part of RegisteredBuffer and RegisteredImage (pycuda.gl.RegisteredObject). */
  RegisteredObject,
  mapResources,
  unmapResources,
  graphicsMapFlags,
  graphicsRegisterFlags,
  /** An EGL or OpenGL failure, or GL not being usable here (`code` says which). */
  GlError,
  GL,
});

