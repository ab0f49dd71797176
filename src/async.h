// Promise completion without blocking the main thread or the libuv pool: work (an event wait, the
// host half of a staged copy) runs on one worker thread per environment, and the result comes back
// through a thread-safe function that settles the Promise on the JS thread.
#pragma once

#include <napi.h>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "addon.h"
#include "handles.h"

namespace nodecuda {

struct AsyncTask {
  ContextPtr ctx;                 // made current on the worker thread before `work`
  std::function<void()> work;     // worker thread; may throw CuErr
  std::function<void()> cleanup;  // JS thread, before settling (e.g. return staging memory)
  std::vector<Napi::Reference<Napi::Value>> keep;  // JS values held until settled
  std::optional<CuErr> error;
  Napi::Promise::Deferred deferred;
  explicit AsyncTask(Napi::Env env) : deferred(Napi::Promise::Deferred::New(env)) {}
};

class AsyncQueue {
 public:
  explicit AsyncQueue(Napi::Env env);
  ~AsyncQueue();
  // Queues the task and returns its Promise (resolved with undefined, or rejected with CudaError).
  Napi::Promise Submit(std::unique_ptr<AsyncTask> task);
  // Stops the worker (env teardown).
  void Stop();

 private:
  static void Settle(Napi::Env env, Napi::Function, void* ctx, AsyncTask* task);
  void Run();
  using Tsfn = Napi::TypedThreadSafeFunction<void, AsyncTask, &AsyncQueue::Settle>;
  Tsfn tsfn_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<AsyncTask*> tasks_;
  bool stop_ = false;
  int pending_ = 0;  // JS thread only
  std::thread thread_;
};

AsyncQueue& Queue(Napi::Env env);

// A Promise that settles when all work queued so far on `stream` is done (an event waited on by
// the worker thread). `before` runs on the worker after the wait (host half of staged copies).
Napi::Promise WhenDone(Napi::Env env, const ContextPtr& ctx, CUstream stream,
                       std::function<void()> after_wait = nullptr,
                       std::function<void()> cleanup = nullptr, std::vector<Napi::Value> keep = {});

}  // namespace nodecuda
