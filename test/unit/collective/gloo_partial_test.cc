// Partial collectives of Gloo groups whose ranks are threads of this
// process: a rank that leaves mid-collective is left out and the others
// agree on it; a rank that comes too late is refused.
#include <memory>
#include <vector>

#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "sluice/collective/gloo_group.h"
#include "sluice/support/failure.h"
#include "test/unit/collective/group_threads.h"
#include "test/util/store_server.h"

namespace sluice::ccl {
namespace {

std::unique_ptr<HostAllocator> allocator = CreateMallocAllocator();

DenseHostTensor Floats(TensorShape shape, std::vector<float> values) {
  auto tensor = DenseHostTensor::FromValues<float>(std::move(shape), values,
                                                   allocator.get());
  EXPECT_TRUE(tensor.ok()) << tensor.status();
  return *std::move(tensor);
}

std::vector<float> Values(const DenseHostTensor& tensor) {
  auto values = tensor.values<float>();
  return std::vector<float>(values.begin(), values.end());
}

PartialOptions Options(absl::Duration timeout, absl::Duration window) {
  PartialOptions options;
  options.timeout = timeout;
  options.agreement_window = window;
  return options;
}

class GlooPartialTest : public ::testing::Test {
 protected:
  testing::StoreServer store_;
};

TEST_F(GlooPartialTest, WhenEveryRankContributesTheResultIsTheWhole) {
  RunRanks(store_.address(), 3, 1, [](CollectiveGroup& group) {
    const float r = group.rank();
    auto reduced =
        group.AllReducePartial(Floats({2}, {1 + r, 10 * r}), ReduceOp::kAvg,
                               Options(absl::Seconds(20), absl::Seconds(5)));
    ASSERT_TRUE(reduced.ok()) << reduced.status();
    EXPECT_EQ(Values(reduced->value), (std::vector<float>{2, 10}));
    EXPECT_EQ(reduced->contributors, (std::vector<int>{0, 1, 2}));
    ASSERT_EQ(reduced->rank_errors.size(), 3u);
    for (const absl::Status& error : reduced->rank_errors) {
      EXPECT_TRUE(error.ok()) << error;
    }
    auto gathered = group.AllGatherPartial(
        Floats({1}, {r}), Options(absl::Seconds(20), absl::Seconds(5)));
    ASSERT_TRUE(gathered.ok()) << gathered.status();
    EXPECT_EQ(gathered->value.shape(), TensorShape({3, 1}));
    EXPECT_EQ(Values(gathered->value), (std::vector<float>{0, 1, 2}));
    EXPECT_TRUE(group.health().ok()) << group.health();
  });
}

TEST_F(GlooPartialTest, ARankThatLeavesIsLeftOutOnEverySurvivor) {
  RunRanks(store_.address(), 4, 2, [](CollectiveGroup& group) {
    const float r = group.rank();
    if (group.rank() == 3) {
      // Gone before the collective: its connections close, and it never
      // says how its part went.
      group.Abort(absl::UnavailableError("rank 3 went away"));
      return;
    }
    const PartialOptions options =
        Options(absl::Seconds(20), absl::Milliseconds(300));
    auto reduced = group.AllReducePartial(Floats({2}, {1 + r, 10 * r}),
                                          ReduceOp::kAvg, options);
    ASSERT_TRUE(reduced.ok()) << reduced.status();
    // (1 + 2 + 3) / 3 and (0 + 10 + 20) / 3: over the contributors only.
    EXPECT_EQ(Values(reduced->value), (std::vector<float>{2, 10}));
    EXPECT_EQ(reduced->contributors, (std::vector<int>{0, 1, 2}));
    ASSERT_EQ(reduced->rank_errors.size(), 4u);
    EXPECT_TRUE(reduced->rank_errors[0].ok());
    const absl::Status& missing = reduced->rank_errors[3];
    EXPECT_EQ(missing.code(), absl::StatusCode::kUnavailable) << missing;
    EXPECT_EQ(Classify(missing), FailureClass::kRetryable);
    EXPECT_NE(missing.message().find("rank 3 did not tell the store how its "
                                     "part went within 300ms of the first"),
              std::string::npos)
        << missing;
    EXPECT_EQ(GetErrorContext(missing).generation, 2);

    // The group broke; its later partial collectives run among the
    // contributors, in the whole group's ranks.
    EXPECT_EQ(group.health().code(), absl::StatusCode::kUnavailable);
    EXPECT_FALSE(
        group.AllReduce(Floats({1}, {r}), ReduceOp::kSum, absl::Seconds(5))
            .ok());
    auto gathered = group.AllGatherPartial(Floats({1}, {r}), options);
    ASSERT_TRUE(gathered.ok()) << gathered.status();
    EXPECT_EQ(gathered->value.shape(), TensorShape({3, 1}));
    EXPECT_EQ(Values(gathered->value), (std::vector<float>{0, 1, 2}));
    EXPECT_EQ(gathered->contributors, (std::vector<int>{0, 1, 2}));
    EXPECT_NE(gathered->rank_errors[3].message().find(
                  "rank 3 was left out of an earlier partial collective"),
              std::string::npos)
        << gathered->rank_errors[3];
  });
}

TEST_F(GlooPartialTest, ARankLaterThanTheWindowGetsAnErrorAndTheOthersGoOn) {
  RunRanks(store_.address(), 3, 3, [](CollectiveGroup& group) {
    const float r = group.rank();
    // Ranks 0 and 1 time out waiting for rank 2, agree without it, and go
    // on; rank 2 comes to the store after it decided.
    if (group.rank() == 2) absl::SleepFor(absl::Milliseconds(1500));
    auto reduced = group.AllReducePartial(
        Floats({1}, {1 + r}), ReduceOp::kSum,
        Options(absl::Milliseconds(200), absl::Milliseconds(300)));
    if (group.rank() == 2) {
      ASSERT_FALSE(reduced.ok());
      EXPECT_EQ(reduced.status().code(), absl::StatusCode::kUnavailable)
          << reduced.status();
      EXPECT_NE(
          reduced.status().message().find("no agreement on who contributed"),
          std::string::npos)
          << reduced.status();
      EXPECT_NE(reduced.status().message().find(
                    "rank 2 came after the store had decided on the "
                    "contributors [0, 1]"),
                std::string::npos)
          << reduced.status();
      return;
    }
    ASSERT_TRUE(reduced.ok()) << reduced.status();
    EXPECT_EQ(Values(reduced->value), (std::vector<float>{3}));
    EXPECT_EQ(reduced->contributors, (std::vector<int>{0, 1}));
  });
}

TEST_F(GlooPartialTest, AWindowThatIsNotPositiveIsRefused) {
  RunRanks(store_.address(), 1, 4, [](CollectiveGroup& group) {
    auto reduced =
        group.AllReducePartial(Floats({1}, {1}), ReduceOp::kSum,
                               Options(absl::Seconds(1), absl::ZeroDuration()));
    EXPECT_EQ(reduced.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(reduced.status().message().find("agreement window"),
              std::string::npos)
        << reduced.status();
  });
}

}  // namespace
}  // namespace sluice::ccl
