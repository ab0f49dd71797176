#include "async.h"

#include <dlfcn.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "context.h"

namespace nodecuda {

// The worker thread's part of a task: no JS values.
struct AsyncQueue::Job {
  uint64_t id = 0;
  ContextPtr ctx;
  std::function<void()> work;
  std::exception_ptr error;  // set by the worker; read on the JS thread after the TSFN call
};

// State shared by the JS side and the worker thread; the thread keeps it alive after the
// environment (and the AsyncQueue) are gone.
struct AsyncQueue::Shared {
  std::mutex mu;
  std::condition_variable cv;       // work queued or closed
  std::condition_variable done_cv;  // a job finished
  std::deque<std::shared_ptr<Job>> todo;
  uint64_t done_id = 0;  // jobs run in id order: every id <= done_id has finished
  bool closed = false;   // the environment is closing: no more TSFN calls
  napi_threadsafe_function tsfn = nullptr;
};

namespace {

// The worker thread outlives a terminated worker_thread environment while it finishes a wait, and
// Node may unload an addon a worker loaded when that worker exits: keep this library mapped.
void PinLibrary() {
  static std::once_flag once;
  std::call_once(once, [] {
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(&PinLibrary), &info) && info.dli_fname)
      dlopen(info.dli_fname, RTLD_NOW | RTLD_NODELETE);
  });
}

void RunWorker(std::shared_ptr<AsyncQueue::Shared> sh) {
  for (;;) {
    std::shared_ptr<AsyncQueue::Job> job;
    {
      std::unique_lock<std::mutex> lock(sh->mu);
      sh->cv.wait(lock, [&] { return sh->closed || !sh->todo.empty(); });
      // After closing, queued waits still run (their staging memory must not be reused while
      // the GPU writes it), only nothing is settled.
      if (sh->todo.empty()) return;
      job = std::move(sh->todo.front());
      sh->todo.pop_front();
    }
    try {
      if (job->ctx) MakeCurrent(*job->ctx);
      if (job->work) job->work();
    } catch (...) {
      job->error = std::current_exception();
    }
    job->work = nullptr;  // release what the wait held, here
    std::lock_guard<std::mutex> lock(sh->mu);
    sh->done_id = job->id;
    sh->done_cv.notify_all();
    // Under the lock: Close() sets `closed` under it too, so no call is made after it returns.
    if (!sh->closed) napi_call_threadsafe_function(sh->tsfn, job.get(), napi_tsfn_nonblocking);
  }
}

}  // namespace

AsyncQueue::AsyncQueue(Napi::Env env) : shared_(std::make_shared<Shared>()), env_(env) {
  PinLibrary();
  tsfn_ = Tsfn::New(env, "nodecuda.async", 0, 1, this);
  tsfn_.Unref(env);
  shared_->tsfn = tsfn_;
  try {
    std::thread(RunWorker, shared_).detach();
  } catch (...) {
    tsfn_.Release();
    throw;
  }
  // Added after the TSFN's own cleanup hook, so it runs before it (hooks run in reverse order).
  napi_add_env_cleanup_hook(env, OnEnvCleanup, this);
}

AsyncQueue::~AsyncQueue() {
  if (!closed_) {
    napi_remove_env_cleanup_hook(env_, OnEnvCleanup, this);
    Close();
  }
}

void AsyncQueue::OnEnvCleanup(void* self) { static_cast<AsyncQueue*>(self)->Close(); }

// The environment is going away (worker.terminate(), exit). Settles nothing (JS cannot run) and
// never waits for GPU work, except for tasks whose DMA uses JS-owned (page-locked) memory, which
// the isolate is about to free.
void AsyncQueue::Close() {
  if (closed_) return;
  closed_ = true;
  {
    std::unique_lock<std::mutex> lock(shared_->mu);
    shared_->closed = true;
    shared_->cv.notify_all();
    uint64_t wait_for = must_finish_;
    shared_->done_cv.wait(lock, [&] { return shared_->done_id >= wait_for; });
  }
  tsfn_.Abort();
  pending_.clear();  // drops the kept values; the Promises are never settled
}

Napi::Promise AsyncQueue::Submit(Napi::Env env, AsyncOp op) {
  if (closed_) throw CuErr(CUDA_ERROR_DEINITIALIZED, "async", "the environment is closing");
  auto job = std::make_shared<Job>();
  job->id = next_id_++;
  job->ctx = std::move(op.ctx);
  job->work = std::move(op.work);
  Pending p{Napi::Promise::Deferred::New(env), {}, std::move(op.finish), job};
  for (auto& v : op.keep) p.keep.push_back(Napi::Persistent(v));
  Napi::Promise promise = p.deferred.Promise();
  if (pending_.empty()) tsfn_.Ref(env);  // keep the process alive while work is pending
  if (op.uses_js_memory) must_finish_ = job->id;
  pending_.emplace(job->id, std::move(p));
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    shared_->todo.push_back(std::move(job));
  }
  shared_->cv.notify_one();
  return promise;
}

// TSFN callback (JS thread). `env` is null when the TSFN is torn down with calls still queued.
void AsyncQueue::Settle(Napi::Env env, Napi::Function, AsyncQueue* self, Job* job) {
  if (!env || !self || self->closed_) return;
  auto it = self->pending_.find(job->id);
  if (it == self->pending_.end()) return;
  Pending p = std::move(it->second);
  self->pending_.erase(it);
  // Nothing may escape into Node: a throw here would terminate the process (and while the
  // environment is terminating, even creating the error fails).
  try {
    if (self->pending_.empty()) self->tsfn_.Unref(env);
    Napi::HandleScope scope(env);
    self->SettleOne(env, p);
  } catch (...) {
  }
}

void AsyncQueue::SettleOne(Napi::Env env, Pending& p) {
  std::exception_ptr error = p.job->error;
  Napi::Value value = env.Undefined();
  if (!error && p.finish) {
    try {
      value = p.finish(env, p.keep);
    } catch (...) {
      error = std::current_exception();
    }
  }
  if (error) {
    p.deferred.Reject(ToJsError(env, error).Value());
  } else {
    p.deferred.Resolve(value);
  }
}

AsyncQueue& Queue(Napi::Env env) {
  AddonData& data = Data(env);
  if (!data.queue) data.queue = std::make_unique<AsyncQueue>(env);
  return *data.queue;
}

Napi::Promise WhenDone(Napi::Env env, CUstream stream, AsyncOp op) {
  const DriverApi& cu = DrainedCu();
  MakeCurrent(*op.ctx);
  CUevent raw = nullptr;
  // Blocking sync: the worker sleeps in the wait instead of spinning a core.
  CU_CHECK(cu.cuEventCreate(&raw, CU_EVENT_DISABLE_TIMING | CU_EVENT_BLOCKING_SYNC));
  // Owned by the job: destroyed after the wait, or when a job dropped unrun is released.
  std::shared_ptr<CUevent_st> ev(raw, [ctx = op.ctx](CUevent e) {
    if (TryMakeCurrent(*ctx)) DrainedCuUnchecked().cuEventDestroy(e);
  });
  CU_CHECK(cu.cuEventRecord(raw, stream));
  op.work = [ev, then = std::move(op.work)] {
    CU_CHECK(DrainedCu().cuEventSynchronize(ev.get()));
    if (then) then();
  };
  return Queue(env).Submit(env, std::move(op));
}

}  // namespace nodecuda
