#include "kernels/dist/remote_results.h"

#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "kernels/dist/distributed_context.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/run_when_ready.h"
#include "sluice/kernel/async_kernel_frame.h"
#include "sluice/support/failure.h"

namespace sluice {
namespace {

// Whether `status` was made on this side of the wire rather than by a
// kernel of a task, whose errors record that kernel.
bool IsLocalFailure(const absl::Status& status) {
  return GetErrorContext(status).kernel.empty();
}

}  // namespace

void SetResultsWhenAnswered(KernelFrame* frame,
                            std::vector<RCReference<AsyncValue>> results) {
  if (results.empty()) return;
  AsyncValueRef<Chain> done =
      frame->host()
          ->GetOrCreateSharedContext<DistributedContext>()
          .BeginOperation();
  AsyncKernelFrame async(frame);
  std::vector<AsyncValue*> pending;
  pending.reserve(results.size());
  for (const RCReference<AsyncValue>& result : results) {
    pending.push_back(result.get());
  }
  RunWhenReady(pending, [frame = async, results = std::move(results),
                         done = std::move(done)]() mutable {
    SetAnsweredResults(frame, std::move(results));
    done.emplace();
  });
}

void SetAnsweredResults(AsyncKernelFrame& frame,
                        std::vector<RCReference<AsyncValue>> results) {
  std::optional<absl::Status> local_failure;
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i]->IsError() && IsLocalFailure(results[i]->GetError())) {
      if (!local_failure) local_failure = results[i]->GetError();
      continue;
    }
    frame.SetResultAt(i, std::move(results[i]));
  }
  // Fails the results not set above with this kernel's context.
  if (local_failure) frame.ReportError(*std::move(local_failure));
}

}  // namespace sluice
