// Page-locked host memory: JS-allocated ArrayBuffers registered with cuMemHostRegister (never
// external ArrayBuffers, which Electron's memory cage forbids).
#include "addon.h"
#include "handles.h"

namespace nodecuda {
namespace {

// hostRegister(buffer, byteOffset, byteLength) -> handle
// CUresult cuMemHostRegister(void* p, size_t bytesize, unsigned int Flags)
Napi::Value HostRegister(const Napi::CallbackInfo& info) {
  HostRange h = HostArg(info, 0, "buffer");
  ContextPtr ctx = Enter();
  auto reg = std::make_shared<HostReg>();
  reg->ptr = h.data;
  reg->bytes = h.bytes;
  reg->ctx = ctx;
  if (h.bytes) {
    CU_CHECK(Cu().cuMemHostRegister(h.data, h.bytes, CU_MEMHOSTREGISTER_PORTABLE));
    reg->registered = true;
  }
  return Wrap(info.Env(), Kind::HostReg, std::move(reg));
}

// hostUnregister(handle) -> boolean (false when already unregistered)
// CUresult cuMemHostUnregister(void* p)
Napi::Value HostUnregister(const Napi::CallbackInfo& info) {
  const auto& reg = Unwrap<HostReg>(info[0], Kind::HostReg, "registration");
  bool was = reg->registered;
  reg->Release();
  return Napi::Boolean::New(info.Env(), was);
}

// hostPageOffset(buffer) -> bytes from the buffer's start to the next page boundary
Napi::Value HostPageOffset(const Napi::CallbackInfo& info) {
  if (!info[0].IsArrayBuffer()) ThrowType("ERR_INVALID_ARG_TYPE", "expected an ArrayBuffer");
  auto addr = reinterpret_cast<uintptr_t>(info[0].As<Napi::ArrayBuffer>().Data());
  return Napi::Number::New(info.Env(), static_cast<double>((4096 - addr % 4096) % 4096));
}

}  // namespace

void InitHostMemory(Napi::Env env, Napi::Object exports) {
  NODECUDA_EXPORT(env, exports, "hostRegister", HostRegister);
  NODECUDA_EXPORT(env, exports, "hostUnregister", HostUnregister);
  NODECUDA_EXPORT(env, exports, "hostPageOffset", HostPageOffset);
}

}  // namespace nodecuda
