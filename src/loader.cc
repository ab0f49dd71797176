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

void OpenDriver() {
  const char* env = std::getenv("NODECUDA_LIBCUDA");
  const char* path = env && *env ? env : "libcuda.so.1";
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    g_driver.status = CUDA_ERROR_NOT_INITIALIZED;
    g_driver.message = std::string("The NVIDIA driver library (") + path +
                       ") could not be loaded: install the NVIDIA driver (it provides "
                       "libcuda.so.1) on a machine with an NVIDIA GPU. dlopen said: " +
                       dlerror();
    return;
  }
  g_cu_lib = lib;
  std::string missing;
#define NODECUDA_LOAD_CU(name)                      \
  if (!Resolve(lib, NODECUDA_STR(name), g_cu.name)) \
    missing += std::string(" ") + NODECUDA_STR(name);
  NODECUDA_DRIVER_FUNCS(NODECUDA_LOAD_CU)
#undef NODECUDA_LOAD_CU
  if (!missing.empty()) {
    g_driver.message = std::string("The NVIDIA driver at ") + path +
                       " is too old for nodecuda (missing:" + missing +
                       "). Install a driver for CUDA 12.8 or newer.";
    return;
  }
  g_driver.found = true;
  g_driver.status = g_cu.cuInit(0);
  if (g_driver.status == CUDA_ERROR_STUB_LIBRARY) {
    g_driver.message = std::string(path) +
                       " is the CUDA toolkit's stub library, not a driver: install the NVIDIA "
                       "driver, or remove the stubs directory from LD_LIBRARY_PATH.";
  } else if (g_driver.status == CUDA_ERROR_NO_DEVICE) {
    g_driver.message = "cuInit found no CUDA-capable device (check CUDA_VISIBLE_DEVICES).";
  } else if (g_driver.status != CUDA_SUCCESS) {
    const char* s = nullptr;
    g_cu.cuGetErrorString(g_driver.status, &s);
    g_driver.message = std::string("cuInit failed: ") + (s ? s : "unknown error");
  }
}

void OpenNvrtc() {
  std::string tried;
  g_nvrtc_path = OpenToolkitLibrary(
      "NODECUDA_NVRTC", {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"},
      [](void* lib) {
        bool ok = true;
#define NODECUDA_LOAD_NVRTC(name) ok = Resolve(lib, NODECUDA_STR(name), g_nvrtc.name) && ok;
        NODECUDA_NVRTC_FUNCS(NODECUDA_LOAD_NVRTC)
#undef NODECUDA_LOAD_NVRTC
        return ok;
      },
      tried);
  g_nvrtc_ok = !g_nvrtc_path.empty();
  if (!g_nvrtc_ok)
    g_nvrtc_error =
        "NVRTC (libnvrtc.so.13 or .12) was not found. Install the CUDA toolkit (or the "
        "cuda-nvrtc package), or point NODECUDA_NVRTC at libnvrtc.so. Tried:" +
        tried;
}

}  // namespace

std::string OpenToolkitLibrary(const char* env_var, std::initializer_list<const char*> sonames,
                               const std::function<bool(void*)>& accept, std::string& tried) {
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

void* DriverSymbol(const char* name) {
  if (!LoadDriver().found || !g_cu_lib) return nullptr;
  return dlsym(g_cu_lib, name);
}

const NvrtcApi& Nvrtc() {
  std::call_once(g_nvrtc_once, OpenNvrtc);
  if (!g_nvrtc_ok) throw NvrtcErr(kNvrtcNotFound, "dlopen", g_nvrtc_error);
  return g_nvrtc;
}

std::string NvrtcPath() { return g_nvrtc_ok ? g_nvrtc_path : std::string(); }

}  // namespace nodecuda
