// C++ exceptions for failed driver/NVRTC calls and argument problems, turned into the JS error
// classes of lib/errors.ts (handed to native by init) at the binding boundary (see Guard).
#pragma once

#include <cuda.h>
#include <napi.h>
#include <nvrtc.h>

#include <exception>
#include <string>

namespace nodecuda {

// Pseudo status codes for failures that happen before any driver/NVRTC call.
constexpr int kDriverNotFound = -1;  // code CUDA_DRIVER_NOT_FOUND
constexpr int kNvrtcNotFound = -2;   // code NVRTC_NOT_FOUND
constexpr int kDriverTooOld = -4;    // code CUDA_DRIVER_TOO_OLD (older than kMinDriverVersion)
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

// The JS error for the exception `e`: CudaError/NvrtcError/TypeError/RangeError for nodecuda's
// own failures; a Napi::Error as it is; RangeError ERR_OUT_OF_MEMORY for std::bad_alloc; and for
// anything else (a std::thread that cannot start, a length_error…) a plain Error with code
// ERR_NODECUDA_INTERNAL. Used at every boundary where C++ meets JS: bindings (Guard), Promise
// settlement (async.cc, program.cc).
Napi::Error ToJsError(Napi::Env env, std::exception_ptr e);

// Runs F and converts C++ failures into JS exceptions; every exported function goes through it.
// Catches everything: an exception escaping a Node-API callback would terminate the process.
template <Napi::Value (*F)(const Napi::CallbackInfo&)>
Napi::Value Guard(const Napi::CallbackInfo& info) {
  try {
    return F(info);
  } catch (const Napi::Error&) {
    throw;  // already a JS exception
  } catch (...) {
    throw ToJsError(info.Env(), std::current_exception());
  }
}

}  // namespace nodecuda
