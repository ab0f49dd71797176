// C++ exceptions for failed driver/NVRTC calls and argument problems, turned into the JS error
// classes of lib/errors.ts (handed to native by init) at the binding boundary (see Guard).
#pragma once

#include <cuda.h>
#include <napi.h>
#include <nvrtc.h>

#include <string>

namespace nodecuda {

// Pseudo status codes for failures that happen before any driver/NVRTC call.
constexpr int kDriverNotFound = -1;  // code CUDA_DRIVER_NOT_FOUND
constexpr int kNvrtcNotFound = -2;   // code NVRTC_NOT_FOUND
constexpr int kPoisoned = -3;        // the context hit a sticky fault earlier

struct CuErr {
  int status;
  std::string call;    // driver function, e.g. "cuMemAlloc"
  std::string detail;  // extra text for the message
  int original = 0;    // for kPoisoned: the sticky status that poisoned the context
  CuErr(int s, std::string c, std::string d = "", int orig = 0)
      : status(s), call(std::move(c)), detail(std::move(d)), original(orig) {}
};

struct NvrtcErr {
  int status;
  std::string call;
  std::string log;  // compile log or loader message
  NvrtcErr(int s, std::string c, std::string l = "")
      : status(s), call(std::move(c)), log(std::move(l)) {}
};

// A TypeError/RangeError raised by native checks, with an ERR_* code.
struct ArgErr {
  bool range;
  std::string code;
  std::string message;
};

// Calls that fail with a status a context cannot recover from (illegal address, launch failure…).
bool IsSticky(CUresult r);
// Remembers a sticky fault on the calling thread's current context; defined in context.cc.
void NoteStickyFault(CUresult r, const char* call);

// "cu.cuMemAlloc(&p, n)" -> "cuMemAlloc": the called function, for error messages.
std::string CallName(const char* expr);

inline void CheckCu(CUresult r, const char* expr) {
  if (r == CUDA_SUCCESS) return;
  std::string call = CallName(expr);
  if (IsSticky(r)) NoteStickyFault(r, call.c_str());
  throw CuErr(r, call);
}
inline void CheckNvrtc(nvrtcResult r, const char* expr) {
  if (r != NVRTC_SUCCESS) throw NvrtcErr(r, CallName(expr));
}

#define CU_CHECK(expr) ::nodecuda::CheckCu((expr), #expr)
#define NVRTC_CHECK(expr) ::nodecuda::CheckNvrtc((expr), #expr)

[[noreturn]] inline void ThrowType(std::string code, std::string msg) {
  throw ArgErr{false, std::move(code), std::move(msg)};
}
[[noreturn]] inline void ThrowRange(std::string code, std::string msg) {
  throw ArgErr{true, std::move(code), std::move(msg)};
}

// Stores the JS error classes (CudaError, NvrtcError) for this environment.
void SetErrorClasses(Napi::Env env, Napi::Function cuda_error, Napi::Function nvrtc_error,
                     Napi::Function type_error, Napi::Function range_error);
// The JS error object for a C++ failure (never throws itself).
Napi::Error ToJsError(Napi::Env env, const CuErr& e);
Napi::Error ToJsError(Napi::Env env, const NvrtcErr& e);
Napi::Error ToJsError(Napi::Env env, const ArgErr& e);
// Name of a status: "CUDA_ERROR_INVALID_VALUE", "CUDA_DRIVER_NOT_FOUND", ...
std::string CuStatusName(int status);

// Runs F and converts C++ failures into JS exceptions; every exported function goes through it.
template <Napi::Value (*F)(const Napi::CallbackInfo&)>
Napi::Value Guard(const Napi::CallbackInfo& info) {
  try {
    return F(info);
  } catch (const CuErr& e) {
    throw ToJsError(info.Env(), e);
  } catch (const NvrtcErr& e) {
    throw ToJsError(info.Env(), e);
  } catch (const ArgErr& e) {
    throw ToJsError(info.Env(), e);
  } catch (const std::bad_alloc&) {
    throw ToJsError(info.Env(), ArgErr{true, "ERR_OUT_OF_MEMORY", "host memory exhausted"});
  }
}

}  // namespace nodecuda
