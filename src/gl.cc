// Headless EGL contexts: loading libEGL, EGL devices, context creation and currency. libEGL.so.1
// (the libglvnd loader, which dispatches to the vendor's driver, e.g. libEGL_nvidia.so.0) is opened
// with dlopen on first use; GL functions come from eglGetProcAddress. Which device, which context
// and when are lib/gl's policy.
#include "gl.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "addon.h"
#include "context.h"
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

}  // namespace

void CheckGl(const char* call) {
  GLenum e = g_egl.glGetError(), first = e;
  for (int i = 0; e && i < 16; i++) e = g_egl.glGetError();
  if (first) ThrowGl(GlErrorName(first), std::string(call) + " raised " + GlErrorName(first));
}

namespace {

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
  InitGlObjects(env, exports);
  InitGlInterop(env, exports);
}

}  // namespace nodecuda
