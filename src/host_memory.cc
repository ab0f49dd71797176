// Page-locked host memory: JS-allocated ArrayBuffers registered with cuMemHostRegister (never
// external ArrayBuffers, which Electron's memory cage forbids).
#include <sys/mman.h>

#include "addon.h"
#include "context.h"
#include "handles.h"

namespace nodecuda {
namespace {

// Asks for transparent huge pages on the 2 MiB-aligned inside of a large range before it is
// pinned (pages not yet touched, as in pagelockedEmpty's fresh buffer, are then faulted in as
// huge pages): fewer, larger pages for the copy engines to walk. A hint; failure changes nothing.
void AdviseHugePages(uint8_t* data, size_t bytes) {
  constexpr uintptr_t kHuge = uintptr_t(2) << 20;
  if (bytes < 4 * kHuge) return;
  uintptr_t lo = (reinterpret_cast<uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
  uintptr_t hi = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kHuge - 1);
  if (hi > lo) madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
}

// Lets go of the registration's memory (JS thread): unregisters it and releases the buffer.
void Unregister(HostReg& reg) {
  reg.Release();
  reg.buffer.Reset();
}

// hostRegister(buffer, byteOffset, byteLength) -> handle
// The registration holds the buffer, so registered memory is never freed while the driver may
// DMA into it. lib/memory.ts also marks it untransferable (a transfer would move the memory to
// another owner). Resizable ArrayBuffers are refused: a shrink would release registered pages.
// CUresult cuMemHostRegister(void* p, size_t bytesize, unsigned int Flags)
Napi::Value HostRegister(const Napi::CallbackInfo& info) {
  HostRange h = HostArg(info, 0, "buffer");
  HostBuffer b;
  HostBufferOf(info.Env(), info[0], &b);
  if (IsResizable(b))
    ThrowType("ERR_INVALID_ARG_VALUE",
              "A resizable ArrayBuffer cannot be page-locked: resizing it could release memory "
              "the GPU writes. Use a fixed-length ArrayBuffer");
  ContextPtr ctx = Enter();
  auto reg = std::make_shared<HostReg>();
  reg->ptr = h.data;
  reg->bytes = h.bytes;
  reg->ctx = ctx;
  if (h.bytes) {
    AdviseHugePages(h.data, h.bytes);
    CU_CHECK(DrainedCu().cuMemHostRegister(h.data, h.bytes, CU_MEMHOSTREGISTER_PORTABLE));
    reg->registered = true;
    reg->buffer = Napi::Persistent(b.buffer);
  }
  return Wrap(info.Env(), Kind::HostReg, std::move(reg));
}

// hostUnregister(handle) -> boolean (false when already unregistered). While asynchronous copies
// use the registration, it ends when the last of them settles.
// CUresult cuMemHostUnregister(void* p)
Napi::Value HostUnregister(const Napi::CallbackInfo& info) {
  const auto& reg = Unwrap<HostReg>(info[0], Kind::HostReg, "registration");
  bool was = reg->registered && !reg->release_pending;
  if (reg->in_flight > 0) {
    reg->release_pending = true;
  } else {
    Unregister(*reg);
  }
  return Napi::Boolean::New(info.Env(), was);
}

// hostPageOffset(buffer) -> bytes from the buffer's start to the next page boundary
Napi::Value HostPageOffset(const Napi::CallbackInfo& info) {
  if (!info[0].IsArrayBuffer()) ThrowType("ERR_INVALID_ARG_TYPE", "expected an ArrayBuffer");
  auto addr = reinterpret_cast<uintptr_t>(info[0].As<Napi::ArrayBuffer>().Data());
  return Napi::Number::New(info.Env(), static_cast<double>((4096 - addr % 4096) % 4096));
}

}  // namespace

std::shared_ptr<void> UseRegistration(const std::shared_ptr<HostReg>& reg) {
  reg->in_flight++;
  return std::shared_ptr<void>(nullptr, [reg](void*) {
    if (--reg->in_flight == 0 && reg->release_pending) Unregister(*reg);
  });
}

std::shared_ptr<HostReg> RegistrationArg(const Napi::Value& v, const uint8_t* data, size_t bytes) {
  bool tagged = false;
  if (!v.IsExternal() ||
      napi_check_object_type_tag(v.Env(), v, TagOf(Kind::HostReg), &tagged) != napi_ok || !tagged)
    return nullptr;
  const auto& reg = *v.As<Napi::External<std::shared_ptr<HostReg>>>().Data();
  if (!reg || !reg->registered || reg->release_pending) return nullptr;
  auto* start = static_cast<const uint8_t*>(reg->ptr);
  if (data < start || bytes > reg->bytes ||
      data - start > static_cast<ptrdiff_t>(reg->bytes - bytes))
    return nullptr;
  return reg;
}

void InitHostMemory(Napi::Env env, Napi::Object exports) {
  NODECUDA_EXPORT(env, exports, "hostRegister", HostRegister);
  NODECUDA_EXPORT(env, exports, "hostUnregister", HostUnregister);
  NODECUDA_EXPORT(env, exports, "hostPageOffset", HostPageOffset);
}

}  // namespace nodecuda
