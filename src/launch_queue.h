// Deferred launches of nodecuda's own kernels on a launcher thread (launch_queue.cc).
#pragma once

#include <utility>

#include "handles.h"

namespace nodecuda {

enum class QueueResult {
  Queued,    // the launcher thread submits it
  Direct,    // launch it now with RawCu(): nothing is queued and no run of launches is under way
  Fallback,  // launch it now through DrainedCu() (which submits anything queued first)
};

// Offers a launch of `f` on `stream` (`s` its handle; null for the legacy stream) to the queue.
// Params are copied; the record owns `f` (its module and context) and `*s` until submitted.
QueueResult EnqueueLaunch(const std::shared_ptr<FunctionRes>& f, CUstream stream,
                          const std::shared_ptr<StreamRes>* s, const uint32_t* cfg,
                          const void* params, size_t bytes);

// Submits queued launches now (any thread; no-op when none).
void DrainLaunches();

// A number for the calling thread (never 0, never reused): queued launches remember who queued
// them, so a failure goes back to that thread (context.cc).
uint64_t ThreadTag();
// Keeps the failure of a launch queued by thread `origin` on `c` (not sticky: those poison `c`).
void NoteLaunchFailure(Context& c, uint64_t origin, int status);
// Throws (CudaError, call cuLaunchKernel) the failure of a launch this thread queued on `c` that
// is not reported yet: on this thread's next MakeCurrent(c), or DrainedCu() with `c` current. Never
// a failure of another thread's or another context's launch.
void ReportLaunchFailure(const Context& c);
void ReportCurrentLaunchFailure();

// [launches queued, of which the launcher thread submitted] since the process started.
std::pair<uint64_t, uint64_t> LaunchQueueStats();

}  // namespace nodecuda
