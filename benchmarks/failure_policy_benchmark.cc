// What a failure policy (`on_failure = #tfrt_dist.retry<...>`) adds to a
// remote call that succeeds: the kernel's work around the call, without
// the call itself, whose round trip (tens of microseconds, see
// remote_call_benchmark) would drown a difference of nanoseconds.
//   - BM_ResultsWithoutPolicy: what tfrt_dist.call does with a call's
//     results today: wait for them (RunWhenReady) and hand them on;
//   - BM_ResultsWithRetryPolicy: the same results through
//     RunWithFailurePolicy with a retry policy (max 3, backoff 50 ms): the
//     run's state, the answer's check for errors, and the handing on.
// The attempt returns an available value, as an answered call does by the
// time its waiters run.
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "kernels/dist/failure_policy.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/host_context/run_when_ready.h"
#include "sluice/support/logging.h"

namespace sluice {
namespace {

std::vector<RCReference<AsyncValue>> Answer() {
  std::vector<RCReference<AsyncValue>> results;
  results.push_back(MakeAvailableAsyncValueRef<int32_t>(3).ReleaseRCRef());
  return results;
}

void BM_ResultsWithoutPolicy(benchmark::State& state) {
  size_t delivered = 0;
  for (auto _ : state) {
    std::vector<RCReference<AsyncValue>> results = Answer();
    std::vector<AsyncValue*> pending;
    pending.reserve(results.size());
    for (const RCReference<AsyncValue>& result : results) {
      pending.push_back(result.get());
    }
    RunWhenReady(absl::Span<AsyncValue* const>(pending),
                 [&delivered, results = std::move(results)]() mutable {
                   delivered += results.size();
                 });
  }
  SLUICE_CHECK(delivered == static_cast<size_t>(state.iterations()));
}
BENCHMARK(BM_ResultsWithoutPolicy);

void BM_ResultsWithRetryPolicy(benchmark::State& state) {
  HostContext host([](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
                   *CreateWorkQueue("s"));
  ExecutionContext context(RequestContext::Create(&host));
  FailurePolicy policy;
  policy.max_attempts = 3;
  policy.backoff = absl::Milliseconds(50);
  policy.retry_classes = FailurePolicy::ClassBit(FailureClass::kRetryable);
  size_t delivered = 0;
  for (auto _ : state) {
    RunWithFailurePolicy(
        policy, context, [] { return Answer(); }, {},
        [&delivered](std::vector<RCReference<AsyncValue>> results) {
          delivered += results.size();
        });
  }
  SLUICE_CHECK(delivered == static_cast<size_t>(state.iterations()));
}
BENCHMARK(BM_ResultsWithRetryPolicy);

}  // namespace
}  // namespace sluice
