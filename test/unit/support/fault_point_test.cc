#include "sluice/support/fault_point.h"

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/support/failure.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;

constexpr char kBegin[] = "worker.call.begin";
constexpr char kEnd[] = "worker.call.end";

class FaultPointTest : public ::testing::Test {
 protected:
  void SetUp() override { FaultInjector::Clear(); }
  void TearDown() override { FaultInjector::Clear(); }

  void Set(std::string_view spec) {
    absl::Status set = FaultInjector::Set(spec);
    ASSERT_TRUE(set.ok()) << set;
  }

  // Which of `hits` hits on kBegin failed, 1-based.
  static std::vector<int> FailingHits(int hits) {
    std::vector<int> failed;
    for (int hit = 1; hit <= hits; ++hit) {
      if (!SLUICE_FAULT_POINT(kBegin).ok()) failed.push_back(hit);
    }
    return failed;
  }
};

TEST_F(FaultPointTest, OffAFaultPointIsOkAndUncounted) {
  EXPECT_TRUE(SLUICE_FAULT_POINT(kBegin).ok());
  EXPECT_EQ(FaultInjector::Hits(kBegin), 0);
}

TEST_F(FaultPointTest, AnErrorIsUnavailableAndRetryableByDefault) {
  Set("worker.call.begin=error");
  absl::Status fault = SLUICE_FAULT_POINT(kBegin);
  EXPECT_EQ(fault.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(fault.message(), "fault injected at worker.call.begin");
  EXPECT_EQ(GetErrorContext(fault).failure_class, FailureClass::kRetryable);
}

TEST_F(FaultPointTest, AnErrorTakesTheClassOfItsCodeFromAPeerOrTheOneGiven) {
  Set("worker.call.begin=error:INTERNAL;"
      "worker.call.end=error:DEADLINE_EXCEEDED;"
      "client.call.send=error:INTERNAL:retryable");
  absl::Status internal = SLUICE_FAULT_POINT(kBegin);
  EXPECT_EQ(internal.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(Classify(internal), FailureClass::kFatal);
  // A deadline at a fault point stands for a peer that did not answer.
  absl::Status deadline = SLUICE_FAULT_POINT(kEnd);
  EXPECT_EQ(deadline.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(Classify(deadline), FailureClass::kRetryable);
  absl::Status marked = SLUICE_FAULT_POINT("client.call.send");
  EXPECT_EQ(marked.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(Classify(marked), FailureClass::kRetryable);
}

TEST_F(FaultPointTest, TriggersPickTheHits) {
  Set("worker.call.begin=error@nth=3");
  EXPECT_EQ(FailingHits(8), std::vector<int>({3}));
  EXPECT_EQ(FaultInjector::Hits(kBegin), 8);
  Set("worker.call.begin=error@every=3");
  EXPECT_EQ(FailingHits(8), std::vector<int>({3, 6}));
  Set("worker.call.begin=error@from=6");
  EXPECT_EQ(FailingHits(8), std::vector<int>({6, 7, 8}));
  Set("worker.call.begin=error");
  EXPECT_EQ(FailingHits(3), std::vector<int>({1, 2, 3}));
}

TEST_F(FaultPointTest, OnePointsFaultsLeaveOtherPointsAlone) {
  Set("worker.call.begin=error");
  EXPECT_TRUE(SLUICE_FAULT_POINT(kEnd).ok());
  EXPECT_FALSE(SLUICE_FAULT_POINT(kBegin).ok());
  // Counted all the same, while faults are on.
  EXPECT_EQ(FaultInjector::Hits(kEnd), 1);
}

TEST_F(FaultPointTest, TheFirstFaultOfAPointThatFiresActs) {
  Set("worker.call.begin=error:INTERNAL@nth=2;"
      "worker.call.begin=error:DATA_LOSS@from=1");
  std::vector<absl::StatusCode> codes;
  for (int hit = 0; hit < 3; ++hit) {
    codes.push_back(SLUICE_FAULT_POINT(kBegin).code());
  }
  EXPECT_EQ(codes,
            std::vector<absl::StatusCode>({absl::StatusCode::kDataLoss,
                                           absl::StatusCode::kInternal,
                                           absl::StatusCode::kDataLoss}));
}

TEST_F(FaultPointTest, SettingAgainResetsTheCounts) {
  Set("worker.call.begin=error@nth=2");
  EXPECT_EQ(FailingHits(1), std::vector<int>());
  Set("worker.call.begin=error@nth=2");
  EXPECT_EQ(FailingHits(3), std::vector<int>({2}));
}

TEST_F(FaultPointTest, ABadSpecLeavesTheConfigurationAsItWas) {
  Set("worker.call.begin=error@every=2");
  absl::Status bad = FaultInjector::Set("worker.call.begin=error@every=none");
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.message(), HasSubstr("every 'none'"));
  EXPECT_EQ(FailingHits(4), std::vector<int>({2, 4}));
}

TEST_F(FaultPointTest, ProbabilityIsSeededAndReplaysExactly) {
  Set("seed=42;worker.call.begin=error@prob=0.25");
  const std::vector<int> first = FailingHits(1000);
  Set("seed=42;worker.call.begin=error@prob=0.25");
  // Hits of another point in between do not change this point's draws.
  std::vector<int> again;
  for (int hit = 1; hit <= 1000; ++hit) {
    EXPECT_TRUE(SLUICE_FAULT_POINT(kEnd).ok());
    if (!SLUICE_FAULT_POINT(kBegin).ok()) again.push_back(hit);
  }
  EXPECT_EQ(again, first);
  // About a quarter: 250 expected, the standard deviation is 13.7.
  EXPECT_GT(first.size(), 180u);
  EXPECT_LT(first.size(), 320u);

  Set("seed=43;worker.call.begin=error@prob=0.25");
  EXPECT_NE(FailingHits(1000), first);
  Set("worker.call.begin=error@prob=0");
  EXPECT_TRUE(FailingHits(100).empty());
  Set("worker.call.begin=error@prob=1");
  EXPECT_EQ(FailingHits(100).size(), 100u);
}

TEST_F(FaultPointTest, ADelaySleepsAndThenPasses) {
  Set("worker.call.begin=delay:50");
  const absl::Time start = absl::Now();
  EXPECT_TRUE(SLUICE_FAULT_POINT(kBegin).ok());
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(50));
}

TEST_F(FaultPointTest, AHangLastsUntilItsBound) {
  Set("worker.call.begin=hang:50");
  const absl::Time start = absl::Now();
  EXPECT_TRUE(SLUICE_FAULT_POINT(kBegin).ok());
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(50));
}

TEST_F(FaultPointTest, ClearReleasesAHang) {
  Set("worker.call.begin=hang");
  std::atomic<bool> returned{false};
  std::thread hung([&] {
    EXPECT_TRUE(SLUICE_FAULT_POINT(kBegin).ok());
    returned = true;
  });
  // Reached, and still there a while later.
  while (FaultInjector::Hits(kBegin) == 0)
    absl::SleepFor(absl::Milliseconds(1));
  absl::SleepFor(absl::Milliseconds(100));
  EXPECT_FALSE(returned.load());
  FaultInjector::Clear();
  hung.join();
  EXPECT_TRUE(returned.load());
}

TEST_F(FaultPointTest, KillEndsTheProcessWithSigkill) {
  EXPECT_EXIT(
      {
        FaultInjector::Clear();
        if (!FaultInjector::Set("worker.call.end=kill@nth=2").ok()) _exit(3);
        if (!SLUICE_FAULT_POINT(kEnd).ok()) _exit(4);
        (void)SLUICE_FAULT_POINT(kEnd);
        _exit(5);  // the second hit must not return
      },
      ::testing::KilledBySignal(SIGKILL), "fault point worker.call.end");
}

TEST(FaultPointCatalogueTest, NamesAreUniqueAndFollowTheScheme) {
  std::vector<std::string_view> names;
  for (const FaultPointInfo& point : KnownFaultPoints()) {
    EXPECT_THAT(names, ::testing::Not(::testing::Contains(point.name)));
    names.push_back(point.name);
    // <component>.<operation>.<moment>, lower case.
    EXPECT_EQ(std::count(point.name.begin(), point.name.end(), '.'), 2)
        << point.name;
    for (char c : point.name) {
      EXPECT_TRUE((c >= 'a' && c <= 'z') || c == '.' || c == '_') << point.name;
    }
    EXPECT_FALSE(point.where.empty());
    EXPECT_FALSE(point.simulates.empty());
  }
  EXPECT_THAT(names, ::testing::IsSupersetOf(
                         {"worker.call.begin", "worker.call.end",
                          "worker.register.begin", "client.call.send"}));
}

}  // namespace
}  // namespace sluice
