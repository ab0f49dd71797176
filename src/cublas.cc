// cuBLAS: libcublas opened with dlopen on first use (never linked), one handle per (context,
// stream) made lazily and destroyed with its context, and one entry point, a strided batched
// GEMM (cublasGemmStridedBatchedEx). Layouts, dtypes and validation are decided in TypeScript
// (lib/linalg); this file checks what it must to never hand cuBLAS an invalid call. Declares the
// few entry points and enum values itself, so building needs no cuBLAS header.
#include <dlfcn.h>
#include <glob.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "addon.h"
#include "context.h"

#if __has_include(<cublas_api.h>)
#include <cublas_api.h>
#define NODECUDA_HAVE_CUBLAS_H 1
#endif

namespace nodecuda {
namespace {

using Handle = void*;                                   // cublasHandle_t
using CreateFn = int (*)(Handle*);                      // cublasCreate_v2
using DestroyFn = int (*)(Handle);                      // cublasDestroy_v2
using SetStreamFn = int (*)(Handle, CUstream);          // cublasSetStream_v2
using SetWorkspaceFn = int (*)(Handle, void*, size_t);  // cublasSetWorkspace_v2
using GetPropertyFn = int (*)(int, int*);               // cublasGetProperty
using StatusNameFn = const char* (*)(int);              // cublasGetStatusName
using GemmFn = int (*)(Handle, int, int, int, int, int, const void*, const void*, int, int,
                       long long, const void*, int, int, long long, const void*, void*, int, int,
                       long long, int, int, int);  // cublasGemmStridedBatchedEx
using SetPointerModeFn = int (*)(Handle, int);     // cublasSetPointerMode_v2
using DotExFn = int (*)(Handle, int, const void*, int, int, const void*, int, int, void*, int,
                        int);  // cublasDotEx

// Values from library_types.h and cublas_api.h (checked below when the headers are present).
constexpr int kR16F = 2, kR32F = 0, kR64F = 1, kC32F = 4, kC64F = 5, kR16BF = 14;
constexpr int kCompute32F = 68, kCompute32FFastTf32 = 77, kCompute64F = 70;
constexpr int kOpN = 0, kOpT = 1, kOpC = 2;
constexpr int kGemmDefault = -1;
constexpr int kPointerHost = 0, kPointerDevice = 1;
#ifdef NODECUDA_HAVE_CUBLAS_H
static_assert(kR16F == CUDA_R_16F && kR32F == CUDA_R_32F && kR64F == CUDA_R_64F &&
              kC32F == CUDA_C_32F && kC64F == CUDA_C_64F && kR16BF == CUDA_R_16BF);
static_assert(kCompute32F == CUBLAS_COMPUTE_32F && kCompute64F == CUBLAS_COMPUTE_64F &&
              kCompute32FFastTf32 == CUBLAS_COMPUTE_32F_FAST_TF32);
static_assert(kOpN == CUBLAS_OP_N && kOpT == CUBLAS_OP_T && kOpC == CUBLAS_OP_C &&
              kGemmDefault == CUBLAS_GEMM_DEFAULT);
static_assert(kPointerHost == CUBLAS_POINTER_MODE_HOST &&
              kPointerDevice == CUBLAS_POINTER_MODE_DEVICE);
#endif

// Workspace of each handle, as cuBLAS recommends: 32 MiB on Hopper and newer, 4 MiB before. A
// handle serves one stream, so its workspace is never used by two streams at once.
size_t WorkspaceBytes(const DriverApi& cu, CUdevice dev) {
  int major = 0;
  cu.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  return size_t(major >= 9 ? 32 : 4) << 20;
}

struct Cublas {
  CreateFn create = nullptr;
  DestroyFn destroy = nullptr;
  SetStreamFn set_stream = nullptr;
  SetWorkspaceFn set_workspace = nullptr;
  GetPropertyFn property = nullptr;
  StatusNameFn status_name = nullptr;
  GemmFn gemm = nullptr;
  SetPointerModeFn set_pointer_mode = nullptr;
  DotExFn dot = nullptr;
  std::string path, error;
};

Cublas g_blas;
std::once_flag g_blas_once;

bool ResolveAll(void* lib, Cublas& b) {
  auto sym = [lib](const char* name) { return dlsym(lib, name); };
  b.create = reinterpret_cast<CreateFn>(sym("cublasCreate_v2"));
  b.destroy = reinterpret_cast<DestroyFn>(sym("cublasDestroy_v2"));
  b.set_stream = reinterpret_cast<SetStreamFn>(sym("cublasSetStream_v2"));
  b.set_workspace = reinterpret_cast<SetWorkspaceFn>(sym("cublasSetWorkspace_v2"));
  b.property = reinterpret_cast<GetPropertyFn>(sym("cublasGetProperty"));
  b.status_name = reinterpret_cast<StatusNameFn>(sym("cublasGetStatusName"));
  b.gemm = reinterpret_cast<GemmFn>(sym("cublasGemmStridedBatchedEx"));
  b.set_pointer_mode = reinterpret_cast<SetPointerModeFn>(sym("cublasSetPointerMode_v2"));
  b.dot = reinterpret_cast<DotExFn>(sym("cublasDotEx"));
  return b.create && b.destroy && b.set_stream && b.set_workspace && b.property && b.status_name &&
         b.gemm && b.set_pointer_mode && b.dot;
}

// libcublas.so.* inside pip wheels (nvidia-cublas for CUDA 13: nvidia/cu13/lib; for CUDA 12:
// nvidia/cublas/lib) under the site-packages of an active virtualenv/conda env, the user's and
// the system's Pythons. The wheel's libcublas finds its libcublasLt beside it ($ORIGIN RUNPATH).
std::vector<std::string> WheelCandidates() {
  std::vector<std::string> roots;
  for (const char* var : {"VIRTUAL_ENV", "CONDA_PREFIX"})
    if (const char* r = std::getenv(var); r && *r)
      roots.push_back(std::string(r) + "/lib/python3*");
  if (const char* home = std::getenv("HOME"); home && *home)
    roots.push_back(std::string(home) + "/.local/lib/python3*");
  for (const char* r : {"/usr/local/lib/python3*", "/usr/lib/python3*", "/usr/lib/python3"})
    roots.push_back(r);
  std::vector<std::string> out;
  for (const auto& root : roots) {
    for (const char* tail : {"/site-packages/nvidia/cu13/lib/libcublas.so.13",
                             "/dist-packages/nvidia/cu13/lib/libcublas.so.13",
                             "/site-packages/nvidia/cublas/lib/libcublas.so.12",
                             "/dist-packages/nvidia/cublas/lib/libcublas.so.12"}) {
      glob_t g{};
      if (glob((root + tail).c_str(), 0, nullptr, &g) == 0)
        for (size_t i = 0; i < g.gl_pathc; i++) out.push_back(g.gl_pathv[i]);
      globfree(&g);
    }
  }
  return out;
}

void OpenCublas() {
  std::string tried;
  Cublas found;
  auto accept = [&found](void* lib) { return ResolveAll(lib, found); };
  found.path =
      OpenToolkitLibrary("NODECUDA_CUBLAS", {"libcublas.so.13", "libcublas.so.12"}, accept, tried);
  const char* env = std::getenv("NODECUDA_CUBLAS");
  if (found.path.empty() && !(env && *env)) {
    for (const auto& c : WheelCandidates()) {
      void* lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (lib && accept(lib)) {
        found.path = c;
        break;
      }
      tried += "\n  " + c + (lib ? " (missing symbols)" : "");
    }
  }
  if (found.path.empty()) {
    found = Cublas{};
    found.error =
        "cuBLAS (libcublas.so.13 or .12) was not found. Install the CUDA toolkit (or the "
        "libcublas package, or pip's nvidia-cublas), or point NODECUDA_CUBLAS at libcublas.so. "
        "Tried:" +
        tried;
  }
  g_blas = found;
}

// The JS error for a cuBLAS failure: lib/base/errors.ts CublasError when lib/cuda/cublas.ts has
// handed it over (cublasInit), else an Error with the same fields.
struct BlasErr {
  std::string code, call, message;
  int status;
};

const Cublas& Blas() {
  std::call_once(g_blas_once, OpenCublas);
  if (!g_blas.gemm) throw BlasErr{"CUBLAS_NOT_FOUND", "dlopen", g_blas.error, -1};
  return g_blas;
}

void Check(int status, const char* call) {
  if (status == 0) return;
  const char* name = g_blas.status_name ? g_blas.status_name(status) : nullptr;
  std::string code = name ? name : "CUBLAS_STATUS_" + std::to_string(status);
  std::string message = std::string(call) + " failed: " + code;
  // Initialization failures are about the machine (cuBLAS's runtime found no usable driver, or
  // one too old for this libcublas): say which library it was.
  if (status == 1 || status == 3)
    message += " (cuBLAS from " + g_blas.path +
               "; check that the NVIDIA driver supports its CUDA version)";
  throw BlasErr{code, call, message, status};
}

// Handles by (context id, context generation, stream). A handle is used under its mutex: two
// threads (worker_threads) may call on one context and stream. A handle of a stream that is gone
// (its StreamRes released or destroyed; a new stream may have the same address) is stale:
// destroyed when its context is next used, so handles follow the live streams.
struct BlasHandle {
  Handle h = nullptr;
  CUdeviceptr ws = 0;  // its workspace, from the context's pool (none yet: made at the next call)
  std::mutex mu;
  std::weak_ptr<StreamRes> stream;  // empty for the legacy stream
  bool legacy = false;
  bool Stale(CUstream s) const {
    if (legacy) return false;
    auto live = stream.lock();
    return !live || live->stream != s;
  }
};
using Key = std::tuple<uint64_t, uint64_t, CUstream>;
std::mutex g_handles_mu;
auto* g_handles = new std::map<Key, std::shared_ptr<BlasHandle>>();  // never destroyed (exit)

// cublasDestroy, after pointing the handle at the legacy stream: its own stream may be gone;
// then its workspace goes back to the pool (cublasDestroy has waited for the device, which
// cuMemFree of pool memory does not).
void Destroy(BlasHandle& b) {
  g_blas.set_stream(b.h, nullptr);
  g_blas.destroy(b.h);
  if (b.ws) DrainedCuUnchecked().cuMemFree(b.ws);
}

// Destroys the handles of context `id` (from ~Context, with the context current). Handles of an
// older generation died with a device reset: forgotten, not destroyed (their memory is gone).
void ReleaseHandles(uint64_t id, uint64_t generation) {
  std::vector<std::shared_ptr<BlasHandle>> mine;
  {
    std::lock_guard<std::mutex> lock(g_handles_mu);
    for (auto it = g_handles->begin(); it != g_handles->end();) {
      if (std::get<0>(it->first) != id) {
        ++it;
        continue;
      }
      if (std::get<1>(it->first) == generation) mine.push_back(it->second);
      it = g_handles->erase(it);
    }
  }
  for (auto& b : mine) Destroy(*b);
}

// The handle for `stream` (null: legacy; `res` its StreamRes) in `c`, which is current. Made on
// first use; stale handles of `c` are destroyed here (cublasDestroy waits for the device).
std::shared_ptr<BlasHandle> HandleFor(Context& c, CUstream stream,
                                      const std::shared_ptr<StreamRes>* res) {
  uint64_t gen = c.generation.load();
  Key key{c.id, gen, stream};
  bool first_of_context = true;
  std::vector<std::shared_ptr<BlasHandle>> stale;
  std::shared_ptr<BlasHandle> found;
  {
    std::lock_guard<std::mutex> lock(g_handles_mu);
    for (auto i = g_handles->begin(); i != g_handles->end();) {
      bool mine = std::get<0>(i->first) == c.id;
      if (mine && std::get<1>(i->first) != gen) {
        i = g_handles->erase(i);  // made before a reset: gone with it
      } else if (mine && i->second->Stale(std::get<2>(i->first))) {
        stale.push_back(i->second);
        i = g_handles->erase(i);
      } else {
        if (i->first == key) found = i->second;
        first_of_context = first_of_context && !mine;
        ++i;
      }
    }
  }
  for (auto& b : stale) {
    std::lock_guard<std::mutex> lock(b->mu);  // a thread still inside a call finishes first
    Destroy(*b);
  }
  if (found) return found;
  auto b = std::make_shared<BlasHandle>();
  b->legacy = stream == nullptr;
  if (res) b->stream = *res;
  Check(g_blas.create(&b->h), "cublasCreate");
  // The handle serves this stream only: its stream is set once, here; its workspace at its first
  // call (Gemm).
  if (int status = g_blas.set_stream(b->h, stream); status != 0) {
    Destroy(*b);
    Check(status, "cublasSetStream");
  }
  std::shared_ptr<BlasHandle> other;
  {
    std::lock_guard<std::mutex> lock(g_handles_mu);
    auto [it, inserted] = g_handles->emplace(key, b);
    if (!inserted) other = it->second;  // another thread made one meanwhile: use it
  }
  if (other) {
    Destroy(*b);  // outside the lock: cublasDestroy waits for the device
    return other;
  }
  if (first_of_context) {
    std::lock_guard<std::mutex> clock(c.mu);
    uint64_t id = c.id;
    c.releases.push_back([id, &c] { ReleaseHandles(id, c.generation.load()); });
  }
  return b;
}

// Element sizes of the data types lib/linalg passes, for the bounds backstop.
size_t ElementBytes(int type) {
  switch (type) {
    case kR16F:
    case kR16BF:
      return 2;
    case kR32F:
      return 4;
    case kR64F:
    case kC32F:
      return 8;
    case kC64F:
      return 16;
    default:
      ThrowRange("ERR_OUT_OF_RANGE", "unsupported cuBLAS data type " + std::to_string(type));
  }
}

int IntOf(double v, const char* name, double lo = 0) {
  if (!(v >= lo) || v > 2147483647.0 || v != static_cast<double>(static_cast<long long>(v)))
    ThrowRange("ERR_OUT_OF_RANGE", std::string("cublasGemm: ") + name + " out of range");
  return static_cast<int>(v);
}

// The handle for `stream` in the current context `ctx`, after queued launches are submitted
// (they come before the library's kernels).
std::shared_ptr<BlasHandle> ReadyHandle(const ContextPtr& ctx, CUstream stream,
                                        const std::shared_ptr<StreamRes>* stream_res) {
  DrainedCu();
  return HandleFor(*ctx, stream, stream_res);
}

// One workspace per handle, kept (as PyTorch and CuPy do), from the context's pool on the
// handle's stream. cuBLAS works without one (some algorithms are not eligible): a failed
// allocation is not an error, and the next call tries again. Called with the handle's lock held.
void WithWorkspace(const Cublas& blas, BlasHandle& h, Context& ctx, CUstream stream) {
  if (h.ws) return;
  const DriverApi& cu = RawCu();
  CUdeviceptr ws = 0;
  size_t bytes = WorkspaceBytes(cu, ctx.dev);
  if (cu.cuMemAllocFromPoolAsync(&ws, bytes, ctx.Pool(), stream) == CUDA_SUCCESS) {
    if (blas.set_workspace(h.h, reinterpret_cast<void*>(ws), bytes) == 0)
      h.ws = ws;
    else
      cu.cuMemFreeAsync(ws, stream);
  }
}

// cublasGemm(stream|null, p Float64Array[14] = transa, transb, m, n, k, lda, strideA, ldb,
//            strideB, ldc, strideC, batch, dataType, computeType, A, B, C)
// C = op(A) op(B) (column-major, alpha 1, beta 0) for each of `batch` matrices.
// cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa,
//     cublasOperation_t transb, int m, int n, int k, const void* alpha, const void* A,
//     cudaDataType Atype, int lda, long long strideA, const void* B, cudaDataType Btype, int ldb,
//     long long strideB, const void* beta, void* C, cudaDataType Ctype, int ldc,
//     long long strideC, int batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo)
Napi::Value Gemm(const Napi::CallbackInfo& info) {
  CUstream stream = StreamArg(info[0]);
  const std::shared_ptr<StreamRes>* stream_res =
      stream ? &Unwrap<StreamRes>(info[0], Kind::Stream, "stream") : nullptr;
  // One napi_get_typedarray_info (node-addon-api's accessors would make five: a tenth of this
  // call's host time).
  bool typed = false;
  napi_typedarray_type array_type = napi_int8_array;
  size_t length = 0;
  void* data = nullptr;
  if (napi_is_typedarray(info.Env(), info[1], &typed) != napi_ok || !typed ||
      napi_get_typedarray_info(info.Env(), info[1], &array_type, &length, &data, nullptr,
                               nullptr) != napi_ok ||
      array_type != napi_float64_array || length < 14)
    ThrowType("ERR_INVALID_ARG_TYPE", "cublasGemm parameters must be a Float64Array(14)");
  const double* p = static_cast<const double*>(data);
  CUdeviceptr a = PtrArg(info, 2, "A"), b = PtrArg(info, 3, "B"), c = PtrArg(info, 4, "C");
  int ta = IntOf(p[0], "transa"), tb = IntOf(p[1], "transb");
  int m = IntOf(p[2], "m", 1), n = IntOf(p[3], "n", 1), k = IntOf(p[4], "k", 1);
  int lda = IntOf(p[5], "lda", 1), ldb = IntOf(p[7], "ldb", 1), ldc = IntOf(p[9], "ldc", 1);
  auto stride = [](double v, const char* name) {
    if (!(v >= 0) || v > 9007199254740991.0 || v != static_cast<double>(static_cast<long long>(v)))
      ThrowRange("ERR_OUT_OF_RANGE", std::string("cublasGemm: ") + name + " out of range");
    return static_cast<long long>(v);
  };
  long long sa = stride(p[6], "strideA"), sb = stride(p[8], "strideB"),
            sc = stride(p[10], "strideC");
  int batch = IntOf(p[11], "batch", 1);
  int type = IntOf(p[12], "dataType"), compute = IntOf(p[13], "computeType");
  ElementBytes(type);
  // The layout rules cuBLAS itself checks (CUBLAS_STATUS_INVALID_VALUE otherwise); kept here so a
  // bad plan from TS fails with a clear message, never with a fault.
  if (ta > kOpC || tb > kOpC || lda < (ta == kOpN ? m : k) || ldb < (tb == kOpN ? k : n) ||
      ldc < m || (batch > 1 && sc < static_cast<long long>(ldc) * n))
    ThrowRange("ERR_OUT_OF_RANGE", "cublasGemm: inconsistent layout");
  if (compute != kCompute32F && compute != kCompute32FFastTf32 && compute != kCompute64F)
    ThrowRange("ERR_OUT_OF_RANGE", "unsupported cuBLAS compute type " + std::to_string(compute));
  // alpha = 1, beta = 0 in the compute type's scalar type (complex: {re, im}).
  alignas(16) unsigned char alpha[16] = {}, beta[16] = {};
  if (compute == kCompute64F) {
    double one = 1.0;
    std::memcpy(alpha, &one, sizeof one);
  } else {
    float one = 1.0f;
    std::memcpy(alpha, &one, sizeof one);
  }
  // Complex types: the imaginary parts stay 0.

  const Cublas& blas = Blas();
  ContextPtr ctx = Enter();
  std::shared_ptr<BlasHandle> h = ReadyHandle(ctx, stream, stream_res);
  std::lock_guard<std::mutex> lock(h->mu);
  WithWorkspace(blas, *h, *ctx, stream);
  // alpha and beta are host values: set the mode here rather than trust the last Dot to restore it.
  Check(blas.set_pointer_mode(h->h, kPointerHost), "cublasSetPointerMode");
  int status = blas.gemm(h->h, ta, tb, m, n, k, alpha, reinterpret_cast<const void*>(a), type, lda,
                         sa, reinterpret_cast<const void*>(b), type, ldb, sb, beta,
                         reinterpret_cast<void*>(c), type, ldc, sc, batch, compute, kGemmDefault);
  Check(status, "cublasGemmStridedBatchedEx");
  return info.Env().Undefined();
}

// cublasDot(stream|null, dataType, n, x, incx, y, incy, result): result[0] = sum x[i*incx] *
// y[i*incy] (no conjugation), written on the device (pointer mode device for this call only).
// cublasStatus_t cublasDotEx(cublasHandle_t handle, int n, const void* x, cudaDataType xType,
//     int incx, const void* y, cudaDataType yType, int incy, void* result, cudaDataType resultType,
//     cudaDataType executionType)
Napi::Value Dot(const Napi::CallbackInfo& info) {
  CUstream stream = StreamArg(info[0]);
  const std::shared_ptr<StreamRes>* stream_res =
      stream ? &Unwrap<StreamRes>(info[0], Kind::Stream, "stream") : nullptr;
  auto num = [&info](size_t i, const char* name, double lo) {
    double v = info[i].IsNumber() ? info[i].As<Napi::Number>().DoubleValue() : -1;
    return IntOf(v, name, lo);
  };
  int type = num(1, "dataType", 0), n = num(2, "n", 1), incx = num(4, "incx", 1),
      incy = num(6, "incy", 1);
  if (type != kR32F && type != kR64F && type != kC32F && type != kC64F)
    ThrowRange("ERR_OUT_OF_RANGE", "unsupported cuBLAS dot type " + std::to_string(type));
  CUdeviceptr x = PtrArg(info, 3, "x"), y = PtrArg(info, 5, "y"), r = PtrArg(info, 7, "result");
  const Cublas& blas = Blas();
  ContextPtr ctx = Enter();
  std::shared_ptr<BlasHandle> h = ReadyHandle(ctx, stream, stream_res);
  std::lock_guard<std::mutex> lock(h->mu);
  WithWorkspace(blas, *h, *ctx, stream);
  Check(blas.set_pointer_mode(h->h, kPointerDevice), "cublasSetPointerMode");
  int status = blas.dot(h->h, n, reinterpret_cast<const void*>(x), type, incx,
                        reinterpret_cast<const void*>(y), type, incy, reinterpret_cast<void*>(r),
                        type, type);
  // The mode stays device: Gemm, the other call on these handles, sets host mode itself.
  Check(status, "cublasDotEx");
  return info.Env().Undefined();
}

// cublasStatus() -> { found, path, version, message }: loads cuBLAS (no GPU needed).
// cublasStatus_t cublasGetProperty(libraryPropertyType type, int* value)
Napi::Value Status(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::call_once(g_blas_once, OpenCublas);
  Napi::Object o = Napi::Object::New(env);
  o.Set("found", g_blas.gemm != nullptr);
  o.Set("path", g_blas.path);
  o.Set("message", g_blas.gemm ? "" : g_blas.error);
  if (g_blas.gemm) {
    int major = 0, minor = 0, patch = 0;
    g_blas.property(0, &major);
    g_blas.property(1, &minor);
    g_blas.property(2, &patch);
    o.Set("version",
          std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch));
  } else {
    o.Set("version", env.Null());
  }
  return o;
}

// Per environment: the CublasError class (lib/base/errors.ts), handed over by cublasInit.
std::mutex g_class_mu;
std::map<napi_env, Napi::FunctionReference*>* g_classes =
    new std::map<napi_env, Napi::FunctionReference*>();

// cublasInit(CublasError)
Napi::Value Init(const Napi::CallbackInfo& info) {
  if (!info[0].IsFunction()) ThrowType("ERR_INVALID_ARG_TYPE", "cublasInit expects a class");
  napi_env env = info.Env();
  auto* ref = new Napi::FunctionReference(Napi::Persistent(info[0].As<Napi::Function>()));
  bool first = false;
  {
    std::lock_guard<std::mutex> lock(g_class_mu);
    auto& slot = (*g_classes)[env];
    first = slot == nullptr;
    delete slot;
    slot = ref;
  }
  // The reference belongs to this environment: dropped when it closes (a worker's exit). One
  // hook per environment (Node aborts on a second identical one).
  if (first)
    napi_add_env_cleanup_hook(
        env,
        [](void* e) {
          std::lock_guard<std::mutex> lock(g_class_mu);
          auto it = g_classes->find(static_cast<napi_env>(e));
          if (it == g_classes->end()) return;
          delete it->second;
          g_classes->erase(it);
        },
        env);
  return info.Env().Undefined();
}

Napi::Error ToJs(Napi::Env env, const BlasErr& e) {
  Napi::Object props = Napi::Object::New(env);
  props.Set("code", e.code);
  props.Set("status", e.status);
  props.Set("call", e.call);
  Napi::FunctionReference* ctor = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_class_mu);
    auto it = g_classes->find(env);
    if (it != g_classes->end()) ctor = it->second;
  }
  if (ctor) return Napi::Error(env, ctor->New({Napi::String::New(env, e.message), props}));
  Napi::Error err = Napi::Error::New(env, e.message);
  err.Set("code", props.Get("code"));
  err.Set("status", props.Get("status"));
  err.Set("call", props.Get("call"));
  return err;
}

// Guard plus cuBLAS's own failures.
template <Napi::Value (*F)(const Napi::CallbackInfo&)>
Napi::Value BlasCall(const Napi::CallbackInfo& info) {
  try {
    return F(info);
  } catch (const BlasErr& e) {
    throw ToJs(info.Env(), e);
  }
}

}  // namespace

void InitCublas(Napi::Env env, Napi::Object exports) {
  NODECUDA_EXPORT(env, exports, "cublasInit", Init);
  NODECUDA_EXPORT(env, exports, "cublasStatus", Status);
  NODECUDA_EXPORT(env, exports, "cublasGemm", BlasCall<Gemm>);
  NODECUDA_EXPORT(env, exports, "cublasDot", BlasCall<Dot>);
}

}  // namespace nodecuda
