// fakecuda (fakecuda_state.h describes the double): module images (cubin ELF and PTX), modules,
// functions, launches and occupancy.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "fakecuda_state.h"

using namespace fakecuda;

namespace {

int g_launches = 0;   // launches queued (FAKECUDA_FAULT_LAUNCH counts these)
int g_fail_seen = 0;  // launches FAKECUDA_FAIL_LAUNCH counts (of FAKECUDA_FAIL_KERNEL only)

// FAKECUDA_FAIL_LAUNCH=N[,N...]: those launches (1-based, counting valid launches of kernels
// whose name contains FAKECUDA_FAIL_KERNEL, or of all kernels) return
// CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES and queue nothing: a failure that is not sticky, so nothing
// else changes. Per kernel name, so that tests with several threads pick whose launch fails.
bool FailThisLaunch(const std::string& name) {
  static const std::set<int>* fail = [] {
    auto* s = new std::set<int>;
    const char* v = std::getenv("FAKECUDA_FAIL_LAUNCH");
    for (const char* p = v; p && *p; p = std::strchr(p, ',') ? std::strchr(p, ',') + 1 : "")
      s->insert(std::atoi(p));
    return s;
  }();
  static const char* kernel = std::getenv("FAKECUDA_FAIL_KERNEL");
  if (fail->empty() || (kernel && name.find(kernel) == std::string::npos)) return false;
  return fail->count(++g_fail_seen) > 0;
}

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

Func* FuncOf(CUfunction f) {
  auto* entry = Find(g_funcs, H(f), "CUfunction");
  return entry ? &g_modules[entry->first].funcs[entry->second] : nullptr;
}

}  // namespace

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
// CUDA 12.4: offered by cuGetProcAddress only when FAKECUDA_VERSION >= 12040 (fakecuda_proc.cc).
FAKE_API CUresult cuFuncGetParamInfo(CUfunction f, size_t index, size_t* offset, size_t* size) {
  std::lock_guard<std::mutex> lock(mu);
  Func* fn = FuncOf(f);
  if (!fn) return CUDA_ERROR_INVALID_HANDLE;
  if (index >= fn->params.size()) return CUDA_ERROR_INVALID_VALUE;
  if (offset) *offset = fn->params[index].first;
  if (size) *size = fn->params[index].second;
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
  // FAKECUDA_LAUNCH_DELAY_US: each launch takes this long (as when the driver's queue is full),
  // so a caller's launch queue stays busy and every launch of a run is deferred.
  static int delay_us = Env("FAKECUDA_LAUNCH_DELAY_US", 0);
  if (delay_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
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
  if (FailThisLaunch(g_funcs[H(f)].second)) return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
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
