// Device memory: pool allocations, copies (with page-locked staging for pageable host memory),
// memset, and the live-allocation counters used by leak tests.
#include <algorithm>
#include <cstring>
#include <thread>

#include "addon.h"
#include "async.h"
#include "handles.h"

namespace nodecuda {
namespace {

constexpr size_t kStagingChunk = size_t(4) << 20;  // bytes per staging chunk
constexpr size_t kStagedMin = size_t(1) << 20;     // smaller pageable copies go direct
constexpr size_t kStagingKeep = 32;                // chunks kept per context (128 MiB)
constexpr unsigned kMaxCopyThreads = 8;

// ---- page-locked staging chunks ------------------------------------------------------------

void* AcquireChunk(Context& c) {
  {
    std::lock_guard<std::mutex> lock(c.mu);
    if (c.staging_generation != c.generation.load()) {
      c.staging.clear();  // a reset freed them
      c.staging_generation = c.generation.load();
    }
    if (!c.staging.empty()) {
      void* p = c.staging.back();
      c.staging.pop_back();
      return p;
    }
  }
  void* p = nullptr;
  CU_CHECK(Cu().cuMemAllocHost(&p, kStagingChunk));
  return p;
}

void ReleaseChunk(Context& c, void* p) {
  {
    std::lock_guard<std::mutex> lock(c.mu);
    if (c.staging_generation == c.generation.load() && c.staging.size() < kStagingKeep) {
      c.staging.push_back(p);
      return;
    }
  }
  if (TryMakeCurrent(c)) Cu_Unchecked().cuMemFreeHost(p);
}

unsigned CopyThreads(size_t chunks) {
  unsigned hc = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::min<size_t>({kMaxCopyThreads, hc, chunks}));
}

// Runs fn(worker) on `n` threads (the caller is worker 0); rethrows the first CuErr.
template <typename F>
void Parallel(unsigned n, const ContextPtr& ctx, F fn) {
  std::vector<std::thread> threads;
  std::mutex mu;
  std::optional<CuErr> first;
  auto run = [&](unsigned w) {
    try {
      MakeCurrent(*ctx);
      fn(w);
    } catch (const CuErr& e) {
      std::lock_guard<std::mutex> lock(mu);
      if (!first) first = e;
    }
  };
  for (unsigned w = 1; w < n; w++) threads.emplace_back(run, w);
  run(0);
  for (auto& t : threads) t.join();
  if (first) throw *first;
}

// Synchronous copy between device memory and pageable host memory at full link speed: chunks
// go through page-locked buffers on several threads, each double-buffered on its own stream,
// so host memcpy and DMA overlap.
void StagedCopy(const ContextPtr& ctx, bool htod, CUdeviceptr dev, uint8_t* host, size_t bytes) {
  const DriverApi& cu = Cu();
  CU_CHECK(cu.cuCtxSynchronize());  // a synchronous copy comes after all queued work
  size_t chunks = (bytes + kStagingChunk - 1) / kStagingChunk;
  std::atomic<size_t> next{0};
  Parallel(CopyThreads(chunks), ctx, [&](unsigned) {
    CUstream s = nullptr;
    CUevent ev[2] = {nullptr, nullptr};
    void* buf[2] = {nullptr, nullptr};
    auto cleanup = [&] {
      if (s) cu.cuStreamSynchronize(s), cu.cuStreamDestroy(s);
      for (int k = 0; k < 2; k++) {
        if (ev[k]) cu.cuEventDestroy(ev[k]);
        if (buf[k]) ReleaseChunk(*ctx, buf[k]);
      }
    };
    try {
      CU_CHECK(cu.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
      for (int k = 0; k < 2; k++) {
        CU_CHECK(cu.cuEventCreate(&ev[k], CU_EVENT_DISABLE_TIMING));
        buf[k] = AcquireChunk(*ctx);
      }
      bool used[2] = {false, false};
      for (int k = 0;; k ^= 1) {
        size_t c = next.fetch_add(1);
        if (c >= chunks) break;
        size_t off = c * kStagingChunk, len = std::min(kStagingChunk, bytes - off);
        if (used[k]) CU_CHECK(cu.cuEventSynchronize(ev[k]));
        if (htod) {
          std::memcpy(buf[k], host + off, len);
          CU_CHECK(cu.cuMemcpyHtoDAsync(dev + off, buf[k], len, s));
          CU_CHECK(cu.cuEventRecord(ev[k], s));
          used[k] = true;
        } else {
          CU_CHECK(cu.cuMemcpyDtoHAsync(buf[k], dev + off, len, s));
          CU_CHECK(cu.cuStreamSynchronize(s));
          std::memcpy(host + off, buf[k], len);
        }
      }
      CU_CHECK(cu.cuStreamSynchronize(s));
    } catch (...) {
      cleanup();
      throw;
    }
    cleanup();
  });
}

// ---- bindings ------------------------------------------------------------------------------

// memAlloc(bytes, stream?) -> handle.
// CUresult cuMemAllocFromPoolAsync(CUdeviceptr* dptr, size_t bytesize, CUmemoryPool pool,
//                                  CUstream hStream)
Napi::Value MemAlloc(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  size_t bytes = SizeArg(info, 0, "bytes");
  CUstream stream = StreamArg(info[1]);
  ContextPtr ctx = Enter();
  auto mem = std::make_shared<DeviceMem>(ctx);
  mem->size = bytes;
  mem->pooled = true;
  if (bytes > 0) {
    CU_CHECK(Cu().cuMemAllocFromPoolAsync(&mem->ptr, bytes, ctx->Pool(), stream));
  }
  AddonData& data = Data(env);
  data.live_allocations++;
  data.live_bytes += static_cast<int64_t>(bytes);
  Napi::MemoryManagement::AdjustExternalMemory(env, static_cast<int64_t>(bytes));
  // The finalizer is the backstop: it frees what dispose()/free() did not, on the legacy stream.
  auto* box = new std::shared_ptr<DeviceMem>(std::move(mem));
  auto ext = Napi::External<std::shared_ptr<DeviceMem>>::New(
      env, box, [](Napi::Env env, std::shared_ptr<DeviceMem>* b) {
        DeviceMem& m = **b;
        if (!m.freed) {
          size_t n = m.Release();
          if (AddonData* d = env.GetInstanceData<AddonData>()) {
            d->live_allocations--;
            d->live_bytes -= static_cast<int64_t>(n);
          }
          Napi::MemoryManagement::AdjustExternalMemory(env, -static_cast<int64_t>(n));
        }
        delete b;
      });
  ext.TypeTag(TagOf(Kind::Memory));
  return ext;
}

// memFree(handle, stream?) -> boolean (false when it was freed already).
// CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
Napi::Value MemFree(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const auto& mem = Unwrap<DeviceMem>(info[0], Kind::Memory, "allocation");
  if (mem->freed) return Napi::Boolean::New(env, false);
  size_t n = mem->Release(StreamArg(info[1]));
  AddonData& data = Data(env);
  data.live_allocations--;
  data.live_bytes -= static_cast<int64_t>(n);
  Napi::MemoryManagement::AdjustExternalMemory(env, -static_cast<int64_t>(n));
  return Napi::Boolean::New(env, true);
}

// memPtr(handle) -> bigint device address
Napi::Value MemPtr(const Napi::CallbackInfo& info) {
  const auto& mem = Unwrap<DeviceMem>(info[0], Kind::Memory, "allocation");
  return Napi::BigInt::New(info.Env(), static_cast<uint64_t>(mem->ptr));
}

// memLive() -> [allocations, bytes] made through this environment and not yet freed
Napi::Value MemLive(const Napi::CallbackInfo& info) {
  AddonData& data = Data(info.Env());
  Napi::Array a = Napi::Array::New(info.Env(), 2);
  a.Set(0u, static_cast<double>(data.live_allocations.load()));
  a.Set(1u, static_cast<double>(data.live_bytes.load()));
  return a;
}

// poolInfo() -> [reservedBytes, usedBytes]
// CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void* value)
Napi::Value PoolInfo(const Napi::CallbackInfo& info) {
  ContextPtr ctx = Enter();
  cuuint64_t reserved = 0, used = 0;
  CU_CHECK(
      Cu().cuMemPoolGetAttribute(ctx->Pool(), CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &reserved));
  CU_CHECK(Cu().cuMemPoolGetAttribute(ctx->Pool(), CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used));
  Napi::Array a = Napi::Array::New(info.Env(), 2);
  a.Set(0u, static_cast<double>(reserved));
  a.Set(1u, static_cast<double>(used));
  return a;
}

// poolTrim(): returns cached pool memory to the driver, after the device is idle.
// CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
Napi::Value PoolTrim(const Napi::CallbackInfo& info) {
  ContextPtr ctx = Enter();
  CU_CHECK(Cu().cuCtxSynchronize());
  CU_CHECK(Cu().cuMemPoolTrimTo(ctx->Pool(), 0));
  return info.Env().Undefined();
}

// memcpyHtod(dstPtr, host, byteOffset, byteLength, pinned)
// CUresult cuMemcpyHtoD(CUdeviceptr dst, const void* src, size_t bytes)
Napi::Value MemcpyHtod(const Napi::CallbackInfo& info) {
  CUdeviceptr dst = PtrArg(info, 0, "dst");
  HostRange h = HostArg(info, 1, "src");
  bool pinned = info[4].ToBoolean();
  ContextPtr ctx = Enter();
  if (!pinned && h.bytes >= kStagedMin) {
    StagedCopy(ctx, true, dst, h.data, h.bytes);
  } else if (h.bytes) {
    CU_CHECK(Cu().cuMemcpyHtoD(dst, h.data, h.bytes));
  }
  return info.Env().Undefined();
}

// memcpyDtoh(host, byteOffset, byteLength, srcPtr, pinned)
// CUresult cuMemcpyDtoH(void* dst, CUdeviceptr src, size_t bytes)
Napi::Value MemcpyDtoh(const Napi::CallbackInfo& info) {
  HostRange h = HostArg(info, 0, "dst");
  CUdeviceptr src = PtrArg(info, 3, "src");
  bool pinned = info[4].ToBoolean();
  ContextPtr ctx = Enter();
  if (!pinned && h.bytes >= kStagedMin) {
    StagedCopy(ctx, false, src, h.data, h.bytes);
  } else if (h.bytes) {
    CU_CHECK(Cu().cuMemcpyDtoH(h.data, src, h.bytes));
  }
  return info.Env().Undefined();
}

// memcpyDtod(dst, src, bytes, stream?, async?) -> Promise when async
// CUresult cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s)
Napi::Value MemcpyDtod(const Napi::CallbackInfo& info) {
  CUdeviceptr dst = PtrArg(info, 0, "dst"), src = PtrArg(info, 1, "src");
  size_t bytes = SizeArg(info, 2, "bytes");
  CUstream stream = StreamArg(info[3]);
  ContextPtr ctx = Enter();
  if (bytes) CU_CHECK(Cu().cuMemcpyDtoDAsync(dst, src, bytes, stream));
  if (info[4].ToBoolean()) return WhenDone(info.Env(), ctx, stream);
  return info.Env().Undefined();
}

// Takes page-locked chunks for an asynchronous copy of `bytes`.
std::shared_ptr<std::vector<void*>> Chunks(const ContextPtr& ctx, size_t bytes) {
  auto chunks = std::shared_ptr<std::vector<void*>>(new std::vector<void*>(), [ctx](auto* v) {
    for (void* p : *v) ReleaseChunk(*ctx, p);
    delete v;
  });
  for (size_t off = 0; off < bytes; off += kStagingChunk) chunks->push_back(AcquireChunk(*ctx));
  return chunks;
}

// memcpyHtodAsync(dstPtr, host, byteOffset, byteLength, pinned, stream) -> Promise
// Pageable memory is first copied into page-locked chunks on the calling thread (so the copy is
// ordered on the stream like any other work), then sent with cuMemcpyHtoDAsync.
Napi::Value MemcpyHtodAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CUdeviceptr dst = PtrArg(info, 0, "dst");
  HostRange h = HostArg(info, 1, "src");
  bool pinned = info[4].ToBoolean();
  CUstream stream = StreamArg(info[5]);
  ContextPtr ctx = Enter();
  const DriverApi& cu = Cu();
  if (pinned || h.bytes == 0) {
    if (h.bytes) CU_CHECK(cu.cuMemcpyHtoDAsync(dst, h.data, h.bytes, stream));
    return WhenDone(env, ctx, stream, nullptr, nullptr, {info[1]});
  }
  auto chunks = Chunks(ctx, h.bytes);
  size_t n = chunks->size();
  std::atomic<size_t> next{0};
  Parallel(CopyThreads(n), ctx, [&](unsigned) {
    for (size_t c; (c = next.fetch_add(1)) < n;) {
      size_t off = c * kStagingChunk;
      std::memcpy((*chunks)[c], h.data + off, std::min(kStagingChunk, h.bytes - off));
    }
  });
  for (size_t c = 0; c < n; c++) {
    size_t off = c * kStagingChunk;
    CU_CHECK(cu.cuMemcpyHtoDAsync(dst + off, (*chunks)[c], std::min(kStagingChunk, h.bytes - off),
                                  stream));
  }
  return WhenDone(env, ctx, stream, nullptr, [chunks] {});
}

// memcpyDtohAsync(host, byteOffset, byteLength, srcPtr, pinned, stream) -> Promise
// Pageable destinations: DMA into page-locked chunks on the stream; after the stream reaches
// that point, the worker thread copies the chunks into the destination.
Napi::Value MemcpyDtohAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  HostRange h = HostArg(info, 0, "dst");
  CUdeviceptr src = PtrArg(info, 3, "src");
  bool pinned = info[4].ToBoolean();
  CUstream stream = StreamArg(info[5]);
  ContextPtr ctx = Enter();
  const DriverApi& cu = Cu();
  if (pinned || h.bytes == 0) {
    if (h.bytes) CU_CHECK(cu.cuMemcpyDtoHAsync(h.data, src, h.bytes, stream));
    return WhenDone(env, ctx, stream, nullptr, nullptr, {info[0]});
  }
  auto chunks = Chunks(ctx, h.bytes);
  size_t n = chunks->size();
  for (size_t c = 0; c < n; c++) {
    size_t off = c * kStagingChunk;
    CU_CHECK(cu.cuMemcpyDtoHAsync((*chunks)[c], src + off, std::min(kStagingChunk, h.bytes - off),
                                  stream));
  }
  auto after = [chunks, h, ctx, n] {
    std::atomic<size_t> next{0};
    Parallel(CopyThreads(n), ctx, [&](unsigned) {
      for (size_t c; (c = next.fetch_add(1)) < n;) {
        size_t off = c * kStagingChunk;
        std::memcpy(h.data + off, (*chunks)[c], std::min(kStagingChunk, h.bytes - off));
      }
    });
  };
  return WhenDone(env, ctx, stream, after, [chunks] {}, {info[0]});
}

// memset(dstPtr, value, count, width (1|2|4), stream?, async?) -> Promise when async
// CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int ui, size_t N, CUstream s) & co
Napi::Value Memset(const Napi::CallbackInfo& info) {
  CUdeviceptr dst = PtrArg(info, 0, "dst");
  uint32_t value = info[1].As<Napi::Number>().Uint32Value();
  size_t count = SizeArg(info, 2, "count");
  int width = IntArg(info, 3, "width");
  CUstream stream = StreamArg(info[4]);
  bool async = info[5].ToBoolean();
  ContextPtr ctx = Enter();
  const DriverApi& cu = Cu();
  if (count) {
    if (width == 1) {
      CU_CHECK(cu.cuMemsetD8Async(dst, static_cast<unsigned char>(value), count, stream));
    } else if (width == 2) {
      CU_CHECK(cu.cuMemsetD16Async(dst, static_cast<unsigned short>(value), count, stream));
    } else {
      CU_CHECK(cu.cuMemsetD32Async(dst, value, count, stream));
    }
  }
  if (async) return WhenDone(info.Env(), ctx, stream);
  return info.Env().Undefined();
}

}  // namespace

void InitMemory(Napi::Env env, Napi::Object exports) {
  NODECUDA_EXPORT(env, exports, "memAlloc", MemAlloc);
  NODECUDA_EXPORT(env, exports, "memFree", MemFree);
  NODECUDA_EXPORT(env, exports, "memPtr", MemPtr);
  NODECUDA_EXPORT(env, exports, "memLive", MemLive);
  NODECUDA_EXPORT(env, exports, "poolInfo", PoolInfo);
  NODECUDA_EXPORT(env, exports, "poolTrim", PoolTrim);
  NODECUDA_EXPORT(env, exports, "memcpyHtod", MemcpyHtod);
  NODECUDA_EXPORT(env, exports, "memcpyDtoh", MemcpyDtoh);
  NODECUDA_EXPORT(env, exports, "memcpyDtod", MemcpyDtod);
  NODECUDA_EXPORT(env, exports, "memcpyHtodAsync", MemcpyHtodAsync);
  NODECUDA_EXPORT(env, exports, "memcpyDtohAsync", MemcpyDtohAsync);
  NODECUDA_EXPORT(env, exports, "memset", Memset);
}

}  // namespace nodecuda
