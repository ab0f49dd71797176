// fakecuda: a CPU test double of the CUDA driver API, loaded by the addon through
// NODECUDA_LIBCUDA (npm run test:asan). It exports the versioned names cuda.h maps the API to
// (it includes cuda.h, so cuMemAlloc is defined as cuMemAlloc_v2 and so on).
//
// - One device, "nodecuda fake device", sm_90 attributes.
// - Device memory is host memory (posix_memalign, exact size, so ASan sees overruns) seen at
//   host address + kBias: a non-canonical address, so dereferencing a device pointer on the host
//   faults. Copies are bounds-checked against the allocation registry: CUDA_ERROR_INVALID_VALUE.
// - Streams are real queues, each run by its own thread (legacy default-stream ordering
//   included); events, stream waits, pool frees and page-locked async copies happen in stream
//   order, so a host buffer freed before its queued copy runs is a heap-use-after-free.
// - Kernels do not run: cuLaunchKernel validates the configuration and reads every parameter
//   byte the cubin's .nv.info declares. cuModuleLoadData reads every byte the ELF header claims
//   (it takes no size, like the real loader), so a truncated image is an ASan over-read.
// - Handles are never reused; a handle used after its destroy call, and cuEventDestroy while
//   another thread waits in cuEventSynchronize, abort with a "fakecuda:" line.
// Knobs: FAKECUDA_SYNC_DELAY_MS (sleep before every queued op and in every synchronize, to
// widen races), FAKECUDA_MEM_MB (device memory size), FAKECUDA_FAULT_LAUNCH=N (the Nth launch
// leaves a sticky CUDA_ERROR_ILLEGAL_ADDRESS, as a faulting kernel does), FAKECUDA_FAIL_LAUNCH=N,..
// and FAKECUDA_FAIL_KERNEL=name (those launches return a non-sticky error), and
// FAKECUDA_LAUNCH_DELAY_US (each launch takes that long): fakecuda_module.cc. FAKECUDA_VERSION
// (e.g. 12000) is the CUDA version the double reports and whose entry points its
// cuGetProcAddress offers: fakecuda_proc.cc.
//
// Files: this header (state shared by all), fakecuda.cc (state, stream machinery, init, device,
// contexts), fakecuda_memory.cc (memory, copies, streams, events), fakecuda_module.cc (images,
// modules, functions, launches, occupancy), fakecuda_proc.cc (cuGetProcAddress, the version),
// unsupported.cc (arrays, textures, graphics).
#pragma once

#include <cuda.h>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#define FAKE_API extern "C" __attribute__((visibility("default")))

namespace fakecuda {

constexpr uintptr_t kBias = uintptr_t(1) << 47;  // device address = host address + kBias
extern std::mutex& mu;                           // one lock for all state
extern std::condition_variable& cv;

int Env(const char* name, int def);
// Devices the double reports (FAKECUDA_DEVICES, 1 to 8; default 1): one shared address space,
// so a peer copy is a plain copy. Device d's default memory pool is the handle 8 + d.
int Devices();
inline bool BadDev(int d) { return d < 0 || d >= Devices(); }
inline bool BadPool(uintptr_t p) { return p < 8 || p >= 8 + static_cast<uintptr_t>(Devices()); }
void Delay();  // FAKECUDA_SYNC_DELAY_MS
[[noreturn]] void Die(const char* fmt, ...);
double NowMs();

struct Stream;
using StreamP = std::shared_ptr<Stream>;
struct Op {
  std::function<void()> fn;
  std::vector<std::pair<StreamP, uint64_t>> deps;  // (stream, sequence number) to wait for
};
struct Ctx {
  int dev = 0;
  std::set<uintptr_t> peers;  // contexts this one enabled peer access to
  bool primary = false, alive = true;
  int refs = 0;
  CUresult sticky = CUDA_SUCCESS;
  StreamP legacy;
};
struct Stream {
  uintptr_t ctx = 0;
  bool blocking = true, closing = false;
  uint64_t enq = 0, done = 0;
  std::deque<Op> q;
};
struct Event {
  uintptr_t ctx = 0;
  unsigned flags = 0;
  StreamP stream;
  uint64_t seq = 0;
  double ms = -1;
  int waiters = 0;
};
struct Func {
  uintptr_t ctx = 0, module = 0;
  std::vector<std::pair<uint32_t, uint32_t>> params;  // (offset, size) by ordinal
  uint32_t param_bytes = 0;
  int max_dynamic_shared = 48 << 10;
};
struct Module {
  uintptr_t ctx = 0;
  std::map<std::string, Func> funcs;
  std::map<std::string, std::pair<CUdeviceptr, size_t>> globals;
  std::map<std::string, uintptr_t> func_handles;
};
struct Alloc {
  size_t size;
  uintptr_t ctx;
  bool pooled;
};

// All under `mu`. Handles are small never-reused numbers (never dereferenced by a correct caller).
// Never destroyed (as `mu`): threads of the addon may still call in while the process exits.
extern std::set<uintptr_t>& g_dead;  // destroyed handles: using one is a bug in the caller
extern std::map<uintptr_t, Ctx>& g_ctx;
extern std::map<uintptr_t, StreamP>& g_streams;
extern std::map<uintptr_t, std::shared_ptr<Event>>& g_events;
extern std::map<uintptr_t, Module>& g_modules;
extern std::map<uintptr_t, std::pair<uintptr_t, std::string>>& g_funcs;  // handle -> (module, name)
extern std::map<uintptr_t, Alloc>& g_mem;                                // host base -> allocation
extern std::map<uintptr_t, std::pair<size_t, bool>>& g_pinned;  // base -> (bytes, AllocHost)
extern size_t g_used, g_total;
extern uint64_t g_threshold;
extern thread_local uintptr_t t_ctx;

uintptr_t NewHandle();
template <typename T>
uintptr_t H(T h) {
  return reinterpret_cast<uintptr_t>(h);
}
// Looks a handle up; a destroyed one is fatal, an unknown one nullptr (CUDA_ERROR_INVALID_HANDLE).
template <typename M>
auto Find(M& map, uintptr_t h, const char* what) -> decltype(&map.begin()->second) {
  auto it = map.find(h);
  if (it != map.end()) return &it->second;
  if (g_dead.count(h)) Die("%s %#lx used after it was destroyed", what, (unsigned long)h);
  return nullptr;
}

// The current context, or an error for calls that need one (lock held).
CUresult Current(Ctx** out);
StreamP NewStream(uintptr_t ctx, bool blocking);
// Resolves a stream handle of the current context (lock held): 0 and the legacy/per-thread
// handles are the context's legacy stream.
CUresult StreamOf(Ctx* c, CUstream h, StreamP* out);
// Queues fn on `s` after `deps` and, for legacy-stream semantics, after the legacy stream (for
// blocking streams) or every blocking stream of the context (for the legacy stream).
uint64_t Enqueue(const StreamP& s, std::function<void()> fn,
                 std::vector<std::pair<StreamP, uint64_t>> deps = {});
void Wait(std::unique_lock<std::mutex>& lock, const StreamP& s, uint64_t seq);
void WaitContext(std::unique_lock<std::mutex>& lock, uintptr_t ctx);

// FAKECUDA_VERSION (default CUDA_VERSION): the driver version the double pretends to be.
int DriverVersion();
// The bodies of cuCtxCreate and cuEventElapsedTime, shared by their old and new variants.
CUresult CtxCreate(CUcontext* out, unsigned flags, CUdevice d);
CUresult EventElapsedTime(float* ms, CUevent a, CUevent b);

// Host address of device range [d, d+n) inside one live allocation, or 0.
uint8_t* Dev(CUdeviceptr d, size_t n);
CUresult AllocDev(CUdeviceptr* out, size_t n, bool pooled);
// Removes a live allocation from the registry; the caller frees the host memory.
void* Unregister(CUdeviceptr d);

}  // namespace fakecuda

// Takes the lock and the current context `c`, or returns the error of Current().
#define LOCK_CTX                                      \
  std::unique_lock<std::mutex> lock(fakecuda::mu);    \
  fakecuda::Ctx* c;                                   \
  if (CUresult r_ = fakecuda::Current(&c)) return r_; \
  (void)c
