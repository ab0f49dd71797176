#include "loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#include "errors.h"

namespace nodecuda {
namespace {

#define NODECUDA_STR2(x) #x
#define NODECUDA_STR(x) NODECUDA_STR2(x)

DriverApi g_cu;
void* g_cu_lib = nullptr;
DriverState g_driver;
std::once_flag g_driver_once;

NvrtcApi g_nvrtc;
bool g_nvrtc_ok = false;
std::string g_nvrtc_path;
std::string g_nvrtc_error;
std::once_flag g_nvrtc_once;

template <typename T>
bool Resolve(void* lib, const char* name, T& slot) {
  slot = reinterpret_cast<T>(dlsym(lib, name));
  return slot != nullptr;
}

// The driver's resolver: cuGetProcAddress_v2 (CUDA 12.0, reports why a symbol is missing), else
// cuGetProcAddress (CUDA 11.3); both null on a driver without one (plain dlsym then).
PFN_cuGetProcAddress_v12000 g_proc_v2 = nullptr;
PFN_cuGetProcAddress_v11030 g_proc_v1 = nullptr;

// Resolves base name `name` at CUDA version `version` (legacy default-stream semantics, as the
// plain exported names have), or the exported symbol `sym` where there is no cuGetProcAddress.
void* ResolveCu(const char* name, int version, const char* sym) {
  void* fn = nullptr;
  constexpr cuuint64_t kFlags = CU_GET_PROC_ADDRESS_LEGACY_STREAM;
  if (g_proc_v2) {
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    if (g_proc_v2(name, &fn, version, kFlags, &found) != CUDA_SUCCESS ||
        found != CU_GET_PROC_ADDRESS_SUCCESS)
      fn = nullptr;
  } else if (g_proc_v1) {
    if (g_proc_v1(name, &fn, version, kFlags) != CUDA_SUCCESS) fn = nullptr;
  } else {
    fn = dlsym(g_cu_lib, sym);
  }
  return fn;
}

void OpenDriver() {
  const char* env = std::getenv("NODECUDA_LIBCUDA");
  const char* path = env && *env ? env : "libcuda.so.1";
  g_driver.path = path;
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    g_driver.status = CUDA_ERROR_NOT_INITIALIZED;
    g_driver.dlopen_error = why ? why : "";
    g_driver.message = std::string("The NVIDIA driver library (") + path +
                       ") could not be loaded: install the NVIDIA driver (it provides "
                       "libcuda.so.1) on a machine with an NVIDIA GPU. dlopen said: " +
                       g_driver.dlopen_error;
    return;
  }
  g_cu_lib = lib;
  // Entry points whose name and prototype never changed, needed before the version is known.
  if (!Resolve(lib, "cuInit", g_cu.cuInit) ||
      !Resolve(lib, "cuDriverGetVersion", g_cu.cuDriverGetVersion) ||
      !Resolve(lib, "cuGetErrorName", g_cu.cuGetErrorName) ||
      !Resolve(lib, "cuGetErrorString", g_cu.cuGetErrorString)) {
    g_driver.message = std::string(path) +
                       " is not an NVIDIA driver library (it lacks cuInit, cuDriverGetVersion or "
                       "cuGetErrorName). Install the NVIDIA driver for CUDA " +
                       CudaVersionString(kMinDriverVersion) + " or newer.";
    return;
  }
  g_driver.found = true;  // the library answers: its error names and strings can be used
  auto fail = [&](int status, const std::string& message) {
    g_driver.status = status;
    g_driver.message = message;
  };
  int version = 0;
  CUresult r = g_cu.cuDriverGetVersion(&version);
  if (r == CUDA_SUCCESS) g_driver.version = version;
  if (r == CUDA_SUCCESS && version < kMinDriverVersion) {
    return fail(kDriverTooOld, std::string("The NVIDIA driver at ") + path + " supports CUDA " +
                                   CudaVersionString(version) +
                                   "; nodecuda needs a driver for CUDA " +
                                   CudaVersionString(kMinDriverVersion) +
                                   " or newer (R525 or newer). Update the NVIDIA driver.");
  }
  if (r == CUDA_SUCCESS) {
    Resolve(lib, "cuGetProcAddress_v2", g_proc_v2);
    if (!g_proc_v2) Resolve(lib, "cuGetProcAddress", g_proc_v1);
    g_driver.proc_address = g_proc_v2 || g_proc_v1;
#define NODECUDA_LOAD_CU(name, version, sym) \
  g_cu.name = reinterpret_cast<decltype(g_cu.name)>(ResolveCu(#name, version, #sym));
    NODECUDA_DRIVER_FUNCS(NODECUDA_LOAD_CU)
    NODECUDA_DRIVER_OPTIONAL_FUNCS(NODECUDA_LOAD_CU)  // missing ones stay null
#undef NODECUDA_LOAD_CU
#define NODECUDA_NOTE_OPTIONAL(name, version, sym) \
  if (!g_cu.name) g_driver.missing_optional.push_back(#name);
    NODECUDA_DRIVER_OPTIONAL_FUNCS(NODECUDA_NOTE_OPTIONAL)
#undef NODECUDA_NOTE_OPTIONAL
    std::string required;
#define NODECUDA_CHECK_CU(name, version, sym) \
  if (!g_cu.name) required += std::string(" ") + #name;
    NODECUDA_DRIVER_FUNCS(NODECUDA_CHECK_CU)
#undef NODECUDA_CHECK_CU
    if (!required.empty()) {
      return fail(kDriverTooOld, std::string("The NVIDIA driver at ") + path + " (CUDA " +
                                     CudaVersionString(version) +
                                     ") lacks entry points nodecuda needs:" + required +
                                     ". Install a driver for CUDA " +
                                     CudaVersionString(kMinDriverVersion) + " or newer.");
    }
  }
  // cuInit also explains a failed cuDriverGetVersion (the toolkit's stub answers both alike).
  g_driver.status = g_cu.cuInit(0);
  if (g_driver.status == CUDA_SUCCESS && r != CUDA_SUCCESS) g_driver.status = r;
  if (g_driver.status == CUDA_ERROR_STUB_LIBRARY) {
    g_driver.message = std::string(path) +
                       " is the CUDA toolkit's stub library, not a driver: install the NVIDIA "
                       "driver, or remove the stubs directory from LD_LIBRARY_PATH.";
  } else if (g_driver.status == CUDA_ERROR_NO_DEVICE) {
    g_driver.message = "cuInit found no CUDA-capable device (check CUDA_VISIBLE_DEVICES).";
  } else if (g_driver.status != CUDA_SUCCESS) {
    const char* s = nullptr;
    g_cu.cuGetErrorString(static_cast<CUresult>(g_driver.status), &s);
    g_driver.message = std::string("cuInit failed: ") + (s ? s : "unknown error");
  }
}

void OpenNvrtc() {
  std::string tried;
  const DriverState& d = LoadDriver();
  auto accept = [](void* lib) {
    bool ok = true;
#define NODECUDA_LOAD_NVRTC(name) ok = Resolve(lib, NODECUDA_STR(name), g_nvrtc.name) && ok;
    NODECUDA_NVRTC_FUNCS(NODECUDA_LOAD_NVRTC)
#undef NODECUDA_LOAD_NVRTC
    return ok;
  };
  g_nvrtc_path = OpenLibrary(NvrtcCandidates(d.version), accept, tried);
  g_nvrtc_ok = !g_nvrtc_path.empty();
  if (!g_nvrtc_ok)
    g_nvrtc_error =
        "NVRTC (libnvrtc.so.13 or .12) was not found. Install the CUDA toolkit (or the "
        "cuda-nvrtc package), or point NODECUDA_NVRTC at libnvrtc.so. Tried:" +
        tried;
}

}  // namespace

std::vector<std::string> ToolkitCandidates(const char* env_var,
                                           const std::vector<const char*>& sonames) {
  std::vector<std::string> candidates;
  const char* explicit_path = std::getenv(env_var);
  if (explicit_path && *explicit_path) {
    candidates.push_back(explicit_path);
  } else {
    std::vector<std::string> roots;
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
      if (const char* root = std::getenv(var); root && *root) roots.push_back(root);
    roots.push_back("/usr/local/cuda");
    for (const auto& root : roots)
      for (const char* sub : {"/lib64/", "/lib/"})
        for (const char* so : sonames) candidates.push_back(root + sub + so);
    for (const char* so : sonames) candidates.push_back(so);
  }
  return candidates;
}

std::vector<std::string> NvrtcCandidates(int driver_version) {
  // A driver loads cubins of its own CUDA major (and PTX no newer than itself): with a 12.x
  // driver NVRTC 12 comes first; 13 stays a fallback (its cubins may still be refused, which
  // SourceModule then reports). Without a driver (compiling for elsewhere) the newest comes first.
  if (driver_version >= 12000 && driver_version < 13000)
    return ToolkitCandidates("NODECUDA_NVRTC", {"libnvrtc.so.12", "libnvrtc.so.13", "libnvrtc.so"});
  return ToolkitCandidates("NODECUDA_NVRTC", {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"});
}

std::string OpenToolkitLibrary(const char* env_var, std::initializer_list<const char*> sonames,
                               const std::function<bool(void*)>& accept, std::string& tried) {
  return OpenLibrary(ToolkitCandidates(env_var, sonames), accept, tried);
}

std::string OpenLibrary(const std::vector<std::string>& candidates,
                        const std::function<bool(void*)>& accept, std::string& tried) {
  for (const auto& c : candidates) {
    void* lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      tried += "\n  " + c;
    } else if (accept(lib)) {
      return c;
    } else {
      tried += "\n  " + c + " (missing symbols)";
    }
  }
  return "";
}

const DriverState& LoadDriver() {
  std::call_once(g_driver_once, OpenDriver);
  return g_driver;
}

const DriverApi& DrainedCu() {
  const DriverState& s = LoadDriver();
  if (s.status != CUDA_SUCCESS) {
    throw CuErr(s.found ? s.status : kDriverNotFound, "cuInit", s.message);
  }
  BeforeDriverCall(true);
  return g_cu;
}

const DriverApi& DrainedCuUnchecked() {
  BeforeDriverCall(false);
  return g_cu;
}

const DriverApi& RawCu() { return g_cu; }

void* DriverSymbol(const char* name, int version) {
  if (LoadDriver().status != CUDA_SUCCESS || !g_cu_lib) return nullptr;
  return ResolveCu(name, version, name);
}

void RequireDriverFeature(const void* fn, const char* name, int version) {
  if (fn) return;
  const DriverState& d = LoadDriver();
  throw CuErr(CUDA_ERROR_NOT_SUPPORTED, name,
              std::string(name) + " needs a driver for CUDA " + CudaVersionString(version) +
                  " or newer; this driver supports CUDA " + CudaVersionString(d.version) + ".");
}

std::string CudaVersionString(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

const NvrtcApi& Nvrtc() {
  std::call_once(g_nvrtc_once, OpenNvrtc);
  if (!g_nvrtc_ok) throw NvrtcErr(kNvrtcNotFound, "dlopen", g_nvrtc_error);
  return g_nvrtc;
}

std::string NvrtcPath() { return g_nvrtc_ok ? g_nvrtc_path : std::string(); }

}  // namespace nodecuda
