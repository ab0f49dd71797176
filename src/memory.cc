// Device memory: pool allocations, copies (with page-locked staging for pageable host memory),
// memset, and the live-allocation counters used by leak tests.
#include <algorithm>
#include <cstring>
#include <thread>

#include "addon.h"
#include "async.h"
#include "context.h"
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
  CU_CHECK(DrainedCu().cuMemAllocHost(&p, kStagingChunk));
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
  if (TryMakeCurrent(c)) DrainedCuUnchecked().cuMemFreeHost(p);
}

unsigned CopyThreads(size_t chunks) {
  unsigned hc = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::min<size_t>({kMaxCopyThreads, hc, chunks}));
}

// Runs fn(worker) on up to `n` threads (the caller is worker 0; `ctx`, when set, is made current
// on each) and rethrows the first failure. fn must share out the work dynamically (an atomic
// counter): a thread that cannot be started is simply not there, and the others do its part.
template <typename F>
void Parallel(unsigned n, const ContextPtr& ctx, F fn) {
  std::vector<std::thread> threads;
  std::mutex mu;
  std::exception_ptr first;
  auto run = [&](unsigned w) {
    try {
      if (ctx) MakeCurrent(*ctx);
      fn(w);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!first) first = std::current_exception();
    }
  };
  for (unsigned w = 1; w < n; w++) {
    try {
      threads.emplace_back(run, w);
    } catch (...) {
      break;  // no more threads (std::system_error): fewer workers
    }
  }
  run(0);
  for (auto& t : threads) t.join();
  if (first) std::rethrow_exception(first);
}

// Copies `bytes` between host memory and staging chunks (kStagingChunk each) on several threads.
void ChunkCopy(const std::vector<void*>& chunks, uint8_t* host, size_t bytes, bool to_chunks) {
  size_t n = chunks.size();
  std::atomic<size_t> next{0};
  Parallel(CopyThreads(n), nullptr, [&](unsigned) {
    for (size_t c; (c = next.fetch_add(1)) < n;) {
      size_t off = c * kStagingChunk, len = std::min(kStagingChunk, bytes - off);
      if (to_chunks) {
        std::memcpy(chunks[c], host + off, len);
      } else {
        std::memcpy(host + off, chunks[c], len);
      }
    }
  });
}

// Synchronous copy between device memory and pageable host memory at full link speed: chunks
// go through page-locked buffers on several threads, each double-buffered on its own stream,
// so host memcpy and DMA overlap.
void StagedCopy(const ContextPtr& ctx, bool htod, CUdeviceptr dev, uint8_t* host, size_t bytes) {
  const DriverApi& cu = DrainedCu();
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

// Device allocations are owned by JS DeviceAllocation objects. Each live one is in
// AddonData::allocations (by address) with a weak reference to its owner from
// napi_add_finalizer: the finalizer frees what free() did not, and memCollect() frees the memory
// of owners the garbage collector has already found dead (finalizers only run once the event
// loop turns, which a synchronous loop of allocations never lets happen).

void Forget(AddonData& data, DeviceMem* m) {
  auto it = data.allocations.find(m->ptr);
  if (it != data.allocations.end() && it->second == m) data.allocations.erase(it);
}

// Device bytes are reported to V8 as external memory, so that it collects dropped arrays: the net
// change since the last report, at the next allocation, in steps of at least 1 MiB (small blocks
// come and go by the million, and each report is a call into V8). Two delays keep V8 from
// reacting to memory that comes and goes: a rise is reported one allocation late, so a block freed
// before the next allocation (a work area, a temporary the caller disposes) is never reported;
// and a fall is reported at most every 100 ms, so a loop that allocates and frees the same large
// buffers does not swing the figure. Each report of +128 MiB below the high mark started a full
// mark-compact: 240 µs per 128 MiB allocation on an H200 (fft.fft of 2^24 points took 2.3×
// cuFFT's own time).
void ReportExternal(AddonData& data, int64_t delta) { data.external_pending += delta; }

void FlushExternal(Napi::Env env, AddonData& data) {
  constexpr int64_t kStep = int64_t(1) << 20;
  constexpr auto kFallEvery = std::chrono::milliseconds(100);
  int64_t d = data.external_pending;
  if (d > -kStep && d < kStep) return;
  auto now = std::chrono::steady_clock::now();
  if (d < 0 && now - data.external_fall_at < kFallEvery) return;
  if (d < 0) data.external_fall_at = now;
  Napi::MemoryManagement::AdjustExternalMemory(env, d);
  data.external_pending = 0;
}

// Frees the memory of `m` (idempotent) and updates the counters.
void FreeMem(Napi::Env env, AddonData& data, DeviceMem* m, CUstream stream) {
  if (m->freed) return;
  size_t n = m->Release(stream);
  Forget(data, m);
  data.live_allocations--;
  data.live_bytes -= static_cast<int64_t>(n);
  ReportExternal(data, -static_cast<int64_t>(n));
}

void OwnerFinalized(napi_env env, void* raw, void*) {
  auto* m = static_cast<DeviceMem*>(raw);
  if (AddonData* data = Napi::Env(env).GetInstanceData<AddonData>()) {
    FreeMem(Napi::Env(env), *data, m, nullptr);
    Forget(*data, m);
  }
  if (m->owner) napi_delete_reference(env, m->owner);
  delete m;
}

// Frees allocations whose owners were collected; returns the bytes freed.
int64_t Collect(Napi::Env env, AddonData& data) {
  std::vector<DeviceMem*> dead;
  for (auto& [ptr, m] : data.allocations) {
    napi_value v = nullptr;
    if (napi_get_reference_value(env, m->owner, &v) == napi_ok && v == nullptr) dead.push_back(m);
  }
  int64_t before = data.live_bytes;
  // The finalizer still runs later and deletes `m`; here only the memory goes back.
  for (DeviceMem* m : dead) FreeMem(env, data, m, nullptr);
  return before - data.live_bytes;
}

// Checks up to `k` of the oldest entries of data.recent: memory of owners found dead goes back now
// (to the block cache when small), so a synchronous loop of temporaries reuses it after each
// collection instead of waiting for finalizers, which run only once the event loop turns. Stops at
// the first live owner (sent to the back), so the usual cost is one check.
void Reap(Napi::Env env, AddonData& data, int k) {
  for (int i = 0; i < k && !data.recent.empty(); i++) {
    CUdeviceptr p = data.recent.front();
    data.recent.pop_front();
    auto it = data.allocations.find(p);
    if (it == data.allocations.end()) continue;  // freed already
    napi_value v = nullptr;
    if (napi_get_reference_value(env, it->second->owner, &v) == napi_ok && v == nullptr) {
      FreeMem(env, data, it->second, nullptr);  // the finalizer still runs later and deletes it
    } else {
      data.recent.push_back(p);
      return;
    }
  }
}

// memAlloc(bytes, stream|null, owner) -> bigint address.
// CUresult cuMemAllocFromPoolAsync(CUdeviceptr* dptr, size_t bytesize, CUmemoryPool pool,
//                                  CUstream hStream)
Napi::Value MemAlloc(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  size_t bytes = SizeArg(info, 0, "bytes");
  CUstream stream = StreamArg(info[1]);
  std::shared_ptr<StreamRes> stream_res;
  if (stream) stream_res = Unwrap<StreamRes>(info[1], Kind::Stream, "stream");
  if (!info[2].IsObject()) ThrowType("ERR_INVALID_ARG_TYPE", "memAlloc needs its owner object");
  AddonData& data = Data(env);
  // Frees first: freeing memory of another context makes that context current for a while.
  if (data.live_bytes + static_cast<int64_t>(bytes) > data.collect_at) {
    Collect(env, data);
    data.collect_at = std::max<int64_t>(int64_t(256) << 20, 2 * data.live_bytes);
  }
  Reap(env, data, 4);
  FlushExternal(env, data);
  ContextPtr ctx = Enter();
  auto m = std::make_unique<DeviceMem>(ctx);
  m->size = bytes;
  m->pooled = true;
  m->stream = std::move(stream_res);
  if (bytes == 0) {  // nothing to free, nothing to track
    m->freed = true;
    return Napi::BigInt::New(env, uint64_t(0));
  }
  // A free after the stream is destroyed must still wait for its work (StreamRes::Destroy).
  if (m->stream) m->stream->MarkEvent();
  m->cls = stream ? 0 : BlockClass(bytes);
  m->ptr = m->cls ? ctx->TakeBlock(m->cls) : 0;
  // Without submitting queued launches first (RawCu): a stream-ordered allocation placed before
  // them in the stream is still before its own first use, and every free was submitted in order.
  if (!m->ptr)
    CU_CHECK(
        RawCu().cuMemAllocFromPoolAsync(&m->ptr, m->cls ? m->cls : bytes, ctx->Pool(), stream));
  DeviceMem* raw = m.get();
  if (napi_add_finalizer(env, info[2], raw, OwnerFinalized, nullptr, &raw->owner) != napi_ok) {
    raw->Release(stream);
    throw CuErr(CUDA_ERROR_UNKNOWN, "napi_add_finalizer", "could not track the allocation");
  }
  m.release();
  data.allocations[raw->ptr] = raw;
  data.recent.push_back(raw->ptr);
  data.live_allocations++;
  data.live_bytes += static_cast<int64_t>(bytes);
  ReportExternal(data, static_cast<int64_t>(bytes));
  return Napi::BigInt::New(env, static_cast<uint64_t>(raw->ptr));
}

// memFree(ptr, stream|null) -> boolean (false when it was not a live allocation).
// CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
Napi::Value MemFree(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CUdeviceptr ptr = PtrArg(info, 0, "ptr");
  AddonData& data = Data(env);
  auto it = data.allocations.find(ptr);
  if (it == data.allocations.end()) return Napi::Boolean::New(env, false);
  DeviceMem* m = it->second;
  FreeMem(env, data, m, StreamArg(info[1]));
  // The owner is alive (it called us), so no finalizer is pending: cancel it and let go now.
  napi_delete_reference(env, m->owner);
  m->owner = nullptr;
  delete m;
  return Napi::Boolean::New(env, true);
}

// memRecordStream(ptr, stream|null) -> boolean: work using the allocation at `ptr` (its base
// address) was queued on `stream` (null: the legacy stream), which is not the one it was
// allocated on; its free (explicit, dropped or collected) waits for that work, so the memory is
// not handed to a new owner while it may run. false when `ptr` is not a live allocation of this
// environment (a raw address: its user orders frees).
Napi::Value MemRecordStream(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CUdeviceptr ptr = PtrArg(info, 0, "ptr");
  const std::shared_ptr<StreamRes>* s = nullptr;
  if (!info[1].IsNull() && !info[1].IsUndefined())
    s = &Unwrap<StreamRes>(info[1], Kind::Stream, "stream");
  AddonData& data = Data(env);
  auto it = data.allocations.find(ptr);
  if (it == data.allocations.end()) return Napi::Boolean::New(env, false);
  if (s) MakeCurrent(*(*s)->ctx);  // RecordStream may create the stream's mark event
  it->second->RecordStream(s);
  return Napi::Boolean::New(env, true);
}

// memCollect() -> bytes freed from allocations whose owners the GC found dead.
Napi::Value MemCollect(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(Collect(info.Env(), Data(info.Env()))));
}

// memLive() -> [allocations, bytes] made through this environment and not yet freed
Napi::Value MemLive(const Napi::CallbackInfo& info) {
  AddonData& data = Data(info.Env());
  Napi::Array a = Napi::Array::New(info.Env(), 2);
  a.Set(0u, static_cast<double>(data.live_allocations));
  a.Set(1u, static_cast<double>(data.live_bytes));
  return a;
}

// poolInfo() -> [reservedBytes, usedBytes]
// CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void* value)
Napi::Value PoolInfo(const Napi::CallbackInfo& info) {
  ContextPtr ctx = Enter();
  cuuint64_t reserved = 0, used = 0;
  CU_CHECK(DrainedCu().cuMemPoolGetAttribute(ctx->Pool(), CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT,
                                             &reserved));
  CU_CHECK(DrainedCu().cuMemPoolGetAttribute(ctx->Pool(), CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used));
  Napi::Array a = Napi::Array::New(info.Env(), 2);
  a.Set(0u, static_cast<double>(reserved));
  a.Set(1u, static_cast<double>(used));
  return a;
}

// poolTrim(): returns cached blocks to the pool and cached pool memory to the driver, after the
// device is idle.
// CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
Napi::Value PoolTrim(const Napi::CallbackInfo& info) {
  ContextPtr ctx = Enter();
  ctx->FlushBlocks();
  CU_CHECK(DrainedCu().cuCtxSynchronize());
  CU_CHECK(DrainedCu().cuMemPoolTrimTo(ctx->Pool(), 0));
  return info.Env().Undefined();
}

// memcpyHtod(dstPtr, host, byteOffset, byteLength, pinned)
// memcpyDtoh(host, byteOffset, byteLength, srcPtr, pinned)
// CUresult cuMemcpyHtoD(CUdeviceptr dst, const void* src, size_t bytes)
// CUresult cuMemcpyDtoH(void* dst, CUdeviceptr src, size_t bytes)
template <bool kToDevice>
Napi::Value MemcpySync(const Napi::CallbackInfo& info) {
  CUdeviceptr dev = PtrArg(info, kToDevice ? 0 : 3, kToDevice ? "dst" : "src");
  HostRange h = HostArg(info, kToDevice ? 1 : 0, kToDevice ? "src" : "dst");
  bool pinned = info[4].ToBoolean();
  ContextPtr ctx = Enter();
  if (!pinned && h.bytes >= kStagedMin) {
    StagedCopy(ctx, kToDevice, dev, h.data, h.bytes);
  } else if (h.bytes && kToDevice) {
    CU_CHECK(DrainedCu().cuMemcpyHtoD(dev, h.data, h.bytes));
  } else if (h.bytes) {
    CU_CHECK(DrainedCu().cuMemcpyDtoH(h.data, dev, h.bytes));
  }
  return info.Env().Undefined();
}

// memcpyDtod(dst, src, bytes, stream?, async?) -> Promise when async
// CUresult cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s)
Napi::Value MemcpyDtod(const Napi::CallbackInfo& info) {
  CUdeviceptr dst = PtrArg(info, 0, "dst"), src = PtrArg(info, 1, "src");
  size_t bytes = SizeArg(info, 2, "bytes");
  CUstream stream = StreamArg(info[3]);
  AsyncOp op;
  op.ctx = Enter();
  if (bytes) CU_CHECK(DrainedCu().cuMemcpyDtoDAsync(dst, src, bytes, stream));
  if (info[4].ToBoolean()) return WhenDone(info.Env(), stream, std::move(op));
  return info.Env().Undefined();
}

// An event destroyed on scope exit (the driver keeps what a pending record or wait needs).
struct OrderingEvent {
  CUevent e = nullptr;
  explicit OrderingEvent(const DriverApi& cu) {
    CU_CHECK(cu.cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
  }
  ~OrderingEvent() { DrainedCuUnchecked().cuEventDestroy(e); }
  OrderingEvent(const OrderingEvent&) = delete;
  OrderingEvent& operator=(const OrderingEvent&) = delete;
};

// A stream argument that must belong to `ctx` (null/undefined: ctx's legacy stream).
CUstream StreamOn(const Napi::Value& v, const Context& ctx, const char* side) {
  if (v.IsUndefined() || v.IsNull()) return nullptr;
  const auto& s = Unwrap<StreamRes>(v, Kind::Stream, "stream");
  if (s->ctx.get() != &ctx) {
    ThrowType("ERR_DEVICE_MISMATCH",
              std::string("memcpyPeer: the ") + side + " stream belongs to device " +
                  std::to_string(s->ctx->ordinal) + ", not device " + std::to_string(ctx.ordinal));
  }
  return s->stream;
}

// memcpyPeer(dst, dstOrdinal, src, srcOrdinal, bytes, stream, srcStream, async) -> Promise when
// async. Between the primary contexts of two devices (or within one), ordered on both sides:
// `stream` (on the destination device; null: its legacy stream) first waits for the work queued
// so far on `srcStream` (on the source device; null: its legacy stream), then copies; `srcStream`
// then waits for the copy, so later writes to the source, and its free, come after the read.
// CUresult cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
//                            CUcontext srcContext, size_t ByteCount, CUstream hStream)
Napi::Value MemcpyPeer(const Napi::CallbackInfo& info) {
  CUdeviceptr dst = PtrArg(info, 0, "dst"), src = PtrArg(info, 2, "src");
  ContextPtr dc = PrimaryContext(IntArg(info, 1, "dstOrdinal"));
  ContextPtr sc = PrimaryContext(IntArg(info, 3, "srcOrdinal"));
  size_t bytes = SizeArg(info, 4, "bytes");
  CUstream stream = StreamOn(info[5], *dc, "destination");
  CUstream src_stream = StreamOn(info[6], *sc, "source");
  const DriverApi& cu = DrainedCu();
  MakeCurrent(*sc);
  OrderingEvent before(cu);
  CU_CHECK(cu.cuEventRecord(before.e, src_stream));
  MakeCurrent(*dc);
  OrderingEvent after(cu);
  CU_CHECK(cu.cuStreamWaitEvent(stream, before.e, 0));
  if (bytes) CU_CHECK(cu.cuMemcpyPeerAsync(dst, dc->ctx, src, sc->ctx, bytes, stream));
  CU_CHECK(cu.cuEventRecord(after.e, stream));
  MakeCurrent(*sc);
  CU_CHECK(cu.cuStreamWaitEvent(src_stream, after.e, 0));
  MakeCurrent(*dc);
  AsyncOp op;
  op.ctx = dc;
  if (info[7].ToBoolean()) return WhenDone(info.Env(), stream, std::move(op));
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
// memcpyDtohAsync(host, byteOffset, byteLength, srcPtr, pinned, stream) -> Promise
// `pinned`: the HostRegistration handle covering the range (null: pageable).
//
// Page-locked memory is copied by DMA straight from/to the host memory; the task holds the
// registration (unregistering waits for it) and the buffer (lib/memory.ts made it
// untransferable), and environment teardown waits for a pending DMA.
// Pageable memory goes through page-locked staging chunks owned by the task until the GPU is
// done with them. To the device: the source is copied into the chunks before this returns, so
// the caller may change or transfer it at once. To the host: the chunks are copied into the
// destination on the JS thread when the Promise settles, after reading the destination's
// buffer again: transferred (detached) or shrunk meanwhile, the Promise is rejected and nothing
// is written.
// CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void* src, size_t bytes, CUstream s)
// CUresult cuMemcpyDtoHAsync(void* dst, CUdeviceptr src, size_t bytes, CUstream s)
template <bool kToDevice>
Napi::Value MemcpyAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const size_t hi = kToDevice ? 1 : 0;
  CUdeviceptr dev = PtrArg(info, kToDevice ? 0 : 3, kToDevice ? "dst" : "src");
  HostRange h = HostArg(info, hi, kToDevice ? "src" : "dst");
  std::shared_ptr<HostReg> reg = RegistrationArg(info[4], h.data, h.bytes);
  CUstream stream = StreamArg(info[5]);
  AsyncOp op;
  op.ctx = Enter();
  const DriverApi& cu = DrainedCu();
  if (h.bytes == 0) return WhenDone(env, stream, std::move(op));
  if (reg) {
    if (kToDevice) {
      CU_CHECK(cu.cuMemcpyHtoDAsync(dev, h.data, h.bytes, stream));
    } else {
      CU_CHECK(cu.cuMemcpyDtoHAsync(h.data, dev, h.bytes, stream));
    }
    op.keep = {info[hi]};
    op.finish = [use = UseRegistration(reg)](Napi::Env env, const KeptValues&) {
      return env.Undefined();
    };
    op.uses_js_memory = true;
    return WhenDone(env, stream, std::move(op));
  }
  auto chunks = Chunks(op.ctx, h.bytes);
  size_t n = chunks->size();
  if (kToDevice) ChunkCopy(*chunks, h.data, h.bytes, true);
  for (size_t c = 0; c < n; c++) {
    size_t off = c * kStagingChunk, len = std::min(kStagingChunk, h.bytes - off);
    if (kToDevice) {
      CU_CHECK(cu.cuMemcpyHtoDAsync(dev + off, (*chunks)[c], len, stream));
    } else {
      CU_CHECK(cu.cuMemcpyDtoHAsync((*chunks)[c], dev + off, len, stream));
    }
  }
  op.work = [chunks] {};  // the chunks go back to the pool only after the GPU is done
  if (!kToDevice) {
    op.keep = {info[hi]};
    op.finish = [chunks, offset = h.offset, bytes = h.bytes](Napi::Env env,
                                                             const KeptValues& keep) {
      HostBuffer b;
      HostBufferOf(env, keep[0].Value(), &b);
      if (!b.base || offset > b.length || bytes > b.length - offset)
        ThrowType("ERR_INVALID_STATE",
                  "memcpyDtohAsync: the destination buffer was transferred (detached) or shrunk "
                  "while the copy was in flight, so nothing was written. The device memory is "
                  "unchanged: copy it again into a buffer that stays in place");
      ChunkCopy(*chunks, b.base + offset, bytes, false);
      return env.Undefined();
    };
  }
  return WhenDone(env, stream, std::move(op));
}

// memset(dstPtr, value, count, width (1|2|4), stream?, async?) -> Promise when async
// CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int ui, size_t N, CUstream s) & co
Napi::Value Memset(const Napi::CallbackInfo& info) {
  CUdeviceptr dst = PtrArg(info, 0, "dst");
  size_t count = SizeArg(info, 2, "count");
  int width = IntArg(info, 3, "width");
  if (width != 1 && width != 2 && width != 4)
    ThrowRange("ERR_OUT_OF_RANGE", "The \"width\" argument must be 1, 2 or 4");
  // The value must fit the width: no silent truncation of 256 to 0 or of -1 to 0xffffffff.
  double v = info[1].IsNumber() ? info[1].As<Napi::Number>().DoubleValue() : -1;
  const double limit = width == 1 ? 256.0 : width == 2 ? 65536.0 : 4294967296.0;
  if (!(v >= 0 && v < limit) || v != static_cast<double>(static_cast<uint32_t>(v)))
    ThrowRange("ERR_OUT_OF_RANGE", "The \"value\" argument must be an integer in [0, 2^(8*width))");
  uint32_t value = static_cast<uint32_t>(v);
  CUstream stream = StreamArg(info[4]);
  bool async = info[5].ToBoolean();
  AsyncOp op;
  op.ctx = Enter();
  const DriverApi& cu = DrainedCu();
  if (count) {
    if (width == 1) {
      CU_CHECK(cu.cuMemsetD8Async(dst, static_cast<unsigned char>(value), count, stream));
    } else if (width == 2) {
      CU_CHECK(cu.cuMemsetD16Async(dst, static_cast<unsigned short>(value), count, stream));
    } else {
      CU_CHECK(cu.cuMemsetD32Async(dst, value, count, stream));
    }
  }
  if (async) return WhenDone(info.Env(), stream, std::move(op));
  return info.Env().Undefined();
}

}  // namespace

void InitMemory(Napi::Env env, Napi::Object exports) {
  NODECUDA_EXPORT(env, exports, "memAlloc", MemAlloc);
  NODECUDA_EXPORT(env, exports, "memFree", MemFree);
  NODECUDA_EXPORT(env, exports, "memRecordStream", MemRecordStream);
  NODECUDA_EXPORT(env, exports, "memCollect", MemCollect);
  NODECUDA_EXPORT(env, exports, "memLive", MemLive);
  NODECUDA_EXPORT(env, exports, "poolInfo", PoolInfo);
  NODECUDA_EXPORT(env, exports, "poolTrim", PoolTrim);
  NODECUDA_EXPORT(env, exports, "memcpyHtod", MemcpySync<true>);
  NODECUDA_EXPORT(env, exports, "memcpyDtoh", MemcpySync<false>);
  NODECUDA_EXPORT(env, exports, "memcpyDtod", MemcpyDtod);
  NODECUDA_EXPORT(env, exports, "memcpyPeer", MemcpyPeer);
  NODECUDA_EXPORT(env, exports, "memcpyHtodAsync", MemcpyAsync<true>);
  NODECUDA_EXPORT(env, exports, "memcpyDtohAsync", MemcpyAsync<false>);
  NODECUDA_EXPORT(env, exports, "memset", Memset);
}

}  // namespace nodecuda
