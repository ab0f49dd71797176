// Streams and events.
#include "addon.h"
#include "async.h"
#include "context.h"
#include "handles.h"

namespace nodecuda {

CUstream StreamArg(const Napi::Value& v) {
  if (v.IsUndefined() || v.IsNull()) return nullptr;
  return Unwrap<StreamRes>(v, Kind::Stream, "stream")->stream;
}

namespace {

const std::shared_ptr<StreamRes>& StreamOf(const Napi::CallbackInfo& info) {
  const auto& s = Unwrap<StreamRes>(info[0], Kind::Stream, "stream");
  MakeCurrent(*s->ctx);
  return s;
}
const std::shared_ptr<EventRes>& EventOf(const Napi::Value& v, const char* what = "event") {
  const auto& e = Unwrap<EventRes>(v, Kind::Event, what);
  MakeCurrent(*e->ctx);
  return e;
}

// streamCreate(flags) -> handle
// CUresult cuStreamCreate(CUstream* phStream, unsigned int Flags)
Napi::Value StreamCreate(const Napi::CallbackInfo& info) {
  unsigned flags = static_cast<unsigned>(IntArg(info, 0, "flags"));
  auto s = std::make_shared<StreamRes>(Enter());
  CU_CHECK(DrainedCu().cuStreamCreate(&s->stream, flags));
  return Wrap(info.Env(), Kind::Stream, std::move(s));
}

// CUresult cuStreamSynchronize(CUstream hStream)
Napi::Value StreamSynchronize(const Napi::CallbackInfo& info) {
  CU_CHECK(DrainedCu().cuStreamSynchronize(StreamOf(info)->stream));
  return info.Env().Undefined();
}

// Waits for a private event recorded on the stream, so disposing the stream meanwhile is safe.
Napi::Value StreamSynchronizeAsync(const Napi::CallbackInfo& info) {
  const auto& s = StreamOf(info);
  AsyncOp op;
  op.ctx = s->ctx;
  return WhenDone(info.Env(), s->stream, std::move(op));
}

// CUresult cuStreamQuery(CUstream hStream): true when all work is done.
Napi::Value StreamQuery(const Napi::CallbackInfo& info) {
  CUresult r = DrainedCu().cuStreamQuery(StreamOf(info)->stream);
  if (r == CUDA_ERROR_NOT_READY) return Napi::Boolean::New(info.Env(), false);
  CU_CHECK(r);
  return Napi::Boolean::New(info.Env(), true);
}

// CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)
Napi::Value StreamWaitEvent(const Napi::CallbackInfo& info) {
  CUstream s = StreamArg(info[0]);
  Enter();
  CU_CHECK(DrainedCu().cuStreamWaitEvent(s, EventOf(info[1])->event, 0));
  return info.Env().Undefined();
}

// streamDestroy(handle): destroys now (idempotent through the handle's JS owner).
Napi::Value StreamDestroy(const Napi::CallbackInfo& info) {
  Unwrap<StreamRes>(info[0], Kind::Stream, "stream")->Destroy();
  return info.Env().Undefined();
}

// eventDestroy(handle): the handle lets go of the event (later uses: ERR_USE_AFTER_DISPOSE).
// The event is destroyed now, or, while synchronizeAsync() waits for it on the worker thread,
// when that wait ends (~EventRes, on whichever thread drops it last).
// CUresult cuEventDestroy(CUevent hEvent)
Napi::Value EventDestroy(const Napi::CallbackInfo& info) {
  Unwrap<EventRes>(info[0], Kind::Event, "event");  // type check
  info[0].As<Napi::External<std::shared_ptr<EventRes>>>().Data()->reset();
  return info.Env().Undefined();
}

// eventCreate(flags) -> handle
// CUresult cuEventCreate(CUevent* phEvent, unsigned int Flags)
Napi::Value EventCreate(const Napi::CallbackInfo& info) {
  unsigned flags = static_cast<unsigned>(IntArg(info, 0, "flags"));
  auto e = std::make_shared<EventRes>(Enter());
  CU_CHECK(DrainedCu().cuEventCreate(&e->event, flags));
  return Wrap(info.Env(), Kind::Event, std::move(e));
}

// eventRecord(event, stream?)
// CUresult cuEventRecord(CUevent hEvent, CUstream hStream)
Napi::Value EventRecord(const Napi::CallbackInfo& info) {
  CUevent e = EventOf(info[0])->event;
  CU_CHECK(DrainedCu().cuEventRecord(e, StreamArg(info[1])));
  return info.Env().Undefined();
}

// CUresult cuEventSynchronize(CUevent hEvent)
Napi::Value EventSynchronize(const Napi::CallbackInfo& info) {
  CU_CHECK(DrainedCu().cuEventSynchronize(EventOf(info[0])->event));
  return info.Env().Undefined();
}

// The wait owns the event (shared_ptr): dispose() meanwhile only drops the handle's reference.
Napi::Value EventSynchronizeAsync(const Napi::CallbackInfo& info) {
  std::shared_ptr<EventRes> e = EventOf(info[0]);
  AsyncOp op;
  op.ctx = e->ctx;
  op.work = [e] { CU_CHECK(DrainedCu().cuEventSynchronize(e->event)); };
  return Queue(info.Env()).Submit(info.Env(), std::move(op));
}

// CUresult cuEventQuery(CUevent hEvent): true when the recorded work is done.
Napi::Value EventQuery(const Napi::CallbackInfo& info) {
  CUresult r = DrainedCu().cuEventQuery(EventOf(info[0])->event);
  if (r == CUDA_ERROR_NOT_READY) return Napi::Boolean::New(info.Env(), false);
  CU_CHECK(r);
  return Napi::Boolean::New(info.Env(), true);
}

// eventElapsed(start, end) -> ms
// CUresult cuEventElapsedTime(float* pMilliseconds, CUevent hStart, CUevent hEnd)
Napi::Value EventElapsed(const Napi::CallbackInfo& info) {
  float ms = 0;
  CUevent a = EventOf(info[0], "start")->event;
  CUevent b = EventOf(info[1], "end")->event;
  CU_CHECK(DrainedCu().cuEventElapsedTime(&ms, a, b));
  return Napi::Number::New(info.Env(), ms);
}

}  // namespace

void InitStream(Napi::Env env, Napi::Object exports) {
  NODECUDA_EXPORT(env, exports, "streamCreate", StreamCreate);
  NODECUDA_EXPORT(env, exports, "streamSynchronize", StreamSynchronize);
  NODECUDA_EXPORT(env, exports, "streamSynchronizeAsync", StreamSynchronizeAsync);
  NODECUDA_EXPORT(env, exports, "streamQuery", StreamQuery);
  NODECUDA_EXPORT(env, exports, "streamWaitEvent", StreamWaitEvent);
  NODECUDA_EXPORT(env, exports, "streamDestroy", StreamDestroy);
  NODECUDA_EXPORT(env, exports, "eventCreate", EventCreate);
  NODECUDA_EXPORT(env, exports, "eventDestroy", EventDestroy);
  NODECUDA_EXPORT(env, exports, "eventRecord", EventRecord);
  NODECUDA_EXPORT(env, exports, "eventSynchronize", EventSynchronize);
  NODECUDA_EXPORT(env, exports, "eventSynchronizeAsync", EventSynchronizeAsync);
  NODECUDA_EXPORT(env, exports, "eventQuery", EventQuery);
  NODECUDA_EXPORT(env, exports, "eventElapsed", EventElapsed);
}

}  // namespace nodecuda
