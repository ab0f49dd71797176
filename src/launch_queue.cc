// Deferred launches of nodecuda's own kernels. cuLaunchKernel costs about 3 µs of CPU; a loop of
// small array operations spends most of its time there. When such launches come in a run (no
// other driver call between them), the JS thread copies each into a ring and one launcher thread
// submits them, in order, while JS goes on to the next operation.
//
// Order with everything else is kept by draining: every driver call made through DrainedCu() or
// DrainedCuUnchecked() (memory, copies, events, syncs, module and stream destruction…) first
// submits what is queued, on the calling thread if the launcher has not got to it (then restoring
// that thread's current context). A failed queued launch is kept on its context for the thread that
// queued it, and thrown by that thread's next DrainedCu() or MakeCurrent() on that context, as CUDA
// reports asynchronous errors; sticky faults poison the context as usual.
//
// Ownership: a record owns its kernel's function (which owns its module and context) and its
// stream until it is submitted, so nothing it uses can be destroyed while it waits; explicit
// destruction (stream.dispose(), device reset) goes through a driver call, which submits first.
//
// One thread queues at a time (the ring has a single producer): the first JS thread to launch.
// Others launch in place (slower, never wrong) until that thread exits, when it submits what it
// queued and hands the queue to the next thread that launches.
#include "launch_queue.h"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <thread>

#include "context.h"

namespace nodecuda {
namespace {

constexpr size_t kSlots = 512;
constexpr size_t kMaxParams = 512;
constexpr auto kSpin = std::chrono::microseconds(50);  // launcher's wait for more before sleeping

struct Record {
  CUfunction fn;
  CUstream stream;
  std::shared_ptr<FunctionRes> owner;       // keeps fn's module and context alive
  std::shared_ptr<StreamRes> stream_owner;  // null for the legacy stream
  uint64_t origin;                          // ThreadTag() of the thread that queued it
  uint32_t cfg[7];
  uint32_t bytes;
  alignas(16) unsigned char params[kMaxParams];
};

thread_local bool t_no_drain = false;  // the launcher thread, or a thread inside Drain

thread_local bool t_producer = false;  // the one thread that queues (see ProducerRole)

// Made on the producer thread when it becomes the producer: at the thread's exit it submits what
// the thread queued and lets the next thread that launches take over.
struct ProducerRole {
  ~ProducerRole();
};

class Queue {
 public:
  std::atomic<bool> used{false};  // set once anything was queued: BeforeDriverCall's fast exit
  static Queue& TheQueue();

  QueueResult Enqueue(const std::shared_ptr<FunctionRes>& f, CUstream stream,
                      const std::shared_ptr<StreamRes>* s, const uint32_t* cfg, const void* params,
                      size_t bytes) {
    if (!enabled_ || bytes > kMaxParams) return QueueResult::Fallback;
    if (!t_producer) {
      std::thread::id none;
      if (!producer_.compare_exchange_strong(none, std::this_thread::get_id()))
        return QueueResult::Fallback;  // another JS thread (worker_threads) owns the queue
      t_producer = true;
      thread_local ProducerRole role;  // constructed once per thread, destroyed at its exit
      (void)role;
    }
    uint64_t t = tail_.load(std::memory_order_relaxed);
    if (t == head_.load(std::memory_order_acquire) && sleeping_.load() && ++streak_ < streak_min_)
      return QueueResult::Direct;  // the launcher is idle and no run yet: launch here
    if (t - head_.load(std::memory_order_acquire) >= kSlots) WaitForRoom(t);
    Record& r = ring_[t % kSlots];
    r.fn = f->fn;
    r.stream = stream;
    r.owner = f;
    if (s) r.stream_owner = *s;
    r.origin = ThreadTag();
    std::memcpy(r.cfg, cfg, sizeof r.cfg);
    r.bytes = static_cast<uint32_t>(bytes);
    std::memcpy(r.params, params, bytes);
    used.store(true, std::memory_order_relaxed);
    queued_.store(queued_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    tail_.store(t + 1);  // seq_cst: ordered before the read of sleeping_ (see Run)
    if (sleeping_.load()) {
      streak_ = 0;  // after the launcher sleeps, a new run must build up again
      Wake();
    }
    return QueueResult::Queued;
  }

  // Before a driver call on this thread: a run of launches ends; queued ones are submitted.
  void Before() {
    if (t_no_drain) return;
    if (t_producer) streak_ = 0;
    if (head_.load(std::memory_order_acquire) != tail_.load(std::memory_order_acquire)) Drain();
  }

  void Drain() {
    if (t_no_drain) return;
    t_no_drain = true;
    SavedCurrent saved = SaveCurrent();
    uint64_t n;
    {
      std::lock_guard<std::mutex> lock(submit_mu_);
      n = SubmitAll();
    }
    if (n) RestoreCurrent(saved);
    t_no_drain = false;
  }

  // At the producer thread's exit: what it queued is submitted, and the next thread to launch
  // becomes the producer.
  void Release() {
    Drain();
    streak_ = 0;
    producer_.store(std::thread::id{});
  }

  // [launches queued, of which the launcher thread submitted]: for tests.
  std::pair<uint64_t, uint64_t> Stats() const { return {queued_.load(), by_launcher_.load()}; }

  // At exit: no launches after this returns (the driver is torn down next).
  void Shutdown() {
    std::lock_guard<std::mutex> lock(submit_mu_);
    stop_ = true;
    std::lock_guard<std::mutex> sleep(sleep_mu_);
    cv_.notify_one();
  }

  Queue() {
    const char* on = std::getenv("NODECUDA_LAUNCH_QUEUE");
    enabled_ = !(on && std::strcmp(on, "0") == 0);
    const char* s = std::getenv("NODECUDA_LAUNCH_QUEUE_RUN");
    if (s && std::atoi(s) > 0) streak_min_ = std::atoi(s);
  }

 private:
  static void Pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    std::this_thread::yield();
#endif
  }

  // The ring is full: wait until a quarter is free, looking at head_ rarely (every look takes
  // its cache line from the launcher), and giving the core away while long kernels hold it up.
  void WaitForRoom(uint64_t t) {
    for (int looks = 0; t - head_.load(std::memory_order_acquire) > kSlots * 3 / 4; looks++) {
      if (looks < 256) {
        for (int i = 0; i < 64; i++) Pause();
      } else {
        std::this_thread::sleep_for(std::chrono::microseconds(20));
      }
    }
  }

  // Submits ring_[head_, tail_) in order; submit_mu_ held. Returns how many.
  uint64_t SubmitAll() {
    uint64_t h0 = head_.load(std::memory_order_relaxed), h = h0;
    uint64_t t = tail_.load(std::memory_order_acquire);
    for (; h != t && !stop_; h++) {
      Submit(ring_[h % kSlots]);
      head_.store(h + 1, std::memory_order_release);
    }
    return h - h0;
  }

  // Submits one record and lets go of what it owned (its last owner may be the record: then the
  // module or stream is destroyed here, after the launch, which the driver orders before it).
  void Submit(Record& r) {
    std::shared_ptr<FunctionRes> owner = std::move(r.owner);
    std::shared_ptr<StreamRes> stream_owner = std::move(r.stream_owner);
    Context& c = *owner->module->ctx;
    // Made before a device reset: the function and stream are gone. Poisoned: reported already.
    if (!owner->module->Live() || (stream_owner && !stream_owner->Live())) return;
    if (!TryMakeCurrent(c)) return;
    size_t bytes = r.bytes;
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, r.params, CU_LAUNCH_PARAM_BUFFER_SIZE, &bytes,
                     CU_LAUNCH_PARAM_END};
    const uint32_t* g = r.cfg;
    CUresult res = RawCu().cuLaunchKernel(r.fn, g[0], g[1], g[2], g[3], g[4], g[5], g[6], r.stream,
                                          nullptr, bytes ? extra : nullptr);
    if (res == CUDA_SUCCESS) return;
    if (IsSticky(res)) {
      NoteStickyFault(res, "cuLaunchKernel");
    } else {
      NoteLaunchFailure(c, r.origin, static_cast<int>(res));
    }
  }

  void Wake() {
    std::lock_guard<std::mutex> lock(sleep_mu_);
    if (!started_) {
      try {
        std::thread([this] { Run(); }).detach();
      } catch (const std::system_error&) {
        enabled_ = false;  // no thread: the next driver call submits what is queued
        return;
      }
      started_ = true;
      std::atexit([] { TheQueue().Shutdown(); });
    }
    cv_.notify_one();
  }

  void Run() {
    t_no_drain = true;
    for (;;) {
      auto idle_since = std::chrono::steady_clock::now();
      while (head_.load(std::memory_order_acquire) == tail_.load(std::memory_order_acquire)) {
        Pause();
        if (std::chrono::steady_clock::now() - idle_since < kSpin) continue;
        std::unique_lock<std::mutex> lock(sleep_mu_);
        sleeping_.store(true);
        cv_.wait(lock, [&] { return stop_ || head_.load() != tail_.load(); });
        sleeping_.store(false);
        if (stop_) return;
        idle_since = std::chrono::steady_clock::now();
      }
      std::lock_guard<std::mutex> lock(submit_mu_);
      if (stop_) return;
      by_launcher_.fetch_add(SubmitAll(), std::memory_order_relaxed);
    }
  }

  bool enabled_ = true;
  int streak_min_ = 3;               // launches in a run before the launcher takes over
  int streak_ = 0;                   // producer thread only
  std::atomic<uint64_t> queued_{0};  // written by the producer thread only
  std::atomic<uint64_t> by_launcher_{0};
  std::atomic<std::thread::id> producer_{};
  alignas(64) std::atomic<uint64_t> head_{0};  // next to submit
  alignas(64) std::atomic<uint64_t> tail_{0};  // next free slot
  alignas(64) std::atomic<bool> sleeping_{true};
  bool started_ = false;
  std::atomic<bool> stop_{false};
  std::mutex submit_mu_;  // held while submitting (launcher or a draining thread)
  std::mutex sleep_mu_;
  std::condition_variable cv_;
  Record ring_[kSlots];
};

// Never destroyed: the detached launcher may still be asleep in it at exit.
Queue& Queue::TheQueue() {
  static Queue* q = new Queue();
  return *q;
}

ProducerRole::~ProducerRole() {
  if (!t_producer) return;
  Queue::TheQueue().Release();
  t_producer = false;
}

}  // namespace

QueueResult EnqueueLaunch(const std::shared_ptr<FunctionRes>& f, CUstream stream,
                          const std::shared_ptr<StreamRes>* s, const uint32_t* cfg,
                          const void* params, size_t bytes) {
  return Queue::TheQueue().Enqueue(f, stream, s, cfg, params, bytes);
}

void BeforeDriverCall(bool report) {
  static Queue& q = Queue::TheQueue();
  if (!q.used.load(std::memory_order_relaxed)) return;
  q.Before();
  // Not on the launcher thread nor inside a drain: failures are for the JS thread's calls.
  if (report && !t_no_drain) ReportCurrentLaunchFailure();
}

std::pair<uint64_t, uint64_t> LaunchQueueStats() { return Queue::TheQueue().Stats(); }

void DrainLaunches() {
  Queue& q = Queue::TheQueue();
  if (q.used.load(std::memory_order_relaxed)) q.Drain();
}

}  // namespace nodecuda
