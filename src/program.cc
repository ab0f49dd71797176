// NVRTC: CUDA C++ source to CUBIN (or PTX), synchronously or off the main thread.
#include <memory>

#include "addon.h"
#include "handles.h"

namespace nodecuda {
namespace {

struct CompileJob {
  std::string source, name;
  std::vector<std::string> options, name_expressions;
  bool cubin = true;
  // results
  std::vector<uint8_t> image;
  std::string log;
  std::vector<std::string> lowered;
};

struct ProgramGuard {
  nvrtcProgram prog = nullptr;
  ~ProgramGuard() {
    if (prog) Nvrtc().nvrtcDestroyProgram(&prog);
  }
};

// Runs NVRTC; throws NvrtcErr (with the log) when compilation fails.
void RunCompile(CompileJob& job) {
  const NvrtcApi& nv = Nvrtc();
  ProgramGuard g;
  NVRTC_CHECK(
      nv.nvrtcCreateProgram(&g.prog, job.source.c_str(), job.name.c_str(), 0, nullptr, nullptr));
  for (const auto& e : job.name_expressions)
    NVRTC_CHECK(nv.nvrtcAddNameExpression(g.prog, e.c_str()));
  std::vector<const char*> opts;
  for (const auto& o : job.options) opts.push_back(o.c_str());
  nvrtcResult r = nv.nvrtcCompileProgram(g.prog, static_cast<int>(opts.size()), opts.data());
  size_t log_size = 0;
  if (nv.nvrtcGetProgramLogSize(g.prog, &log_size) == NVRTC_SUCCESS && log_size > 1) {
    job.log.resize(log_size);
    nv.nvrtcGetProgramLog(g.prog, job.log.data());
    job.log.resize(log_size - 1);
  }
  if (r != NVRTC_SUCCESS) throw NvrtcErr(r, "nvrtcCompileProgram", job.log);
  size_t n = 0;
  if (job.cubin) {
    NVRTC_CHECK(nv.nvrtcGetCUBINSize(g.prog, &n));
    job.image.resize(n);
    NVRTC_CHECK(nv.nvrtcGetCUBIN(g.prog, reinterpret_cast<char*>(job.image.data())));
  } else {
    NVRTC_CHECK(nv.nvrtcGetPTXSize(g.prog, &n));
    job.image.resize(n);
    NVRTC_CHECK(nv.nvrtcGetPTX(g.prog, reinterpret_cast<char*>(job.image.data())));
  }
  for (const auto& e : job.name_expressions) {
    const char* lowered = nullptr;
    NVRTC_CHECK(nv.nvrtcGetLoweredName(g.prog, e.c_str(), &lowered));
    job.lowered.push_back(lowered ? lowered : "");
  }
}

std::vector<std::string> StringList(const Napi::Value& v, const char* what) {
  std::vector<std::string> out;
  if (v.IsUndefined() || v.IsNull()) return out;
  if (!v.IsArray()) ThrowType("ERR_INVALID_ARG_TYPE", std::string(what) + " must be an array");
  Napi::Array a = v.As<Napi::Array>();
  for (uint32_t i = 0; i < a.Length(); i++) {
    Napi::Value e = a[i];
    if (!e.IsString())
      ThrowType("ERR_INVALID_ARG_TYPE", std::string(what) + " must contain only strings");
    out.push_back(e.As<Napi::String>().Utf8Value());
  }
  return out;
}

// compile(source, name, options[], nameExpressions[], cubin)
std::unique_ptr<CompileJob> JobFrom(const Napi::CallbackInfo& info) {
  if (!info[0].IsString()) ThrowType("ERR_INVALID_ARG_TYPE", "source must be a string");
  auto job = std::make_unique<CompileJob>();
  job->source = info[0].As<Napi::String>().Utf8Value();
  job->name = info[1].IsString() ? info[1].As<Napi::String>().Utf8Value() : "kernel.cu";
  job->options = StringList(info[2], "options");
  job->name_expressions = StringList(info[3], "nameExpressions");
  job->cubin = info[4].ToBoolean();
  Nvrtc();  // fail here, on the calling thread, when NVRTC is missing
  return job;
}

Napi::Value Result(Napi::Env env, const CompileJob& job) {
  Napi::Object o = Napi::Object::New(env);
  auto image = Napi::Uint8Array::New(env, job.image.size());
  if (!job.image.empty()) std::memcpy(image.Data(), job.image.data(), job.image.size());
  o.Set("image", image);
  o.Set("log", job.log);
  Napi::Array lowered = Napi::Array::New(env, job.lowered.size());
  for (size_t i = 0; i < job.lowered.size(); i++)
    lowered.Set(static_cast<uint32_t>(i), job.lowered[i]);
  o.Set("loweredNames", lowered);
  return o;
}

Napi::Value Compile(const Napi::CallbackInfo& info) {
  auto job = JobFrom(info);
  RunCompile(*job);
  return Result(info.Env(), *job);
}

// NVRTC is CPU work, so the libuv pool is the right place for it. The completion runs on the JS
// thread, also while the environment is being torn down (worker.terminate() waits for pool
// work): then it settles nothing, and nothing it does may throw into Node.
class CompileWorker : public Napi::AsyncWorker {
 public:
  CompileWorker(Napi::Env env, std::unique_ptr<CompileJob> job)
      : Napi::AsyncWorker(env, "nodecuda.compile"),
        job_(std::move(job)),
        deferred_(Napi::Promise::Deferred::New(env)) {}
  Napi::Promise Promise() { return deferred_.Promise(); }
  void Execute() override {
    try {
      RunCompile(*job_);
    } catch (...) {
      error_ = std::current_exception();
    }
  }
  void OnOK() override {
    Napi::Env env = Env();
    if (Data(env).closing) return;
    try {
      if (error_) {
        deferred_.Reject(ToJsError(env, error_).Value());
      } else {
        deferred_.Resolve(Result(env, *job_));
      }
    } catch (const Napi::Error& e) {
      try {
        deferred_.Reject(e.Value());  // building the result failed
      } catch (...) {
      }
    } catch (...) {
    }
  }
  void OnError(const Napi::Error&) override { OnOK(); }  // Execute catches everything

 private:
  std::unique_ptr<CompileJob> job_;
  std::exception_ptr error_;
  Napi::Promise::Deferred deferred_;
};

Napi::Value CompileAsync(const Napi::CallbackInfo& info) {
  auto* worker = new CompileWorker(info.Env(), JobFrom(info));
  Napi::Promise p = worker->Promise();
  worker->Queue();
  return p;
}

// supportedArchs() -> number[] (e.g. [75, 80, 86, 89, 90, ...])
Napi::Value SupportedArchs(const Napi::CallbackInfo& info) {
  const NvrtcApi& nv = Nvrtc();
  int n = 0;
  NVRTC_CHECK(nv.nvrtcGetNumSupportedArchs(&n));
  std::vector<int> archs(n);
  NVRTC_CHECK(nv.nvrtcGetSupportedArchs(archs.data()));
  Napi::Array a = Napi::Array::New(info.Env(), n);
  for (int i = 0; i < n; i++) a.Set(static_cast<uint32_t>(i), archs[i]);
  return a;
}

}  // namespace

void InitProgram(Napi::Env env, Napi::Object exports) {
  NODECUDA_EXPORT(env, exports, "compile", Compile);
  NODECUDA_EXPORT(env, exports, "compileAsync", CompileAsync);
  NODECUDA_EXPORT(env, exports, "supportedArchs", SupportedArchs);
}

}  // namespace nodecuda
