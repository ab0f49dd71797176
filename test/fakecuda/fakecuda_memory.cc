// fakecuda (fakecuda_state.h describes the double): device and page-locked memory, copies,
// memsets, streams and events.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "fakecuda_state.h"

using namespace fakecuda;

namespace {

bool Pinned(const void* h, size_t n) {
  uintptr_t p = H(h);
  auto it = g_pinned.upper_bound(p);
  if (it == g_pinned.begin()) return false;
  --it;
  return p >= it->first && p + n <= it->first + it->second.first;
}

// A copy in stream order. Pageable host memory: host-to-device is staged now (the caller may
// reuse the source when the call returns), device-to-host completes before the call returns.
CUresult Copy(CUstream h, bool async, uint8_t* dst, const uint8_t* src, size_t n, bool host_src,
              bool host_dst) {
  std::unique_lock<std::mutex> lock(mu);
  Ctx* c;
  StreamP s;
  if (CUresult r = Current(&c)) return r;
  if (CUresult r = StreamOf(c, h, &s)) return r;
  if (!dst || !src) return CUDA_ERROR_INVALID_VALUE;
  if (n == 0) return CUDA_SUCCESS;
  std::shared_ptr<std::vector<uint8_t>> staged;
  if (async && host_src && !Pinned(src, n)) {
    staged = std::make_shared<std::vector<uint8_t>>(src, src + n);
    src = staged->data();
  }
  uint64_t seq = Enqueue(s, [dst, src, n, staged] { std::memcpy(dst, src, n); });
  if (!async || (host_dst && !Pinned(dst, n))) Wait(lock, s, seq);
  return CUDA_SUCCESS;
}

CUresult Memset(CUdeviceptr d, unsigned v, size_t count, int width, CUstream h, bool async) {
  std::unique_lock<std::mutex> lock(mu);
  Ctx* c;
  StreamP s;
  if (CUresult r = Current(&c)) return r;
  if (CUresult r = StreamOf(c, h, &s)) return r;
  if (count == 0) return CUDA_SUCCESS;
  uint8_t* p = Dev(d, count * width);
  if (!p || (uintptr_t(d) % width)) return CUDA_ERROR_INVALID_VALUE;
  uint64_t seq = Enqueue(s, [p, v, count, width] {
    for (size_t i = 0; i < count; i++) std::memcpy(p + i * width, &v, width);  // little endian
  });
  if (!async) Wait(lock, s, seq);
  return CUDA_SUCCESS;
}

}  // namespace

// ---- memory ----------------------------------------------------------------------------------

FAKE_API CUresult cuMemGetInfo(size_t* free_bytes, size_t* total) {
  LOCK_CTX;
  if (!free_bytes || !total) return CUDA_ERROR_INVALID_VALUE;
  *free_bytes = g_total - g_used;
  *total = g_total;
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuMemAlloc(CUdeviceptr* out, size_t n) {
  LOCK_CTX;
  return AllocDev(out, n, false);
}
FAKE_API CUresult cuMemFree(CUdeviceptr d) {
  LOCK_CTX;
  WaitContext(lock, t_ctx);  // cuMemFree waits for work that may use the memory
  void* p = Unregister(d);
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  std::free(p);
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuDeviceGetDefaultMemPool(CUmemoryPool* pool, CUdevice d) {
  if (BadDev(d)) return CUDA_ERROR_INVALID_DEVICE;
  return pool ? (*pool = reinterpret_cast<CUmemoryPool>(8 + d), CUDA_SUCCESS)
              : CUDA_ERROR_INVALID_VALUE;
}
FAKE_API CUresult cuMemAllocFromPoolAsync(CUdeviceptr* out, size_t n, CUmemoryPool pool,
                                          CUstream h) {
  LOCK_CTX;
  StreamP s;
  if (BadPool(H(pool))) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = StreamOf(c, h, &s)) return r;
  return AllocDev(out, n, true);
}
// Leaves the registry now (later calls naming it fail); the memory is freed in stream order,
// so work queued earlier on other streams that runs later is a use-after-free.
FAKE_API CUresult cuMemFreeAsync(CUdeviceptr d, CUstream h) {
  LOCK_CTX;
  StreamP s;
  if (CUresult r = StreamOf(c, h, &s)) return r;
  void* p = Unregister(d);
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  Enqueue(s, [p] { std::free(p); });
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc* map, size_t n) {
  if (BadPool(H(pool)) || (!map && n)) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < n; i++)
    if (BadDev(map[i].location.id)) return CUDA_ERROR_INVALID_DEVICE;
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute a, void* v) {
  if (BadPool(H(pool)) || !v) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> lock(mu);
  if (a == CU_MEMPOOL_ATTR_RELEASE_THRESHOLD) g_threshold = *static_cast<cuuint64_t*>(v);
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute a, void* v) {
  if (BadPool(H(pool)) || !v) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> lock(mu);
  size_t pooled = 0;
  for (auto& [p, m] : g_mem) pooled += m.pooled ? m.size : 0;
  if (a == CU_MEMPOOL_ATTR_RELEASE_THRESHOLD) {
    *static_cast<cuuint64_t*>(v) = g_threshold;
  } else if (a == CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES ||
             a == CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC ||
             a == CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES) {
    *static_cast<int*>(v) = 1;
  } else {
    *static_cast<cuuint64_t*>(v) = pooled;  // reserved == used: freed memory goes back at once
  }
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t) {
  return BadPool(H(pool)) ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

#define DEV_OR_FAIL(var, d, n)             \
  uint8_t* var;                            \
  {                                        \
    std::lock_guard<std::mutex> lock_(mu); \
    var = Dev(d, n);                       \
  }                                        \
  if (!var && n) return CUDA_ERROR_INVALID_VALUE
FAKE_API CUresult cuMemcpyHtoD(CUdeviceptr d, const void* h, size_t n) {
  DEV_OR_FAIL(p, d, n);
  return Copy(nullptr, false, p, static_cast<const uint8_t*>(h), n, true, false);
}
FAKE_API CUresult cuMemcpyDtoH(void* h, CUdeviceptr d, size_t n) {
  DEV_OR_FAIL(p, d, n);
  return Copy(nullptr, false, static_cast<uint8_t*>(h), p, n, false, true);
}
FAKE_API CUresult cuMemcpyDtoD(CUdeviceptr d, CUdeviceptr s, size_t n) {
  DEV_OR_FAIL(dp, d, n);
  DEV_OR_FAIL(sp, s, n);
  return Copy(nullptr, false, dp, sp, n, false, false);
}
FAKE_API CUresult cuMemcpyHtoDAsync(CUdeviceptr d, const void* h, size_t n, CUstream st) {
  DEV_OR_FAIL(p, d, n);
  return Copy(st, true, p, static_cast<const uint8_t*>(h), n, true, false);
}
FAKE_API CUresult cuMemcpyDtoHAsync(void* h, CUdeviceptr d, size_t n, CUstream st) {
  DEV_OR_FAIL(p, d, n);
  return Copy(st, true, static_cast<uint8_t*>(h), p, n, false, true);
}
FAKE_API CUresult cuMemcpyDtoDAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) {
  DEV_OR_FAIL(dp, d, n);
  DEV_OR_FAIL(sp, s, n);
  return Copy(st, true, dp, sp, n, false, false);
}
// One address space: a peer copy is a device-to-device copy on `st` (of the current context).
FAKE_API CUresult cuMemcpyPeerAsync(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc,
                                    size_t n, CUstream st) {
  {
    std::lock_guard<std::mutex> lock(mu);
    if (!Find(g_ctx, H(dc), "CUcontext") || !Find(g_ctx, H(sc), "CUcontext"))
      return CUDA_ERROR_INVALID_CONTEXT;
  }
  return cuMemcpyDtoDAsync(d, s, n, st);
}
FAKE_API CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags) {
  LOCK_CTX;
  Ctx* p = Find(g_ctx, H(peer), "CUcontext");
  if (!p || flags) return p ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_INVALID_CONTEXT;
  if (p->dev == c->dev) return CUDA_ERROR_INVALID_DEVICE;
  if (!c->peers.insert(H(peer)).second) return CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuMemsetD8(CUdeviceptr d, unsigned char v, size_t n) {
  return Memset(d, v, n, 1, nullptr, false);
}
FAKE_API CUresult cuMemsetD16(CUdeviceptr d, unsigned short v, size_t n) {
  return Memset(d, v, n, 2, nullptr, false);
}
FAKE_API CUresult cuMemsetD32(CUdeviceptr d, unsigned v, size_t n) {
  return Memset(d, v, n, 4, nullptr, false);
}
FAKE_API CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s) {
  return Memset(d, v, n, 1, s, true);
}
FAKE_API CUresult cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, CUstream s) {
  return Memset(d, v, n, 2, s, true);
}
FAKE_API CUresult cuMemsetD32Async(CUdeviceptr d, unsigned v, size_t n, CUstream s) {
  return Memset(d, v, n, 4, s, true);
}

FAKE_API CUresult cuMemHostRegister(void* p, size_t n, unsigned) {
  LOCK_CTX;
  if (!p || !n) return CUDA_ERROR_INVALID_VALUE;
  auto it = g_pinned.lower_bound(H(p) + n);
  if (it != g_pinned.begin() && std::prev(it)->first + std::prev(it)->second.first > H(p))
    return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
  volatile uint8_t first = static_cast<uint8_t*>(p)[0], last = static_cast<uint8_t*>(p)[n - 1];
  (void)first, (void)last;  // pinning touches the pages
  g_pinned[H(p)] = {n, false};
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuMemHostUnregister(void* p) {
  LOCK_CTX;
  auto it = g_pinned.find(H(p));
  if (it == g_pinned.end() || it->second.second) return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
  g_pinned.erase(it);
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuMemAllocHost(void** out, size_t n) {
  LOCK_CTX;
  if (!out || !n) return CUDA_ERROR_INVALID_VALUE;
  if (posix_memalign(out, 4096, n) != 0) return CUDA_ERROR_OUT_OF_MEMORY;
  g_pinned[H(*out)] = {n, true};
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuMemFreeHost(void* p) {
  LOCK_CTX;
  auto it = g_pinned.find(H(p));
  if (it == g_pinned.end() || !it->second.second) return CUDA_ERROR_INVALID_VALUE;
  g_pinned.erase(it);
  std::free(p);  // no implicit wait: a copy still queued on it is a use-after-free
  return CUDA_SUCCESS;
}

// ---- streams and events ----------------------------------------------------------------------

FAKE_API CUresult cuStreamCreate(CUstream* out, unsigned flags) {
  LOCK_CTX;
  if (!out || flags > CU_STREAM_NON_BLOCKING) return CUDA_ERROR_INVALID_VALUE;
  uintptr_t h = NewHandle();
  g_streams[h] = NewStream(t_ctx, !(flags & CU_STREAM_NON_BLOCKING));
  *out = reinterpret_cast<CUstream>(h);
  return CUDA_SUCCESS;
}
// Returns at once; queued work still runs (the thread ends when the queue is empty).
FAKE_API CUresult cuStreamDestroy(CUstream h) {
  std::lock_guard<std::mutex> lock(mu);
  StreamP* s = Find(g_streams, H(h), "CUstream");
  if (!s) return CUDA_ERROR_INVALID_HANDLE;
  (*s)->closing = true;
  g_streams.erase(H(h));
  g_dead.insert(H(h));
  cv.notify_all();
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuStreamSynchronize(CUstream h) {
  Delay();
  LOCK_CTX;
  StreamP s;
  if (CUresult r = StreamOf(c, h, &s)) return r;
  Wait(lock, s, s->enq);
  return c->sticky;
}
FAKE_API CUresult cuStreamQuery(CUstream h) {
  LOCK_CTX;
  StreamP s;
  if (CUresult r = StreamOf(c, h, &s)) return r;
  return s->done == s->enq ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}
FAKE_API CUresult cuStreamWaitEvent(CUstream h, CUevent e, unsigned flags) {
  LOCK_CTX;
  StreamP s;
  if (CUresult r = StreamOf(c, h, &s)) return r;
  auto* ev = Find(g_events, H(e), "CUevent");
  if (!ev) return CUDA_ERROR_INVALID_HANDLE;
  if ((*ev)->stream) Enqueue(s, nullptr, {{(*ev)->stream, (*ev)->seq}});
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuEventCreate(CUevent* out, unsigned flags) {
  LOCK_CTX;
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  uintptr_t h = NewHandle();
  auto e = std::make_shared<Event>();
  e->ctx = t_ctx;
  e->flags = flags;
  g_events[h] = e;
  *out = reinterpret_cast<CUevent>(h);
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuEventDestroy(CUevent e) {
  std::lock_guard<std::mutex> lock(mu);
  auto* ev = Find(g_events, H(e), "CUevent");
  if (!ev) return CUDA_ERROR_INVALID_HANDLE;
  if ((*ev)->waiters)
    Die("cuEventDestroy(%#lx) while another thread waits on it in cuEventSynchronize",
        (unsigned long)H(e));
  g_events.erase(H(e));
  g_dead.insert(H(e));
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuEventRecord(CUevent e, CUstream h) {
  LOCK_CTX;
  StreamP s;
  if (CUresult r = StreamOf(c, h, &s)) return r;
  auto* found = Find(g_events, H(e), "CUevent");
  if (!found) return CUDA_ERROR_INVALID_HANDLE;
  std::shared_ptr<Event> ev = *found;
  uint64_t seq = s->enq + 1;
  Enqueue(s, [ev, seq] {
    std::lock_guard<std::mutex> lock(mu);
    if (ev->seq == seq) ev->ms = NowMs();
  });
  ev->stream = s;
  ev->seq = seq;
  ev->ms = -1;
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuEventSynchronize(CUevent e) {
  std::shared_ptr<Event> ev;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto* found = Find(g_events, H(e), "CUevent");
    if (!found) return CUDA_ERROR_INVALID_HANDLE;
    ev = *found;
    ev->waiters++;
  }
  Delay();
  std::unique_lock<std::mutex> lock(mu);
  if (ev->stream) Wait(lock, ev->stream, ev->seq);
  ev->waiters--;
  return g_ctx.count(ev->ctx) ? g_ctx[ev->ctx].sticky : CUDA_SUCCESS;
}
FAKE_API CUresult cuEventQuery(CUevent e) {
  std::lock_guard<std::mutex> lock(mu);
  auto* ev = Find(g_events, H(e), "CUevent");
  if (!ev) return CUDA_ERROR_INVALID_HANDLE;
  if ((*ev)->stream && (*ev)->stream->done < (*ev)->seq) return CUDA_ERROR_NOT_READY;
  return g_ctx[(*ev)->ctx].sticky;
}
// cuEventElapsedTime_v2 (CUDA 12.8): not on older "drivers" (see cuCtxCreate); v1:
// fakecuda_proc.cc.
FAKE_API CUresult cuEventElapsedTime(float* ms, CUevent a, CUevent b) {
  if (DriverVersion() < 12080)
    Die("cuEventElapsedTime_v2 called on a CUDA %d driver", DriverVersion());
  return EventElapsedTime(ms, a, b);
}
CUresult fakecuda::EventElapsedTime(float* ms, CUevent a, CUevent b) {
  std::lock_guard<std::mutex> lock(mu);
  auto* ea = Find(g_events, H(a), "CUevent");
  auto* eb = Find(g_events, H(b), "CUevent");
  if (!ms || !ea || !eb) return CUDA_ERROR_INVALID_HANDLE;
  if (((*ea)->flags | (*eb)->flags) & CU_EVENT_DISABLE_TIMING) return CUDA_ERROR_INVALID_HANDLE;
  if (!(*ea)->stream || !(*eb)->stream) return CUDA_ERROR_INVALID_HANDLE;
  if ((*ea)->ms < 0 || (*eb)->ms < 0) return CUDA_ERROR_NOT_READY;
  *ms = static_cast<float>((*eb)->ms - (*ea)->ms);
  return CUDA_SUCCESS;
}
