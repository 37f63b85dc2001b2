// The code docs/faults.md quotes: a step of a runtime component with a fault
// point, the question a policy asks of a failure, and a test that replays a
// failure with the injector.
#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "sluice/support/failure.h"
#include "sluice/support/fault_point.h"

namespace sluice {
namespace {

// [START fault_point]
// One step of a component: a fault at its fault point takes the step's
// error path, as a real failure there would.
absl::Status RunStep(int* steps_done) {
  if (absl::Status fault = SLUICE_FAULT_POINT("worker.call.begin");
      !fault.ok()) {
    return fault;
  }
  ++*steps_done;
  return absl::OkStatus();
}
// [END fault_point]

// [START classify]
// Whether a failed step is worth another attempt. The class decides; the
// message is for people.
bool ShouldRetry(const absl::Status& failure, int attempts_so_far) {
  switch (Classify(failure)) {
    case FailureClass::kRetryable:
      return attempts_so_far < 3;
    case FailureClass::kFatal:      // the same step would fail again
    case FailureClass::kCancelled:  // nobody wants the result any more
    case FailureClass::kStale:      // the result belongs to an old generation
      return false;
  }
  return false;
}
// [END classify]

TEST(FaultsExample, AnInjectedFailureIsRetried) {
  // [START inject]
  // The second time the step runs, it fails as if its peer had gone away
  // (UNAVAILABLE, so retryable); the retry succeeds.
  ASSERT_TRUE(FaultInjector::Set("worker.call.begin=error@nth=2").ok());
  int steps_done = 0;
  int attempts = 0;
  for (int step = 0; step < 3; ++step) {
    for (int tries = 1;; ++tries) {
      ++attempts;
      absl::Status status = RunStep(&steps_done);
      if (status.ok() || !ShouldRetry(status, tries)) break;
    }
  }
  EXPECT_EQ(steps_done, 3);
  EXPECT_EQ(attempts, 4);
  EXPECT_EQ(FaultInjector::Hits("worker.call.begin"), 4);
  FaultInjector::Clear();
  // [END inject]
}

TEST(FaultsExample, AFatalFailureIsNotRetried) {
  ASSERT_TRUE(FaultInjector::Set("worker.call.begin=error:DATA_LOSS").ok());
  int steps_done = 0;
  absl::Status status = RunStep(&steps_done);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_FALSE(ShouldRetry(status, 1));
  EXPECT_EQ(steps_done, 0);
  FaultInjector::Clear();
}

}  // namespace
}  // namespace sluice
