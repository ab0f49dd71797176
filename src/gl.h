// EGL and OpenGL through dlopen (libEGL.so.1, never linked; GL functions from eglGetProcAddress)
// for headless contexts and the few GL calls around CUDA interop. Shared by gl.cc (contexts, GL
// helpers) and gl_interop.cc (CUDA registration of GL buffers and images).
#pragma once

#include <napi.h>

#include <cstdint>
#include <string>

#include "errors.h"

namespace nodecuda {

// EGL and GL types as their headers define them (the build needs no GL headers).
using EGLDisplay = void*;
using EGLContext = void*;
using EGLSurface = void*;
using EGLConfig = void*;
using EGLDeviceEXT = void*;
using EGLint = int32_t;
using EGLBoolean = unsigned;
using EGLenum = unsigned;
using EGLAttrib = intptr_t;
using GLenum = unsigned;
using GLuint = unsigned;
using GLint = int;
using GLsizei = int;
using GLboolean = unsigned char;
using GLbitfield = unsigned;
using GLfloat = float;
using GLchar = char;
using GLintptr = intptr_t;
using GLsizeiptr = intptr_t;

// clang-format off
#define NODECUDA_EGL_CORE(X) \
  X(eglGetProcAddress, void* (*)(const char*)) \
  X(eglGetError, EGLint (*)()) \
  X(eglInitialize, EGLBoolean (*)(EGLDisplay, EGLint*, EGLint*)) \
  X(eglTerminate, EGLBoolean (*)(EGLDisplay)) \
  X(eglQueryString, const char* (*)(EGLDisplay, EGLint)) \
  X(eglBindAPI, EGLBoolean (*)(EGLenum)) \
  X(eglChooseConfig, EGLBoolean (*)(EGLDisplay, const EGLint*, EGLConfig*, EGLint, EGLint*)) \
  X(eglCreateContext, EGLContext (*)(EGLDisplay, EGLConfig, EGLContext, const EGLint*)) \
  X(eglDestroyContext, EGLBoolean (*)(EGLDisplay, EGLContext)) \
  X(eglCreatePbufferSurface, EGLSurface (*)(EGLDisplay, EGLConfig, const EGLint*)) \
  X(eglDestroySurface, EGLBoolean (*)(EGLDisplay, EGLSurface)) \
  X(eglMakeCurrent, EGLBoolean (*)(EGLDisplay, EGLSurface, EGLSurface, EGLContext)) \
  X(eglGetCurrentContext, EGLContext (*)()) \
  X(eglGetCurrentDisplay, EGLDisplay (*)()) \
  X(eglReleaseThread, EGLBoolean (*)())

// Extension functions (eglGetProcAddress); may be missing.
#define NODECUDA_EGL_EXT(X) \
  X(eglQueryDevicesEXT, EGLBoolean (*)(EGLint, EGLDeviceEXT*, EGLint*)) \
  X(eglQueryDeviceStringEXT, const char* (*)(EGLDeviceEXT, EGLint)) \
  X(eglQueryDeviceAttribEXT, EGLBoolean (*)(EGLDeviceEXT, EGLint, EGLAttrib*)) \
  X(eglGetPlatformDisplayEXT, EGLDisplay (*)(EGLenum, void*, const EGLint*))

#define NODECUDA_GL_FUNCS(X) \
  X(glGetError, GLenum (*)()) \
  X(glGetString, const unsigned char* (*)(GLenum)) \
  X(glFinish, void (*)()) \
  X(glPixelStorei, void (*)(GLenum, GLint)) \
  X(glGenBuffers, void (*)(GLsizei, GLuint*)) \
  X(glDeleteBuffers, void (*)(GLsizei, const GLuint*)) \
  X(glBindBuffer, void (*)(GLenum, GLuint)) \
  X(glBufferData, void (*)(GLenum, GLsizeiptr, const void*, GLenum)) \
  X(glBufferSubData, void (*)(GLenum, GLintptr, GLsizeiptr, const void*)) \
  X(glGetBufferSubData, void (*)(GLenum, GLintptr, GLsizeiptr, void*)) \
  X(glGetBufferParameteriv, void (*)(GLenum, GLenum, GLint*)) \
  X(glGenTextures, void (*)(GLsizei, GLuint*)) \
  X(glDeleteTextures, void (*)(GLsizei, const GLuint*)) \
  X(glBindTexture, void (*)(GLenum, GLuint)) \
  X(glTexImage2D, void (*)(GLenum, GLint, GLint, GLsizei, GLsizei, GLint, GLenum, GLenum, const void*)) \
  X(glTexSubImage2D, void (*)(GLenum, GLint, GLint, GLint, GLsizei, GLsizei, GLenum, GLenum, const void*)) \
  X(glGetTexImage, void (*)(GLenum, GLint, GLenum, GLenum, void*)) \
  X(glGetTexLevelParameteriv, void (*)(GLenum, GLint, GLenum, GLint*)) \
  X(glTexParameteri, void (*)(GLenum, GLenum, GLint)) \
  X(glActiveTexture, void (*)(GLenum)) \
  X(glGenRenderbuffers, void (*)(GLsizei, GLuint*)) \
  X(glDeleteRenderbuffers, void (*)(GLsizei, const GLuint*)) \
  X(glBindRenderbuffer, void (*)(GLenum, GLuint)) \
  X(glRenderbufferStorage, void (*)(GLenum, GLenum, GLsizei, GLsizei)) \
  X(glGetRenderbufferParameteriv, void (*)(GLenum, GLenum, GLint*)) \
  X(glGenFramebuffers, void (*)(GLsizei, GLuint*)) \
  X(glDeleteFramebuffers, void (*)(GLsizei, const GLuint*)) \
  X(glBindFramebuffer, void (*)(GLenum, GLuint)) \
  X(glFramebufferTexture2D, void (*)(GLenum, GLenum, GLenum, GLuint, GLint)) \
  X(glFramebufferRenderbuffer, void (*)(GLenum, GLenum, GLenum, GLuint)) \
  X(glCheckFramebufferStatus, GLenum (*)(GLenum)) \
  X(glReadPixels, void (*)(GLint, GLint, GLsizei, GLsizei, GLenum, GLenum, void*)) \
  X(glViewport, void (*)(GLint, GLint, GLsizei, GLsizei)) \
  X(glClearColor, void (*)(GLfloat, GLfloat, GLfloat, GLfloat)) \
  X(glClear, void (*)(GLbitfield)) \
  X(glCreateShader, GLuint (*)(GLenum)) \
  X(glShaderSource, void (*)(GLuint, GLsizei, const GLchar* const*, const GLint*)) \
  X(glCompileShader, void (*)(GLuint)) \
  X(glGetShaderiv, void (*)(GLuint, GLenum, GLint*)) \
  X(glGetShaderInfoLog, void (*)(GLuint, GLsizei, GLsizei*, GLchar*)) \
  X(glDeleteShader, void (*)(GLuint)) \
  X(glCreateProgram, GLuint (*)()) \
  X(glAttachShader, void (*)(GLuint, GLuint)) \
  X(glLinkProgram, void (*)(GLuint)) \
  X(glGetProgramiv, void (*)(GLuint, GLenum, GLint*)) \
  X(glGetProgramInfoLog, void (*)(GLuint, GLsizei, GLsizei*, GLchar*)) \
  X(glUseProgram, void (*)(GLuint)) \
  X(glDeleteProgram, void (*)(GLuint)) \
  X(glGetUniformLocation, GLint (*)(GLuint, const GLchar*)) \
  X(glUniform1i, void (*)(GLint, GLint)) \
  X(glUniform1f, void (*)(GLint, GLfloat)) \
  X(glGenVertexArrays, void (*)(GLsizei, GLuint*)) \
  X(glBindVertexArray, void (*)(GLuint)) \
  X(glDeleteVertexArrays, void (*)(GLsizei, const GLuint*)) \
  X(glDrawArrays, void (*)(GLenum, GLint, GLsizei))
// clang-format on

template <typename T>
using Pfn = T;  // lets a function pointer type precede the name it declares
#define NODECUDA_DECLARE_PFN(name, type) Pfn<type> name = nullptr;
struct EglApi {
  NODECUDA_EGL_CORE(NODECUDA_DECLARE_PFN)
  NODECUDA_EGL_EXT(NODECUDA_DECLARE_PFN)
  NODECUDA_GL_FUNCS(NODECUDA_DECLARE_PFN)
};
#undef NODECUDA_DECLARE_PFN

// An EGL/GL failure: `code` is GL_NOT_AVAILABLE, GL_NO_CONTEXT, GL_INVALID_OPERATION, EGL_BAD_*…
struct GlErr {
  std::string code;
  std::string message;
};
[[noreturn]] inline void ThrowGl(std::string code, std::string msg) {
  throw GlErr{std::move(code), std::move(msg)};
}

// The EGL/GL table; throws GlErr GL_NOT_AVAILABLE (with what to install) when libEGL cannot be
// used.
const EglApi& Egl();
// Throws GlErr GL_NO_CONTEXT unless a GL context is current on the calling thread.
const EglApi& GlCurrent(const char* what);
// Throws the first GL error raised since the last check (clearing the rest) as a GlErr.
void CheckGl(const char* call);
// The JS error for a GlErr (the GlError class lib/gl registered, else Error with `code`).
Napi::Error ToJsError(Napi::Env env, const GlErr& e);

// Guard for GL exports: GlErr as well as the CUDA/argument errors Guard converts.
template <Napi::Value (*F)(const Napi::CallbackInfo&)>
Napi::Value GlGuard(const Napi::CallbackInfo& info) {
  try {
    return F(info);
  } catch (const Napi::Error&) {
    throw;
  } catch (const GlErr& e) {  // before Guard's catch-all would take it for an internal error
    throw ToJsError(info.Env(), e);
  } catch (...) {
    throw ToJsError(info.Env(), std::current_exception());
  }
}
#define NODECUDA_GL_EXPORT(env, exports, name, fn) \
  ::nodecuda::Export(env, exports, name, Napi::Function::New(env, ::nodecuda::GlGuard<fn>, name))

void InitGlObjects(Napi::Env env, Napi::Object exports);
void InitGlInterop(Napi::Env env, Napi::Object exports);

}  // namespace nodecuda
