// Contexts (context.cc): the retained primary contexts, the calling thread's current context,
// device and pushed user contexts, and device reset. Every native entry point, worker thread,
// async worker and finalizer that calls CUDA makes its context current through these first.
#pragma once

#include "handles.h"

namespace nodecuda {

// The retained primary context of device `ordinal` (retained once per process).
ContextPtr PrimaryContext(int ordinal);
// The calling thread's context: a pushed user context, or the primary context of the thread's
// current device (device 0 unless useDevice() chose another). Made current, checked for poison.
ContextPtr Enter();
// Makes `c` current on this thread (cheap when it already is); throws if it is poisoned.
void MakeCurrent(const Context& c);
// The calling thread's current context, and making it current again (launch_queue.cc: a drain
// on this thread makes the queued launches' contexts current).
struct SavedCurrent {
  CUcontext ctx;
  const Context* c;
  uint64_t id, generation;
};
SavedCurrent SaveCurrent();
void RestoreCurrent(const SavedCurrent& s);
// Like MakeCurrent but never throws: false when the context is gone, poisoned or unusable
// (used by finalizers and destructors).
bool TryMakeCurrent(const Context& c);

// The calling thread's current device (useDevice(); throws for a bad ordinal); Enter() picks its
// primary context.
void SetThreadDevice(int ordinal);
int ThreadDevice();
// A user context stack per thread (pushContext/popContext); Enter() prefers its top. Push makes
// `c` current; Pop returns nullptr when the stack is empty.
void PushContext(ContextPtr c);
ContextPtr PopContext();
// Resets device `ordinal`'s primary context: the driver destroys every resource in it, the
// generation moves on (Resource::Live() false, so handles do not free them again), the poison is
// cleared. Throws when the driver keeps a sticky fault.
void ResetDevice(int ordinal);
// Forgets this thread's cached current context (a destroyed or reset context), so the next
// MakeCurrent() asks the driver again.
void ForgetCurrent();

}  // namespace nodecuda
