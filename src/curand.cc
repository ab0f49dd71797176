// cuRAND's quasi-random tables (Sobol32 direction vectors, scramble constants), read from
// libcurand opened with dlopen on first use (never linked) and copied into JS-owned ArrayBuffers.
// Declares the three entry points itself, so building needs no curand.h.
#include <dlfcn.h>

#include <cstring>
#include <mutex>
#include <string>

#include "addon.h"

namespace nodecuda {
namespace {

using GetDirectionVectors32Fn = int (*)(void** vectors, int set);  // curandGetDirectionVectors32
using GetScrambleConstants32Fn = int (*)(unsigned int** constants);
using GetVersionFn = int (*)(int* version);

constexpr size_t kDimensions = 20000;  // rows in cuRAND's 32-bit tables
constexpr int kVectors32JoeKuo6 = 101;
constexpr int kScrambledVectors32JoeKuo6 = 102;

struct Curand {
  GetDirectionVectors32Fn vectors = nullptr;
  GetScrambleConstants32Fn scramble = nullptr;
  GetVersionFn version = nullptr;
  std::string path, error;
};

Curand g_curand;
std::once_flag g_curand_once;

void OpenCurand() {
  std::string tried;
  Curand found;
  found.path = OpenToolkitLibrary(
      "NODECUDA_CURAND", {"libcurand.so.10", "libcurand.so"},
      [&found](void* lib) {
        found.vectors =
            reinterpret_cast<GetDirectionVectors32Fn>(dlsym(lib, "curandGetDirectionVectors32"));
        found.scramble =
            reinterpret_cast<GetScrambleConstants32Fn>(dlsym(lib, "curandGetScrambleConstants32"));
        found.version = reinterpret_cast<GetVersionFn>(dlsym(lib, "curandGetVersion"));
        return found.vectors && found.scramble && found.version;
      },
      tried);
  if (found.path.empty())
    found = Curand{nullptr, nullptr, nullptr, "",
                   "cuRAND (libcurand.so.10) was not found. Install the CUDA toolkit (or the "
                   "cuda-curand package), or point NODECUDA_CURAND at libcurand.so. Tried:" +
                       tried};
  g_curand = found;
}

// curandTable(which: 0 direction vectors | 1 scrambled direction vectors | 2 scramble constants)
//   -> [ArrayBuffer (20000 rows), version, path], or the reason (a string) when unavailable.
Napi::Value CurandTable(const Napi::CallbackInfo& info) {
  int which = IntArg(info, 0, "which");
  if (which < 0 || which > 2) ThrowRange("ERR_OUT_OF_RANGE", "which must be 0, 1 or 2");
  std::call_once(g_curand_once, OpenCurand);
  Napi::Env env = info.Env();
  if (!g_curand.vectors) return Napi::String::New(env, g_curand.error);
  const void* src = nullptr;
  size_t bytes = 0;
  int status = 0;
  if (which == 2) {
    unsigned int* constants = nullptr;
    status = g_curand.scramble(&constants);
    src = constants;
    bytes = kDimensions * sizeof(unsigned int);
  } else {
    void* vectors = nullptr;
    status =
        g_curand.vectors(&vectors, which == 0 ? kVectors32JoeKuo6 : kScrambledVectors32JoeKuo6);
    src = vectors;
    bytes = kDimensions * 32 * sizeof(unsigned int);
  }
  if (status != 0 || !src)
    return Napi::String::New(env, "cuRAND at " + g_curand.path + " returned status " +
                                      std::to_string(status) + " for its Sobol32 tables");
  int version = 0;
  g_curand.version(&version);
  Napi::ArrayBuffer ab = Napi::ArrayBuffer::New(env, bytes);  // JS-owned: a copy
  std::memcpy(ab.Data(), src, bytes);
  Napi::Array out = Napi::Array::New(env, 3);
  out.Set(0u, ab);
  out.Set(1u, Napi::Number::New(env, version));
  out.Set(2u, Napi::String::New(env, g_curand.path));
  return out;
}

}  // namespace

void InitCurand(Napi::Env env, Napi::Object exports) {
  NODECUDA_EXPORT(env, exports, "curandTable", CurandTable);
}

}  // namespace nodecuda
