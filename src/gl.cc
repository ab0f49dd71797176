// Headless EGL contexts and the GL calls around CUDA interop (buffers, 2-D textures,
// framebuffers, a full-screen draw, readback). libEGL.so.1 (the libglvnd loader, which dispatches
// to the vendor's driver, e.g. libEGL_nvidia.so.0) is opened with dlopen on first use; GL
// functions come from eglGetProcAddress. Which device, which context and when are lib/gl's policy.
#include "gl.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "addon.h"
#include "handles.h"

namespace nodecuda {
namespace {

EglApi g_egl;
bool g_egl_ok = false;
std::string g_egl_path, g_egl_error;
std::once_flag g_egl_once;

constexpr EGLint kNone = 0x3038, kExtensions = 0x3055, kVendor = 0x3053, kVersion = 0x3054;
constexpr EGLenum kPlatformDevice = 0x313F, kPlatformSurfaceless = 0x31DD, kOpenGlApi = 0x30A2;
constexpr EGLint kCudaDeviceNv = 0x323A, kDrmDeviceFile = 0x3233;

void LoadEgl() {
  const char* env = std::getenv("NODECUDA_LIBEGL");
  const char* path = env && *env ? env : "libEGL.so.1";
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::string why = dlerror();
    bool nvidia = dlopen("libEGL_nvidia.so.0", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD) ||
                  dlopen("libEGL_nvidia.so.0", RTLD_LAZY | RTLD_LOCAL);
    g_egl_error = std::string(path) + " (the EGL loader) could not be loaded" +
                  (nvidia ? ": NVIDIA's EGL driver (libEGL_nvidia.so.0) is here, but it cannot be "
                            "used without the libglvnd loaders"
                          : "") +
                  ". Install the libglvnd EGL/OpenGL loaders (Debian/Ubuntu: apt-get install "
                  "libegl1 libopengl0; Fedora/RHEL: libglvnd-egl libglvnd-opengl) and a GL "
                  "driver (NVIDIA's driver ships libEGL_nvidia.so.0), or set NODECUDA_LIBEGL. "
                  "dlopen said: " +
                  why;
    return;
  }
  std::string missing;
#define NODECUDA_LOAD_CORE(name, type)                                   \
  g_egl.name = reinterpret_cast<type>(dlsym(lib, #name));                \
  if (!g_egl.name && g_egl.eglGetProcAddress)                            \
    g_egl.name = reinterpret_cast<type>(g_egl.eglGetProcAddress(#name)); \
  if (!g_egl.name) missing += " " #name;
  NODECUDA_EGL_CORE(NODECUDA_LOAD_CORE)
#undef NODECUDA_LOAD_CORE
  if (!missing.empty()) {
    g_egl_error = std::string(path) + " lacks EGL functions (" + missing +
                  " ): it is not a usable EGL 1.4+ library (NVIDIA's libEGL_nvidia.so.0 cannot be "
                  "used alone; install the libglvnd loader, package libegl1).";
    return;
  }
#define NODECUDA_LOAD_PROC(name, type) \
  g_egl.name = reinterpret_cast<type>(g_egl.eglGetProcAddress(#name));
  NODECUDA_EGL_EXT(NODECUDA_LOAD_PROC)
  NODECUDA_GL_FUNCS(NODECUDA_LOAD_PROC)
#undef NODECUDA_LOAD_PROC
#define NODECUDA_CHECK_GL(name, type) \
  if (!g_egl.name) missing += " " #name;
  NODECUDA_GL_FUNCS(NODECUDA_CHECK_GL)
#undef NODECUDA_CHECK_GL
  if (!missing.empty()) {
    g_egl_error = std::string(path) + " gives no OpenGL functions (" + missing +
                  " ): install the OpenGL loader (package libopengl0) and a GL driver.";
    return;
  }
  g_egl_path = path;
  g_egl_ok = true;
}

std::string EglErrorName(EGLint e) {
  static const char* names[] = {
      "EGL_SUCCESS",       "EGL_NOT_INITIALIZED",     "EGL_BAD_ACCESS",
      "EGL_BAD_ALLOC",     "EGL_BAD_ATTRIBUTE",       "EGL_BAD_CONFIG",
      "EGL_BAD_CONTEXT",   "EGL_BAD_CURRENT_SURFACE", "EGL_BAD_DISPLAY",
      "EGL_BAD_MATCH",     "EGL_BAD_NATIVE_PIXMAP",   "EGL_BAD_NATIVE_WINDOW",
      "EGL_BAD_PARAMETER", "EGL_BAD_SURFACE",         "EGL_CONTEXT_LOST"};
  if (e >= 0x3000 && e <= 0x300E) return names[e - 0x3000];
  return "EGL_ERROR_" + std::to_string(e);
}

[[noreturn]] void ThrowEgl(const char* call) {
  EGLint e = g_egl.eglGetError();
  ThrowGl(EglErrorName(e), std::string(call) + " failed: " + EglErrorName(e));
}

std::string GlErrorName(GLenum e) {
  switch (e) {
    case 0x0500:
      return "GL_INVALID_ENUM";
    case 0x0501:
      return "GL_INVALID_VALUE";
    case 0x0502:
      return "GL_INVALID_OPERATION";
    case 0x0505:
      return "GL_OUT_OF_MEMORY";
    case 0x0506:
      return "GL_INVALID_FRAMEBUFFER_OPERATION";
    default:
      return "GL_ERROR_" + std::to_string(e);
  }
}

// Throws the first GL error raised since the last check (clearing the rest).
void CheckGl(const char* call) {
  GLenum e = g_egl.glGetError(), first = e;
  for (int i = 0; e && i < 16; i++) e = g_egl.glGetError();
  if (first) ThrowGl(GlErrorName(first), std::string(call) + " raised " + GlErrorName(first));
}

// EGL displays are per device and shared by every context on it: terminated with the last.
std::mutex g_dpy_mu;
std::map<EGLDisplay, int> g_dpy_refs;

struct GlContextRes {
  EGLDisplay dpy = nullptr;
  EGLContext ctx = nullptr;
  EGLSurface surf = nullptr;  // a 16×16 pbuffer, or none (surfaceless)
  void Destroy() {
    if (!ctx) return;
    if (g_egl.eglGetCurrentContext() == ctx) g_egl.eglMakeCurrent(dpy, nullptr, nullptr, nullptr);
    // Deferred by EGL while the context is current on another thread.
    g_egl.eglDestroyContext(dpy, ctx);
    if (surf) g_egl.eglDestroySurface(dpy, surf);
    ctx = surf = nullptr;
    std::lock_guard<std::mutex> lock(g_dpy_mu);
    if (--g_dpy_refs[dpy] == 0) {
      g_dpy_refs.erase(dpy);
      g_egl.eglTerminate(dpy);
    }
  }
  ~GlContextRes() { Destroy(); }
};

std::vector<EGLDeviceEXT> Devices() {
  const EglApi& egl = Egl();
  if (!egl.eglQueryDevicesEXT) return {};
  EGLint n = 0;
  if (!egl.eglQueryDevicesEXT(0, nullptr, &n) || n <= 0) return {};
  std::vector<EGLDeviceEXT> devs(n);
  if (!egl.eglQueryDevicesEXT(n, devs.data(), &n)) return {};
  devs.resize(n);
  return devs;
}

// glStatus() -> {ok, code, message, path, clientExtensions}
Napi::Value GlStatus(const Napi::CallbackInfo& info) {
  std::call_once(g_egl_once, LoadEgl);
  Napi::Object o = Napi::Object::New(info.Env());
  o.Set("ok", g_egl_ok);
  o.Set("code", g_egl_ok ? "" : "GL_NOT_AVAILABLE");
  o.Set("message", g_egl_ok ? "" : g_egl_error);
  o.Set("path", g_egl_path);
  const char* ext = g_egl_ok ? g_egl.eglQueryString(nullptr, kExtensions) : nullptr;
  o.Set("clientExtensions", ext ? ext : "");
  return o;
}

// glSetErrorClass(GlError)
Napi::Value GlSetErrorClass(const Napi::CallbackInfo& info) {
  if (!info[0].IsFunction()) ThrowType("ERR_INVALID_ARG_TYPE", "glSetErrorClass needs a class");
  Data(info.Env()).gl_error = Napi::Persistent(info[0].As<Napi::Function>());
  return info.Env().Undefined();
}

// eglDevices() -> [{cuda: ordinal or -1, extensions, drm}]
// EGLBoolean eglQueryDevicesEXT(EGLint max, EGLDeviceEXT* devices, EGLint* num)
Napi::Value EglDevices(const Napi::CallbackInfo& info) {
  const EglApi& egl = Egl();
  auto devs = Devices();
  Napi::Array out = Napi::Array::New(info.Env(), devs.size());
  for (uint32_t i = 0; i < devs.size(); i++) {
    Napi::Object d = Napi::Object::New(info.Env());
    const char* ext =
        egl.eglQueryDeviceStringEXT ? egl.eglQueryDeviceStringEXT(devs[i], kExtensions) : nullptr;
    std::string exts = ext ? ext : "";
    EGLAttrib cuda = -1;
    if (exts.find("EGL_NV_device_cuda") != std::string::npos && egl.eglQueryDeviceAttribEXT &&
        !egl.eglQueryDeviceAttribEXT(devs[i], kCudaDeviceNv, &cuda))
      cuda = -1;
    const char* drm = exts.find("EGL_EXT_device_drm") != std::string::npos
                          ? egl.eglQueryDeviceStringEXT(devs[i], kDrmDeviceFile)
                          : nullptr;
    d.Set("cuda", static_cast<double>(cuda));
    d.Set("extensions", exts);
    d.Set("drm", drm ? drm : "");
    out.Set(i, d);
  }
  return out;
}

// glContextCreate(eglDevice (-1: Mesa's surfaceless platform), major, minor, core) ->
// [handle, platform description]
// EGLContext eglCreateContext(EGLDisplay dpy, EGLConfig config, EGLContext share,
//                             const EGLint* attrib_list)
Napi::Value GlContextCreate(const Napi::CallbackInfo& info) {
  const EglApi& egl = Egl();
  int index = IntArg(info, 0, "eglDevice");
  int major = IntArg(info, 1, "major"), minor = IntArg(info, 2, "minor");
  bool core = info[3].ToBoolean();
  if (!egl.eglGetPlatformDisplayEXT)
    ThrowGl("GL_NOT_AVAILABLE", "EGL lacks eglGetPlatformDisplayEXT");
  EGLDisplay dpy;
  std::string platform;
  if (index >= 0) {
    auto devs = Devices();
    if (static_cast<size_t>(index) >= devs.size())
      ThrowRange("ERR_OUT_OF_RANGE", "EGL device " + std::to_string(index) + " does not exist");
    dpy = egl.eglGetPlatformDisplayEXT(kPlatformDevice, devs[index], nullptr);
    platform = "device";
  } else {
    dpy = egl.eglGetPlatformDisplayEXT(kPlatformSurfaceless, nullptr, nullptr);
    platform = "surfaceless";
  }
  if (!dpy) ThrowEgl("eglGetPlatformDisplayEXT");
  EGLint maj = 0, min = 0;
  if (!egl.eglInitialize(dpy, &maj, &min)) ThrowEgl("eglInitialize");
  auto res = std::make_shared<GlContextRes>();
  res->dpy = dpy;
  {
    std::lock_guard<std::mutex> lock(g_dpy_mu);
    g_dpy_refs[dpy]++;
  }
  if (!egl.eglBindAPI(kOpenGlApi)) ThrowEgl("eglBindAPI(EGL_OPENGL_API)");
  // RGBA8, desktop OpenGL, a pbuffer when the display offers one (else surfaceless).
  EGLint with_pbuffer[] = {0x3033, 0x0001, 0x3040, 0x0008, 0x3024, 8,    0x3023,
                           8,      0x3022, 8,      0x3021, 8,      kNone};
  EGLint any_surface[] = {0x3040, 0x0008, 0x3024, 8, 0x3023, 8, 0x3022, 8, 0x3021, 8, kNone};
  EGLConfig cfg = nullptr;
  EGLint n = 0;
  bool pbuffer = egl.eglChooseConfig(dpy, with_pbuffer, &cfg, 1, &n) && n > 0;
  if (!pbuffer && !(egl.eglChooseConfig(dpy, any_surface, &cfg, 1, &n) && n > 0)) {
    // The display cannot give configs of its own: keep going with none (EGL_KHR_no_config_context).
    cfg = nullptr;
  }
  EGLint attrs[] = {0x3098, major, 0x30FB, minor, 0x30FD, core ? 0x1 : 0x2, kNone};
  res->ctx = egl.eglCreateContext(dpy, cfg, nullptr, attrs);
  if (!res->ctx) ThrowEgl("eglCreateContext");
  if (pbuffer) {
    EGLint pb[] = {0x3057, 16, 0x3056, 16, kNone};
    res->surf = egl.eglCreatePbufferSurface(dpy, cfg, pb);
    if (!res->surf) ThrowEgl("eglCreatePbufferSurface");
  }
  const char* vendor = egl.eglQueryString(dpy, kVendor);
  const char* version = egl.eglQueryString(dpy, kVersion);
  platform += std::string(res->surf ? ", pbuffer" : ", surfaceless") + ", EGL " +
              (version ? version : "?") + " (" + (vendor ? vendor : "?") + ")";
  Napi::Array out = Napi::Array::New(info.Env(), 2);
  out.Set(0u, Wrap(info.Env(), Kind::GlContext, std::move(res)));
  out.Set(1u, platform);
  return out;
}

const std::shared_ptr<GlContextRes>& Ctx(const Napi::Value& v) {
  const auto& c = Unwrap<GlContextRes>(v, Kind::GlContext, "context");
  if (!c->ctx) ThrowGl("GL_CONTEXT_DISPOSED", "The GL context was disposed");
  return c;
}

// glMakeCurrent(handle): makes the context current on the calling thread.
// EGLBoolean eglMakeCurrent(EGLDisplay dpy, EGLSurface draw, EGLSurface read, EGLContext ctx)
Napi::Value GlMakeCurrent(const Napi::CallbackInfo& info) {
  const auto& c = Ctx(info[0]);
  if (!g_egl.eglMakeCurrent(c->dpy, c->surf, c->surf, c->ctx)) {
    EGLint e = g_egl.eglGetError();
    ThrowGl(EglErrorName(e), "eglMakeCurrent failed: " + EglErrorName(e) +
                                 (e == 0x3002 ? " (the context is current on another thread: "
                                                "release() it there first)"
                                              : ""));
  }
  return info.Env().Undefined();
}

// glRelease(handle) -> whether it was current on this thread (and is now released).
Napi::Value GlRelease(const Napi::CallbackInfo& info) {
  const auto& c = Unwrap<GlContextRes>(info[0], Kind::GlContext, "context");
  bool current = c->ctx && Egl().eglGetCurrentContext() == c->ctx;
  if (current) g_egl.eglMakeCurrent(c->dpy, nullptr, nullptr, nullptr);
  return Napi::Boolean::New(info.Env(), current);
}

// glIsCurrent(handle | null) -> whether that context (null: any) is current on this thread.
Napi::Value GlIsCurrent(const Napi::CallbackInfo& info) {
  std::call_once(g_egl_once, LoadEgl);
  if (!g_egl_ok) return Napi::Boolean::New(info.Env(), false);
  EGLContext cur = g_egl.eglGetCurrentContext();
  if (info[0].IsNull() || info[0].IsUndefined())
    return Napi::Boolean::New(info.Env(), cur != nullptr);
  const auto& c = Unwrap<GlContextRes>(info[0], Kind::GlContext, "context");
  return Napi::Boolean::New(info.Env(), c->ctx && cur == c->ctx);
}

// glContextDestroy(handle) (idempotent)
Napi::Value GlContextDestroy(const Napi::CallbackInfo& info) {
  Unwrap<GlContextRes>(info[0], Kind::GlContext, "context")->Destroy();
  return info.Env().Undefined();
}

// glStrings() -> [vendor, renderer, version] of the current context
Napi::Value GlStrings(const Napi::CallbackInfo& info) {
  const EglApi& gl = GlCurrent("glGetString");
  Napi::Array out = Napi::Array::New(info.Env(), 3);
  GLenum names[] = {0x1F00, 0x1F01, 0x1F02};
  for (uint32_t i = 0; i < 3; i++) {
    const unsigned char* s = gl.glGetString(names[i]);
    out.Set(i, s ? reinterpret_cast<const char*>(s) : "");
  }
  return out;
}

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

const EglApi& Egl() {
  std::call_once(g_egl_once, LoadEgl);
  if (!g_egl_ok) ThrowGl("GL_NOT_AVAILABLE", g_egl_error);
  return g_egl;
}

const EglApi& GlCurrent(const char* what) {
  const EglApi& egl = Egl();
  if (!egl.eglGetCurrentContext())
    ThrowGl("GL_NO_CONTEXT", std::string(what) +
                                 ": no OpenGL context is current on this thread (call "
                                 "context.makeCurrent() first; contexts are current per thread)");
  return egl;
}

Napi::Error ToJsError(Napi::Env env, const GlErr& e) {
  AddonData& data = Data(env);
  Napi::Value err;
  if (!data.gl_error.IsEmpty()) {
    err = data.gl_error.New({Napi::String::New(env, e.message), Napi::String::New(env, e.code)});
  } else {
    Napi::Error plain = Napi::Error::New(env, e.message);
    plain.Set("code", e.code);
    err = plain.Value();
  }
  return Napi::Error(env, err);
}

void InitGl(Napi::Env env, Napi::Object exports) {
  NODECUDA_GL_EXPORT(env, exports, "glStatus", GlStatus);
  NODECUDA_GL_EXPORT(env, exports, "glSetErrorClass", GlSetErrorClass);
  NODECUDA_GL_EXPORT(env, exports, "eglDevices", EglDevices);
  NODECUDA_GL_EXPORT(env, exports, "glContextCreate", GlContextCreate);
  NODECUDA_GL_EXPORT(env, exports, "glMakeCurrent", GlMakeCurrent);
  NODECUDA_GL_EXPORT(env, exports, "glRelease", GlRelease);
  NODECUDA_GL_EXPORT(env, exports, "glIsCurrent", GlIsCurrent);
  NODECUDA_GL_EXPORT(env, exports, "glContextDestroy", GlContextDestroy);
  NODECUDA_GL_EXPORT(env, exports, "glStrings", GlStrings);
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
  InitGlInterop(env, exports);
}

}  // namespace nodecuda
