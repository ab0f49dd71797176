#include "async.h"

namespace nodecuda {

AsyncQueue::AsyncQueue(Napi::Env env) {
  tsfn_ = Tsfn::New(env, "nodecuda.async", 0, 1, this);
  tsfn_.Unref(env);
  thread_ = std::thread([this] { Run(); });
}

AsyncQueue::~AsyncQueue() { Stop(); }

void AsyncQueue::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  tsfn_.Release();
}

Napi::Promise AsyncQueue::Submit(std::unique_ptr<AsyncTask> task) {
  Napi::Promise promise = task->deferred.Promise();
  Napi::Env env = promise.Env();
  if (pending_++ == 0) tsfn_.Ref(env);  // keep the process alive while work is pending
  {
    std::lock_guard<std::mutex> lock(mu_);
    tasks_.push_back(task.release());
  }
  cv_.notify_one();
  return promise;
}

void AsyncQueue::Run() {
  for (;;) {
    AsyncTask* task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || !tasks_.empty(); });
      if (stop_) return;  // tasks left at teardown are dropped with the environment
      task = tasks_.front();
      tasks_.pop_front();
    }
    try {
      if (task->ctx) MakeCurrent(*task->ctx);
      if (task->work) task->work();
    } catch (const CuErr& e) {
      task->error = e;
    } catch (const std::exception& e) {
      task->error = CuErr(CUDA_ERROR_UNKNOWN, "async", e.what());
    }
    if (tsfn_.BlockingCall(task) != napi_ok) return;  // environment is closing
  }
}

void AsyncQueue::Settle(Napi::Env env, Napi::Function, void* ctx, AsyncTask* task) {
  std::unique_ptr<AsyncTask> owned(task);
  auto* self = static_cast<AsyncQueue*>(ctx);
  if (!env) return;  // finalizing
  if (--self->pending_ == 0) self->tsfn_.Unref(env);
  Napi::HandleScope scope(env);
  if (task->cleanup) task->cleanup();
  if (task->error) {
    task->deferred.Reject(ToJsError(env, *task->error).Value());
  } else {
    task->deferred.Resolve(env.Undefined());
  }
}

AsyncQueue& Queue(Napi::Env env) {
  AddonData& data = Data(env);
  if (!data.queue) data.queue = std::make_unique<AsyncQueue>(env);
  return *data.queue;
}

Napi::Promise WhenDone(Napi::Env env, const ContextPtr& ctx, CUstream stream,
                       std::function<void()> after_wait, std::function<void()> cleanup,
                       std::vector<Napi::Value> keep) {
  const DriverApi& cu = Cu();
  MakeCurrent(*ctx);
  CUevent ev = nullptr;
  // Blocking sync: the worker sleeps in the wait instead of spinning a core.
  CU_CHECK(cu.cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING | CU_EVENT_BLOCKING_SYNC));
  CUresult rec = cu.cuEventRecord(ev, stream);
  if (rec != CUDA_SUCCESS) {
    cu.cuEventDestroy(ev);
    CU_CHECK(rec);
  }
  auto task = std::make_unique<AsyncTask>(env);
  task->ctx = ctx;
  task->work = [ev, after_wait = std::move(after_wait)] {
    const DriverApi& cu = Cu();
    CUresult r = cu.cuEventSynchronize(ev);
    cu.cuEventDestroy(ev);
    CU_CHECK(r);
    if (after_wait) after_wait();
  };
  task->cleanup = std::move(cleanup);
  for (auto& v : keep) task->keep.push_back(Napi::Persistent(v));
  return Queue(env).Submit(std::move(task));
}

}  // namespace nodecuda
