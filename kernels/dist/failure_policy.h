// A failure policy (`on_failure = #tfrt_dist.retry<...>` or
// `#tfrt_dist.fallback<...>`, docs/tfrt_dist.md "Failure policies") as the
// kernels of ops whose values come from another process apply it: which
// failures start another attempt, how long after, how many attempts in
// all, and which fall back on a local function. Decisions read the
// failure's class (Classify), never its message.
#ifndef SLUICE_KERNELS_DIST_FAILURE_POLICY_H_
#define SLUICE_KERNELS_DIST_FAILURE_POLICY_H_

#include <cstdint>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/execution_context.h"
#include "sluice/kernel/attributes.h"
#include "sluice/kernel/function.h"
#include "sluice/support/failure.h"
#include "sluice/support/ref_count.h"

namespace sluice {

struct FailurePolicy {
  // Attempts in all, the first included.
  int64_t max_attempts = 1;
  absl::Duration backoff = absl::ZeroDuration();
  // One bit per FailureClass (ClassBit).
  uint32_t retry_classes = 0;
  uint32_t fallback_classes = 0;
  // Null: no fallback.
  const Function* fallback = nullptr;

  static constexpr uint32_t ClassBit(FailureClass failure_class) {
    return uint32_t{1} << static_cast<uint32_t>(failure_class);
  }
  bool Retries(FailureClass failure_class) const {
    return (retry_classes & ClassBit(failure_class)) != 0;
  }
  bool FallsBackOn(FailureClass failure_class) const {
    return fallback != nullptr &&
           (fallback_classes & ClassBit(failure_class)) != 0;
  }
};

// The policy an `on_failure` attribute holds, laid out as the compiler
// writes it (sluice/bef/failure_policy.h). `fallback` is the function its
// symbol names, which the kernel receives among its functions (null when
// it has none). An error for a layout that is not a policy's, or a
// fallback named but not received.
absl::StatusOr<FailurePolicy> ReadFailurePolicy(AggregateAttribute attribute,
                                                const Function* fallback);

// Starts one attempt and returns its results, which may still be
// unavailable.
using StartAttempt = absl::AnyInvocable<std::vector<RCReference<AsyncValue>>()>;

// Receives the final results, every one available.
using DeliverResults =
    absl::AnyInvocable<void(std::vector<RCReference<AsyncValue>>) &&>;

// Runs `start` under `policy` and hands the results to `deliver`: those of
// the first attempt none of whose results is an error, or else of the
// fallback, or else the last attempt's, its errors' messages prefixed with
// "gave up after N attempts: " when there were several (their code and
// class kept). Attempts after the first wait for the backoff on the host's
// timer, never on a thread of its work queue, and are made on the work
// queue; a cancelled request makes no more of them, and one cancelled
// during a backoff ends it at once with the cancellation error.
// `fallback_arguments` are what the fallback is called with.
void RunWithFailurePolicy(
    const FailurePolicy& policy, const ExecutionContext& context,
    StartAttempt start, std::vector<RCReference<AsyncValue>> fallback_arguments,
    DeliverResults deliver);

}  // namespace sluice

#endif  // SLUICE_KERNELS_DIST_FAILURE_POLICY_H_
