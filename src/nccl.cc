// NCCL collectives (lib/nccl/): libnccl.so.2 opened with dlopen on first use (never linked), so
// the addon loads where NCCL is absent. nccl.h gives the types; the function table below is ours.
// A communicator is initialised non-blocking (config.blocking = 0: init answers ncclInProgress,
// lib/nccl polls ncclCommGetAsyncError with timers through ncclCommState, and a timeout aborts it).
// Once ready, lib/nccl normally splits it (ncclCommSplit, also non-blocking, since the parent's
// mode decides) into a blocking "work" communicator of the same ranks that runs the collectives:
// a non-blocking communicator launches every call from a new NCCL thread (65-250 us a call
// measured on 2 and 4 H200s), a blocking one on the calling thread (~15 us). Without the split
// (options.blocking false) calls may answer ncclInProgress, and synchronous ones wait here
// (ncclCommWait).
// Every call that may touch the GPU first makes the communicator's context current and drains the
// launch queue (DrainedCu()), so NCCL's kernels keep their order with nodecuda's queued launches on
// the same stream.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "addon.h"
#include "async.h"
#include "context.h"

namespace nodecuda {
namespace {

// The error class lib/nccl registered (ncclSetErrorClass), else an Error with `code`.
Napi::FunctionReference& NcclErrorClass(Napi::Env env) { return Data(env).nccl_error; }

Napi::Error MakeError(Napi::Env env, const std::string& code, int status, const std::string& call,
                      const std::string& message, const std::string& last) {
  Napi::Object info = Napi::Object::New(env);
  info.Set("code", code);
  info.Set("status", status);
  info.Set("call", call);
  info.Set("lastError", last);
  Napi::FunctionReference& cls = NcclErrorClass(env);
  if (cls.IsEmpty()) {
    Napi::Error e = Napi::Error::New(env, message);
    e.Set("code", code);
    return e;
  }
  return Napi::Error(env, cls.New({Napi::String::New(env, message), info}));
}

// ncclSetErrorClass(NcclError)
Napi::Value SetErrorClass(const Napi::CallbackInfo& info) {
  if (!info[0].IsFunction()) ThrowType("ERR_INVALID_ARG_TYPE", "expected the NcclError class");
  NcclErrorClass(info.Env()) = Napi::Persistent(info[0].As<Napi::Function>());
  return info.Env().Undefined();
}

}  // namespace
}  // namespace nodecuda

#if __has_include(<nccl.h>) && !defined(NODECUDA_WITHOUT_NCCL_H)
#include <nccl.h>

namespace nodecuda {
namespace {

// clang-format off
#define NODECUDA_NCCL_FUNCS(X) \
  X(ncclGetVersion) X(ncclGetUniqueId) X(ncclCommInitRankConfig) \
  X(ncclCommGetAsyncError) X(ncclCommAbort) X(ncclCommDestroy) X(ncclCommFinalize) \
  X(ncclGetErrorString) X(ncclGetLastError) X(ncclCommCount) X(ncclCommCuDevice) \
  X(ncclCommUserRank) X(ncclAllReduce) X(ncclReduce) X(ncclBroadcast) X(ncclAllGather) \
  X(ncclReduceScatter) X(ncclSend) X(ncclRecv) X(ncclGroupStart) X(ncclGroupEnd) \
  X(ncclCommSplit)
// clang-format on

struct NcclApi {
  NODECUDA_NCCL_FUNCS(NODECUDA_DECLARE_FN)
};

NcclApi g_nccl;
bool g_nccl_ok = false;
std::string g_nccl_path, g_nccl_error;
std::once_flag g_nccl_once;

bool ResolveAll(void* lib) {
  bool ok = true;
#define NODECUDA_LOAD_NCCL(name) \
  ok = (g_nccl.name = reinterpret_cast<decltype(g_nccl.name)>(dlsym(lib, #name))) && ok;
  NODECUDA_NCCL_FUNCS(NODECUDA_LOAD_NCCL)
#undef NODECUDA_LOAD_NCCL
  return ok;
}

// $NODECUDA_NCCL alone when set; else the toolkit dirs and the loader path (OpenToolkitLibrary),
// then `extra` (lib/nccl computes the Python wheel dirs: site-packages/nvidia/nccl/lib).
void OpenNccl(const std::vector<std::string>& extra) {
  std::string tried;
  g_nccl_path =
      OpenToolkitLibrary("NODECUDA_NCCL", {"libnccl.so.2", "libnccl.so"}, ResolveAll, tried);
  const char* env = std::getenv("NODECUDA_NCCL");
  if (g_nccl_path.empty() && !(env && *env)) {
    for (const auto& p : extra) {
      void* lib = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!lib) {
        tried += "\n  " + p;
      } else if (ResolveAll(lib)) {
        g_nccl_path = p;
        break;
      } else {
        tried += "\n  " + p + " (missing symbols)";
      }
    }
  }
  g_nccl_ok = !g_nccl_path.empty();
  if (!g_nccl_ok)
    g_nccl_error =
        "NCCL (libnccl.so.2) was not found. Install NCCL 2.18 or newer (the libnccl2 package, "
        "the nvidia-nccl-cu12/cu13 Python wheel, or NVIDIA's HPC SDK), or point NODECUDA_NCCL at "
        "libnccl.so.2. Tried:" +
        tried;
}

const char* ResultName(int r) {
  switch (r) {
    case ncclSuccess:
      return "NCCL_SUCCESS";
    case ncclUnhandledCudaError:
      return "NCCL_UNHANDLED_CUDA_ERROR";
    case ncclSystemError:
      return "NCCL_SYSTEM_ERROR";
    case ncclInternalError:
      return "NCCL_INTERNAL_ERROR";
    case ncclInvalidArgument:
      return "NCCL_INVALID_ARGUMENT";
    case ncclInvalidUsage:
      return "NCCL_INVALID_USAGE";
    case ncclRemoteError:
      return "NCCL_REMOTE_ERROR";
    case ncclInProgress:
      return "NCCL_IN_PROGRESS";
    default:
      return "NCCL_ERROR_UNKNOWN";
  }
}

// A communicator. Dropping the last handle without dispose()/abort() leaves the NCCL
// communicator alive until the process exits (documented): tearing one down is the application's
// decision, since its peers wait on it, and a finalizer may run at teardown after the driver.
struct CommRes {
  ncclComm_t comm = nullptr;     // the communicator initialised non-blocking
  ncclComm_t pending = nullptr;  // NCCL's split thread writes the work communicator here
  ncclComm_t work = nullptr;     // the blocking work communicator, once the split finished
  int cga = -1;
  bool finalizing = false;  // the parent's finalize is in progress (its state matters again)
  ContextPtr ctx;
  // The communicator collectives go to.
  ncclComm_t Calls() const { return work ? work : comm; }
};
using CommPtr = std::shared_ptr<CommRes>;

const napi_type_tag kCommTag = {0x6e6f646563756461ULL, 0x6e63636c636f6d6dULL};

const NcclApi& Nccl(Napi::Env env) {
  std::call_once(g_nccl_once, [] { OpenNccl({}); });
  if (!g_nccl_ok) throw MakeError(env, "NCCL_NOT_FOUND", -1, "dlopen", g_nccl_error, "");
  return g_nccl;
}

// Throws NcclError for a failed status; returns ncclSuccess (0) or ncclInProgress (7).
int Check(Napi::Env env, ncclResult_t r, const char* call, ncclComm_t comm) {
  if (r == ncclSuccess || r == ncclInProgress) return r;
  const char* last = comm ? g_nccl.ncclGetLastError(comm) : g_nccl.ncclGetLastError(nullptr);
  std::string msg =
      std::string(call) + " failed: " + ResultName(r) + " (" + g_nccl.ncclGetErrorString(r) + ")";
  if (last && *last) msg += ". " + std::string(last);
  throw MakeError(env, ResultName(r), r, call, msg, last ? last : "");
}

const CommPtr& CommArg(const Napi::Value& v) {
  bool tagged = false;
  if (v.IsExternal()) napi_check_object_type_tag(v.Env(), v, &kCommTag, &tagged);
  if (!tagged)
    ThrowType("ERR_INVALID_ARG_TYPE", "The \"comm\" argument must be a communicator handle");
  const CommPtr& p = *v.As<Napi::External<CommPtr>>().Data();
  if (!p || !p->comm) ThrowType("ERR_USE_AFTER_DISPOSE", "This NCCL communicator was disposed");
  return p;
}

Napi::Value WrapComm(Napi::Env env, ncclComm_t comm, ContextPtr ctx, int cga) {
  auto res = std::make_shared<CommRes>();
  res->comm = comm;
  res->cga = cga;
  res->ctx = std::move(ctx);
  // A handle dropped while its communicator lives keeps CommRes (NCCL's split thread may still
  // write `pending`): the communicator leaks until exit, as documented.
  auto ext =
      Napi::External<CommPtr>::New(env, new CommPtr(std::move(res)), [](Napi::Env, CommPtr* b) {
        if (*b && (*b)->comm) (void)new CommPtr(std::move(*b));
        delete b;
      });
  ext.TypeTag(&kCommTag);
  return ext;
}

// The communicator's context, current, with the launch queue drained.
void EnterComm(const CommRes& c) {
  MakeCurrent(*c.ctx);
  DrainedCu();
}

// ncclStatus(wheelPaths: string[]) -> { ok, path, version, message }: opens NCCL (once per
// process; the paths count on the first call only). Never throws for a missing library.
Napi::Value Status(const Napi::CallbackInfo& info) {
  std::vector<std::string> extra;
  if (info[0].IsArray()) {
    Napi::Array a = info[0].As<Napi::Array>();
    for (uint32_t i = 0; i < a.Length(); i++) extra.push_back(a.Get(i).ToString().Utf8Value());
  }
  std::call_once(g_nccl_once, [&] { OpenNccl(extra); });
  Napi::Env env = info.Env();
  Napi::Object o = Napi::Object::New(env);
  int version = 0;
  if (g_nccl_ok) g_nccl.ncclGetVersion(&version);
  o.Set("ok", g_nccl_ok);
  o.Set("path", g_nccl_ok ? g_nccl_path : "");
  o.Set("version", version);
  o.Set("message", g_nccl_ok ? "" : g_nccl_error);
  return o;
}

// ncclGetUniqueId() -> ArrayBuffer of NCCL_UNIQUE_ID_BYTES (ncclResult_t
// ncclGetUniqueId(ncclUniqueId*))
Napi::Value GetUniqueId(const Napi::CallbackInfo& info) {
  const NcclApi& n = Nccl(info.Env());
  ncclUniqueId id;
  Check(info.Env(), n.ncclGetUniqueId(&id), "ncclGetUniqueId", nullptr);
  Napi::ArrayBuffer ab = Napi::ArrayBuffer::New(info.Env(), sizeof(id.internal));
  std::memcpy(ab.Data(), id.internal, sizeof(id.internal));
  return ab;
}

// ncclCommInitRank(nranks, id: Uint8Array(128), rank, device, blocking, cgaClusterSize|-1)
//   -> handle. ncclCommInitRankConfig(ncclComm_t*, int nranks, ncclUniqueId, int rank,
//   ncclConfig_t*): with blocking = 0 it returns at once and the init goes on in NCCL's thread.
Napi::Value CommInitRank(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const NcclApi& n = Nccl(env);
  int nranks = IntArg(info, 0, "nranks");
  if (!info[1].IsTypedArray() ||
      info[1].As<Napi::TypedArray>().ByteLength() != NCCL_UNIQUE_ID_BYTES)
    ThrowType("ERR_INVALID_ARG_TYPE", "The unique id must be a 128-byte Uint8Array");
  Napi::Uint8Array bytes = info[1].As<Napi::Uint8Array>();
  int rank = IntArg(info, 2, "rank");
  int device = IntArg(info, 3, "device");
  bool blocking = info[4].ToBoolean();
  int cga = IntArg(info, 5, "cgaClusterSize");
  ncclUniqueId id;
  std::memcpy(id.internal, bytes.Data(), NCCL_UNIQUE_ID_BYTES);
  ContextPtr ctx = PrimaryContext(device);
  MakeCurrent(*ctx);
  DrainedCu();
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = blocking ? 1 : 0;
  if (cga >= 0) config.cgaClusterSize = cga;
  ncclComm_t comm = nullptr;
  ncclResult_t r = n.ncclCommInitRankConfig(&comm, nranks, id, rank, &config);
  ForgetCurrent();  // NCCL sets the runtime's device (the same primary context) itself
  if (r != ncclSuccess && r != ncclInProgress && comm) n.ncclCommAbort(comm);
  Check(env, r, "ncclCommInitRankConfig", nullptr);
  return WrapComm(env, comm, ctx, cga);
}

// ncclCommSplitWork(comm, rank) -> 0 | 7: starts the split of an idle non-blocking communicator
// into a blocking one of the same ranks (ncclCommSplit(comm, 0, rank, &pending, {blocking: 1})),
// run by NCCL's thread; ncclCommState adopts it once done. Every rank must call it.
Napi::Value CommSplitWork(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const CommPtr& c = CommArg(info[0]);
  const NcclApi& n = Nccl(env);
  int rank = IntArg(info, 1, "rank");
  if (c->work || c->pending) ThrowType("ERR_INVALID_STATE", "This communicator was already split");
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 1;
  if (c->cga >= 0) config.cgaClusterSize = c->cga;
  EnterComm(*c);
  ncclResult_t r = n.ncclCommSplit(c->comm, 0, rank, &c->pending, &config);
  ForgetCurrent();
  return Napi::Number::New(env, Check(env, r, "ncclCommSplit", c->comm));
}

// The state of one communicator (ncclCommGetAsyncError, or its own failure).
int StateOf(const NcclApi& n, ncclComm_t comm) {
  ncclResult_t async = ncclSuccess;
  ncclResult_t r = n.ncclCommGetAsyncError(comm, &async);
  return r != ncclSuccess ? r : async;
}

// The communicator's state: the parent's until the split it runs is adopted (once the parent is
// idle again), then the work communicator's alone (one query a call on the hot path: the parent
// does nothing more), and both while the parent finalizes.
int CommStateOf(const NcclApi& n, CommRes& c) {
  if (c.work && !c.finalizing) return StateOf(n, c.work);
  int st = StateOf(n, c.comm);
  if (st == ncclSuccess && c.pending && !c.work) c.work = c.pending;
  if (st != ncclSuccess || !c.work) return st;
  return StateOf(n, c.work);
}

// ncclCommState(comm) -> ncclResult_t of ncclCommGetAsyncError: 0 idle, 7 in progress, else the
// failure (never throws for it: lib/nccl asks ncclErrorOf for the error object).
Napi::Value CommState(const Napi::CallbackInfo& info) {
  const CommPtr& c = CommArg(info[0]);
  return Napi::Number::New(info.Env(), CommStateOf(Nccl(info.Env()), *c));
}

// ncclCommWait(comm, timeoutMs) -> ncclCommState's answer once it is not ncclInProgress, or 7
// at the deadline. A non-blocking communicator answers a call with ncclInProgress while NCCL's
// thread is still putting the work on the stream (connection setup on first use, a group's
// launch): until then a stream sync does not cover it, so the synchronous calls wait here as a
// blocking communicator would. It spins (yielding) for the first 2 ms, since a launch usually
// takes tens of microseconds and a sleep costs ~60 us of timer slack, then sleeps 50 us to 1 ms;
// the JS thread is held.
Napi::Value CommWait(const Napi::CallbackInfo& info) {
  const CommPtr& c = CommArg(info[0]);
  const NcclApi& n = Nccl(info.Env());
  double timeout_ms = info[1].IsNumber() ? info[1].As<Napi::Number>().DoubleValue() : 0;
  auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::microseconds(static_cast<int64_t>(std::min(timeout_ms, 1e12) * 1000));
  auto spin_until = std::chrono::steady_clock::now() + std::chrono::milliseconds(2);
  auto nap = std::chrono::microseconds(50);
  for (;;) {
    int st = CommStateOf(n, *c);
    auto now = std::chrono::steady_clock::now();
    if (st != ncclInProgress || now >= deadline) return Napi::Number::New(info.Env(), st);
    if (now < spin_until) {
      std::this_thread::yield();
      continue;
    }
    std::this_thread::sleep_for(nap);
    nap = std::min(nap * 2, std::chrono::microseconds(1000));
  }
}

// ncclErrorOf(comm|null, status, call) -> NcclError (not thrown), with ncclGetLastError's text.
Napi::Value ErrorOf(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Nccl(env);
  ncclComm_t comm = info[0].IsExternal() ? CommArg(info[0])->Calls() : nullptr;
  int status = IntArg(info, 1, "status");
  std::string call = info[2].ToString().Utf8Value();
  try {
    Check(env, static_cast<ncclResult_t>(status), call.c_str(), comm);
  } catch (const Napi::Error& e) {
    return e.Value();
  }
  return env.Null();
}

// ncclCommInfo(comm) -> [nranks, device, rank] (ncclCommCount, ncclCommCuDevice, ncclCommUserRank)
Napi::Value CommInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const CommPtr& c = CommArg(info[0]);
  const NcclApi& n = Nccl(env);
  int count = 0, dev = 0, rank = 0;
  Check(env, n.ncclCommCount(c->comm, &count), "ncclCommCount", c->comm);
  Check(env, n.ncclCommCuDevice(c->comm, &dev), "ncclCommCuDevice", c->comm);
  Check(env, n.ncclCommUserRank(c->comm, &rank), "ncclCommUserRank", c->comm);
  Napi::Array out = Napi::Array::New(env, 3);
  out.Set(0u, count);
  out.Set(1u, dev);
  out.Set(2u, rank);
  return out;
}

// ncclCollective(comm, kind, send, recv, count, datatype, op, root|peer, stream) -> 0 | 7.
// kind: 0 allReduce, 1 reduce, 2 broadcast, 3 allGather, 4 reduceScatter, 5 send, 6 recv.
// lib/nccl checks sizes, dtypes and devices; `count` is NCCL's (per rank where NCCL says so).
Napi::Value Collective(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const CommPtr& c = CommArg(info[0]);
  const NcclApi& n = Nccl(env);
  int kind = IntArg(info, 1, "kind");
  void* send = reinterpret_cast<void*>(PtrArg(info, 2, "send"));
  void* recv = reinterpret_cast<void*>(PtrArg(info, 3, "recv"));
  size_t count = SizeArg(info, 4, "count");
  auto dt = static_cast<ncclDataType_t>(IntArg(info, 5, "datatype"));
  auto op = static_cast<ncclRedOp_t>(IntArg(info, 6, "op"));
  int root = IntArg(info, 7, "root");
  CUstream cu_stream = StreamArg(info[8]);
  auto stream = reinterpret_cast<cudaStream_t>(cu_stream);
  EnterComm(*c);
  ncclComm_t comm = c->Calls();
  ncclResult_t r;
  const char* call;
  // clang-format off
  switch (kind) {
    case 0: r = n.ncclAllReduce(send, recv, count, dt, op, comm, stream), call = "ncclAllReduce"; break;
    case 1: r = n.ncclReduce(send, recv, count, dt, op, root, comm, stream), call = "ncclReduce"; break;
    case 2: r = n.ncclBroadcast(send, recv, count, dt, root, comm, stream), call = "ncclBroadcast"; break;
    case 3: r = n.ncclAllGather(send, recv, count, dt, comm, stream), call = "ncclAllGather"; break;
    case 4: r = n.ncclReduceScatter(send, recv, count, dt, op, comm, stream), call = "ncclReduceScatter"; break;
    case 5: r = n.ncclSend(send, count, dt, root, comm, stream), call = "ncclSend"; break;
    case 6: r = n.ncclRecv(recv, count, dt, root, comm, stream), call = "ncclRecv"; break;
    default: ThrowRange("ERR_OUT_OF_RANGE", "unknown collective kind");
  }
  // clang-format on
  if (comm == c->work) ForgetCurrent();  // a blocking launch sets and restores the device itself
  return Napi::Number::New(env, Check(env, r, call, comm));
}

// ncclGroup(start: boolean) -> 0 | 7 (ncclGroupStart(void) / ncclGroupEnd(void)). The end
// launches the group's work, switching devices as it goes: the cached current context is dropped.
Napi::Value Group(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const NcclApi& n = Nccl(env);
  if (info[0].ToBoolean())
    return Napi::Number::New(env, Check(env, n.ncclGroupStart(), "ncclGroupStart", nullptr));
  ncclResult_t r = n.ncclGroupEnd();
  ForgetCurrent();
  return Napi::Number::New(env, Check(env, r, "ncclGroupEnd", nullptr));
}

// ncclCommFinalize(comm) -> 0 | 7: flushes the communicator's work. The blocking work
// communicator's finalize is local (stream syncs, proxy stop), quick once its streams are done;
// the parent's is non-blocking.
Napi::Value CommFinalize(const Napi::CallbackInfo& info) {
  const CommPtr& c = CommArg(info[0]);
  const NcclApi& n = Nccl(info.Env());
  EnterComm(*c);
  if (c->work) {
    ncclResult_t r = n.ncclCommFinalize(c->work);
    ForgetCurrent();
    Check(info.Env(), r, "ncclCommFinalize", c->work);
    MakeCurrent(*c->ctx);
    c->finalizing = true;
  }
  return Napi::Number::New(
      info.Env(), Check(info.Env(), n.ncclCommFinalize(c->comm), "ncclCommFinalize", c->comm));
}

// ncclCommRelease(comm, abort): ncclCommAbort (stops pending work; never waits for peers) or
// ncclCommDestroy (after ncclCommFinalize completed). The handle is empty afterwards.
Napi::Value CommRelease(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  bool tagged = false;
  if (info[0].IsExternal()) napi_check_object_type_tag(env, info[0], &kCommTag, &tagged);
  if (!tagged)
    ThrowType("ERR_INVALID_ARG_TYPE", "The \"comm\" argument must be a communicator handle");
  CommPtr& p = *info[0].As<Napi::External<CommPtr>>().Data();
  if (!p || !p->comm) return env.Undefined();  // idempotent
  const NcclApi& n = Nccl(env);
  bool abort = info[1].ToBoolean();
  auto release = [&](ncclComm_t comm) {
    TryMakeCurrent(*p->ctx);
    ncclResult_t r = abort ? n.ncclCommAbort(comm) : n.ncclCommDestroy(comm);
    ForgetCurrent();
    return r;
  };
  // The work communicator first, then the parent: aborting it also stops a split in progress
  // (NCCL's child abort flag, then it joins the split's thread), after which `pending` is empty
  // or a child (finished or failed) that is released last. The order matters: a failed split
  // leaves the parent's child abort flag pointing into that child.
  ncclResult_t r = p->work ? release(p->work) : ncclSuccess;
  ncclResult_t rp = release(p->comm);
  if (!p->work && p->pending) (void)release(p->pending);
  p->comm = nullptr;
  p.reset();
  Check(env, r != ncclSuccess ? r : rp, abort ? "ncclCommAbort" : "ncclCommDestroy", nullptr);
  return env.Undefined();
}

// ncclStreamDoneAsync(comm, stream) -> Promise settled when the work queued so far on `stream`
// (in the communicator's context) is done; the wait runs on the async queue's thread.
Napi::Value StreamDoneAsync(const Napi::CallbackInfo& info) {
  const CommPtr& c = CommArg(info[0]);
  CUstream stream = StreamArg(info[1]);
  MakeCurrent(*c->ctx);
  AsyncOp op;
  op.ctx = c->ctx;
  return WhenDone(info.Env(), stream, std::move(op));
}

}  // namespace

void InitNccl(Napi::Env env, Napi::Object exports) {
  NODECUDA_EXPORT(env, exports, "ncclSetErrorClass", SetErrorClass);
  NODECUDA_EXPORT(env, exports, "ncclStatus", Status);
  NODECUDA_EXPORT(env, exports, "ncclGetUniqueId", GetUniqueId);
  NODECUDA_EXPORT(env, exports, "ncclCommInitRank", CommInitRank);
  NODECUDA_EXPORT(env, exports, "ncclCommState", CommState);
  NODECUDA_EXPORT(env, exports, "ncclCommSplitWork", CommSplitWork);
  NODECUDA_EXPORT(env, exports, "ncclCommWait", CommWait);
  NODECUDA_EXPORT(env, exports, "ncclErrorOf", ErrorOf);
  NODECUDA_EXPORT(env, exports, "ncclCommInfo", CommInfo);
  NODECUDA_EXPORT(env, exports, "ncclCollective", Collective);
  NODECUDA_EXPORT(env, exports, "ncclGroup", Group);
  NODECUDA_EXPORT(env, exports, "ncclCommFinalize", CommFinalize);
  NODECUDA_EXPORT(env, exports, "ncclCommRelease", CommRelease);
  NODECUDA_EXPORT(env, exports, "ncclStreamDoneAsync", StreamDoneAsync);
}

}  // namespace nodecuda

#else  // built without nccl.h: the same exports, answering that NCCL support is off

namespace nodecuda {
namespace {

const char* const kNoHeader =
    "nodecuda was built without nccl.h, so NCCL support is off: install NCCL's development "
    "headers (the libnccl-dev package, or the include/ folder of the nvidia-nccl wheel on the "
    "compiler's include path) and rebuild.";

// ncclStatus(wheelPaths) -> { ok: false, ... }
Napi::Value Status(const Napi::CallbackInfo& info) {
  Napi::Object o = Napi::Object::New(info.Env());
  o.Set("ok", false);
  o.Set("path", "");
  o.Set("version", 0);
  o.Set("message", kNoHeader);
  return o;
}

Napi::Value Unavailable(const Napi::CallbackInfo& info) {
  throw MakeError(info.Env(), "NCCL_NOT_FOUND", -1, "dlopen", kNoHeader, "");
}

}  // namespace

void InitNccl(Napi::Env env, Napi::Object exports) {
  NODECUDA_EXPORT(env, exports, "ncclSetErrorClass", SetErrorClass);
  NODECUDA_EXPORT(env, exports, "ncclStatus", Status);
  for (const char* name :
       {"ncclGetUniqueId", "ncclCommInitRank", "ncclCommState", "ncclCommWait", "ncclCommSplitWork",
        "ncclErrorOf", "ncclCommInfo", "ncclCollective", "ncclGroup", "ncclCommFinalize",
        "ncclCommRelease", "ncclStreamDoneAsync"})
    Export(env, exports, name, Napi::Function::New(env, Guard<Unavailable>, name));
}

}  // namespace nodecuda

#endif
