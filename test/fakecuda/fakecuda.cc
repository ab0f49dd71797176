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
// leaves a sticky CUDA_ERROR_ILLEGAL_ADDRESS, as a faulting kernel does).
#include <cuda.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#define FAKE_API extern "C" __attribute__((visibility("default")))

namespace {

constexpr uintptr_t kBias = uintptr_t(1) << 47;  // device address = host address + kBias
std::mutex& mu = *new std::mutex;                // one lock for all state (never destroyed:
std::condition_variable& cv = *new std::condition_variable;  // detached threads outlive exit)

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

struct Stream;
using StreamP = std::shared_ptr<Stream>;
struct Op {
  std::function<void()> fn;
  std::vector<std::pair<StreamP, uint64_t>> deps;  // (stream, sequence number) to wait for
};
struct Ctx {
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

// Handles are small never-reused numbers (never dereferenced by a correct caller).
uintptr_t g_next = 16;
std::set<uintptr_t> g_dead;  // destroyed handles: using one is a bug in the caller
std::map<uintptr_t, Ctx> g_ctx;
std::map<uintptr_t, StreamP> g_streams;
std::map<uintptr_t, std::shared_ptr<Event>> g_events;
std::map<uintptr_t, Module> g_modules;
std::map<uintptr_t, std::pair<uintptr_t, std::string>> g_funcs;  // handle -> (module, name)
std::map<uintptr_t, Alloc> g_mem;                                // host base -> allocation
std::map<uintptr_t, std::pair<size_t, bool>> g_pinned;           // base -> (bytes, AllocHost)
uintptr_t g_primary = 0;
size_t g_used = 0, g_total = size_t(Env("FAKECUDA_MEM_MB", 80 << 10)) << 20;
uint64_t g_threshold = 0;
int g_launches = 0;
bool g_init = false;
thread_local uintptr_t t_ctx = 0;

uintptr_t NewHandle() { return g_next += 16; }
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
CUresult Current(Ctx** out) {
  if (!g_init) return CUDA_ERROR_NOT_INITIALIZED;
  if (g_dead.count(t_ctx)) return CUDA_ERROR_CONTEXT_IS_DESTROYED;  // by another thread
  Ctx* c = t_ctx ? Find(g_ctx, t_ctx, "CUcontext") : nullptr;
  if (!c || !c->alive) return CUDA_ERROR_INVALID_CONTEXT;
  *out = c;
  return c->sticky;
}

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

StreamP NewStream(uintptr_t ctx, bool blocking) {
  auto s = std::make_shared<Stream>();
  s->ctx = ctx;
  s->blocking = blocking;
  std::thread(Run, s).detach();
  return s;
}

// Resolves a stream handle of the current context (lock held): 0 and the legacy/per-thread
// handles are the context's legacy stream.
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

// Queues fn on `s` after `deps` and, for legacy-stream semantics, after the legacy stream (for
// blocking streams) or every blocking stream of the context (for the legacy stream).
uint64_t Enqueue(const StreamP& s, std::function<void()> fn,
                 std::vector<std::pair<StreamP, uint64_t>> deps = {}) {
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

// Host address of device range [d, d+n) inside one live allocation, or 0.
uint8_t* Dev(CUdeviceptr d, size_t n) {
  uintptr_t p = uintptr_t(d) - kBias;
  auto it = g_mem.upper_bound(p);
  if (it == g_mem.begin()) return nullptr;
  --it;
  if (p < it->first || p + n > it->first + it->second.size || p + n < p) return nullptr;
  return reinterpret_cast<uint8_t*>(p);
}
bool Pinned(const void* h, size_t n) {
  uintptr_t p = H(h);
  auto it = g_pinned.upper_bound(p);
  if (it == g_pinned.begin()) return false;
  --it;
  return p >= it->first && p + n <= it->first + it->second.first;
}

// A copy in stream order. Pageable host memory: host-to-device is staged now (the caller may
// reuse the source when the call returns), device-to-host completes before the call returns.
CUresult Copy(CUstream h, bool async, uint8_t* dst, const uint8_t* src, size_t n, bool host_src,
              bool host_dst) {
  std::unique_lock<std::mutex> lock(mu);
  Ctx* c;
  StreamP s;
  if (CUresult r = Current(&c)) return r;
  if (CUresult r = StreamOf(c, h, &s)) return r;
  if (!dst || !src) return CUDA_ERROR_INVALID_VALUE;
  if (n == 0) return CUDA_SUCCESS;
  std::shared_ptr<std::vector<uint8_t>> staged;
  if (async && host_src && !Pinned(src, n)) {
    staged = std::make_shared<std::vector<uint8_t>>(src, src + n);
    src = staged->data();
  }
  uint64_t seq = Enqueue(s, [dst, src, n, staged] { std::memcpy(dst, src, n); });
  if (!async || (host_dst && !Pinned(dst, n))) Wait(lock, s, seq);
  return CUDA_SUCCESS;
}

CUresult Memset(CUdeviceptr d, unsigned v, size_t count, int width, CUstream h, bool async) {
  std::unique_lock<std::mutex> lock(mu);
  Ctx* c;
  StreamP s;
  if (CUresult r = Current(&c)) return r;
  if (CUresult r = StreamOf(c, h, &s)) return r;
  if (count == 0) return CUDA_SUCCESS;
  uint8_t* p = Dev(d, count * width);
  if (!p || (uintptr_t(d) % width)) return CUDA_ERROR_INVALID_VALUE;
  uint64_t seq = Enqueue(s, [p, v, count, width] {
    for (size_t i = 0; i < count; i++) std::memcpy(p + i * width, &v, width);  // little endian
  });
  if (!async) Wait(lock, s, seq);
  return CUDA_SUCCESS;
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
// Removes a live allocation from the registry; the caller frees the host memory.
void* Unregister(CUdeviceptr d) {
  auto it = g_mem.find(uintptr_t(d) - kBias);
  if (it == g_mem.end()) return nullptr;
  g_used -= it->second.size;
  void* p = reinterpret_cast<void*>(it->first);
  g_mem.erase(it);
  return p;
}

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

// ---- module images ---------------------------------------------------------------------------

template <typename T>
T Read(const uint8_t* image, uint64_t off) {
  T v;
  std::memcpy(&v, image + off, sizeof(T));  // touches the bytes, as a loader does
  return v;
}

// Parses EIATTR_KPARAM_INFO (0x17) and EIATTR_CBANK_PARAM_SIZE (0x19) of an .nv.info.<fn>.
void ParseInfo(const uint8_t* p, uint64_t size, Func& f) {
  for (uint64_t i = 0; i + 2 <= size;) {
    uint8_t fmt = p[i], attr = p[i + 1];
    uint64_t len = fmt == 1 ? 2 : fmt == 4 ? 4 + Read<uint16_t>(p, i + 2) : 4;
    if (fmt == 3 && attr == 0x19) f.param_bytes = Read<uint16_t>(p, i + 2);
    if (fmt == 4 && attr == 0x17 && len >= 16) {
      uint16_t ordinal = Read<uint16_t>(p, i + 8), offset = Read<uint16_t>(p, i + 10);
      uint32_t bytes = Read<uint32_t>(p, i + 12) >> 18;
      if (f.params.size() <= ordinal) f.params.resize(ordinal + 1);
      f.params[ordinal] = {offset, bytes};
    }
    if (fmt < 1 || fmt > 4) return;
    i += len;
  }
}

CUresult LoadElf(const uint8_t* image, Module& m) {
  if (image[4] != 2 || Read<uint16_t>(image, 18) != 190) return CUDA_ERROR_INVALID_IMAGE;
  uint32_t flags = Read<uint32_t>(image, 48);
  unsigned arch = image[8] >= 8 ? (flags >> 8) & 0xff : flags & 0xff;  // ELF ABI version
  if (arch / 10 != 9 || arch % 10 != 0) return CUDA_ERROR_NO_BINARY_FOR_GPU;
  uint64_t shoff = Read<uint64_t>(image, 40);
  uint16_t shentsize = Read<uint16_t>(image, 58), shnum = Read<uint16_t>(image, 60);
  uint16_t shstrndx = Read<uint16_t>(image, 62);
  if (shentsize != 64 || shstrndx >= shnum) return CUDA_ERROR_INVALID_IMAGE;
  auto sh = [&](unsigned i, unsigned field) {
    return Read<uint64_t>(image, shoff + i * 64 + field);
  };
  auto type = [&](unsigned i) { return Read<uint32_t>(image, shoff + i * 64 + 4); };
  const char* shstr = reinterpret_cast<const char*>(image + sh(shstrndx, 24));
  // Every section's bytes are read (a loader copies them to the device).
  uint64_t sum = 0;
  for (unsigned i = 0; i < shnum; i++) {
    if (type(i) == 8) continue;  // SHT_NOBITS
    for (uint64_t k = 0, off = sh(i, 24), n = sh(i, 32); k < n; k++) sum += image[off + k];
  }
  volatile uint64_t sink = sum;
  (void)sink;
  for (unsigned i = 0; i < shnum; i++) {
    if (type(i) != 2) continue;  // SHT_SYMTAB
    uint64_t off = sh(i, 24), n = sh(i, 32) / 24;
    unsigned link = Read<uint32_t>(image, shoff + i * 64 + 40);
    const char* str = reinterpret_cast<const char*>(image + sh(link, 24));
    for (uint64_t k = 1; k < n; k++) {
      uint32_t name = Read<uint32_t>(image, off + k * 24);
      uint8_t info = image[off + k * 24 + 4];
      uint16_t shndx = Read<uint16_t>(image, off + k * 24 + 6);
      uint64_t size = Read<uint64_t>(image, off + k * 24 + 16);
      std::string s = str + name;
      if ((info & 0xf) == 2) m.funcs[s].ctx = t_ctx;  // STT_FUNC
      bool data =
          shndx > 0 && shndx < shnum &&
          std::strncmp(shstr + Read<uint32_t>(image, shoff + shndx * 64), ".nv.global", 10) == 0;
      if ((info & 0xf) == 1 && data && size) {  // STT_OBJECT in .nv.global*
        CUdeviceptr d;
        if (AllocDev(&d, size, false) == CUDA_SUCCESS) m.globals[s] = {d, size};
      }
    }
  }
  for (unsigned i = 0; i < shnum; i++) {
    std::string name = shstr + Read<uint32_t>(image, shoff + i * 64);
    if (name.rfind(".nv.info.", 0) == 0 && m.funcs.count(name.substr(9)))
      ParseInfo(image + sh(i, 24), sh(i, 32), m.funcs[name.substr(9)]);
  }
  return CUDA_SUCCESS;
}

CUresult LoadPtx(const char* text, Module& m) {
  std::string s(text);  // reads up to the NUL, as the PTX JIT does
  size_t t = s.find(".target sm_");
  if (t == std::string::npos || std::atoi(s.c_str() + t + 11) > 90) return CUDA_ERROR_INVALID_PTX;
  auto ident = [&](size_t i) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) i++;
    size_t j = i;
    while (j < s.size() &&
           (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_' || s[j] == '$'))
      j++;
    return s.substr(i, j - i);
  };
  for (size_t i = 0; (i = s.find(".entry ", i)) != std::string::npos; i += 7)
    m.funcs[ident(i + 7)].ctx = t_ctx;
  for (size_t i = 0; (i = s.find("\n.global ", i)) != std::string::npos; i += 9) {
    std::string line = s.substr(i + 1, s.find(';', i) - i - 1);
    size_t bits = line.find(" .b"), br = line.find('['), name_end = std::min(br, line.size());
    size_t start = line.rfind(' ', name_end - 1) + 1;
    size_t elem = bits == std::string::npos ? 4 : std::atoi(line.c_str() + bits + 3) / 8;
    size_t n = elem * (br == std::string::npos ? 1 : std::atoi(line.c_str() + br + 1));
    CUdeviceptr d;
    if (n && AllocDev(&d, n, false) == CUDA_SUCCESS)
      m.globals[line.substr(start, name_end - start)] = {d, n};
  }
  return CUDA_SUCCESS;
}

#define LOCK_CTX                            \
  std::unique_lock<std::mutex> lock(mu);    \
  Ctx* c;                                   \
  if (CUresult r_ = Current(&c)) return r_; \
  (void)c

}  // namespace

// ---- init, errors, device --------------------------------------------------------------------

FAKE_API CUresult cuInit(unsigned flags) {
  std::lock_guard<std::mutex> lock(mu);
  if (flags) return CUDA_ERROR_INVALID_VALUE;
  g_init = true;
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuDriverGetVersion(int* v) {
  return v ? (*v = CUDA_VERSION, CUDA_SUCCESS) : CUDA_ERROR_INVALID_VALUE;
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
  return n ? (*n = 1, CUDA_SUCCESS) : CUDA_ERROR_INVALID_VALUE;
}
FAKE_API CUresult cuDeviceGet(CUdevice* d, int ordinal) {
  if (!d) return CUDA_ERROR_INVALID_VALUE;
  if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
  *d = 0;
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuDeviceGetName(char* name, int len, CUdevice d) {
  if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
  if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  std::snprintf(name, len, "%s", "nodecuda fake device");
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuDeviceTotalMem(size_t* bytes, CUdevice d) {
  if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
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
  if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
  if (!v || a <= 0 || a >= CU_DEVICE_ATTRIBUTE_MAX) return CUDA_ERROR_INVALID_VALUE;
  auto it = kAttr.find(a);
  *v = it == kAttr.end() ? 0 : it->second;
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuDeviceGetPCIBusId(char* id, int len, CUdevice d) {
  if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
  if (!id || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  std::snprintf(id, len, "%s", "0000:00:00.0");
  return CUDA_SUCCESS;
}

// ---- contexts --------------------------------------------------------------------------------

FAKE_API CUresult cuDevicePrimaryCtxRetain(CUcontext* out, CUdevice d) {
  std::lock_guard<std::mutex> lock(mu);
  if (!g_init) return CUDA_ERROR_NOT_INITIALIZED;
  if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  if (!g_primary) g_ctx[g_primary = NewHandle()].primary = true;
  g_ctx[g_primary].refs++;
  *out = reinterpret_cast<CUcontext>(g_primary);
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuDevicePrimaryCtxRelease(CUdevice d) {
  std::lock_guard<std::mutex> lock(mu);
  if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
  if (!g_primary || g_ctx[g_primary].refs <= 0) return CUDA_ERROR_INVALID_CONTEXT;
  g_ctx[g_primary].refs--;  // resources are kept: a later retain finds them (as the driver may)
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuDevicePrimaryCtxReset(CUdevice d) {
  std::unique_lock<std::mutex> lock(mu);
  if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
  if (g_primary) DropContextResources(lock, g_primary);
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuCtxCreate(CUcontext* out, CUctxCreateParams*, unsigned, CUdevice d) {
  std::lock_guard<std::mutex> lock(mu);
  if (!g_init) return CUDA_ERROR_NOT_INITIALIZED;
  if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  uintptr_t h = NewHandle();
  g_ctx[h];
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

// ---- memory ----------------------------------------------------------------------------------

FAKE_API CUresult cuMemGetInfo(size_t* free_bytes, size_t* total) {
  LOCK_CTX;
  if (!free_bytes || !total) return CUDA_ERROR_INVALID_VALUE;
  *free_bytes = g_total - g_used;
  *total = g_total;
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuMemAlloc(CUdeviceptr* out, size_t n) {
  LOCK_CTX;
  return AllocDev(out, n, false);
}
FAKE_API CUresult cuMemFree(CUdeviceptr d) {
  LOCK_CTX;
  WaitContext(lock, t_ctx);  // cuMemFree waits for work that may use the memory
  void* p = Unregister(d);
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  std::free(p);
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuDeviceGetDefaultMemPool(CUmemoryPool* pool, CUdevice d) {
  if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
  return pool ? (*pool = reinterpret_cast<CUmemoryPool>(8), CUDA_SUCCESS)
              : CUDA_ERROR_INVALID_VALUE;
}
FAKE_API CUresult cuMemAllocFromPoolAsync(CUdeviceptr* out, size_t n, CUmemoryPool pool,
                                          CUstream h) {
  LOCK_CTX;
  StreamP s;
  if (H(pool) != 8) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = StreamOf(c, h, &s)) return r;
  return AllocDev(out, n, true);
}
// Leaves the registry now (later calls naming it fail); the memory is freed in stream order,
// so work queued earlier on other streams that runs later is a use-after-free.
FAKE_API CUresult cuMemFreeAsync(CUdeviceptr d, CUstream h) {
  LOCK_CTX;
  StreamP s;
  if (CUresult r = StreamOf(c, h, &s)) return r;
  void* p = Unregister(d);
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  Enqueue(s, [p] { std::free(p); });
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute a, void* v) {
  if (H(pool) != 8 || !v) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> lock(mu);
  if (a == CU_MEMPOOL_ATTR_RELEASE_THRESHOLD) g_threshold = *static_cast<cuuint64_t*>(v);
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute a, void* v) {
  if (H(pool) != 8 || !v) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> lock(mu);
  size_t pooled = 0;
  for (auto& [p, m] : g_mem) pooled += m.pooled ? m.size : 0;
  if (a == CU_MEMPOOL_ATTR_RELEASE_THRESHOLD) {
    *static_cast<cuuint64_t*>(v) = g_threshold;
  } else if (a == CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES ||
             a == CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC ||
             a == CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES) {
    *static_cast<int*>(v) = 1;
  } else {
    *static_cast<cuuint64_t*>(v) = pooled;  // reserved == used: freed memory goes back at once
  }
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t) {
  return H(pool) == 8 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

#define DEV_OR_FAIL(var, d, n)             \
  uint8_t* var;                            \
  {                                        \
    std::lock_guard<std::mutex> lock_(mu); \
    var = Dev(d, n);                       \
  }                                        \
  if (!var && n) return CUDA_ERROR_INVALID_VALUE
FAKE_API CUresult cuMemcpyHtoD(CUdeviceptr d, const void* h, size_t n) {
  DEV_OR_FAIL(p, d, n);
  return Copy(nullptr, false, p, static_cast<const uint8_t*>(h), n, true, false);
}
FAKE_API CUresult cuMemcpyDtoH(void* h, CUdeviceptr d, size_t n) {
  DEV_OR_FAIL(p, d, n);
  return Copy(nullptr, false, static_cast<uint8_t*>(h), p, n, false, true);
}
FAKE_API CUresult cuMemcpyDtoD(CUdeviceptr d, CUdeviceptr s, size_t n) {
  DEV_OR_FAIL(dp, d, n);
  DEV_OR_FAIL(sp, s, n);
  return Copy(nullptr, false, dp, sp, n, false, false);
}
FAKE_API CUresult cuMemcpyHtoDAsync(CUdeviceptr d, const void* h, size_t n, CUstream st) {
  DEV_OR_FAIL(p, d, n);
  return Copy(st, true, p, static_cast<const uint8_t*>(h), n, true, false);
}
FAKE_API CUresult cuMemcpyDtoHAsync(void* h, CUdeviceptr d, size_t n, CUstream st) {
  DEV_OR_FAIL(p, d, n);
  return Copy(st, true, static_cast<uint8_t*>(h), p, n, false, true);
}
FAKE_API CUresult cuMemcpyDtoDAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) {
  DEV_OR_FAIL(dp, d, n);
  DEV_OR_FAIL(sp, s, n);
  return Copy(st, true, dp, sp, n, false, false);
}
FAKE_API CUresult cuMemsetD8(CUdeviceptr d, unsigned char v, size_t n) {
  return Memset(d, v, n, 1, nullptr, false);
}
FAKE_API CUresult cuMemsetD16(CUdeviceptr d, unsigned short v, size_t n) {
  return Memset(d, v, n, 2, nullptr, false);
}
FAKE_API CUresult cuMemsetD32(CUdeviceptr d, unsigned v, size_t n) {
  return Memset(d, v, n, 4, nullptr, false);
}
FAKE_API CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s) {
  return Memset(d, v, n, 1, s, true);
}
FAKE_API CUresult cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, CUstream s) {
  return Memset(d, v, n, 2, s, true);
}
FAKE_API CUresult cuMemsetD32Async(CUdeviceptr d, unsigned v, size_t n, CUstream s) {
  return Memset(d, v, n, 4, s, true);
}

FAKE_API CUresult cuMemHostRegister(void* p, size_t n, unsigned) {
  LOCK_CTX;
  if (!p || !n) return CUDA_ERROR_INVALID_VALUE;
  auto it = g_pinned.lower_bound(H(p) + n);
  if (it != g_pinned.begin() && std::prev(it)->first + std::prev(it)->second.first > H(p))
    return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
  volatile uint8_t first = static_cast<uint8_t*>(p)[0], last = static_cast<uint8_t*>(p)[n - 1];
  (void)first, (void)last;  // pinning touches the pages
  g_pinned[H(p)] = {n, false};
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuMemHostUnregister(void* p) {
  LOCK_CTX;
  auto it = g_pinned.find(H(p));
  if (it == g_pinned.end() || it->second.second) return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
  g_pinned.erase(it);
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuMemAllocHost(void** out, size_t n) {
  LOCK_CTX;
  if (!out || !n) return CUDA_ERROR_INVALID_VALUE;
  if (posix_memalign(out, 4096, n) != 0) return CUDA_ERROR_OUT_OF_MEMORY;
  g_pinned[H(*out)] = {n, true};
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuMemFreeHost(void* p) {
  LOCK_CTX;
  auto it = g_pinned.find(H(p));
  if (it == g_pinned.end() || !it->second.second) return CUDA_ERROR_INVALID_VALUE;
  g_pinned.erase(it);
  std::free(p);  // no implicit wait: a copy still queued on it is a use-after-free
  return CUDA_SUCCESS;
}

// ---- streams and events ----------------------------------------------------------------------

FAKE_API CUresult cuStreamCreate(CUstream* out, unsigned flags) {
  LOCK_CTX;
  if (!out || flags > CU_STREAM_NON_BLOCKING) return CUDA_ERROR_INVALID_VALUE;
  uintptr_t h = NewHandle();
  g_streams[h] = NewStream(t_ctx, !(flags & CU_STREAM_NON_BLOCKING));
  *out = reinterpret_cast<CUstream>(h);
  return CUDA_SUCCESS;
}
// Returns at once; queued work still runs (the thread ends when the queue is empty).
FAKE_API CUresult cuStreamDestroy(CUstream h) {
  std::lock_guard<std::mutex> lock(mu);
  StreamP* s = Find(g_streams, H(h), "CUstream");
  if (!s) return CUDA_ERROR_INVALID_HANDLE;
  (*s)->closing = true;
  g_streams.erase(H(h));
  g_dead.insert(H(h));
  cv.notify_all();
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuStreamSynchronize(CUstream h) {
  Delay();
  LOCK_CTX;
  StreamP s;
  if (CUresult r = StreamOf(c, h, &s)) return r;
  Wait(lock, s, s->enq);
  return c->sticky;
}
FAKE_API CUresult cuStreamQuery(CUstream h) {
  LOCK_CTX;
  StreamP s;
  if (CUresult r = StreamOf(c, h, &s)) return r;
  return s->done == s->enq ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}
FAKE_API CUresult cuStreamWaitEvent(CUstream h, CUevent e, unsigned flags) {
  LOCK_CTX;
  StreamP s;
  if (CUresult r = StreamOf(c, h, &s)) return r;
  auto* ev = Find(g_events, H(e), "CUevent");
  if (!ev) return CUDA_ERROR_INVALID_HANDLE;
  if ((*ev)->stream) Enqueue(s, nullptr, {{(*ev)->stream, (*ev)->seq}});
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuEventCreate(CUevent* out, unsigned flags) {
  LOCK_CTX;
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  uintptr_t h = NewHandle();
  auto e = std::make_shared<Event>();
  e->ctx = t_ctx;
  e->flags = flags;
  g_events[h] = e;
  *out = reinterpret_cast<CUevent>(h);
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuEventDestroy(CUevent e) {
  std::lock_guard<std::mutex> lock(mu);
  auto* ev = Find(g_events, H(e), "CUevent");
  if (!ev) return CUDA_ERROR_INVALID_HANDLE;
  if ((*ev)->waiters)
    Die("cuEventDestroy(%#lx) while another thread waits on it in cuEventSynchronize",
        (unsigned long)H(e));
  g_events.erase(H(e));
  g_dead.insert(H(e));
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuEventRecord(CUevent e, CUstream h) {
  LOCK_CTX;
  StreamP s;
  if (CUresult r = StreamOf(c, h, &s)) return r;
  auto* found = Find(g_events, H(e), "CUevent");
  if (!found) return CUDA_ERROR_INVALID_HANDLE;
  std::shared_ptr<Event> ev = *found;
  uint64_t seq = s->enq + 1;
  Enqueue(s, [ev, seq] {
    std::lock_guard<std::mutex> lock(mu);
    if (ev->seq == seq) ev->ms = NowMs();
  });
  ev->stream = s;
  ev->seq = seq;
  ev->ms = -1;
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuEventSynchronize(CUevent e) {
  std::shared_ptr<Event> ev;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto* found = Find(g_events, H(e), "CUevent");
    if (!found) return CUDA_ERROR_INVALID_HANDLE;
    ev = *found;
    ev->waiters++;
  }
  Delay();
  std::unique_lock<std::mutex> lock(mu);
  if (ev->stream) Wait(lock, ev->stream, ev->seq);
  ev->waiters--;
  return g_ctx.count(ev->ctx) ? g_ctx[ev->ctx].sticky : CUDA_SUCCESS;
}
FAKE_API CUresult cuEventQuery(CUevent e) {
  std::lock_guard<std::mutex> lock(mu);
  auto* ev = Find(g_events, H(e), "CUevent");
  if (!ev) return CUDA_ERROR_INVALID_HANDLE;
  if ((*ev)->stream && (*ev)->stream->done < (*ev)->seq) return CUDA_ERROR_NOT_READY;
  return g_ctx[(*ev)->ctx].sticky;
}
FAKE_API CUresult cuEventElapsedTime(float* ms, CUevent a, CUevent b) {
  std::lock_guard<std::mutex> lock(mu);
  auto* ea = Find(g_events, H(a), "CUevent");
  auto* eb = Find(g_events, H(b), "CUevent");
  if (!ms || !ea || !eb) return CUDA_ERROR_INVALID_HANDLE;
  if (((*ea)->flags | (*eb)->flags) & CU_EVENT_DISABLE_TIMING) return CUDA_ERROR_INVALID_HANDLE;
  if (!(*ea)->stream || !(*eb)->stream) return CUDA_ERROR_INVALID_HANDLE;
  if ((*ea)->ms < 0 || (*eb)->ms < 0) return CUDA_ERROR_NOT_READY;
  *ms = static_cast<float>((*eb)->ms - (*ea)->ms);
  return CUDA_SUCCESS;
}

// ---- modules, functions, launches ------------------------------------------------------------

FAKE_API CUresult cuModuleLoadData(CUmodule* out, const void* image) {
  LOCK_CTX;
  if (!out || !image) return CUDA_ERROR_INVALID_VALUE;
  const auto* p = static_cast<const uint8_t*>(image);
  Module m;
  m.ctx = t_ctx;
  CUresult r = std::memcmp(p,
                           "\x7f"
                           "ELF",
                           4) == 0
                   ? LoadElf(p, m)
                   : LoadPtx(static_cast<const char*>(image), m);
  if (r != CUDA_SUCCESS) {
    for (auto& [n, g] : m.globals) std::free(Unregister(g.first));
    return r;
  }
  uintptr_t h = NewHandle();
  g_modules[h] = std::move(m);
  *out = reinterpret_cast<CUmodule>(h);
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuModuleUnload(CUmodule mod) {
  std::lock_guard<std::mutex> lock(mu);
  Module* m = Find(g_modules, H(mod), "CUmodule");
  if (!m) return CUDA_ERROR_INVALID_HANDLE;
  for (auto& [n, g] : m->globals) std::free(Unregister(g.first));
  for (auto& [n, f] : m->func_handles) g_funcs.erase(f), g_dead.insert(f);
  g_modules.erase(H(mod));
  g_dead.insert(H(mod));
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuModuleGetFunction(CUfunction* out, CUmodule mod, const char* name) {
  LOCK_CTX;
  Module* m = Find(g_modules, H(mod), "CUmodule");
  if (!m) return CUDA_ERROR_INVALID_HANDLE;
  if (!out || !name) return CUDA_ERROR_INVALID_VALUE;
  if (!m->funcs.count(name)) return CUDA_ERROR_NOT_FOUND;
  uintptr_t& h = m->func_handles[name];
  if (!h) g_funcs[h = NewHandle()] = {H(mod), name};
  *out = reinterpret_cast<CUfunction>(h);
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuModuleGetGlobal(CUdeviceptr* d, size_t* bytes, CUmodule mod, const char* name) {
  LOCK_CTX;
  Module* m = Find(g_modules, H(mod), "CUmodule");
  if (!m) return CUDA_ERROR_INVALID_HANDLE;
  auto it = name ? m->globals.find(name) : m->globals.end();
  if (it == m->globals.end()) return CUDA_ERROR_NOT_FOUND;
  if (d) *d = it->second.first;
  if (bytes) *bytes = it->second.second;
  return CUDA_SUCCESS;
}
namespace {
Func* FuncOf(CUfunction f) {
  auto* entry = Find(g_funcs, H(f), "CUfunction");
  return entry ? &g_modules[entry->first].funcs[entry->second] : nullptr;
}
}  // namespace
FAKE_API CUresult cuFuncGetAttribute(int* v, CUfunction_attribute a, CUfunction f) {
  std::lock_guard<std::mutex> lock(mu);
  Func* fn = FuncOf(f);
  if (!fn) return CUDA_ERROR_INVALID_HANDLE;
  if (!v) return CUDA_ERROR_INVALID_VALUE;
  switch (a) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
      *v = 1024;
      break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
      *v = 32;
      break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
      *v = 90;
      break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
      *v = fn->max_dynamic_shared;
      break;
    default:
      *v = 0;
  }
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) {
  std::lock_guard<std::mutex> lock(mu);
  Func* fn = FuncOf(f);
  if (!fn) return CUDA_ERROR_INVALID_HANDLE;
  if (a == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) {
    if (v < 0 || v > 232448) return CUDA_ERROR_INVALID_VALUE;
    fn->max_dynamic_shared = v;
  }
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                 unsigned by, unsigned bz, unsigned shared, CUstream h,
                                 void** params, void** extra) {
  LOCK_CTX;
  Func* fn = FuncOf(f);
  if (!fn) return CUDA_ERROR_INVALID_HANDLE;
  if (fn->ctx != t_ctx) return CUDA_ERROR_INVALID_HANDLE;  // a function of another context
  if (!gx || !gy || !gz || gy > 65535 || gz > 65535 || gx > 2147483647u)
    return CUDA_ERROR_INVALID_VALUE;
  if (!bx || !by || !bz || bx > 1024 || by > 1024 || bz > 64 || uint64_t(bx) * by * bz > 1024)
    return CUDA_ERROR_INVALID_VALUE;
  if (shared > unsigned(fn->max_dynamic_shared) || (params && extra))
    return CUDA_ERROR_INVALID_VALUE;
  StreamP s;
  if (CUresult r = StreamOf(c, h, &s)) return r;
  // The driver copies the parameters now: read every byte the kernel declares.
  std::vector<uint8_t> copy(fn->param_bytes);
  if (extra) {
    const void* buf = nullptr;
    size_t* size = nullptr;
    for (void** x = extra; *x != CU_LAUNCH_PARAM_END; x += 2) {
      if (x[0] == CU_LAUNCH_PARAM_BUFFER_POINTER)
        buf = x[1];
      else if (x[0] == CU_LAUNCH_PARAM_BUFFER_SIZE)
        size = static_cast<size_t*>(x[1]);
      else
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (!buf || !size || *size < fn->param_bytes) return CUDA_ERROR_INVALID_VALUE;
    std::memcpy(copy.data(), buf, fn->param_bytes);
  } else {
    if (!fn->params.empty() && !params) return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < fn->params.size(); i++)
      std::memcpy(copy.data() + fn->params[i].first, params[i], fn->params[i].second);
  }
  bool fault = ++g_launches == Env("FAKECUDA_FAULT_LAUNCH", 0);
  uintptr_t ctx = t_ctx;
  Enqueue(s, [fault, ctx] {
    if (!fault) return;
    std::lock_guard<std::mutex> lock(mu);
    g_ctx[ctx].sticky = CUDA_ERROR_ILLEGAL_ADDRESS;  // as a kernel that faulted
  });
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* n, CUfunction f, int block,
                                                              size_t shared) {
  std::lock_guard<std::mutex> lock(mu);
  if (!FuncOf(f)) return CUDA_ERROR_INVALID_HANDLE;
  if (!n || block <= 0 || block > 1024) return CUDA_ERROR_INVALID_VALUE;
  int by_threads = 2048 / block, by_shared = shared ? int(233472 / shared) : 32;
  *n = std::min({32, by_threads, by_shared});
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuOccupancyMaxPotentialBlockSize(int* grid, int* block, CUfunction f,
                                                   CUoccupancyB2DSize, size_t, int limit) {
  std::lock_guard<std::mutex> lock(mu);
  if (!FuncOf(f)) return CUDA_ERROR_INVALID_HANDLE;
  if (!grid || !block) return CUDA_ERROR_INVALID_VALUE;
  *block = limit > 0 && limit < 1024 ? limit : 1024;
  *grid = 132 * (2048 / *block);
  return CUDA_SUCCESS;
}
