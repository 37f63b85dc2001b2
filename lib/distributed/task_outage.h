// TaskOutage: the root cause of a task's failed RPCs. A task that goes
// away fails every RPC in flight to it and every one sent until it is
// back; the first such failure is the root cause of the others, which
// record it (sluice/support/error_util.h, DerivedFrom), so that a runner
// reports one root with how many errors it explains instead of a hundred
// lookalikes. An answer ends the outage.
#ifndef SLUICE_LIB_DISTRIBUTED_TASK_OUTAGE_H_
#define SLUICE_LIB_DISTRIBUTED_TASK_OUTAGE_H_

#include <mutex>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "grpcpp/support/status.h"
#include "lib/distributed/grpc_status.h"
#include "sluice/support/error_util.h"
#include "sluice/support/failure.h"

namespace sluice::dist::internal {

class TaskOutage {
 public:
  // `failure`, the error of an RPC that ended with `status`, linked to the
  // outage it belongs to when the transport ended it (the task is down,
  // silent or slow): the first such failure opens an outage and is its
  // root. A task's own answer, a cancellation or a fatal failure (a
  // refused handshake) is left as it is.
  absl::Status Link(const grpc::Status& status, absl::Status failure) {
    if (PeerError(status).has_value() ||
        Classify(failure) != FailureClass::kRetryable) {
      return failure;
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (root_.ok()) {
      root_ = failure;
      return failure;
    }
    return DerivedFrom(std::move(failure), root_);
  }

  // The task answered: the next failure is a new root.
  void Answered() {
    std::lock_guard<std::mutex> lock(mu_);
    root_ = absl::OkStatus();
  }

 private:
  std::mutex mu_;
  absl::Status root_;  // guarded by mu_; OK while the task answers
};

}  // namespace sluice::dist::internal

#endif  // SLUICE_LIB_DISTRIBUTED_TASK_OUTAGE_H_
