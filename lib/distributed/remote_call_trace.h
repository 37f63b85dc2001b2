// RemoteCallTrace: what a remote call of an observed request reports (see
// sluice/host_context/trace_activity.h): a span from the call to its
// answer and the start of a flow arrow to its execution on the worker, for
// the Tracer; the call, while unanswered, for the hang explainer.
#ifndef SLUICE_LIB_DISTRIBUTED_REMOTE_CALL_TRACE_H_
#define SLUICE_LIB_DISTRIBUTED_REMOTE_CALL_TRACE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "lib/distributed/worker_service.pb.h"
#include "sluice/host_context/request_context.h"
#include "sluice/host_context/trace_activity.h"

namespace sluice::dist::internal {

class RemoteCallTrace {
 public:
  // Null unless `request` is observed. Called from the kernel making the
  // call (whose span the arrow starts from); names the arrow in `wire`.
  static std::unique_ptr<RemoteCallTrace> Begin(RequestContext* request,
                                                const std::string& task,
                                                const std::string& function,
                                                proto::ExecuteRequest* wire);
  // The call is answered (or will never be sent): ends the span.
  ~RemoteCallTrace();

  // The request went out: its arguments were all available.
  void Sent();

 private:
  RemoteCallTrace() = default;

  Tracer* tracer_ = nullptr;
  uint64_t id_ = 0;
  std::string span_name_;
  std::shared_ptr<ActivityRegistry::RemoteCall> activity_;
};

}  // namespace sluice::dist::internal

#endif  // SLUICE_LIB_DISTRIBUTED_REMOTE_CALL_TRACE_H_
