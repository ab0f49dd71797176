/**
 * GlError: EGL/OpenGL failures and GL unavailability (`code`: GL_NOT_AVAILABLE, GL_NO_CONTEXT,
 * GL_NO_MATCHING_DEVICE, GL_INVALID_OPERATION, EGL_BAD_ACCESS, …). Handed to native code when
 * lib/gl loads, so errors thrown there are instances of it.
 */
import { native } from '../cuda/native';

/**
 * An EGL or OpenGL failure, or GL not being usable here.
 * @example
 * try { gl.createHeadlessContext(); } catch (e) {
 *   if (e instanceof gl.GlError && e.code === 'GL_NOT_AVAILABLE') console.log(e.message); // what to install
 * }
 */
export class GlError extends Error {
  /**
   * What failed: GL_NOT_AVAILABLE, GL_NO_CONTEXT, GL_CONTEXT_DISPOSED, GL_NO_MATCHING_DEVICE,
   * GL_COMPILE_FAILED, GL_LINK_FAILED, GL_FRAMEBUFFER_INCOMPLETE, or the EGL/GL error the call raised
   * (EGL_BAD_ACCESS, GL_INVALID_OPERATION, GL_OUT_OF_MEMORY, …).
   */
  readonly code: string;
  constructor(message: string, code: string) {
    super(message);
    this.name = 'GlError';
    this.code = code;
  }
}

native.glSetErrorClass(GlError);
