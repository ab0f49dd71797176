// Deferred launches of nodecuda's own kernels on a launcher thread (launch_queue.cc).
#pragma once

#include <utility>

#include "handles.h"

namespace nodecuda {

enum class QueueResult {
  Queued,    // the launcher thread submits it
  Direct,    // launch it now with CuRaw(): nothing is queued and no run of launches is under way
  Fallback,  // launch it now through Cu() (which submits anything queued first)
};

// Offers a launch to the queue (params are copied).
QueueResult EnqueueLaunch(CUfunction fn, CUstream stream, const Context& ctx, const uint32_t* cfg,
                          const void* params, size_t bytes);

// Submits queued launches now (any thread; no-op when none). Resource destructors call it before
// a kernel's module, stream or context can go away.
void DrainLaunches();

// Throws (CudaError, call cuLaunchKernel) the failure of a queued launch not reported yet; on
// the JS thread's next MakeCurrent or Cu(). Sticky faults are reported as poison instead.
void ReportLaunchFailure();

// [launches queued, of which the launcher thread submitted] since the process started.
std::pair<uint64_t, uint64_t> LaunchQueueStats();

}  // namespace nodecuda
