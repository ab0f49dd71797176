// Module entry: per-environment data, shared argument helpers, type tags and the export table.
#include "addon.h"

#include <cmath>

#include "async.h"

namespace nodecuda {

namespace {
void MarkClosing(void* data) {
  auto* d = static_cast<AddonData*>(data);
  d->closing = true;
  // A terminating worker must not wait for kernels still running (module unloads would).
  if (d->worker) DeferReleasesOnThisThread();
}
}  // namespace

AddonData::~AddonData() {
  if (!closing && env) napi_remove_env_cleanup_hook(env, MarkClosing, this);
}

AddonData& Data(Napi::Env env) { return *env.GetInstanceData<AddonData>(); }

void Export(Napi::Env env, Napi::Object exports, const char* name, Napi::Function fn) {
  exports.Set(name, fn);
}

const napi_type_tag* TagOf(Kind k) {
  // Random 128-bit values, one per kind.
  static const napi_type_tag tags[] = {{0x6e6f6465637564a2ULL, 0x8e2d3c4b5a697802ULL},
                                       {0x6e6f6465637564a3ULL, 0x7d3e4f5a6b7c8d03ULL},
                                       {0x6e6f6465637564a4ULL, 0x6c4f5e6d7c8b9a04ULL},
                                       {0x6e6f6465637564a5ULL, 0x5b5a6978879695a5ULL},
                                       {0x6e6f6465637564a6ULL, 0x4a6b7c8d9eafb006ULL},
                                       {0x6e6f6465637564a7ULL, 0x397c8d9eafb0c107ULL},
                                       {0x6e6f6465637564a8ULL, 0x2f8b9cadbecfd008ULL},
                                       {0x6e6f6465637564a9ULL, 0x1e9aabbccddeef09ULL},
                                       {0x6e6f6465637564aaULL, 0x0da9bacbdcedfe0aULL},
                                       {0x6e6f6465637564abULL, 0xfcb8c9dae0f1020bULL},
                                       {0x6e6f6465637564acULL, 0xebc7d8e9f001130cULL}};
  return &tags[static_cast<int>(k)];
}

const char* KindName(Kind k) {
  static const char* names[] = {"Stream",           "Event",     "Module",          "Function",
                                "HostRegistration", "Context",   "Array",           "TextureObject",
                                "SurfaceObject",    "GLContext", "GraphicsResource"};
  return names[static_cast<int>(k)];
}

size_t SizeArg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  Napi::Value v = info[i];
  double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : -1;
  if (!v.IsNumber() || !(d >= 0) || d != std::floor(d) || d > 9007199254740991.0)
    ThrowRange("ERR_OUT_OF_RANGE",
               std::string("The \"") + name + "\" argument must be a non-negative integer");
  return static_cast<size_t>(d);
}

int IntArg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  Napi::Value v = info[i];
  double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : NAN;
  if (!(d == std::floor(d)) || d < -2147483648.0 || d > 2147483647.0)
    ThrowRange("ERR_OUT_OF_RANGE",
               std::string("The \"") + name + "\" argument must be a 32-bit integer");
  return static_cast<int>(d);
}

namespace {

// A SharedArrayBuffer: Node-API 9 has no accessor for one, but a Uint8Array over it has. The tag
// check keeps other objects out of the Uint8Array constructor (which would copy an array-like);
// the identity check defeats a spoofed tag. Works across realms (Jest, vm contexts).
bool SharedBufferOf(Napi::Env env, Napi::Value v, HostBuffer* out) {
  if (!v.IsObject() || v.IsArrayBuffer() || v.IsTypedArray() || v.IsDataView()) return false;
  Napi::Object global = env.Global();
  Napi::Function to_string = global.Get("Object")
                                 .As<Napi::Object>()
                                 .Get("prototype")
                                 .As<Napi::Object>()
                                 .Get("toString")
                                 .As<Napi::Function>();
  if (to_string.Call(v, {}).ToString().Utf8Value() != "[object SharedArrayBuffer]") return false;
  Napi::Value view = global.Get("Uint8Array").As<Napi::Function>().New({v});
  napi_typedarray_type t;
  napi_value ab = nullptr;
  void* data = nullptr;
  size_t len = 0, off = 0;
  if (napi_get_typedarray_info(env, view, &t, &len, &data, &ab, &off) != napi_ok) return false;
  if (!Napi::Value(env, ab).StrictEquals(v)) return false;
  *out = HostBuffer{static_cast<uint8_t*>(data), len, v, true};
  return true;
}

}  // namespace

bool HostBufferOf(Napi::Env env, Napi::Value v, HostBuffer* out) {
  if (v.IsArrayBuffer()) {
    void* data = nullptr;
    size_t len = 0;
    napi_get_arraybuffer_info(env, v, &data, &len);  // a detached buffer: null, 0
    *out = HostBuffer{static_cast<uint8_t*>(data), len, v, false};
    return true;
  }
  if (v.IsTypedArray() || v.IsDataView()) {
    // (offset, length) arguments describe the view's buffer.
    napi_value ab = nullptr;
    if (v.IsTypedArray()) {
      napi_typedarray_type t;
      NAPI_THROW_IF_FAILED(
          env, napi_get_typedarray_info(env, v, &t, nullptr, nullptr, &ab, nullptr), false);
    } else {
      NAPI_THROW_IF_FAILED(env, napi_get_dataview_info(env, v, nullptr, nullptr, &ab, nullptr),
                           false);
    }
    return HostBufferOf(env, Napi::Value(env, ab), out);
  }
  return SharedBufferOf(env, v, out);
}

bool IsResizable(const HostBuffer& b) {
  // A SharedArrayBuffer can only grow, in place; an ArrayBuffer with maxByteLength can shrink.
  return !b.shared && b.buffer.As<Napi::Object>().Get("resizable").ToBoolean();
}

HostRange HostArg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  HostBuffer b;
  if (!HostBufferOf(info.Env(), info[i], &b))
    ThrowType("ERR_INVALID_ARG_TYPE",
              std::string("The \"") + name +
                  "\" argument must be an ArrayBuffer, a SharedArrayBuffer or an ArrayBufferView");
  size_t off = SizeArg(info, i + 1, "byteOffset");
  size_t bytes = SizeArg(info, i + 2, "byteLength");
  if (off > b.length || bytes > b.length - off)
    ThrowRange("ERR_OUT_OF_RANGE", std::string("The \"") + name + "\" range [" +
                                       std::to_string(off) + ", " + std::to_string(off + bytes) +
                                       ") is outside its buffer of " + std::to_string(b.length) +
                                       " bytes");
  return HostRange{b.base ? b.base + off : nullptr, bytes, off};
}

CUdeviceptr PtrArg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  Napi::Value v = info[i];
  if (!v.IsBigInt())
    ThrowType("ERR_INVALID_ARG_TYPE",
              std::string("The \"") + name + "\" device pointer must be a bigint");
  bool lossless = true;
  uint64_t p = v.As<Napi::BigInt>().Uint64Value(&lossless);
  if (!lossless) ThrowRange("ERR_OUT_OF_RANGE", std::string(name) + " is not a 64-bit address");
  return static_cast<CUdeviceptr>(p);
}

// init(CudaError, NvrtcError, TypeError, RangeError): the classes native errors are made from.
Napi::Value Init(const Napi::CallbackInfo& info) {
  for (size_t i = 0; i < 4; i++) {
    if (!info[i].IsFunction())
      ThrowType("ERR_INVALID_ARG_TYPE",
                "init expects CudaError, NvrtcError, TypeError and RangeError classes");
  }
  SetErrorClasses(info.Env(), info[0].As<Napi::Function>(), info[1].As<Napi::Function>(),
                  info[2].As<Napi::Function>(), info[3].As<Napi::Function>());
  Data(info.Env()).worker = info[4].ToBoolean();
  return info.Env().Undefined();
}

// isDetached(arrayBuffer) -> boolean: the buffer was transferred (postMessage, structuredClone).
// Node 20 has no ArrayBuffer.prototype.detached; a detached buffer looks empty to JS.
Napi::Value IsDetached(const Napi::CallbackInfo& info) {
  bool detached = false;
  if (info[0].IsArrayBuffer()) napi_is_detached_arraybuffer(info.Env(), info[0], &detached);
  return Napi::Boolean::New(info.Env(), detached);
}

Napi::Object InitAll(Napi::Env env, Napi::Object exports) {
  auto* data = new AddonData();
  data->env = env;
  env.SetInstanceData(data);
  napi_add_env_cleanup_hook(env, MarkClosing, data);
  NODECUDA_EXPORT(env, exports, "init", Init);
  NODECUDA_EXPORT(env, exports, "isDetached", IsDetached);
  InitDevice(env, exports);
  InitMemory(env, exports);
  InitHostMemory(env, exports);
  InitStream(env, exports);
  InitProgram(env, exports);
  InitModule(env, exports);
  InitLaunch(env, exports);
  InitCurand(env, exports);
  InitCublas(env, exports);
  InitCufft(env, exports);
  InitArray(env, exports);
  InitGl(env, exports);
  InitNccl(env, exports);
  exports.Set("napiVersion", Napi::Number::New(env, NAPI_VERSION));
  return exports;
}

}  // namespace nodecuda

static Napi::Object NodecudaInit(Napi::Env env, Napi::Object exports) {
  return nodecuda::InitAll(env, exports);
}
NODE_API_MODULE(nodecuda, NodecudaInit)
