// SLUICE_FAULTS is read once per process, so this binary holds one test:
// a malformed spec that no binary checked at startup fails every fault
// point instead of being ignored.
#include <cstdlib>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/support/failure.h"
#include "sluice/support/fault_point.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;

TEST(FaultPointEnvironmentTest, AMalformedSpecFailsEveryFaultPoint) {
  ASSERT_EQ(setenv("SLUICE_FAULTS", "worker.call.begin=kill@nth=2;oops", 1), 0);
  absl::Status fault = SLUICE_FAULT_POINT("worker.call.end");
  EXPECT_EQ(fault.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(fault.message(),
            "no fault point runs: SLUICE_FAULTS: fault spec entry 'oops': "
            "expected point=action or seed=N");
  EXPECT_EQ(Classify(fault), FailureClass::kFatal);
  EXPECT_EQ(SLUICE_FAULT_POINT("worker.call.begin").code(),
            absl::StatusCode::kFailedPrecondition);

  // What a binary checks at startup says the same, every time.
  for (int i = 0; i < 2; ++i) {
    absl::Status read = FaultInjector::InitFromEnvironment();
    EXPECT_EQ(read.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(read.message(),
                HasSubstr("SLUICE_FAULTS: fault spec entry 'oops'"));
  }

  // A spec set in the program replaces it.
  ASSERT_TRUE(FaultInjector::Set("worker.call.end=error@nth=2").ok());
  EXPECT_TRUE(SLUICE_FAULT_POINT("worker.call.end").ok());
  EXPECT_EQ(SLUICE_FAULT_POINT("worker.call.end").code(),
            absl::StatusCode::kUnavailable);
  FaultInjector::Clear();
  EXPECT_TRUE(SLUICE_FAULT_POINT("worker.call.end").ok());
}

}  // namespace
}  // namespace sluice
