// cuFFT plans and transforms, from libcufft opened with dlopen on first use (never linked).
// Declares the entry points it uses itself, so building needs no cufft.h. Thin: plan geometry,
// dtypes, norms, axes and the plan cache are lib/fft's; this file makes plans, binds a stream
// and a work area per call, executes, and turns cufftResult codes into CufftError.
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "addon.h"
#include "context.h"

namespace nodecuda {
namespace {

using cufftHandle = int;
using CreateFn = int (*)(cufftHandle*);                     // cufftCreate
using DestroyFn = int (*)(cufftHandle);                     // cufftDestroy
using SetAutoAllocationFn = int (*)(cufftHandle, int);      // cufftSetAutoAllocation
using SetStreamFn = int (*)(cufftHandle, CUstream);         // cufftSetStream (cudaStream_t)
using SetWorkAreaFn = int (*)(cufftHandle, void*);          // cufftSetWorkArea
using GetVersionFn = int (*)(int*);                         // cufftGetVersion
using ExecC2CFn = int (*)(cufftHandle, void*, void*, int);  // cufftExecC2C / Z2Z
using ExecRCFn = int (*)(cufftHandle, void*, void*);        // R2C, C2R, D2Z, Z2D
// cufftResult cufftMakePlanMany64(cufftHandle plan, int rank, long long *n, long long *inembed,
//     long long istride, long long idist, long long *onembed, long long ostride, long long odist,
//     cufftType type, long long batch, size_t *workSize)
using MakePlanMany64Fn = int (*)(cufftHandle, int, long long*, long long*, long long, long long,
                                 long long*, long long, long long, int, long long, size_t*);

// cufftType values (cufft.h).
constexpr int kR2C = 0x2a, kC2R = 0x2c, kC2C = 0x29, kD2Z = 0x6a, kZ2D = 0x6c, kZ2Z = 0x69;
constexpr int kNotFound = -1;  // pseudo status: CUFFT_NOT_FOUND

struct Cufft {
  CreateFn create = nullptr;
  DestroyFn destroy = nullptr;
  SetAutoAllocationFn set_auto_allocation = nullptr;
  SetStreamFn set_stream = nullptr;
  SetWorkAreaFn set_work_area = nullptr;
  GetVersionFn version = nullptr;
  MakePlanMany64Fn make_plan_many = nullptr;
  ExecC2CFn c2c = nullptr, z2z = nullptr;
  ExecRCFn r2c = nullptr, c2r = nullptr, d2z = nullptr, z2d = nullptr;
  std::string path, error;
};

Cufft g_cufft;
std::once_flag g_cufft_once;

// A failed cuFFT call (or cuFFT missing), thrown as lib/base/errors.ts's CufftError.
struct CufftErr {
  int status;
  std::string call, detail;
};

std::string CufftStatusName(int s) {
  static const char* names[] = {"CUFFT_SUCCESS",
                                "CUFFT_INVALID_PLAN",
                                "CUFFT_ALLOC_FAILED",
                                "CUFFT_INVALID_TYPE",
                                "CUFFT_INVALID_VALUE",
                                "CUFFT_INTERNAL_ERROR",
                                "CUFFT_EXEC_FAILED",
                                "CUFFT_SETUP_FAILED",
                                "CUFFT_INVALID_SIZE",
                                "CUFFT_UNALIGNED_DATA",
                                "CUFFT_INCOMPLETE_PARAMETER_LIST",
                                "CUFFT_INVALID_DEVICE",
                                "CUFFT_PARSE_ERROR",
                                "CUFFT_NO_WORKSPACE",
                                "CUFFT_NOT_IMPLEMENTED",
                                "CUFFT_LICENSE_ERROR",
                                "CUFFT_NOT_SUPPORTED",
                                "CUFFT_MISSING_DEPENDENCY",
                                "CUFFT_NVRTC_FAILURE",
                                "CUFFT_NVJITLINK_FAILURE",
                                "CUFFT_NVSHMEM_FAILURE"};
  if (s == kNotFound) return "CUFFT_NOT_FOUND";
  if (s >= 0 && s < static_cast<int>(sizeof(names) / sizeof(names[0]))) return names[s];
  return "CUFFT_ERROR_" + std::to_string(s);
}

void Check(int r, const char* call) {
  if (r != 0) throw CufftErr{r, call, ""};
}

template <typename T>
bool Sym(void* lib, const char* name, T& slot) {
  slot = reinterpret_cast<T>(dlsym(lib, name));
  return slot != nullptr;
}

bool Accept(void* lib, Cufft& c) {
  bool ok = Sym(lib, "cufftCreate", c.create);
  ok = Sym(lib, "cufftDestroy", c.destroy) && ok;
  ok = Sym(lib, "cufftSetAutoAllocation", c.set_auto_allocation) && ok;
  ok = Sym(lib, "cufftSetStream", c.set_stream) && ok;
  ok = Sym(lib, "cufftSetWorkArea", c.set_work_area) && ok;
  ok = Sym(lib, "cufftGetVersion", c.version) && ok;
  ok = Sym(lib, "cufftMakePlanMany64", c.make_plan_many) && ok;
  ok = Sym(lib, "cufftExecC2C", c.c2c) && ok;
  ok = Sym(lib, "cufftExecZ2Z", c.z2z) && ok;
  ok = Sym(lib, "cufftExecR2C", c.r2c) && ok;
  ok = Sym(lib, "cufftExecC2R", c.c2r) && ok;
  ok = Sym(lib, "cufftExecD2Z", c.d2z) && ok;
  ok = Sym(lib, "cufftExecZ2D", c.z2d) && ok;
  return ok;
}

// Python wheels (pip install nvidia-cufft-cu12, or the CUDA 13 wheels' nvidia/cu13/lib) put the
// library under site-packages: the active virtualenv's or conda's, then ~/.local's.
std::vector<std::string> WheelDirs() {
  std::vector<std::string> prefixes;
  for (const char* var : {"VIRTUAL_ENV", "CONDA_PREFIX"})
    if (const char* p = std::getenv(var); p && *p) prefixes.push_back(std::string(p) + "/lib");
  if (const char* home = std::getenv("HOME"); home && *home)
    prefixes.push_back(std::string(home) + "/.local/lib");
  prefixes.push_back("/usr/local/lib");
  std::vector<std::string> dirs;
  for (const auto& prefix : prefixes)
    for (int minor = 14; minor >= 8; minor--)
      for (const char* kind : {"/site-packages", "/dist-packages"})
        for (const char* sub : {"/nvidia/cu13/lib/", "/nvidia/cufft/lib/"})
          dirs.push_back(prefix + "/python3." + std::to_string(minor) + kind + sub);
  return dirs;
}

void OpenCufft() {
  std::string tried;
  Cufft found;
  const std::initializer_list<const char*> sonames = {"libcufft.so.12", "libcufft.so.11",
                                                      "libcufft.so"};
  found.path = OpenToolkitLibrary(
      "NODECUDA_CUFFT", sonames, [&found](void* lib) { return Accept(lib, found); }, tried);
  const char* env = std::getenv("NODECUDA_CUFFT");
  if (found.path.empty() && !(env && *env)) {  // an explicit path has no fallback
    for (const auto& dir : WheelDirs()) {
      for (const char* so : {"libcufft.so.12", "libcufft.so.11"}) {
        std::string p = dir + so;
        void* lib = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (lib && Accept(lib, found)) {
          found.path = p;
          break;
        }
      }
      if (!found.path.empty()) break;
    }
    if (found.path.empty()) tried += "\n  (and Python wheel dirs .../nvidia/{cu13,cufft}/lib)";
  }
  if (found.path.empty()) {
    found = Cufft{};
    found.error =
        "cuFFT (libcufft.so.12 or .11) was not found. Install the CUDA toolkit (or the "
        "libcufft package, or pip install nvidia-cufft-cu12), or point NODECUDA_CUFFT at "
        "libcufft.so. Tried:" +
        tried;
  }
  g_cufft = found;
}

const Cufft& Lib() {
  std::call_once(g_cufft_once, OpenCufft);
  if (!g_cufft.create) throw CufftErr{kNotFound, "dlopen", g_cufft.error};
  return g_cufft;
}

// ---- the error class, per environment (lib/fft hands it over when it loads) -------------------

std::mutex g_classes_mu;
std::unordered_map<napi_env, Napi::FunctionReference*> g_classes;

void ForgetClass(void* env) {
  std::lock_guard<std::mutex> lock(g_classes_mu);
  auto it = g_classes.find(static_cast<napi_env>(env));
  if (it == g_classes.end()) return;
  delete it->second;
  g_classes.erase(it);
}

Napi::Error ToJs(Napi::Env env, const CufftErr& e) {
  std::string code = CufftStatusName(e.status);
  std::string message = e.status == kNotFound ? e.detail : e.call + " failed: " + code;
  if (e.status != kNotFound && !e.detail.empty()) message += ". " + e.detail;
  Napi::FunctionReference* ctor = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_classes_mu);
    auto it = g_classes.find(env);
    if (it != g_classes.end()) ctor = it->second;
  }
  Napi::Object props = Napi::Object::New(env);
  props.Set("code", code);
  props.Set("status", e.status);
  props.Set("call", e.call);
  if (ctor) return Napi::Error(env, ctor->New({Napi::String::New(env, message), props}));
  Napi::Error err = Napi::Error::New(env, message);
  err.Set("code", Napi::String::New(env, code));
  err.Set("status", Napi::Number::New(env, e.status));
  err.Set("call", Napi::String::New(env, e.call));
  return err;
}

// Guard (errors.h) plus CufftErr.
template <Napi::Value (*F)(const Napi::CallbackInfo&)>
Napi::Value FftGuard(const Napi::CallbackInfo& info) {
  try {
    return F(info);
  } catch (const CufftErr& e) {
    throw ToJs(info.Env(), e);
  } catch (const Napi::Error&) {
    throw;
  } catch (...) {
    throw ToJsError(info.Env(), std::current_exception());
  }
}

// ---- plans ------------------------------------------------------------------------------------

// A plan made in `ctx` (kept alive). Auto-allocation is off: the caller passes a work area from
// the pool with each execution, so idle cached plans hold no device memory and two streams can
// use one plan (each call binds its stream and its own work area).
struct Plan {
  ContextPtr ctx;
  uint64_t generation;
  cufftHandle handle = 0;
  int type = 0;
  bool live = false;
  std::shared_ptr<StreamRes> last_stream;  // the stream of the last execution
  void Destroy() {
    if (!live) return;
    live = false;
    // A reset destroyed the context and with it the plan's device state: nothing to free.
    if (ctx->generation.load() != generation || !TryMakeCurrent(*ctx)) return;
    // Executions queued with the plan finish first (cuFFT keeps plan data in device memory).
    if (last_stream && last_stream->stream) RawCu().cuStreamSynchronize(last_stream->stream);
    g_cufft.destroy(handle);
  }
  ~Plan() { Destroy(); }
};

const napi_type_tag kPlanTag = {0x6e6f6465637564f1ULL, 0x0cf3f7e1a2b3c4d5ULL};

const std::shared_ptr<Plan>& PlanArg(const Napi::Value& v) {
  bool tagged = false;
  if (v.IsExternal()) napi_check_object_type_tag(v.Env(), v, &kPlanTag, &tagged);
  if (!tagged)
    ThrowType("ERR_INVALID_ARG_TYPE", "The \"plan\" argument must be a cuFFT plan handle");
  const std::shared_ptr<Plan>& p = *v.As<Napi::External<std::shared_ptr<Plan>>>().Data();
  if (!p || !p->live) ThrowType("ERR_USE_AFTER_DISPOSE", "The cuFFT plan was destroyed");
  return p;
}

std::vector<long long> Dims(const Napi::Value& v, const char* name, size_t rank) {
  if (!v.IsArray() || v.As<Napi::Array>().Length() != rank)
    ThrowType("ERR_INVALID_ARG_TYPE", std::string(name) + " must be an array of rank numbers");
  std::vector<long long> out(rank);
  for (uint32_t i = 0; i < rank; i++) {
    Napi::Value x = v.As<Napi::Array>().Get(i);
    double d = x.IsNumber() ? x.As<Napi::Number>().DoubleValue() : -1;
    if (!(d >= 1) || d > 9007199254740991.0)
      ThrowRange("ERR_OUT_OF_RANGE", std::string(name) + " entries must be positive integers");
    out[i] = static_cast<long long>(d);
  }
  return out;
}

// cufftVersion() -> [version, path]; CufftError CUFFT_NOT_FOUND when no library opened.
Napi::Value Version(const Napi::CallbackInfo& info) {
  const Cufft& c = Lib();
  int v = 0;
  Check(c.version(&v), "cufftGetVersion");
  Napi::Array out = Napi::Array::New(info.Env(), 2);
  out.Set(0u, v);
  out.Set(1u, c.path);
  return out;
}

// cufftSetErrorClass(CufftError): the class cuFFT failures are made from in this environment.
Napi::Value SetErrorClass(const Napi::CallbackInfo& info) {
  if (!info[0].IsFunction()) ThrowType("ERR_INVALID_ARG_TYPE", "expected the CufftError class");
  napi_env env = info.Env();
  std::lock_guard<std::mutex> lock(g_classes_mu);
  auto it = g_classes.find(env);
  if (it == g_classes.end()) {
    napi_add_env_cleanup_hook(env, ForgetClass, env);
    it = g_classes.emplace(env, new Napi::FunctionReference()).first;
  }
  *it->second = Napi::Persistent(info[0].As<Napi::Function>());
  return info.Env().Undefined();
}

// cufftPlan(type, n[], inembed[], istride, idist, onembed[], ostride, odist, batch)
//   -> [plan, workBytes]; made in the calling thread's context.
Napi::Value MakePlan(const Napi::CallbackInfo& info) {
  const Cufft& c = Lib();
  int type = IntArg(info, 0, "type");
  if (type != kR2C && type != kC2R && type != kC2C && type != kD2Z && type != kZ2D && type != kZ2Z)
    ThrowRange("ERR_OUT_OF_RANGE", "unknown cufftType");
  if (!info[1].IsArray()) ThrowType("ERR_INVALID_ARG_TYPE", "n must be an array");
  size_t rank = info[1].As<Napi::Array>().Length();
  if (rank < 1 || rank > 3) ThrowRange("ERR_OUT_OF_RANGE", "cuFFT plans have rank 1 to 3");
  std::vector<long long> n = Dims(info[1], "n", rank);
  std::vector<long long> inembed = Dims(info[2], "inembed", rank);
  long long istride = static_cast<long long>(SizeArg(info, 3, "istride"));
  long long idist = static_cast<long long>(SizeArg(info, 4, "idist"));
  std::vector<long long> onembed = Dims(info[5], "onembed", rank);
  long long ostride = static_cast<long long>(SizeArg(info, 6, "ostride"));
  long long odist = static_cast<long long>(SizeArg(info, 7, "odist"));
  long long batch = static_cast<long long>(SizeArg(info, 8, "batch"));
  ContextPtr ctx = Enter();
  DrainedCu();  // drains the launch queue and reports its failures before the library runs
  auto plan = std::make_shared<Plan>();
  plan->ctx = ctx;
  plan->generation = ctx->generation.load();
  plan->type = type;
  Check(c.create(&plan->handle), "cufftCreate");
  plan->live = true;  // from here the destructor destroys it, also when a call below throws
  Check(c.set_auto_allocation(plan->handle, 0), "cufftSetAutoAllocation");
  size_t work = 0;
  Check(c.make_plan_many(plan->handle, static_cast<int>(rank), n.data(), inembed.data(), istride,
                         idist, onembed.data(), ostride, odist, type, batch, &work),
        "cufftMakePlanMany64");
  Napi::Env env = info.Env();
  auto* box = new std::shared_ptr<Plan>(std::move(plan));
  auto ext = Napi::External<std::shared_ptr<Plan>>::New(
      env, box, [](Napi::Env, std::shared_ptr<Plan>* b) { delete b; });
  ext.TypeTag(&kPlanTag);
  Napi::Array out = Napi::Array::New(env, 2);
  out.Set(0u, ext);
  out.Set(1u, static_cast<double>(work));
  return out;
}

// cufftExec(plan, stream|null, input: bigint, output: bigint, work: bigint (0n: none), inverse)
// binds the stream and the work area, then runs the plan's transform (in place when input ==
// output). The caller keeps the three buffers alive until the stream has run it.
Napi::Value Exec(const Napi::CallbackInfo& info) {
  const Cufft& c = Lib();
  const std::shared_ptr<Plan>& plan = PlanArg(info[0]);
  CUstream stream = StreamArg(info[1]);
  void* in = reinterpret_cast<void*>(PtrArg(info, 2, "input"));
  void* out = reinterpret_cast<void*>(PtrArg(info, 3, "output"));
  void* work = reinterpret_cast<void*>(PtrArg(info, 4, "work"));
  bool inverse = info[5].ToBoolean();
  if (!plan->ctx || plan->ctx->generation.load() != plan->generation)
    ThrowType("ERR_USE_AFTER_DISPOSE", "The cuFFT plan's context was reset");
  MakeCurrent(*plan->ctx);
  DrainedCu();  // drains queued launches (they write the input) so the library's kernels follow
                // them
  plan->last_stream = stream ? Unwrap<StreamRes>(info[1], Kind::Stream, "stream") : nullptr;
  Check(c.set_stream(plan->handle, stream), "cufftSetStream");
  if (work) Check(c.set_work_area(plan->handle, work), "cufftSetWorkArea");
  const int dir = inverse ? 1 : -1;
  switch (plan->type) {
    case kC2C:
      Check(c.c2c(plan->handle, in, out, dir), "cufftExecC2C");
      break;
    case kZ2Z:
      Check(c.z2z(plan->handle, in, out, dir), "cufftExecZ2Z");
      break;
    case kR2C:
      Check(c.r2c(plan->handle, in, out), "cufftExecR2C");
      break;
    case kD2Z:
      Check(c.d2z(plan->handle, in, out), "cufftExecD2Z");
      break;
    case kC2R:
      Check(c.c2r(plan->handle, in, out), "cufftExecC2R");
      break;
    case kZ2D:
      Check(c.z2d(plan->handle, in, out), "cufftExecZ2D");
      break;
  }
  return info.Env().Undefined();
}

// cufftDestroy(plan): frees the plan now (idempotent; the finalizer is the backstop).
Napi::Value Destroy(const Napi::CallbackInfo& info) {
  bool tagged = false;
  if (info[0].IsExternal()) napi_check_object_type_tag(info.Env(), info[0], &kPlanTag, &tagged);
  if (!tagged)
    ThrowType("ERR_INVALID_ARG_TYPE", "The \"plan\" argument must be a cuFFT plan handle");
  const auto& p = *info[0].As<Napi::External<std::shared_ptr<Plan>>>().Data();
  if (p) p->Destroy();
  return info.Env().Undefined();
}

}  // namespace

void InitCufft(Napi::Env env, Napi::Object exports) {
  Export(env, exports, "cufftVersion", Napi::Function::New(env, FftGuard<Version>, "cufftVersion"));
  Export(env, exports, "cufftSetErrorClass",
         Napi::Function::New(env, FftGuard<SetErrorClass>, "cufftSetErrorClass"));
  Export(env, exports, "cufftPlan", Napi::Function::New(env, FftGuard<MakePlan>, "cufftPlan"));
  Export(env, exports, "cufftExec", Napi::Function::New(env, FftGuard<Exec>, "cufftExec"));
  Export(env, exports, "cufftDestroy", Napi::Function::New(env, FftGuard<Destroy>, "cufftDestroy"));
}

}  // namespace nodecuda
