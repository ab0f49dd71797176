// Per-environment state (one per main thread / worker_thread) and the export table.
#pragma once

#include <napi.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "handles.h"

namespace nodecuda {

class AsyncQueue;

struct AddonData {
  Napi::FunctionReference cuda_error;
  Napi::FunctionReference nvrtc_error;
  Napi::FunctionReference type_error;   // the caller's realm's TypeError and RangeError, so
  Napi::FunctionReference range_error;  // `instanceof` works in vm contexts (Jest) too
  Napi::FunctionReference gl_error;     // lib/gl's GlError (gl.cc), set when lib/gl loads
  Napi::FunctionReference nccl_error;   // lib/nccl's NcclError (nccl.cc), set when it loads
  std::unique_ptr<AsyncQueue> queue;    // created on first async call
  // Live device allocations made through this environment (by address) and their bytes.
  std::unordered_map<CUdeviceptr, DeviceMem*> allocations;
  int64_t live_allocations = 0;
  int64_t live_bytes = 0;
  int64_t collect_at = int64_t(256) << 20;  // live bytes at which memAlloc scans for garbage
  // Addresses of allocations in the order made, which memAlloc checks a few at a time for owners
  // the collector found dead (memory.cc Reap); live ones go to the back again.
  std::deque<CUdeviceptr> recent;
  int64_t external_pending = 0;  // bytes not yet reported to V8 (memory.cc ReportExternal)
  std::chrono::steady_clock::time_point external_fall_at;  // the last fall reported to V8
  // Set by an environment cleanup hook: the environment is going away and JS cannot run, so
  // completions (program.cc) settle nothing.
  bool closing = false;
  bool worker = false;  // a worker_thread's environment (init's fifth argument)
  napi_env env = nullptr;
  ~AddonData();
};

AddonData& Data(Napi::Env env);

// Registration helpers: each file adds its exports.
using ExportFn = Napi::Value (*)(const Napi::CallbackInfo&);
void Export(Napi::Env env, Napi::Object exports, const char* name, Napi::Function fn);
#define NODECUDA_EXPORT(env, exports, name, fn) \
  ::nodecuda::Export(env, exports, name, Napi::Function::New(env, ::nodecuda::Guard<fn>, name))

void InitDevice(Napi::Env env, Napi::Object exports);
void InitMemory(Napi::Env env, Napi::Object exports);
void InitHostMemory(Napi::Env env, Napi::Object exports);
void InitStream(Napi::Env env, Napi::Object exports);
void InitProgram(Napi::Env env, Napi::Object exports);
void InitModule(Napi::Env env, Napi::Object exports);
void InitLaunch(Napi::Env env, Napi::Object exports);
void InitCurand(Napi::Env env, Napi::Object exports);
void InitCublas(Napi::Env env, Napi::Object exports);
void InitCufft(Napi::Env env, Napi::Object exports);
void InitArray(Napi::Env env, Napi::Object exports);
void InitGl(Napi::Env env, Napi::Object exports);
void InitNccl(Napi::Env env, Napi::Object exports);

// Reads a non-negative integer argument that fits in size_t (TS validates; this is the backstop).
size_t SizeArg(const Napi::CallbackInfo& info, size_t i, const char* name);
int IntArg(const Napi::CallbackInfo& info, size_t i, const char* name);
// A host byte range given as (ArrayBuffer | SharedArrayBuffer | ArrayBufferView, byteOffset,
// byteLength); for a view, the offset is into the view's buffer.
struct HostRange {
  uint8_t* data;
  size_t bytes;
  size_t offset;  // byteOffset as given
};
HostRange HostArg(const Napi::CallbackInfo& info, size_t i, const char* name);
// The whole buffer behind a host argument now: its bytes, its length (0 once detached), the
// buffer itself (ArrayBuffer or SharedArrayBuffer) and whether it is a resizable ArrayBuffer.
// False when `v` is not a host buffer.
struct HostBuffer {
  uint8_t* base = nullptr;
  size_t length = 0;
  Napi::Value buffer;
  bool shared = false;
};
bool HostBufferOf(Napi::Env env, Napi::Value v, HostBuffer* out);
bool IsResizable(const HostBuffer& b);
// A device pointer given as a BigInt.
CUdeviceptr PtrArg(const Napi::CallbackInfo& info, size_t i, const char* name);

}  // namespace nodecuda
