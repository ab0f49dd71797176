// Contexts: retained primary contexts (process-wide), the per-thread current device and pushed
// user contexts, poisoning after sticky faults, and the resource destructors.
#include "context.h"

#include <thread>
#include <vector>

#include "addon.h"
#include "handles.h"
#include "launch_queue.h"

namespace nodecuda {

namespace {

std::mutex g_primary_mu;
// Never destroyed: contexts are released explicitly, not by static destructors at exit.
auto* g_primaries = new std::vector<ContextPtr>();

thread_local int t_device = 0;
thread_local std::vector<ContextPtr> t_stack;     // contexts pushed with Context.push()
thread_local const Context* t_current = nullptr;  // only for NoteStickyFault
thread_local uint64_t t_current_id = 0;
thread_local uint64_t t_current_generation = 0;

[[noreturn]] void ThrowPoisoned(const Context& c) {
  int p;
  std::string call;
  {
    // NoteStickyFault writes the call before it publishes the status, both under `mu`.
    std::lock_guard<std::mutex> lock(c.mu);
    p = c.poison.load();
    call = c.poison_call;
  }
  throw CuErr(
      kPoisoned, call,
      "The CUDA context of device " + std::to_string(c.ordinal) + " is unusable: " + call +
          " reported " + CuStatusName(p) +
          " (a kernel faulted). Every later CUDA call fails. The NVIDIA driver does not let a "
          "process recover from this fault: restart the process (run kernels you do not "
          "trust in a child process to contain such faults); new driver.Device(" +
          std::to_string(c.ordinal) + ").reset() reports the same.",
      p);
}

// Marks `c` poisoned by `status` from `call`: the message first, then the flag, under `mu`.
void Poison(Context& c, int status, const char* call) {
  std::lock_guard<std::mutex> lock(c.mu);
  if (c.poison.load() != 0) return;  // the first fault is the one to report
  c.poison_call = call;
  c.poison.store(status);
}

}  // namespace

// No queued launch can use a context being destroyed: each queue record owns its kernel's
// function, which owns its module and this context (launch_queue.cc).
Context::~Context() {
  if (t_current == this) ForgetCurrent();
  if (!LoadDriver().found || !ctx) return;
  const DriverApi& cu = DrainedCuUnchecked();
  if (!releases.empty() && cu.cuCtxSetCurrent(ctx) == CUDA_SUCCESS)
    for (auto& release : releases) release();
  if (staging_generation == generation.load() && cu.cuCtxSetCurrent(ctx) == CUDA_SUCCESS) {
    for (void* p : staging) cu.cuMemFreeHost(p);
  }
  if (!blocks.empty() && cu.cuCtxSetCurrent(ctx) == CUDA_SUCCESS) {
    for (auto& [cls, list] : blocks)
      for (CUdeviceptr p : list) cu.cuMemFreeAsync(p, nullptr);
  }
  if (primary) {
    cu.cuDevicePrimaryCtxRelease(dev);
  } else {
    cu.cuCtxDestroy(ctx);
  }
}

CUmemoryPool Context::Pool() {
  {
    std::lock_guard<std::mutex> lock(mu);
    if (pool && pool_generation == generation.load()) return pool;
  }
  // The driver calls run outside the lock: DrainedCu() may submit queued launches (launch_queue.cc)
  // and a failing CU_CHECK may note a sticky fault, which takes `mu`.
  const DriverApi& cu = DrainedCu();
  uint64_t gen = generation.load();
  CUmemoryPool p = nullptr;
  CU_CHECK(cu.cuDeviceGetDefaultMemPool(&p, dev));
  // Keep freed blocks in the pool instead of returning them to the OS at each sync point.
  cuuint64_t threshold = UINT64_MAX;
  CU_CHECK(cu.cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold));
  std::lock_guard<std::mutex> lock(mu);
  pool = p;
  pool_generation = gen;
  return pool;
}

constexpr size_t kBlockMin = 512, kBlockMax = size_t(1) << 20;
constexpr size_t kBlockCacheBytes = size_t(64) << 20;  // per context

size_t BlockClass(size_t bytes) {
  if (bytes == 0 || bytes > kBlockMax) return 0;
  size_t c = kBlockMin;
  while (c < bytes) c <<= 1;
  return c;
}

// Pool memory belongs to the device and outlives a reset, so blocks cached before one are still
// freed (by the next TakeBlock or FlushBlocks), never reused.
bool Context::KeepBlock(size_t cls, CUdeviceptr p, uint64_t gen) {
  std::lock_guard<std::mutex> lock(mu);
  if (gen != generation.load()) return false;
  if (blocks_generation != gen) {
    if (!blocks.empty()) return false;  // stale blocks still to free
    blocks_generation = gen;
  }
  if (blocks_bytes + cls > kBlockCacheBytes) return false;
  blocks[cls].push_back(p);
  blocks_bytes += cls;
  return true;
}

CUdeviceptr Context::TakeBlock(size_t cls) {
  {
    std::lock_guard<std::mutex> lock(mu);
    if (blocks_generation == generation.load()) {
      auto it = blocks.find(cls);
      if (it == blocks.end() || it->second.empty()) return 0;
      CUdeviceptr p = it->second.back();
      it->second.pop_back();
      blocks_bytes -= cls;
      return p;
    }
  }
  FlushBlocks();
  return 0;
}

void Context::FlushBlocks() {
  std::vector<CUdeviceptr> all;
  {
    std::lock_guard<std::mutex> lock(mu);
    for (auto& [cls, list] : blocks) all.insert(all.end(), list.begin(), list.end());
    blocks.clear();
    blocks_bytes = 0;
    blocks_generation = generation.load();
  }
  for (CUdeviceptr p : all) DrainedCuUnchecked().cuMemFreeAsync(p, nullptr);
}

ContextPtr PrimaryContext(int ordinal) {
  auto known = [&]() -> ContextPtr {
    if (ordinal >= 0 && static_cast<size_t>(ordinal) < g_primaries->size())
      return (*g_primaries)[ordinal];
    return nullptr;
  };
  {
    // Without DrainedCu() (a driver call, which would end a run of queued launches:
    // launch_queue.cc).
    std::lock_guard<std::mutex> lock(g_primary_mu);
    if (ContextPtr c = known()) return c;
  }
  const DriverApi& cu = DrainedCu();
  std::lock_guard<std::mutex> lock(g_primary_mu);
  if (ContextPtr c = known()) return c;
  int count = 0;
  CU_CHECK(cu.cuDeviceGetCount(&count));
  if (ordinal < 0 || ordinal >= count) {
    ThrowRange("ERR_OUT_OF_RANGE", "device ordinal " + std::to_string(ordinal) +
                                       " is out of range: " + std::to_string(count) +
                                       " device(s) visible");
  }
  auto c = std::make_shared<Context>();
  c->ordinal = ordinal;
  CU_CHECK(cu.cuDeviceGet(&c->dev, ordinal));
  CUcontext raw = nullptr;
  CU_CHECK(cu.cuDevicePrimaryCtxRetain(&raw, c->dev));
  c->ctx = raw;
  if (g_primaries->size() < static_cast<size_t>(count)) g_primaries->resize(count);
  (*g_primaries)[ordinal] = c;
  return c;
}

void MakeCurrent(const Context& c) {
  if (c.poison.load() != 0) ThrowPoisoned(c);
  ReportLaunchFailure(c);
  if (t_current_id == c.id && t_current_generation == c.generation.load()) return;
  CU_CHECK(DrainedCu().cuCtxSetCurrent(c.ctx));
  t_current = &c;
  t_current_id = c.id;
  t_current_generation = c.generation.load();
}

SavedCurrent SaveCurrent() {
  SavedCurrent s{nullptr, t_current, t_current_id, t_current_generation};
  RawCu().cuCtxGetCurrent(&s.ctx);
  return s;
}

void RestoreCurrent(const SavedCurrent& s) {
  RawCu().cuCtxSetCurrent(s.ctx);
  t_current = s.c;
  t_current_id = s.id;
  t_current_generation = s.generation;
}

bool TryMakeCurrent(const Context& c) {
  if (c.poison.load() != 0 || !LoadDriver().found) return false;
  if (t_current_id == c.id && t_current_generation == c.generation.load()) return true;
  if (DrainedCuUnchecked().cuCtxSetCurrent(c.ctx) != CUDA_SUCCESS) return false;
  t_current = &c;
  t_current_id = c.id;
  t_current_generation = c.generation.load();
  return true;
}

ContextPtr Enter() {
  ContextPtr c = t_stack.empty() ? PrimaryContext(t_device) : t_stack.back();
  MakeCurrent(*c);
  return c;
}

void NoteStickyFault(CUresult r, const char* call) {
  // t_current is the context this thread last made current: the one the failing call used.
  auto* c = const_cast<Context*>(t_current);
  if (c) Poison(*c, static_cast<int>(r), call);
}

uint64_t ThreadTag() {
  static std::atomic<uint64_t> next{1};
  thread_local uint64_t tag = next++;
  return tag;
}

void NoteLaunchFailure(Context& c, uint64_t origin, int status) {
  constexpr size_t kKeep = 64;  // threads that exited never collect theirs: keep the newest
  std::lock_guard<std::mutex> lock(c.mu);
  for (auto& f : c.launch_failures)
    if (f.first == origin) return;  // the first failure is the one to report
  if (c.launch_failures.size() >= kKeep) c.launch_failures.erase(c.launch_failures.begin());
  c.launch_failures.emplace_back(origin, status);
  c.launch_failed.store(true);
}

void ReportLaunchFailure(const Context& c) {
  if (!c.launch_failed.load(std::memory_order_relaxed)) return;
  uint64_t me = ThreadTag();
  int status = 0;
  {
    std::lock_guard<std::mutex> lock(c.mu);
    auto& list = c.launch_failures;
    for (auto it = list.begin(); it != list.end(); ++it) {
      if (it->first != me) continue;
      status = it->second;
      list.erase(it);
      break;
    }
    if (list.empty()) c.launch_failed.store(false);
  }
  if (status) {
    throw CuErr(status, "cuLaunchKernel",
                "a kernel launch queued by an earlier operation on this thread failed (reported "
                "by the next call, as CUDA reports asynchronous errors)");
  }
}

void ReportCurrentLaunchFailure() {
  if (t_current) ReportLaunchFailure(*t_current);
}

void ForgetCurrent() {
  t_current = nullptr;
  t_current_id = 0;
}

void SetThreadDevice(int ordinal) {
  PrimaryContext(ordinal);  // validates the ordinal
  t_device = ordinal;
}
int ThreadDevice() { return t_device; }
void PushContext(ContextPtr c) {
  MakeCurrent(*c);
  t_stack.push_back(std::move(c));
}
ContextPtr PopContext() {
  if (t_stack.empty()) return nullptr;
  ContextPtr c = t_stack.back();
  t_stack.pop_back();
  return c;
}

// Resets device `ordinal`'s primary context: every resource in it is destroyed by the driver,
// the generation moves on so their handles do not free them again, and the poison is cleared.
void ResetDevice(int ordinal) {
  ContextPtr c = PrimaryContext(ordinal);
  const DriverApi& cu = DrainedCu();
  CU_CHECK(cu.cuDevicePrimaryCtxReset(c->dev));
  {
    std::lock_guard<std::mutex> lock(c->mu);
    c->generation++;
    c->poison.store(0);
    c->poison_call.clear();
    c->pool = nullptr;
    c->launch_failures.clear();  // launches of the old generation are gone with it
    c->launch_failed.store(false);
  }
  // The reset released the context object; retain it again so the handle we hold stays valid
  // (the extra retain from the first PrimaryContext() call is consumed by the reset's release).
  t_current = nullptr;
  t_current_id = 0;
  CUcontext again = nullptr;
  CUresult r = cu.cuDevicePrimaryCtxRetain(&again, c->dev);
  if (IsSticky(r)) {
    // Current drivers keep a sticky fault for the life of the process (see cuda.h on
    // CUDA_ERROR_ILLEGAL_ADDRESS): stay poisoned and say so.
    Poison(*c, static_cast<int>(r), "cuDevicePrimaryCtxReset");
    throw CuErr(r, "cuDevicePrimaryCtxReset",
                "The driver refused to reset device " + std::to_string(ordinal) + " after " +
                    CuStatusName(r) +
                    ": NVIDIA drivers keep such a fault until the process exits. Restart the "
                    "process (run kernels you do not trust in a child process).");
  }
  CU_CHECK(r);
  cu.cuDevicePrimaryCtxRelease(c->dev);
  c->ctx = again;
}

void DeviceMem::RecordStream(const std::shared_ptr<StreamRes>* s) {
  if (freed) return;
  if (!s) {
    if (stream) used_legacy = true;
    return;
  }
  if (*s == stream) return;
  for (const auto& u : used)
    if (u == *s) return;
  (*s)->MarkEvent();  // now, while the stream exists: it may be destroyed before the free
  used.push_back(*s);
}

namespace {

// Makes `on` wait for the work queued so far on `u`. The fallbacks block the host: slower, never
// wrong.
void WaitForStream(const DriverApi& cu, CUstream on, const StreamRes& u) {
  if (!u.Live() || (u.stream && u.stream == on)) return;  // a reset ended its work
  if (u.stream) {
    if (u.mark && cu.cuEventRecord(u.mark, u.stream) == CUDA_SUCCESS &&
        cu.cuStreamWaitEvent(on, u.mark, 0) == CUDA_SUCCESS)
      return;
    cu.cuStreamSynchronize(u.stream);
  } else if (!u.mark || cu.cuStreamWaitEvent(on, u.mark, 0) != CUDA_SUCCESS) {
    cu.cuCtxSynchronize();  // destroyed without a mark: its work is somewhere on the device
  }
}

void WaitForLegacy(const DriverApi& cu, CUstream on) {
  CUevent ev = nullptr;
  if (cu.cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING) == CUDA_SUCCESS &&
      cu.cuEventRecord(ev, nullptr) == CUDA_SUCCESS &&
      cu.cuStreamWaitEvent(on, ev, 0) == CUDA_SUCCESS) {
    cu.cuEventDestroy(ev);  // the wait keeps what it needs
    return;
  }
  if (ev) cu.cuEventDestroy(ev);
  cu.cuStreamSynchronize(nullptr);
}

}  // namespace

void DeviceMem::WaitForUsers(CUstream on, bool explicit_stream) {
  // Through DrainedCuUnchecked: queued launches are submitted first, so the marks come after them.
  if (TryMakeCurrent(*ctx)) {
    const DriverApi& cu = DrainedCuUnchecked();
    for (const auto& u : used) WaitForStream(cu, on, *u);
    // The allocation stream, when the free goes elsewhere (an explicit stream, or the legacy
    // stream because it was destroyed).
    if (stream && (explicit_stream || !stream->stream)) WaitForStream(cu, on, *stream);
    if (on && (used_legacy || (explicit_stream && !stream))) WaitForLegacy(cu, on);
  }
  used.clear();
  used_legacy = false;
}

size_t DeviceMem::Release(CUstream s) {
  if (freed) return 0;
  if (!ptr) {  // a failed allocation: nothing to free or to cache
    freed = true;
    return 0;
  }
  bool alloc_live = stream && stream->stream && stream->Live();
  CUstream on = s ? s : (alloc_live ? stream->stream : nullptr);
  freed = true;
  // Other streams' work first (rare: the usual free has nothing to wait for), since the pool and
  // the block cache may hand the memory out as soon as the free is in `on`'s order.
  if (!used.empty() || used_legacy || s || (stream && !alloc_live)) WaitForUsers(on, s != nullptr);
  // A block of the cache's sizes freed on the legacy stream, where it was made: kept for reuse
  // there, in the same stream order as the pool would give.
  if (pooled && cls && !on && !stream && ctx->KeepBlock(cls, ptr, generation)) return size;
  // Pool memory belongs to the device, not the context, so it outlives a reset: free it anyway.
  if ((!pooled && !Live()) || !TryMakeCurrent(*ctx)) return size;
  const DriverApi& cu = DrainedCuUnchecked();
  // Errors here are ignored on purpose: at exit the driver may be deinitialized already.
  if (pooled) {
    cu.cuMemFreeAsync(ptr, on);
  } else {
    cu.cuMemFree(ptr);
  }
  return size;
}

bool StreamRes::MarkEvent() {
  if (!mark && Live()) RawCu().cuEventCreate(&mark, CU_EVENT_DISABLE_TIMING);
  return mark != nullptr;
}

void StreamRes::Destroy() {
  if (!stream) return;
  if (Live() && TryMakeCurrent(*ctx)) {
    const DriverApi& cu = DrainedCuUnchecked();  // submits launches queued on it first
    if (mark) cu.cuEventRecord(mark, stream);
    cu.cuStreamDestroy(stream);
  }
  stream = nullptr;
}

// Queue records own the streams they launch on (launch_queue.cc): none is pending here.
StreamRes::~StreamRes() {
  Destroy();
  if (mark && Live() && TryMakeCurrent(*ctx)) DrainedCuUnchecked().cuEventDestroy(mark);
}
EventRes::~EventRes() {
  if (event && Live() && TryMakeCurrent(*ctx)) DrainedCuUnchecked().cuEventDestroy(event);
}
// Queue records own their kernel's module (launch_queue.cc): none is pending here.
namespace {
thread_local bool t_defer_releases = false;
}  // namespace

void DeferReleasesOnThisThread() { t_defer_releases = true; }

// cuModuleUnload waits for the module's running kernels. While a worker terminates, the unload
// runs on a detached thread that owns the context (the addon stays loaded: RTLD_NODELETE).
ModuleRes::~ModuleRes() {
  if (!module || !Live()) return;
  if (t_defer_releases) {
    try {
      std::thread([c = ctx, m = module, gen = generation] {
        if (c->generation.load() == gen && TryMakeCurrent(*c))
          DrainedCuUnchecked().cuModuleUnload(m);
      }).detach();
      return;
    } catch (...) {  // no thread: unload here, waiting
    }
  }
  if (TryMakeCurrent(*ctx)) DrainedCuUnchecked().cuModuleUnload(module);
}
void HostReg::Release() {
  if (!registered) return;
  registered = false;
  if (ctx && TryMakeCurrent(*ctx)) DrainedCuUnchecked().cuMemHostUnregister(ptr);
}

}  // namespace nodecuda
