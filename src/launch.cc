// Kernel launch: one N-API call; the arguments arrive packed (C layout) in one byte buffer that
// is handed to the driver through CU_LAUNCH_PARAM_BUFFER_POINTER. nodecuda's own kernels may be
// queued for the launcher thread instead (launch_queue.cc).
#include "addon.h"
#include "handles.h"
#include "launch_queue.h"

namespace nodecuda {

const std::shared_ptr<FunctionRes>& FunctionArg(const Napi::Value& v);

namespace {

// launch(fn, stream|null, config Uint32Array[7] = grid xyz, block xyz, shared, params Uint8Array,
//        paramBytes, queue?: boolean)
// CUresult cuLaunchKernel(CUfunction f, unsigned gridDimX, unsigned gridDimY, unsigned gridDimZ,
//     unsigned blockDimX, unsigned blockDimY, unsigned blockDimZ, unsigned sharedMemBytes,
//     CUstream hStream, void** kernelParams, void** extra)
Napi::Value Launch(const Napi::CallbackInfo& info) {
  const auto& f = FunctionArg(info[0]);
  // The stream, unwrapped once (null: the legacy stream).
  const std::shared_ptr<StreamRes>* s = nullptr;
  if (!info[1].IsUndefined() && !info[1].IsNull())
    s = &Unwrap<StreamRes>(info[1], Kind::Stream, "stream");
  CUstream stream = s ? (*s)->stream : nullptr;
  if (!stream) s = nullptr;
  // A stream of another context (device, or a pushed context) is refused here, at the call that
  // passed it: the driver would reject the launch, and a queued launch reports only later.
  if (s) {
    const Context& sc = *(*s)->ctx;
    const Context& fc = *f->module->ctx;
    if (&sc != &fc)
      ThrowType(
          "ERR_DEVICE_MISMATCH",
          sc.ordinal == fc.ordinal
              ? "launch: the stream belongs to another context of device " +
                    std::to_string(fc.ordinal) +
                    " than the kernel's module (a context was pushed or popped since one was made)"
              : "launch: the stream belongs to device " + std::to_string(sc.ordinal) +
                    ", the kernel's module to device " + std::to_string(fc.ordinal) +
                    "; use a stream made on the kernel's device (inside withDevice(" +
                    std::to_string(fc.ordinal) + ", ...))");
  }
  // The element types are checked, not assumed: a Uint8Array(7) as config would be read as 28
  // bytes (past its end).
  if (!info[2].IsTypedArray() || !info[3].IsTypedArray() ||
      info[2].As<Napi::TypedArray>().TypedArrayType() != napi_uint32_array ||
      info[3].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
    ThrowType("ERR_INVALID_ARG_TYPE",
              "launch config must be a Uint32Array, parameters a Uint8Array");
  auto cfg = info[2].As<Napi::Uint32Array>();
  if (cfg.ElementLength() < 7) ThrowRange("ERR_OUT_OF_RANGE", "launch config needs 7 entries");
  auto params = info[3].As<Napi::Uint8Array>();
  size_t bytes = SizeArg(info, 4, "paramBytes");
  if (bytes > params.ByteLength()) ThrowRange("ERR_OUT_OF_RANGE", "paramBytes exceeds the buffer");
  const uint32_t* c = cfg.Data();
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, params.Data(), CU_LAUNCH_PARAM_BUFFER_SIZE,
                   &bytes, CU_LAUNCH_PARAM_END};
  bool direct = false;
  if (info[5].IsBoolean() && info[5].As<Napi::Boolean>().Value()) {
    QueueResult q = EnqueueLaunch(f, stream, s, c, params.Data(), bytes);
    if (q == QueueResult::Queued) return info.Env().Undefined();
    direct = q == QueueResult::Direct;
  }
  const DriverApi& cu = direct ? RawCu() : DrainedCu();
  CU_CHECK(cu.cuLaunchKernel(f->fn, c[0], c[1], c[2], c[3], c[4], c[5], c[6], stream, nullptr,
                             bytes ? extra : nullptr));
  return info.Env().Undefined();
}

}  // namespace

// launchQueueStats() -> [queued, submitted by the launcher thread]
Napi::Value LaunchStats(const Napi::CallbackInfo& info) {
  auto [queued, by_launcher] = LaunchQueueStats();
  Napi::Array a = Napi::Array::New(info.Env(), 2);
  a.Set(0u, static_cast<double>(queued));
  a.Set(1u, static_cast<double>(by_launcher));
  return a;
}

void InitLaunch(Napi::Env env, Napi::Object exports) {
  NODECUDA_EXPORT(env, exports, "launch", Launch);
  NODECUDA_EXPORT(env, exports, "launchQueueStats", LaunchStats);
}

}  // namespace nodecuda
