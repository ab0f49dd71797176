// Devices, contexts and driver status.
#include "addon.h"
#include "async.h"
#include "context.h"
#include "handles.h"

namespace nodecuda {

namespace {

// driverStatus() -> { ok, found, status, code, message, path, dlopenError, version, procAddress,
// minVersion, missingOptional }; never throws (isAvailable(), availability()).
Napi::Value DriverStatus(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const DriverState& s = LoadDriver();
  Napi::Object o = Napi::Object::New(env);
  int status = s.found ? static_cast<int>(s.status) : kDriverNotFound;
  int count = 0;
  if (status == CUDA_SUCCESS && DrainedCuUnchecked().cuDeviceGetCount(&count) == CUDA_SUCCESS &&
      count == 0)
    status = CUDA_ERROR_NO_DEVICE;
  o.Set("ok", status == CUDA_SUCCESS);
  o.Set("found", s.found);
  o.Set("status", status);
  o.Set("code", status == CUDA_SUCCESS ? std::string("CUDA_SUCCESS") : CuStatusName(status));
  o.Set("message", s.message);
  o.Set("path", s.path);
  o.Set("dlopenError", s.dlopen_error);
  o.Set("version", s.version);
  o.Set("procAddress", s.proc_address);
  o.Set("minVersion", kMinDriverVersion);
  Napi::Array missing = Napi::Array::New(env, s.missing_optional.size());
  for (size_t i = 0; i < s.missing_optional.size(); i++)
    missing.Set(static_cast<uint32_t>(i), s.missing_optional[i]);
  o.Set("missingOptional", missing);
  return o;
}

// CUresult cuDriverGetVersion(int* driverVersion)
Napi::Value DriverVersion(const Napi::CallbackInfo& info) {
  int v = 0;
  CU_CHECK(DrainedCu().cuDriverGetVersion(&v));
  return Napi::Number::New(info.Env(), v);
}

// nvrtcResult nvrtcVersion(int* major, int* minor)
Napi::Value NvrtcVersion(const Napi::CallbackInfo& info) {
  int major = 0, minor = 0;
  NVRTC_CHECK(Nvrtc().nvrtcVersion(&major, &minor));
  Napi::Array a = Napi::Array::New(info.Env(), 3);
  a.Set(0u, major);
  a.Set(1u, minor);
  a.Set(2u, NvrtcPath());
  return a;
}

// nvrtcCandidates() -> string[]: the libnvrtc files and sonames Nvrtc() tries, in its order,
// without opening any (lib/cuda/compiler.ts keys its cache on the first that exists).
Napi::Value NvrtcCandidatesJs(const Napi::CallbackInfo& info) {
  std::vector<std::string> c = NvrtcCandidates(LoadDriver().version);
  Napi::Array a = Napi::Array::New(info.Env(), c.size());
  for (uint32_t i = 0; i < c.size(); i++) a.Set(i, c[i]);
  return a;
}

// CUresult cuDeviceGetCount(int* count)
Napi::Value DeviceCount(const Napi::CallbackInfo& info) {
  int n = 0;
  CU_CHECK(DrainedCu().cuDeviceGetCount(&n));
  return Napi::Number::New(info.Env(), n);
}

CUdevice DeviceArg(const Napi::CallbackInfo& info, size_t i) {
  return PrimaryContext(IntArg(info, i, "ordinal"))->dev;
}

// CUresult cuDeviceGetName(char* name, int len, CUdevice dev)
Napi::Value DeviceName(const Napi::CallbackInfo& info) {
  char name[256] = {0};
  CU_CHECK(DrainedCu().cuDeviceGetName(name, sizeof(name) - 1, DeviceArg(info, 0)));
  return Napi::String::New(info.Env(), name);
}

// CUresult cuDeviceTotalMem(size_t* bytes, CUdevice dev)
Napi::Value DeviceTotalMem(const Napi::CallbackInfo& info) {
  size_t bytes = 0;
  CU_CHECK(DrainedCu().cuDeviceTotalMem(&bytes, DeviceArg(info, 0)));
  return Napi::Number::New(info.Env(), static_cast<double>(bytes));
}

// CUresult cuDeviceGetAttribute(int* pi, CUdevice_attribute attrib, CUdevice dev)
Napi::Value DeviceAttribute(const Napi::CallbackInfo& info) {
  int v = 0;
  CUdevice dev = DeviceArg(info, 0);
  CU_CHECK(DrainedCu().cuDeviceGetAttribute(
      &v, static_cast<CUdevice_attribute>(IntArg(info, 1, "attribute")), dev));
  return Napi::Number::New(info.Env(), v);
}

// CUresult cuDeviceGetPCIBusId(char* pciBusId, int len, CUdevice dev)
Napi::Value DevicePciBusId(const Napi::CallbackInfo& info) {
  char id[64] = {0};
  CU_CHECK(DrainedCu().cuDeviceGetPCIBusId(id, sizeof(id) - 1, DeviceArg(info, 0)));
  return Napi::String::New(info.Env(), id);
}

// CUresult cuDevicePrimaryCtxReset(CUdevice dev)
Napi::Value DeviceReset(const Napi::CallbackInfo& info) {
  ResetDevice(IntArg(info, 0, "ordinal"));
  return info.Env().Undefined();
}

Napi::Value UseDevice(const Napi::CallbackInfo& info) {
  SetThreadDevice(IntArg(info, 0, "ordinal"));
  return info.Env().Undefined();
}

Napi::Value CurrentDevice(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), ThreadDevice());
}

// CUresult cuCtxCreate_v2(CUcontext* pctx, unsigned int flags, CUdevice dev) (CUDA 3.2's: the
// CUDA 12.5 form only adds optional parameters this call does not use)
Napi::Value CtxCreate(const Napi::CallbackInfo& info) {
  int ordinal = IntArg(info, 0, "ordinal");
  unsigned flags = static_cast<unsigned>(IntArg(info, 1, "flags"));
  ContextPtr primary = PrimaryContext(ordinal);
  auto c = std::make_shared<Context>();
  c->primary = false;
  c->ordinal = ordinal;
  c->dev = primary->dev;
  CUcontext raw = nullptr;
  CU_CHECK(DrainedCu().cuCtxCreate(&raw, flags, c->dev));
  c->ctx = raw;
  // cuCtxCreate pushes the new context; the thread's stack (PushContext) decides what is current.
  ForgetCurrent();
  Enter();
  return Wrap(info.Env(), Kind::Context, std::make_shared<ContextRes>(ContextRes{c}));
}

Napi::Value CtxPush(const Napi::CallbackInfo& info) {
  PushContext(Unwrap<ContextRes>(info[0], Kind::Context, "context")->ctx);
  return info.Env().Undefined();
}

Napi::Value CtxPop(const Napi::CallbackInfo& info) {
  ContextPtr c = PopContext();
  if (!c) return info.Env().Null();
  return Wrap(info.Env(), Kind::Context, std::make_shared<ContextRes>(ContextRes{c}));
}

// ctxPrimary(ordinal) -> handle on the device's primary context.
Napi::Value CtxPrimary(const Napi::CallbackInfo& info) {
  return Wrap(info.Env(), Kind::Context,
              std::make_shared<ContextRes>(ContextRes{PrimaryContext(IntArg(info, 0, "ordinal"))}));
}

// The thread's current context as a handle.
Napi::Value CtxCurrent(const Napi::CallbackInfo& info) {
  return Wrap(info.Env(), Kind::Context, std::make_shared<ContextRes>(ContextRes{Enter()}));
}

// ctxInfo(handle?) -> [ordinal, primary, generation, id]
Napi::Value CtxInfo(const Napi::CallbackInfo& info) {
  ContextPtr c = info.Length() > 0 && !info[0].IsUndefined()
                     ? Unwrap<ContextRes>(info[0], Kind::Context, "context")->ctx
                     : Enter();
  Napi::Array a = Napi::Array::New(info.Env(), 4);
  a.Set(0u, c->ordinal);
  a.Set(1u, c->primary);
  a.Set(2u, static_cast<double>(c->generation.load()));
  a.Set(3u, static_cast<double>(reinterpret_cast<uintptr_t>(c.get()) & 0xFFFFFFFFFFFF));
  return a;
}

// CUresult cuCtxSynchronize(void)
Napi::Value CtxSynchronize(const Napi::CallbackInfo& info) {
  if (info.Length() > 0 && !info[0].IsUndefined()) {
    MakeCurrent(*Unwrap<ContextRes>(info[0], Kind::Context, "context")->ctx);
  } else {
    Enter();
  }
  CU_CHECK(DrainedCu().cuCtxSynchronize());
  return info.Env().Undefined();
}

// Promise form: the worker thread runs cuCtxSynchronize.
Napi::Value CtxSynchronizeAsync(const Napi::CallbackInfo& info) {
  AsyncOp op;
  op.ctx = Enter();
  op.work = [] { CU_CHECK(DrainedCu().cuCtxSynchronize()); };
  return Queue(info.Env()).Submit(info.Env(), std::move(op));
}

// deviceCanAccessPeer(ordinal, peerOrdinal) -> whether `ordinal` can map `peerOrdinal`'s memory
// CUresult cuDeviceCanAccessPeer(int* canAccessPeer, CUdevice dev, CUdevice peerDev)
Napi::Value DeviceCanAccessPeer(const Napi::CallbackInfo& info) {
  int can = 0;
  CUdevice dev = DeviceArg(info, 0), peer = DeviceArg(info, 1);
  CU_CHECK(DrainedCu().cuDeviceCanAccessPeer(&can, dev, peer));
  return Napi::Boolean::New(info.Env(), can != 0);
}

// ctxEnablePeerAccess(peer, ctx?): lets `ctx` (default: the current context) read and write
// `peer`'s memory. Idempotent: access already enabled is not an error. Stream-ordered pool
// allocations (nodecuda's default) ignore cuCtxEnablePeerAccess, so the peer device's pool also
// grants this device access (one pool per device: the device's default pool).
// CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)
// CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc* map, size_t count)
Napi::Value CtxEnablePeerAccess(const Napi::CallbackInfo& info) {
  ContextPtr peer = Unwrap<ContextRes>(info[0], Kind::Context, "peer")->ctx;
  ContextPtr c = info.Length() > 1 && !info[1].IsUndefined()
                     ? Unwrap<ContextRes>(info[1], Kind::Context, "context")->ctx
                     : Enter();
  if (c->dev == peer->dev) return info.Env().Undefined();  // a device always reaches its own memory
  CUmemoryPool pool = peer->Pool();                        // makes nothing current
  MakeCurrent(*c);
  const DriverApi& cu = DrainedCu();
  CUresult r = cu.cuCtxEnablePeerAccess(peer->ctx, 0);
  if (r != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) CheckCu(r, "cuCtxEnablePeerAccess");
  CUmemAccessDesc desc{};
  desc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  desc.location.id = c->dev;
  desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CU_CHECK(cu.cuMemPoolSetAccess(pool, &desc, 1));
  return info.Env().Undefined();
}

// CUresult cuMemGetInfo(size_t* free, size_t* total)
Napi::Value MemGetInfo(const Napi::CallbackInfo& info) {
  Enter();
  size_t free_b = 0, total = 0;
  CU_CHECK(DrainedCu().cuMemGetInfo(&free_b, &total));
  Napi::Array a = Napi::Array::New(info.Env(), 2);
  a.Set(0u, static_cast<double>(free_b));
  a.Set(1u, static_cast<double>(total));
  return a;
}

}  // namespace

void InitDevice(Napi::Env env, Napi::Object exports) {
  NODECUDA_EXPORT(env, exports, "driverStatus", DriverStatus);
  NODECUDA_EXPORT(env, exports, "driverVersion", DriverVersion);
  NODECUDA_EXPORT(env, exports, "nvrtcVersion", NvrtcVersion);
  NODECUDA_EXPORT(env, exports, "nvrtcCandidates", NvrtcCandidatesJs);
  NODECUDA_EXPORT(env, exports, "deviceCount", DeviceCount);
  NODECUDA_EXPORT(env, exports, "deviceName", DeviceName);
  NODECUDA_EXPORT(env, exports, "deviceTotalMem", DeviceTotalMem);
  NODECUDA_EXPORT(env, exports, "deviceAttribute", DeviceAttribute);
  NODECUDA_EXPORT(env, exports, "devicePciBusId", DevicePciBusId);
  NODECUDA_EXPORT(env, exports, "deviceReset", DeviceReset);
  NODECUDA_EXPORT(env, exports, "useDevice", UseDevice);
  NODECUDA_EXPORT(env, exports, "currentDevice", CurrentDevice);
  NODECUDA_EXPORT(env, exports, "ctxCreate", CtxCreate);
  NODECUDA_EXPORT(env, exports, "ctxPush", CtxPush);
  NODECUDA_EXPORT(env, exports, "ctxPop", CtxPop);
  NODECUDA_EXPORT(env, exports, "ctxCurrent", CtxCurrent);
  NODECUDA_EXPORT(env, exports, "ctxPrimary", CtxPrimary);
  NODECUDA_EXPORT(env, exports, "ctxInfo", CtxInfo);
  NODECUDA_EXPORT(env, exports, "ctxSynchronize", CtxSynchronize);
  NODECUDA_EXPORT(env, exports, "ctxSynchronizeAsync", CtxSynchronizeAsync);
  NODECUDA_EXPORT(env, exports, "memGetInfo", MemGetInfo);
  NODECUDA_EXPORT(env, exports, "deviceCanAccessPeer", DeviceCanAccessPeer);
  NODECUDA_EXPORT(env, exports, "ctxEnablePeerAccess", CtxEnablePeerAccess);
}

}  // namespace nodecuda
