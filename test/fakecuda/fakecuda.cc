// fakecuda (fakecuda_state.h describes the double): the shared state, the stream machinery, and
// the init, error, device and context entry points.
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "fakecuda_state.h"

namespace fakecuda {

// State is never destroyed: detached stream threads and the addon's worker threads may still
// call in while the process exits (static destructors would free it under them).
std::mutex& mu = *new std::mutex;
std::condition_variable& cv = *new std::condition_variable;

int Env(const char* name, int def) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : def;
}
void Delay() {
  static int ms = Env("FAKECUDA_SYNC_DELAY_MS", 0);
  if (ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}
[[noreturn]] void Die(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::fprintf(stderr, "fakecuda: ");
  std::vfprintf(stderr, fmt, ap);
  std::fprintf(stderr, "\n");
  va_end(ap);
  std::abort();
}
double NowMs() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

std::set<uintptr_t>& g_dead = *new std::set<uintptr_t>;
std::map<uintptr_t, Ctx>& g_ctx = *new std::map<uintptr_t, Ctx>;
std::map<uintptr_t, StreamP>& g_streams = *new std::map<uintptr_t, StreamP>;
std::map<uintptr_t, std::shared_ptr<Event>>& g_events =
    *new std::map<uintptr_t, std::shared_ptr<Event>>;
std::map<uintptr_t, Module>& g_modules = *new std::map<uintptr_t, Module>;
std::map<uintptr_t, std::pair<uintptr_t, std::string>>& g_funcs =
    *new std::map<uintptr_t, std::pair<uintptr_t, std::string>>;
std::map<uintptr_t, Alloc>& g_mem = *new std::map<uintptr_t, Alloc>;
std::map<uintptr_t, std::pair<size_t, bool>>& g_pinned =
    *new std::map<uintptr_t, std::pair<size_t, bool>>;
size_t g_used = 0, g_total = size_t(Env("FAKECUDA_MEM_MB", 80 << 10)) << 20;
uint64_t g_threshold = 0;
thread_local uintptr_t t_ctx = 0;

namespace {
uintptr_t g_next = 16;
// Device -> its primary context; never destroyed (threads may still call in at exit).
std::map<int, uintptr_t>& g_primary = *new std::map<int, uintptr_t>;
bool g_init = false;
}  // namespace

uintptr_t NewHandle() { return g_next += 16; }

int Devices() {
  static int n = std::min(8, std::max(1, Env("FAKECUDA_DEVICES", 1)));
  return n;
}

CUresult Current(Ctx** out) {
  if (!g_init) return CUDA_ERROR_NOT_INITIALIZED;
  if (g_dead.count(t_ctx)) return CUDA_ERROR_CONTEXT_IS_DESTROYED;  // by another thread
  Ctx* c = t_ctx ? Find(g_ctx, t_ctx, "CUcontext") : nullptr;
  if (!c || !c->alive) return CUDA_ERROR_INVALID_CONTEXT;
  *out = c;
  return c->sticky;
}

namespace {
void Run(StreamP s) {
  std::unique_lock<std::mutex> lock(mu);
  auto ready = [&] {
    if (s->q.empty()) return s->closing;
    for (auto& [d, seq] : s->q.front().deps)
      if (d->done < seq) return false;
    return true;
  };
  for (;;) {
    cv.wait(lock, ready);
    if (s->q.empty()) return;
    Op op = std::move(s->q.front());
    s->q.pop_front();
    lock.unlock();
    Delay();
    if (op.fn) op.fn();
    op = Op();
    lock.lock();
    s->done++;
    cv.notify_all();
  }
}
}  // namespace

StreamP NewStream(uintptr_t ctx, bool blocking) {
  auto s = std::make_shared<Stream>();
  s->ctx = ctx;
  s->blocking = blocking;
  std::thread(Run, s).detach();
  return s;
}

CUresult StreamOf(Ctx* c, CUstream h, StreamP* out) {
  if (!h || h == CU_STREAM_LEGACY || h == CU_STREAM_PER_THREAD) {
    if (!c->legacy) c->legacy = NewStream(t_ctx, true);
    *out = c->legacy;
    return CUDA_SUCCESS;
  }
  StreamP* s = Find(g_streams, H(h), "CUstream");
  if (!s) return CUDA_ERROR_INVALID_HANDLE;
  *out = *s;
  return CUDA_SUCCESS;
}

uint64_t Enqueue(const StreamP& s, std::function<void()> fn,
                 std::vector<std::pair<StreamP, uint64_t>> deps) {
  Ctx* c = &g_ctx[s->ctx];
  if (s == c->legacy) {
    for (auto& [h, o] : g_streams)
      if (o->ctx == s->ctx && o->blocking) deps.emplace_back(o, o->enq);
  } else if (s->blocking && c->legacy) {
    deps.emplace_back(c->legacy, c->legacy->enq);
  }
  s->q.push_back(Op{std::move(fn), std::move(deps)});
  cv.notify_all();
  return ++s->enq;
}
void Wait(std::unique_lock<std::mutex>& lock, const StreamP& s, uint64_t seq) {
  cv.wait(lock, [&] { return s->done >= seq; });
}
void WaitContext(std::unique_lock<std::mutex>& lock, uintptr_t ctx) {
  std::vector<std::pair<StreamP, uint64_t>> all;
  for (auto& [h, s] : g_streams)
    if (s->ctx == ctx) all.emplace_back(s, s->enq);
  if (g_ctx[ctx].legacy) all.emplace_back(g_ctx[ctx].legacy, g_ctx[ctx].legacy->enq);
  for (auto& [s, seq] : all) Wait(lock, s, seq);
}

uint8_t* Dev(CUdeviceptr d, size_t n) {
  uintptr_t p = uintptr_t(d) - kBias;
  auto it = g_mem.upper_bound(p);
  if (it == g_mem.begin()) return nullptr;
  --it;
  if (p < it->first || p + n > it->first + it->second.size || p + n < p) return nullptr;
  return reinterpret_cast<uint8_t*>(p);
}

CUresult AllocDev(CUdeviceptr* out, size_t n, bool pooled) {
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  if (n == 0) return CUDA_ERROR_INVALID_VALUE;
  if (n > g_total - g_used) return CUDA_ERROR_OUT_OF_MEMORY;
  void* p = nullptr;
  if (posix_memalign(&p, 256, n) != 0) return CUDA_ERROR_OUT_OF_MEMORY;
  g_mem[H(p)] = Alloc{n, t_ctx, pooled};
  g_used += n;
  *out = CUdeviceptr(H(p) + kBias);
  return CUDA_SUCCESS;
}
void* Unregister(CUdeviceptr d) {
  auto it = g_mem.find(uintptr_t(d) - kBias);
  if (it == g_mem.end()) return nullptr;
  g_used -= it->second.size;
  void* p = reinterpret_cast<void*>(it->first);
  g_mem.erase(it);
  return p;
}

}  // namespace fakecuda

using namespace fakecuda;

namespace {

// Destroys what a context owns (cuCtxDestroy, cuDevicePrimaryCtxReset): its handles become
// invalid (CUDA_ERROR_INVALID_HANDLE, not fatal: the caller may not know yet).
void DropContextResources(std::unique_lock<std::mutex>& lock, uintptr_t ctx) {
  WaitContext(lock, ctx);
  for (auto it = g_streams.begin(); it != g_streams.end();) {
    if (it->second->ctx != ctx) {
      ++it;
      continue;
    }
    it->second->closing = true;
    it = g_streams.erase(it);
  }
  for (auto it = g_events.begin(); it != g_events.end();)
    it = it->second->ctx == ctx ? g_events.erase(it) : std::next(it);
  for (auto it = g_modules.begin(); it != g_modules.end();) {
    if (it->second.ctx != ctx) {
      ++it;
      continue;
    }
    for (auto& [n, g] : it->second.globals) std::free(Unregister(g.first));
    it = g_modules.erase(it);
  }
  for (auto it = g_mem.begin(); it != g_mem.end();) {
    if (it->second.ctx != ctx || it->second.pooled) {
      ++it;
      continue;
    }
    g_used -= it->second.size;
    std::free(reinterpret_cast<void*>(it->first));
    it = g_mem.erase(it);
  }
  Ctx& c = g_ctx[ctx];
  if (c.legacy) c.legacy->closing = true;
  c.legacy = nullptr;
  c.sticky = CUDA_SUCCESS;
  cv.notify_all();
}

}  // namespace

// ---- init, errors, device --------------------------------------------------------------------

FAKE_API CUresult cuInit(unsigned flags) {
  std::lock_guard<std::mutex> lock(mu);
  if (flags) return CUDA_ERROR_INVALID_VALUE;
  g_init = true;
  return CUDA_SUCCESS;
}

const std::map<int, std::pair<const char*, const char*>>& Errors() {
  static auto* m = new std::map<int, std::pair<const char*, const char*>>{
#define E(name, text)     \
  {                       \
    name, { #name, text } \
  }
      E(CUDA_SUCCESS, "no error"),
      E(CUDA_ERROR_INVALID_VALUE, "invalid argument"),
      E(CUDA_ERROR_OUT_OF_MEMORY, "out of memory"),
      E(CUDA_ERROR_NOT_INITIALIZED, "initialization error"),
      E(CUDA_ERROR_DEINITIALIZED, "driver shutting down"),
      E(CUDA_ERROR_STUB_LIBRARY, "CUDA driver is a stub library"),
      E(CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected"),
      E(CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal"),
      E(CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid"),
      E(CUDA_ERROR_INVALID_CONTEXT, "invalid device context"),
      E(CUDA_ERROR_CONTEXT_IS_DESTROYED, "context is destroyed"),
      E(CUDA_ERROR_NO_BINARY_FOR_GPU, "no kernel image is available for execution on the device"),
      E(CUDA_ERROR_INVALID_PTX, "a PTX JIT compilation failed"),
      E(CUDA_ERROR_INVALID_HANDLE, "invalid resource handle"),
      E(CUDA_ERROR_NOT_FOUND, "named symbol not found"),
      E(CUDA_ERROR_NOT_READY, "device not ready"),
      E(CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered"),
      E(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "too many resources requested for launch"),
      E(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
        "part or all of the requested memory range is already mapped"),
      E(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,
        "pointer does not correspond to a registered memory region"),
      E(CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure"),
      E(CUDA_ERROR_NOT_SUPPORTED, "operation not supported"),
      E(CUDA_ERROR_UNKNOWN, "unknown error"),
#undef E
  };
  return *m;
}
FAKE_API CUresult cuGetErrorName(CUresult e, const char** s) {
  auto it = Errors().find(e);
  if (!s) return CUDA_ERROR_INVALID_VALUE;
  *s = it == Errors().end() ? nullptr : it->second.first;
  return *s ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
FAKE_API CUresult cuGetErrorString(CUresult e, const char** s) {
  auto it = Errors().find(e);
  if (!s) return CUDA_ERROR_INVALID_VALUE;
  *s = it == Errors().end() ? nullptr : it->second.second;
  return *s ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
FAKE_API CUresult cuDeviceGetCount(int* n) {
  return n ? (*n = Devices(), CUDA_SUCCESS) : CUDA_ERROR_INVALID_VALUE;
}
FAKE_API CUresult cuDeviceGet(CUdevice* d, int ordinal) {
  if (!d) return CUDA_ERROR_INVALID_VALUE;
  if (BadDev(ordinal)) return CUDA_ERROR_INVALID_DEVICE;
  *d = ordinal;
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuDeviceGetName(char* name, int len, CUdevice d) {
  if (BadDev(d)) return CUDA_ERROR_INVALID_DEVICE;
  if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  std::snprintf(name, len, "%s", "nodecuda fake device");
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuDeviceTotalMem(size_t* bytes, CUdevice d) {
  if (BadDev(d)) return CUDA_ERROR_INVALID_DEVICE;
  return bytes ? (*bytes = g_total, CUDA_SUCCESS) : CUDA_ERROR_INVALID_VALUE;
}
FAKE_API CUresult cuDeviceGetAttribute(int* v, CUdevice_attribute a, CUdevice d) {
  // An H100 SXM (sm_90); attributes not listed are 0.
  static const std::map<int, int> kAttr = {
      {1, 1024},     {2, 1024},       {3, 1024},        {4, 64},     {5, 2147483647},  {6, 65535},
      {7, 65535},    {8, 49152},      {9, 65536},       {10, 32},    {11, 2147483647}, {12, 65536},
      {13, 1980000}, {14, 512},       {15, 1},          {16, 132},   {19, 1},          {30, 512},
      {31, 1},       {32, 1},         {36, 2619000},    {37, 5120},  {38, 52428800},   {39, 2048},
      {40, 3},       {41, 1},         {51, 32},         {75, 9},     {76, 0},          {78, 1},
      {79, 1},       {80, 1},         {81, 233472},     {82, 65536}, {83, 1},          {86, 1},
      {87, 2},       {90, 1},         {91, 1},          {95, 1},     {97, 232448},     {99, 1},
      {106, 32},     {108, 31457280}, {109, 134213632}, {111, 1024}, {115, 1},         {120, 1}};
  if (BadDev(d)) return CUDA_ERROR_INVALID_DEVICE;
  if (!v || a <= 0 || a >= CU_DEVICE_ATTRIBUTE_MAX) return CUDA_ERROR_INVALID_VALUE;
  auto it = kAttr.find(a);
  *v = it == kAttr.end() ? 0 : it->second;
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuDeviceGetPCIBusId(char* id, int len, CUdevice d) {
  if (BadDev(d)) return CUDA_ERROR_INVALID_DEVICE;
  if (!id || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  std::snprintf(id, len, "%s", "0000:00:00.0");
  return CUDA_SUCCESS;
}

// Every two devices are peers; CUDA answers 0 for a device and itself and refuses access to it.
FAKE_API CUresult cuDeviceCanAccessPeer(int* can, CUdevice d, CUdevice peer) {
  if (BadDev(d) || BadDev(peer)) return CUDA_ERROR_INVALID_DEVICE;
  return can ? (*can = d != peer, CUDA_SUCCESS) : CUDA_ERROR_INVALID_VALUE;
}

// ---- contexts --------------------------------------------------------------------------------

FAKE_API CUresult cuDevicePrimaryCtxRetain(CUcontext* out, CUdevice d) {
  std::lock_guard<std::mutex> lock(mu);
  if (!g_init) return CUDA_ERROR_NOT_INITIALIZED;
  if (BadDev(d)) return CUDA_ERROR_INVALID_DEVICE;
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  uintptr_t& p = g_primary[d];
  if (!p) {
    g_ctx[p = NewHandle()].primary = true;
    g_ctx[p].dev = d;
  }
  g_ctx[p].refs++;
  *out = reinterpret_cast<CUcontext>(p);
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuDevicePrimaryCtxRelease(CUdevice d) {
  std::lock_guard<std::mutex> lock(mu);
  if (BadDev(d)) return CUDA_ERROR_INVALID_DEVICE;
  uintptr_t p = g_primary[d];
  if (!p || g_ctx[p].refs <= 0) return CUDA_ERROR_INVALID_CONTEXT;
  g_ctx[p].refs--;  // resources are kept: a later retain finds them (as the driver may)
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuDevicePrimaryCtxReset(CUdevice d) {
  std::unique_lock<std::mutex> lock(mu);
  if (BadDev(d)) return CUDA_ERROR_INVALID_DEVICE;
  if (g_primary[d]) DropContextResources(lock, g_primary[d]);
  return CUDA_SUCCESS;
}
// cuCtxCreate_v4 (CUDA 12.5): a caller that uses it on an older "driver" (FAKECUDA_VERSION) is a
// bug: the real driver of that version does not have it. cuCtxCreate_v2: fakecuda_proc.cc.
FAKE_API CUresult cuCtxCreate(CUcontext* out, CUctxCreateParams*, unsigned flags, CUdevice d) {
  if (DriverVersion() < 12050) Die("cuCtxCreate_v4 called on a CUDA %d driver", DriverVersion());
  return CtxCreate(out, flags, d);
}
CUresult fakecuda::CtxCreate(CUcontext* out, unsigned, CUdevice d) {
  std::lock_guard<std::mutex> lock(mu);
  if (!g_init) return CUDA_ERROR_NOT_INITIALIZED;
  if (BadDev(d)) return CUDA_ERROR_INVALID_DEVICE;
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  uintptr_t h = NewHandle();
  g_ctx[h].dev = d;
  t_ctx = h;  // the new context is current, as cuCtxCreate makes it
  *out = reinterpret_cast<CUcontext>(h);
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuCtxDestroy(CUcontext ctx) {
  std::unique_lock<std::mutex> lock(mu);
  Ctx* c = Find(g_ctx, H(ctx), "CUcontext");
  if (!c || c->primary) return CUDA_ERROR_INVALID_CONTEXT;
  DropContextResources(lock, H(ctx));
  g_ctx.erase(H(ctx));
  g_dead.insert(H(ctx));
  if (t_ctx == H(ctx)) t_ctx = 0;
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuCtxSetCurrent(CUcontext ctx) {
  std::lock_guard<std::mutex> lock(mu);
  if (ctx && !Find(g_ctx, H(ctx), "CUcontext")) return CUDA_ERROR_INVALID_CONTEXT;
  t_ctx = H(ctx);
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuCtxGetCurrent(CUcontext* out) {
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  *out = reinterpret_cast<CUcontext>(t_ctx);
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuCtxSynchronize() {
  Delay();
  LOCK_CTX;
  WaitContext(lock, t_ctx);
  return c->sticky;
}
