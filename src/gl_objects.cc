// The GL calls around CUDA interop, on the calling thread's current context: buffers, 2-D
// textures (from host memory or a pixel buffer), renderbuffers, framebuffers, readback, a GLSL
// program and a full-screen draw. Sizes of host memory GL reads or writes are checked here.
#include <algorithm>
#include <string>

#include "addon.h"
#include "gl.h"

namespace nodecuda {
namespace {

// Bytes per pixel of a (format, type) pair GL reads or writes; throws for pairs not handled.
size_t PixelBytes(GLenum format, GLenum type) {
  size_t ch = 0, sz = 0;
  switch (format) {
    case 0x1903:
    case 0x8D94:
    case 0x1902:
      ch = 1;
      break;  // RED, RED_INTEGER, DEPTH_COMPONENT
    case 0x8227:
    case 0x8228:
      ch = 2;
      break;  // RG, RG_INTEGER
    case 0x1907:
    case 0x80E0:
      ch = 3;
      break;  // RGB, BGR
    case 0x1908:
    case 0x80E1:
    case 0x8D99:
      ch = 4;
      break;  // RGBA, BGRA, RGBA_INTEGER
  }
  switch (type) {
    case 0x1400:
    case 0x1401:
      sz = 1;
      break;  // BYTE, UNSIGNED_BYTE
    case 0x1402:
    case 0x1403:
    case 0x140B:
      sz = 2;
      break;  // SHORT, UNSIGNED_SHORT, HALF_FLOAT
    case 0x1404:
    case 0x1405:
    case 0x1406:
      sz = 4;
      break;  // INT, UNSIGNED_INT, FLOAT
  }
  if (!ch || !sz) ThrowRange("ERR_OUT_OF_RANGE", "unsupported GL pixel format/type pair");
  return ch * sz;
}

// Host bytes at (i, i+1, i+2), or none when info[i] is null; at least `need` bytes.
uint8_t* HostOrNull(const Napi::CallbackInfo& info, size_t i, size_t need, const char* name) {
  if (info[i].IsNull() || info[i].IsUndefined()) return nullptr;
  HostRange h = HostArg(info, i, name);
  if (h.bytes < need)
    ThrowRange("ERR_OUT_OF_RANGE", std::string("The \"") + name + "\" buffer has " +
                                       std::to_string(h.bytes) + " bytes; " + std::to_string(need) +
                                       " are needed");
  return h.data;
}

// glBufferCreate(target, bytes, host|null, byteOffset, byteLength, usage) -> name
// void glBufferData(GLenum target, GLsizeiptr size, const void* data, GLenum usage)
Napi::Value GlBufferCreate(const Napi::CallbackInfo& info) {
  const EglApi& gl = GlCurrent("glBufferData");
  GLenum target = static_cast<GLenum>(IntArg(info, 0, "target"));
  size_t bytes = SizeArg(info, 1, "bytes");
  uint8_t* data = HostOrNull(info, 2, bytes, "data");
  GLenum usage = static_cast<GLenum>(IntArg(info, 5, "usage"));
  GLuint name = 0;
  gl.glGenBuffers(1, &name);
  gl.glBindBuffer(target, name);
  gl.glBufferData(target, static_cast<GLsizeiptr>(bytes), data, usage);
  gl.glBindBuffer(target, 0);
  try {
    CheckGl("glBufferData");
  } catch (...) {
    gl.glDeleteBuffers(1, &name);
    throw;
  }
  return Napi::Number::New(info.Env(), name);
}

// glBufferAccess(write, target, name, offset, host, byteOffset, byteLength)
// void glBufferSubData(GLenum target, GLintptr offset, GLsizeiptr size, const void* data)
// void glGetBufferSubData(GLenum target, GLintptr offset, GLsizeiptr size, void* data)
Napi::Value GlBufferAccess(const Napi::CallbackInfo& info) {
  bool write = info[0].ToBoolean();
  const EglApi& gl = GlCurrent(write ? "glBufferSubData" : "glGetBufferSubData");
  GLenum target = static_cast<GLenum>(IntArg(info, 1, "target"));
  GLuint name = static_cast<GLuint>(IntArg(info, 2, "buffer"));
  size_t offset = SizeArg(info, 3, "offset");
  HostRange h = HostArg(info, 4, "host");
  gl.glBindBuffer(target, name);
  CheckGl("glBindBuffer");
  // GL checks offset + size against the buffer (GL_INVALID_VALUE), so it never goes past it.
  if (write) {
    gl.glBufferSubData(target, static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(h.bytes),
                       h.data);
  } else {
    gl.glGetBufferSubData(target, static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(h.bytes),
                          h.data);
  }
  gl.glBindBuffer(target, 0);
  CheckGl(write ? "glBufferSubData" : "glGetBufferSubData");
  return info.Env().Undefined();
}

// glBufferSize(target, name) -> bytes
Napi::Value GlBufferSize(const Napi::CallbackInfo& info) {
  const EglApi& gl = GlCurrent("glGetBufferParameteriv");
  GLenum target = static_cast<GLenum>(IntArg(info, 0, "target"));
  gl.glBindBuffer(target, static_cast<GLuint>(IntArg(info, 1, "buffer")));
  CheckGl("glBindBuffer");
  GLint size = 0;
  gl.glGetBufferParameteriv(target, 0x8764 /* GL_BUFFER_SIZE */, &size);
  gl.glBindBuffer(target, 0);
  CheckGl("glGetBufferParameteriv");
  return Napi::Number::New(info.Env(), size);
}

// glTextureCreate(width, height, internalFormat, format, type, host|null, byteOffset,
//                 byteLength, linear) -> name (a 2-D texture, one level)
// void glTexImage2D(GLenum target, GLint level, GLint internalformat, GLsizei width,
//                   GLsizei height, GLint border, GLenum format, GLenum type, const void* data)
Napi::Value GlTextureCreate(const Napi::CallbackInfo& info) {
  const EglApi& gl = GlCurrent("glTexImage2D");
  int w = IntArg(info, 0, "width"), h = IntArg(info, 1, "height");
  GLint internal = IntArg(info, 2, "internalFormat");
  GLenum format = static_cast<GLenum>(IntArg(info, 3, "format"));
  GLenum type = static_cast<GLenum>(IntArg(info, 4, "type"));
  uint8_t* data = HostOrNull(info, 5, size_t(w) * h * PixelBytes(format, type), "data");
  GLint filter = info[8].ToBoolean() ? 0x2601 : 0x2600;
  GLuint name = 0;
  gl.glGenTextures(1, &name);
  gl.glBindTexture(0x0DE1, name);
  gl.glPixelStorei(0x0CF5, 1);  // GL_UNPACK_ALIGNMENT: rows are packed
  gl.glBindBuffer(0x88EC, 0);   // no pixel unpack buffer: `data` is host memory
  gl.glTexImage2D(0x0DE1, 0, internal, w, h, 0, format, type, data);
  // One level: complete without mipmaps.
  gl.glTexParameteri(0x0DE1, 0x2801, filter);
  gl.glTexParameteri(0x0DE1, 0x2800, filter);
  gl.glTexParameteri(0x0DE1, 0x813D, 0);  // GL_TEXTURE_MAX_LEVEL
  gl.glBindTexture(0x0DE1, 0);
  try {
    CheckGl("glTexImage2D");
  } catch (...) {
    gl.glDeleteTextures(1, &name);
    throw;
  }
  return Napi::Number::New(info.Env(), name);
}

// Level-0 size of 2-D texture `name` (bound to GL_TEXTURE_2D on return).
void TextureSize(const EglApi& gl, GLuint name, GLint& w, GLint& h) {
  gl.glBindTexture(0x0DE1, name);
  CheckGl("glBindTexture");
  gl.glGetTexLevelParameteriv(0x0DE1, 0, 0x1000, &w);
  gl.glGetTexLevelParameteriv(0x0DE1, 0, 0x1001, &h);
}

// glTextureWrite(name, x, y, w, h, format, type, host|null, byteOffset, byteLength,
//                unpackBuffer, unpackOffset): from host memory, or from a pixel buffer object.
// void glTexSubImage2D(GLenum target, GLint level, GLint x, GLint y, GLsizei w, GLsizei h,
//                      GLenum format, GLenum type, const void* pixels)
Napi::Value GlTextureWrite(const Napi::CallbackInfo& info) {
  const EglApi& gl = GlCurrent("glTexSubImage2D");
  GLuint name = static_cast<GLuint>(IntArg(info, 0, "texture"));
  int x = IntArg(info, 1, "x"), y = IntArg(info, 2, "y");
  int w = IntArg(info, 3, "width"), h = IntArg(info, 4, "height");
  GLenum format = static_cast<GLenum>(IntArg(info, 5, "format"));
  GLenum type = static_cast<GLenum>(IntArg(info, 6, "type"));
  size_t need = size_t(std::max(w, 0)) * std::max(h, 0) * PixelBytes(format, type);
  uint8_t* data = HostOrNull(info, 7, need, "data");
  GLuint pbo = static_cast<GLuint>(IntArg(info, 10, "unpackBuffer"));
  size_t pbo_offset = SizeArg(info, 11, "unpackOffset");
  if (!data && !pbo)
    ThrowType("ERR_INVALID_ARG_TYPE", "glTextureWrite needs host data or a buffer");
  gl.glBindTexture(0x0DE1, name);
  CheckGl("glBindTexture");
  gl.glPixelStorei(0x0CF5, 1);
  // With a pixel unpack buffer bound, the pointer is an offset into it (GL checks its size).
  gl.glBindBuffer(0x88EC, data ? 0 : pbo);
  gl.glTexSubImage2D(
      0x0DE1, 0, x, y, w, h, format, type,
      data ? static_cast<const void*>(data) : reinterpret_cast<const void*>(pbo_offset));
  gl.glBindBuffer(0x88EC, 0);
  gl.glBindTexture(0x0DE1, 0);
  CheckGl("glTexSubImage2D");
  return info.Env().Undefined();
}

// glTextureRead(name, format, type, host, byteOffset, byteLength): level 0, rows packed.
// void glGetTexImage(GLenum target, GLint level, GLenum format, GLenum type, void* pixels)
Napi::Value GlTextureRead(const Napi::CallbackInfo& info) {
  const EglApi& gl = GlCurrent("glGetTexImage");
  GLuint name = static_cast<GLuint>(IntArg(info, 0, "texture"));
  GLenum format = static_cast<GLenum>(IntArg(info, 1, "format"));
  GLenum type = static_cast<GLenum>(IntArg(info, 2, "type"));
  GLint w = 0, h = 0;
  TextureSize(gl, name, w, h);
  uint8_t* data = HostOrNull(info, 3, size_t(w) * h * PixelBytes(format, type), "data");
  if (!data) ThrowType("ERR_INVALID_ARG_TYPE", "glTextureRead needs a host buffer");
  gl.glPixelStorei(0x0D05, 1);  // GL_PACK_ALIGNMENT
  gl.glBindBuffer(0x88EB, 0);   // no pixel pack buffer
  gl.glGetTexImage(0x0DE1, 0, format, type, data);
  gl.glBindTexture(0x0DE1, 0);
  CheckGl("glGetTexImage");
  return info.Env().Undefined();
}

// glTextureSize(name) -> [width, height]
Napi::Value GlTextureSize(const Napi::CallbackInfo& info) {
  const EglApi& gl = GlCurrent("glGetTexLevelParameteriv");
  GLint w = 0, h = 0;
  TextureSize(gl, static_cast<GLuint>(IntArg(info, 0, "texture")), w, h);
  gl.glBindTexture(0x0DE1, 0);
  CheckGl("glGetTexLevelParameteriv");
  Napi::Array out = Napi::Array::New(info.Env(), 2);
  out.Set(0u, w);
  out.Set(1u, h);
  return out;
}

// glRenderbufferCreate(internalFormat, width, height) -> name
// void glRenderbufferStorage(GLenum target, GLenum internalformat, GLsizei w, GLsizei h)
Napi::Value GlRenderbufferCreate(const Napi::CallbackInfo& info) {
  const EglApi& gl = GlCurrent("glRenderbufferStorage");
  GLuint name = 0;
  gl.glGenRenderbuffers(1, &name);
  gl.glBindRenderbuffer(0x8D41, name);
  gl.glRenderbufferStorage(0x8D41, static_cast<GLenum>(IntArg(info, 0, "internalFormat")),
                           IntArg(info, 1, "width"), IntArg(info, 2, "height"));
  gl.glBindRenderbuffer(0x8D41, 0);
  try {
    CheckGl("glRenderbufferStorage");
  } catch (...) {
    gl.glDeleteRenderbuffers(1, &name);
    throw;
  }
  return Napi::Number::New(info.Env(), name);
}

// glFramebufferCreate(attachment, isRenderbuffer) -> name (colour attachment 0, complete)
// GLenum glCheckFramebufferStatus(GLenum target)
Napi::Value GlFramebufferCreate(const Napi::CallbackInfo& info) {
  const EglApi& gl = GlCurrent("glFramebufferTexture2D");
  GLuint att = static_cast<GLuint>(IntArg(info, 0, "attachment"));
  bool rb = info[1].ToBoolean();
  GLuint fbo = 0;
  gl.glGenFramebuffers(1, &fbo);
  gl.glBindFramebuffer(0x8D40, fbo);
  if (rb) {
    gl.glFramebufferRenderbuffer(0x8D40, 0x8CE0, 0x8D41, att);
  } else {
    gl.glFramebufferTexture2D(0x8D40, 0x8CE0, 0x0DE1, att, 0);
  }
  GLenum status = gl.glCheckFramebufferStatus(0x8D40);
  gl.glBindFramebuffer(0x8D40, 0);
  try {
    CheckGl("glFramebufferTexture2D");
    if (status != 0x8CD5)
      ThrowGl("GL_FRAMEBUFFER_INCOMPLETE",
              "the framebuffer is incomplete (status 0x" + std::to_string(status) + ")");
  } catch (...) {
    gl.glDeleteFramebuffers(1, &fbo);
    throw;
  }
  return Napi::Number::New(info.Env(), fbo);
}

// glReadPixels(fbo, x, y, w, h, format, type, host, byteOffset, byteLength)
// void glReadPixels(GLint x, GLint y, GLsizei w, GLsizei h, GLenum format, GLenum type, void* p)
Napi::Value GlReadPixels(const Napi::CallbackInfo& info) {
  const EglApi& gl = GlCurrent("glReadPixels");
  GLuint fbo = static_cast<GLuint>(IntArg(info, 0, "framebuffer"));
  int x = IntArg(info, 1, "x"), y = IntArg(info, 2, "y");
  int w = IntArg(info, 3, "width"), h = IntArg(info, 4, "height");
  GLenum format = static_cast<GLenum>(IntArg(info, 5, "format"));
  GLenum type = static_cast<GLenum>(IntArg(info, 6, "type"));
  uint8_t* data = HostOrNull(
      info, 7, size_t(std::max(w, 0)) * std::max(h, 0) * PixelBytes(format, type), "data");
  if (!data) ThrowType("ERR_INVALID_ARG_TYPE", "glReadPixels needs a host buffer");
  gl.glBindFramebuffer(0x8CA8, fbo);  // GL_READ_FRAMEBUFFER
  CheckGl("glBindFramebuffer");
  gl.glPixelStorei(0x0D05, 1);
  gl.glBindBuffer(0x88EB, 0);
  gl.glReadPixels(x, y, w, h, format, type, data);
  gl.glBindFramebuffer(0x8CA8, 0);
  CheckGl("glReadPixels");
  return info.Env().Undefined();
}

GLuint Shader(const EglApi& gl, GLenum kind, const std::string& src) {
  GLuint s = gl.glCreateShader(kind);
  const char* p = src.c_str();
  gl.glShaderSource(s, 1, &p, nullptr);
  gl.glCompileShader(s);
  GLint ok = 0, len = 0;
  gl.glGetShaderiv(s, 0x8B81, &ok);
  if (!ok) {
    gl.glGetShaderiv(s, 0x8B84, &len);
    std::string log(std::max(len, 1), '\0');
    gl.glGetShaderInfoLog(s, len, nullptr, &log[0]);
    gl.glDeleteShader(s);
    ThrowGl("GL_COMPILE_FAILED", std::string(kind == 0x8B31 ? "vertex" : "fragment") +
                                     " shader did not compile:\n" + log.c_str());
  }
  return s;
}

// glProgramCreate(vertexSource, fragmentSource) -> program name
Napi::Value GlProgramCreate(const Napi::CallbackInfo& info) {
  const EglApi& gl = GlCurrent("glCreateProgram");
  if (!info[0].IsString() || !info[1].IsString())
    ThrowType("ERR_INVALID_ARG_TYPE", "shader sources must be strings");
  GLuint vs = Shader(gl, 0x8B31, info[0].As<Napi::String>().Utf8Value());
  GLuint fs = 0;
  try {
    fs = Shader(gl, 0x8B30, info[1].As<Napi::String>().Utf8Value());
  } catch (...) {
    gl.glDeleteShader(vs);
    throw;
  }
  GLuint p = gl.glCreateProgram();
  gl.glAttachShader(p, vs);
  gl.glAttachShader(p, fs);
  gl.glLinkProgram(p);
  gl.glDeleteShader(vs);
  gl.glDeleteShader(fs);
  GLint ok = 0, len = 0;
  gl.glGetProgramiv(p, 0x8B82, &ok);
  if (!ok) {
    gl.glGetProgramiv(p, 0x8B84, &len);
    std::string log(std::max(len, 1), '\0');
    gl.glGetProgramInfoLog(p, len, nullptr, &log[0]);
    gl.glDeleteProgram(p);
    ThrowGl("GL_LINK_FAILED", std::string("program did not link:\n") + log.c_str());
  }
  CheckGl("glLinkProgram");
  return Napi::Number::New(info.Env(), p);
}

// glDrawFullscreen(program, fbo, texture, width, height, uniforms {name: number}): draws one
// triangle covering the viewport (the vertex shader makes it from gl_VertexID) with `texture`
// on unit 0 (uniform "tex").
// void glDrawArrays(GLenum mode, GLint first, GLsizei count)
Napi::Value GlDrawFullscreen(const Napi::CallbackInfo& info) {
  const EglApi& gl = GlCurrent("glDrawArrays");
  GLuint program = static_cast<GLuint>(IntArg(info, 0, "program"));
  GLuint fbo = static_cast<GLuint>(IntArg(info, 1, "framebuffer"));
  GLuint tex = static_cast<GLuint>(IntArg(info, 2, "texture"));
  int w = IntArg(info, 3, "width"), h = IntArg(info, 4, "height");
  gl.glBindFramebuffer(0x8CA9, fbo);  // GL_DRAW_FRAMEBUFFER
  gl.glViewport(0, 0, w, h);
  gl.glUseProgram(program);
  CheckGl("glUseProgram");
  gl.glActiveTexture(0x84C0);
  gl.glBindTexture(0x0DE1, tex);
  GLint loc = gl.glGetUniformLocation(program, "tex");
  if (loc >= 0) gl.glUniform1i(loc, 0);
  if (info[5].IsObject()) {
    Napi::Object u = info[5].As<Napi::Object>();
    Napi::Array keys = u.GetPropertyNames();
    for (uint32_t i = 0; i < keys.Length(); i++) {
      std::string k = keys.Get(i).ToString().Utf8Value();
      GLint l = gl.glGetUniformLocation(program, k.c_str());
      if (l >= 0) gl.glUniform1f(l, u.Get(k).ToNumber().FloatValue());
    }
  }
  GLuint vao = 0;  // core profile draws need a vertex array object, even an empty one
  gl.glGenVertexArrays(1, &vao);
  gl.glBindVertexArray(vao);
  gl.glDrawArrays(0x0004, 0, 3);
  gl.glBindVertexArray(0);
  gl.glDeleteVertexArrays(1, &vao);
  gl.glBindTexture(0x0DE1, 0);
  gl.glUseProgram(0);
  gl.glBindFramebuffer(0x8CA9, 0);
  CheckGl("glDrawArrays");
  return info.Env().Undefined();
}

// glClearFramebuffer(fbo, r, g, b, a)
Napi::Value GlClearFramebuffer(const Napi::CallbackInfo& info) {
  const EglApi& gl = GlCurrent("glClear");
  gl.glBindFramebuffer(0x8CA9, static_cast<GLuint>(IntArg(info, 0, "framebuffer")));
  gl.glClearColor(info[1].ToNumber().FloatValue(), info[2].ToNumber().FloatValue(),
                  info[3].ToNumber().FloatValue(), info[4].ToNumber().FloatValue());
  gl.glClear(0x4000);
  gl.glBindFramebuffer(0x8CA9, 0);
  CheckGl("glClear");
  return info.Env().Undefined();
}

// glDelete(kind: 0 buffer, 1 texture, 2 framebuffer, 3 renderbuffer, 4 program, name)
Napi::Value GlDelete(const Napi::CallbackInfo& info) {
  const EglApi& gl = GlCurrent("glDelete*");
  int kind = IntArg(info, 0, "kind");
  GLuint name = static_cast<GLuint>(IntArg(info, 1, "name"));
  switch (kind) {
    case 0:
      gl.glDeleteBuffers(1, &name);
      break;
    case 1:
      gl.glDeleteTextures(1, &name);
      break;
    case 2:
      gl.glDeleteFramebuffers(1, &name);
      break;
    case 3:
      gl.glDeleteRenderbuffers(1, &name);
      break;
    case 4:
      gl.glDeleteProgram(name);
      break;
    default:
      ThrowRange("ERR_OUT_OF_RANGE", "unknown GL object kind");
  }
  CheckGl("glDelete*");
  return info.Env().Undefined();
}

// glFinish(): waits for GL work (before CUDA maps what GL wrote, and in tests).
Napi::Value GlFinish(const Napi::CallbackInfo& info) {
  GlCurrent("glFinish").glFinish();
  CheckGl("glFinish");
  return info.Env().Undefined();
}

}  // namespace

void InitGlObjects(Napi::Env env, Napi::Object exports) {
  NODECUDA_GL_EXPORT(env, exports, "glBufferCreate", GlBufferCreate);
  NODECUDA_GL_EXPORT(env, exports, "glBufferAccess", GlBufferAccess);
  NODECUDA_GL_EXPORT(env, exports, "glBufferSize", GlBufferSize);
  NODECUDA_GL_EXPORT(env, exports, "glTextureCreate", GlTextureCreate);
  NODECUDA_GL_EXPORT(env, exports, "glTextureWrite", GlTextureWrite);
  NODECUDA_GL_EXPORT(env, exports, "glTextureRead", GlTextureRead);
  NODECUDA_GL_EXPORT(env, exports, "glTextureSize", GlTextureSize);
  NODECUDA_GL_EXPORT(env, exports, "glRenderbufferCreate", GlRenderbufferCreate);
  NODECUDA_GL_EXPORT(env, exports, "glFramebufferCreate", GlFramebufferCreate);
  NODECUDA_GL_EXPORT(env, exports, "glReadPixels", GlReadPixels);
  NODECUDA_GL_EXPORT(env, exports, "glProgramCreate", GlProgramCreate);
  NODECUDA_GL_EXPORT(env, exports, "glDrawFullscreen", GlDrawFullscreen);
  NODECUDA_GL_EXPORT(env, exports, "glClearFramebuffer", GlClearFramebuffer);
  NODECUDA_GL_EXPORT(env, exports, "glDelete", GlDelete);
  NODECUDA_GL_EXPORT(env, exports, "glFinish", GlFinish);
}

}  // namespace nodecuda
