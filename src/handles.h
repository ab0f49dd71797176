// Owned CUDA resources. Each handle is a std::shared_ptr box whose destructor releases the resource
// and which keeps its parent alive (a Function keeps its Module, which keeps its Context). JS sees
// them as type-tagged Napi::External objects whose finalizers drop the box.
#pragma once

#include <cuda.h>
#include <napi.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "errors.h"
#include "loader.h"

namespace nodecuda {

// One CUDA context: the retained primary context of a device, or one made by makeContext().
struct Context {
  // Atomic: ResetDevice replaces it while the launcher thread may be making it current.
  std::atomic<CUcontext> ctx{nullptr};
  CUdevice dev = 0;
  int ordinal = 0;
  bool primary = true;
  const uint64_t id = NextId();  // unique for the process: never reused like an address
  // Bumped by device.reset(): resources made under an older generation are gone already.
  std::atomic<uint64_t> generation{1};
  // First sticky fault seen (0 = healthy). Later calls fail fast until reset. poison_call is
  // written under `mu` before `poison` is published, and read under `mu`.
  std::atomic<int> poison{0};
  std::string poison_call;
  mutable std::mutex mu;
  // Queued launches that failed (not sticky) and are not reported yet, by launching thread
  // (launch_queue.cc ThreadTag): (tag, status), under `mu`; the flag is the callers' fast check.
  mutable std::atomic<bool> launch_failed{false};
  mutable std::vector<std::pair<uint64_t, int>> launch_failures;
  CUmemoryPool pool = nullptr;
  uint64_t pool_generation = 0;
  // Page-locked staging chunks (kStagingChunk bytes each) for copies from pageable memory.
  std::vector<void*> staging;
  uint64_t staging_generation = 0;
  // Small pool blocks freed on the legacy stream, by size class: allocations there reuse them
  // without a driver call (a tiny op's allocation and free cost ~0.7 µs in the pool).
  std::unordered_map<size_t, std::vector<CUdeviceptr>> blocks;
  size_t blocks_bytes = 0;
  uint64_t blocks_generation = 0;
  // Library handles made in this context (cuBLAS: cublas.cc), released by ~Context while the
  // context is current; under `mu`.
  std::vector<std::function<void()>> releases;
  static uint64_t NextId() {
    static std::atomic<uint64_t> next{1};
    return next++;
  }
  Context() = default;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  ~Context();
  // The stream-ordered pool, configured to keep freed memory (release threshold raised).
  CUmemoryPool Pool();
  // The block cache: Keep takes a freed block of class `cls` made in generation `gen` (false
  // when full or stale), Take returns one (0 when none), Flush frees them all to the pool on
  // the legacy stream (the context must be current).
  bool KeepBlock(size_t cls, CUdeviceptr p, uint64_t gen);
  CUdeviceptr TakeBlock(size_t cls);
  void FlushBlocks();
};
// Size class of a pool allocation of `bytes` on the legacy stream that the block cache may keep
// (powers of two from 512 B to 1 MiB); 0 for any other size.
size_t BlockClass(size_t bytes);
using ContextPtr = std::shared_ptr<Context>;

// Making contexts current, the per-thread device and pushed contexts: context.h.

// Base of every resource: the context it lives in and that context's generation at creation.
struct Resource {
  ContextPtr ctx;
  uint64_t generation;
  explicit Resource(ContextPtr c) : ctx(std::move(c)), generation(ctx->generation.load()) {}
  // True while the resource still exists in the driver (no reset since it was made).
  bool Live() const { return ctx->generation.load() == generation; }
  Resource(const Resource&) = delete;
  Resource& operator=(const Resource&) = delete;
};

struct StreamRes : Resource {
  CUstream stream = nullptr;
  // Made once memory is allocated or used on this stream (MarkEvent): a free elsewhere records it
  // here and waits for it; Destroy() records it a last time, so frees after the stream is gone
  // still wait for the work it had queued.
  CUevent mark = nullptr;
  using Resource::Resource;
  // Creates `mark` if needed (the context must be current); false when the driver refuses.
  bool MarkEvent();
  // Destroys the stream now (idempotent); queued work still completes.
  void Destroy();
  ~StreamRes();
};

struct DeviceMem : Resource {
  CUdeviceptr ptr = 0;
  size_t size = 0;
  bool pooled = false;  // from cuMemAllocFromPoolAsync: freed with cuMemFreeAsync
  size_t cls = 0;       // block-cache size class it was allocated with (0: exact size)
  bool freed = false;
  napi_ref owner = nullptr;  // weak reference to the JS DeviceAllocation (memory.cc)
  // The stream it was allocated on (kept alive): frees without an explicit stream go there, so
  // the pool needs no cross-stream dependency.
  std::shared_ptr<StreamRes> stream;
  // Other streams work using it was queued on (memRecordStream; kept alive), and whether the
  // legacy stream is one of them: the free waits for each (stream-ordered, no host sync), so the
  // pool or the block cache never hands the memory to a new owner while that work may run.
  std::vector<std::shared_ptr<StreamRes>> used;
  bool used_legacy = false;
  using Resource::Resource;
  ~DeviceMem() { Release(); }
  // Notes a use on `s` (null: the legacy stream); nothing when it is the allocation stream.
  void RecordStream(const std::shared_ptr<StreamRes>* s);
  // Frees the memory (idempotent) on `s`, or on its allocation stream when `s` is null; returns
  // the bytes released for AdjustExternalMemory.
  size_t Release(CUstream s = nullptr);

 private:
  // Makes `on` wait for the work queued so far on every other stream that used the memory.
  void WaitForUsers(CUstream on, bool explicit_stream);
};

struct EventRes : Resource {
  CUevent event = nullptr;
  using Resource::Resource;
  ~EventRes();
};

// From now on, releases on the calling thread that can wait for running kernels (module
// unloads) run on a detached thread instead: set while a worker_thread's environment closes,
// so worker.terminate() does not wait for the worker's kernels (context.cc).
void DeferReleasesOnThisThread();

struct ModuleRes : Resource {
  CUmodule module = nullptr;
  using Resource::Resource;
  ~ModuleRes();
};

struct FunctionRes {
  std::shared_ptr<ModuleRes> module;
  CUfunction fn = nullptr;
};

struct HostReg {
  void* ptr = nullptr;
  size_t bytes = 0;
  ContextPtr ctx;
  bool registered = false;
  // JS thread only (host_memory.cc): the registered buffer, kept alive while registered; the
  // asynchronous copies using the registration now; an unregister asked for meanwhile, done
  // when the last of them settles.
  Napi::Reference<Napi::Value> buffer;
  int in_flight = 0;
  bool release_pending = false;
  ~HostReg() { Release(); }
  void Release();
};
// An asynchronous copy's use of a registration (host_memory.cc): the registration stays in place
// until the returned object is dropped (on the JS thread).
std::shared_ptr<void> UseRegistration(const std::shared_ptr<HostReg>& reg);
// The registration behind a `pinned` argument when it is a HostReg handle that covers
// [data, data + bytes) and is registered; null otherwise (the copy is staged instead).
std::shared_ptr<HostReg> RegistrationArg(const Napi::Value& v, const uint8_t* data, size_t bytes);

struct ContextRes {  // a JS handle on a Context
  ContextPtr ctx;
};

// Type tags, one per kind of handle, so a handle of one kind is never taken for another.
enum class Kind {
  Stream,
  Event,
  Module,
  Function,
  HostReg,
  Context,
  Array,
  TexObject,
  SurfObject,
  GlContext,
  GraphicsResource
};
const napi_type_tag* TagOf(Kind k);
const char* KindName(Kind k);

// Wraps a shared_ptr in a tagged External; the finalizer drops the reference.
template <typename T>
Napi::Value Wrap(Napi::Env env, Kind kind, std::shared_ptr<T> p) {
  auto* box = new std::shared_ptr<T>(std::move(p));
  auto ext = Napi::External<std::shared_ptr<T>>::New(
      env, box, [](Napi::Env, std::shared_ptr<T>* b) { delete b; });
  ext.TypeTag(TagOf(kind));
  return ext;
}

// The shared_ptr behind a handle; TypeError (ERR_INVALID_ARG_TYPE) for anything else.
template <typename T>
const std::shared_ptr<T>& Unwrap(const Napi::Value& v, Kind kind, const char* what) {
  bool tagged = false;
  if (v.IsExternal()) napi_check_object_type_tag(v.Env(), v, TagOf(kind), &tagged);
  if (!tagged) {
    ThrowType("ERR_INVALID_ARG_TYPE",
              std::string("The \"") + what + "\" argument must be a " + KindName(kind) + " handle");
  }
  const std::shared_ptr<T>& p = *v.As<Napi::External<std::shared_ptr<T>>>().Data();
  if (!p)
    ThrowType("ERR_USE_AFTER_DISPOSE", std::string("The ") + KindName(kind) + " was disposed");
  return p;
}

// A stream argument: null/undefined is the legacy default stream.
CUstream StreamArg(const Napi::Value& v);

}  // namespace nodecuda
