// Promise completion without blocking the main thread or the libuv pool: waits (an event, a
// context) run on one worker thread per environment, and a thread-safe function settles the
// Promise on the JS thread.
//
// Lifetime rules (docs/errors.md "Lifetimes"): the worker thread never touches a JS value. What
// it or the GPU uses (events, staging chunks, contexts) it owns through shared_ptr, so the JS
// side may dispose or collect anything meanwhile. Host memory the GPU writes is written either
// into staging memory that `finish` copies into the destination on the JS thread after checking
// the destination still exists, or into page-locked memory kept alive (and untransferable, in
// lib/memory.ts) until the task settles. When the environment closes (worker.terminate(),
// exit) nothing is settled, the worker thread finishes its queued waits on its own without the
// environment, and the closing thread waits only for tasks marked `uses_js_memory`.
#pragma once

#include <napi.h>

#include <exception>
#include <functional>
#include <memory>
#include <vector>

#include "addon.h"
#include "handles.h"

namespace nodecuda {

using KeptValues = std::vector<Napi::Reference<Napi::Value>>;

struct AsyncOp {
  ContextPtr ctx;  // made current on the worker thread before `work`
  // Worker thread; may throw. Touches no JS value; owns (by value or shared_ptr) whatever it or
  // the GPU work it waits for uses.
  std::function<void()> work;
  // JS thread, after `work` succeeded: the value the Promise resolves with (null function:
  // undefined). May throw (CuErr, ArgErr…): the Promise is rejected with it.
  std::function<Napi::Value(Napi::Env, const KeptValues&)> finish;
  std::vector<Napi::Value> keep;  // JS values held until settled (`finish` gets them)
  // The GPU reads or writes memory owned by JS (page-locked host memory) until `work` ends:
  // closing the environment waits for this task instead of abandoning it, since the isolate
  // frees that memory as it goes.
  bool uses_js_memory = false;
};

class AsyncQueue {
 public:
  explicit AsyncQueue(Napi::Env env);
  ~AsyncQueue();
  AsyncQueue(const AsyncQueue&) = delete;
  AsyncQueue& operator=(const AsyncQueue&) = delete;
  // Queues the op and returns its Promise.
  Napi::Promise Submit(Napi::Env env, AsyncOp op);

  struct Job;
  struct Shared;

 private:
  struct Pending {
    Napi::Promise::Deferred deferred;
    KeptValues keep;
    std::function<Napi::Value(Napi::Env, const KeptValues&)> finish;
    std::shared_ptr<Job> job;
  };
  static void Settle(Napi::Env env, Napi::Function, AsyncQueue* self, Job* job);
  static void OnEnvCleanup(void* self);
  void Close();
  void SettleOne(Napi::Env env, Pending& p);
  using Tsfn = Napi::TypedThreadSafeFunction<AsyncQueue, Job, &AsyncQueue::Settle>;
  Tsfn tsfn_;
  std::shared_ptr<Shared> shared_;
  napi_env env_;
  // JS thread only:
  std::unordered_map<uint64_t, Pending> pending_;
  uint64_t next_id_ = 1;
  uint64_t must_finish_ = 0;  // highest id of a pending task that writes JS memory
  bool closed_ = false;
};

AsyncQueue& Queue(Napi::Env env);

// A Promise that settles when all work queued so far on `stream` is done: an event recorded now
// and waited for by the worker thread, before op.work.
Napi::Promise WhenDone(Napi::Env env, CUstream stream, AsyncOp op);

}  // namespace nodecuda
