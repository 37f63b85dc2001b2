#include "lib/distributed/remote_call_trace.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "sluice/host_context/tracer.h"

namespace sluice::dist::internal {

// The name both ends of the arrow carry, which viewers match them by with
// the id.
constexpr char kFlowName[] = "remote call";

std::unique_ptr<RemoteCallTrace> RemoteCallTrace::Begin(
    RequestContext* request, const std::string& task,
    const std::string& function, proto::ExecuteRequest* wire) {
  const RequestObservers* observers =
      request != nullptr ? request->observers() : nullptr;
  if (observers == nullptr ||
      (observers->tracer == nullptr && observers->activity == nullptr)) {
    return nullptr;
  }
  std::unique_ptr<RemoteCallTrace> trace(new RemoteCallTrace());
  if (observers->activity != nullptr) {
    trace->activity_ =
        observers->activity->AddRemoteCall(task, function, request);
  }
  if (Tracer* tracer = observers->tracer) {
    trace->tracer_ = tracer;
    trace->id_ = Tracer::NewId();
    trace->span_name_ =
        absl::StrCat("remote call of '", function, "' on ", task);
    const int64_t now = TraceNowNanos();
    tracer->AddAsyncBegin(trace->span_name_, "remote_call", trace->id_, now,
                          {{"task", task}, {"function", function}});
    tracer->AddFlowStart(kFlowName, trace->id_, now);
    wire->set_trace_flow_id(trace->id_);
  }
  return trace;
}

RemoteCallTrace::~RemoteCallTrace() {
  if (tracer_ != nullptr) {
    tracer_->AddAsyncEnd(span_name_, "remote_call", id_, TraceNowNanos());
  }
}

void RemoteCallTrace::Sent() {
  if (activity_ != nullptr) {
    activity_->sent_ns.store(absl::GetCurrentTimeNanos(),
                             std::memory_order_release);
  }
}

}  // namespace sluice::dist::internal
