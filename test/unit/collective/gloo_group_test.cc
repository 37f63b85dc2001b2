// Gloo groups whose ranks are threads of this process: every collective's
// values, the errors of ranks that disagree, timeouts, Abort, and the
// generations' separation in the store.
#include "sluice/collective/gloo_group.h"

#include <atomic>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "sluice/support/failure.h"
#include "sluice/support/fault_point.h"
#include "test/unit/collective/group_threads.h"
#include "test/util/store_server.h"

namespace sluice::ccl {
namespace {

std::unique_ptr<HostAllocator> allocator = CreateMallocAllocator();

template <typename T>
DenseHostTensor Tensor(TensorShape shape, std::vector<T> values) {
  auto tensor =
      DenseHostTensor::FromValues<T>(std::move(shape), values, allocator.get());
  EXPECT_TRUE(tensor.ok()) << tensor.status();
  return *std::move(tensor);
}

template <typename T>
std::vector<T> Values(const absl::StatusOr<DenseHostTensor>& tensor) {
  EXPECT_TRUE(tensor.ok()) << tensor.status();
  if (!tensor.ok()) return {};
  auto values = tensor->values<T>();
  return std::vector<T>(values.begin(), values.end());
}

constexpr absl::Duration kTimeout = absl::Seconds(20);

class GlooGroupTest : public ::testing::Test {
 protected:
  testing::StoreServer store_;
};

TEST_F(GlooGroupTest, AllReduceReducesEveryDType) {
  RunRanks(store_.address(), 3, 1, [](CollectiveGroup& group) {
    int r = group.rank();
    auto f32 = Tensor<float>({2}, {1.0f + r, -2.0f * r});
    EXPECT_EQ(Values<float>(group.AllReduce(f32, ReduceOp::kSum, kTimeout)),
              (std::vector<float>{6, -6}));
    EXPECT_EQ(Values<float>(group.AllReduce(f32, ReduceOp::kAvg, kTimeout)),
              (std::vector<float>{2, -2}));
    // The input is not changed.
    EXPECT_EQ(Values<float>(f32), (std::vector<float>{1.0f + r, -2.0f * r}));
    auto f64 = Tensor<double>({1, 2}, {0.5 * r, 10.0 - r});
    auto f64_max = group.AllReduce(f64, ReduceOp::kMax, kTimeout);
    EXPECT_EQ(Values<double>(f64_max), (std::vector<double>{1.0, 10.0}));
    EXPECT_EQ(f64_max->shape(), TensorShape({1, 2}));
    auto i32 = Tensor<int32_t>({3}, {r, 7 - r, 100});
    EXPECT_EQ(Values<int32_t>(group.AllReduce(i32, ReduceOp::kMin, kTimeout)),
              (std::vector<int32_t>{0, 5, 100}));
    // Integer averages truncate.
    auto i64 = Tensor<int64_t>({2}, {int64_t{1} << 40, r});
    EXPECT_EQ(Values<int64_t>(group.AllReduce(i64, ReduceOp::kAvg, kTimeout)),
              (std::vector<int64_t>{int64_t{1} << 40, 1}));
    EXPECT_TRUE(group.health().ok());
  });
}

TEST_F(GlooGroupTest, AllGatherStacksTheRanks) {
  RunRanks(store_.address(), 3, 1, [](CollectiveGroup& group) {
    int r = group.rank();
    auto gathered =
        group.AllGather(Tensor<int64_t>({2}, {r, 10 * r}), kTimeout);
    ASSERT_TRUE(gathered.ok()) << gathered.status();
    EXPECT_EQ(gathered->shape(), TensorShape({3, 2}));
    EXPECT_EQ(Values<int64_t>(gathered),
              (std::vector<int64_t>{0, 0, 1, 10, 2, 20}));
  });
}

TEST_F(GlooGroupTest, ReduceScatterKeepsThisRanksPart) {
  RunRanks(store_.address(), 3, 1, [](CollectiveGroup& group) {
    int r = group.rank();
    // Rows i of every rank sum to 3*i + (0+1+2).
    auto input = Tensor<float>({3, 2}, {0.0f + r, 0, 1.0f + r, 1, 2.0f + r, 2});
    auto part = group.ReduceScatter(input, ReduceOp::kSum, kTimeout);
    ASSERT_TRUE(part.ok()) << part.status();
    EXPECT_EQ(part->shape(), TensorShape({1, 2}));
    EXPECT_EQ(Values<float>(part),
              (std::vector<float>{3.0f * r + 3, 3.0f * r}));
  });
}

TEST_F(GlooGroupTest, ReduceScatterRefusesAnUnevenSplit) {
  RunRanks(store_.address(), 2, 1, [](CollectiveGroup& group) {
    auto part = group.ReduceScatter(Tensor<float>({3}, {1, 2, 3}),
                                    ReduceOp::kSum, kTimeout);
    EXPECT_EQ(part.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(part.status().message().find("2 equal parts"), std::string::npos)
        << part.status();
    EXPECT_EQ(Classify(part.status()), FailureClass::kFatal);
  });
}

TEST_F(GlooGroupTest, BroadcastCopiesTheRootsTensor) {
  RunRanks(store_.address(), 3, 1, [](CollectiveGroup& group) {
    int r = group.rank();
    auto result = group.Broadcast(Tensor<int32_t>({2}, {r, -r}), 2, kTimeout);
    EXPECT_EQ(Values<int32_t>(result), (std::vector<int32_t>{2, -2}));
  });
}

TEST_F(GlooGroupTest, BarrierWaitsForEveryRank) {
  std::atomic<int> arrived{0};
  RunRanks(store_.address(), 3, 1, [&](CollectiveGroup& group) {
    if (group.rank() == 2) absl::SleepFor(absl::Milliseconds(200));
    arrived.fetch_add(1);
    ASSERT_TRUE(group.Barrier(kTimeout).ok());
    EXPECT_EQ(arrived.load(), 3);
  });
}

TEST_F(GlooGroupTest, WithoutTheAgreementCheckValuesAndBarriersHold) {
  std::atomic<int> arrived{0};
  RunRanks(
      store_.address(), 3, 1,
      [&](CollectiveGroup& group) {
        int r = group.rank();
        EXPECT_EQ(Values<int32_t>(group.AllReduce(Tensor<int32_t>({2}, {r, 1}),
                                                  ReduceOp::kSum, kTimeout)),
                  (std::vector<int32_t>{3, 3}));
        if (r == 2) absl::SleepFor(absl::Milliseconds(200));
        arrived.fetch_add(1);
        ASSERT_TRUE(group.Barrier(kTimeout).ok());
        EXPECT_EQ(arrived.load(), 3);
      },
      [](GlooGroupOptions& options) { options.check_agreement = false; });
}

TEST_F(GlooGroupTest, SendReachesItsRecv) {
  RunRanks(store_.address(), 3, 1, [](CollectiveGroup& group) {
    if (group.rank() == 0) {
      EXPECT_TRUE(
          group.Send(Tensor<double>({2}, {1.5, 2.5}), 2, 7, kTimeout).ok());
      EXPECT_TRUE(group.Send(Tensor<double>({1}, {9.0}), 2, 8, kTimeout).ok());
    } else if (group.rank() == 2) {
      EXPECT_EQ(Values<double>(group.Recv(DType::kF64, {2}, 0, 7, kTimeout)),
                (std::vector<double>{1.5, 2.5}));
      EXPECT_EQ(Values<double>(group.Recv(DType::kF64, {1}, 0, 8, kTimeout)),
                (std::vector<double>{9.0}));
    }
  });
}

TEST_F(GlooGroupTest, RecvOfAnotherShapeIsFatal) {
  RunRanks(store_.address(), 2, 1, [](CollectiveGroup& group) {
    if (group.rank() == 0) {
      // The peer breaks the group when it sees the header: the send fails
      // too, or completes if the peer took it first.
      (void)group.Send(Tensor<float>({3}, {1, 2, 3}), 1, 0, absl::Seconds(5));
      return;
    }
    auto received = group.Recv(DType::kF32, {4}, 0, 0, kTimeout);
    EXPECT_EQ(received.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(received.status().message().find("f32[3]"), std::string::npos)
        << received.status();
    EXPECT_EQ(Classify(received.status()), FailureClass::kFatal);
  });
}

TEST_F(GlooGroupTest, RanksThatDisagreeFailFatallyWithTheGeneration) {
  RunRanks(store_.address(), 3, 5, [](CollectiveGroup& group) {
    int elements = group.rank() == 1 ? 3 : 2;
    auto result = group.AllReduce(
        Tensor<float>({elements}, std::vector<float>(elements, 1.0f)),
        ReduceOp::kSum, kTimeout);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(result.status().message().find("f32[3]"), std::string::npos)
        << result.status();
    EXPECT_NE(
        result.status().message().find(absl::StrCat(
            "allreduce (sum) on rank ", group.rank(), " of 3 (generation 5)")),
        std::string::npos)
        << result.status();
    EXPECT_EQ(Classify(result.status()), FailureClass::kFatal);
    EXPECT_EQ(GetErrorContext(result.status()).generation, 5);
    // Broken for good.
    EXPECT_EQ(group.health(), result.status());
    absl::Status later = group.Barrier(kTimeout);
    EXPECT_EQ(later.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(later.message().find("the group is broken"), std::string::npos)
        << later;
  });
}

TEST_F(GlooGroupTest, ReductionOfBoolsIsFatal) {
  RunRanks(store_.address(), 2, 1, [](CollectiveGroup& group) {
    auto input = DenseHostTensor::Create(DType::kI1, {2}, allocator.get());
    ASSERT_TRUE(input.ok());
    std::memset(input->raw_data(), 0, 2);
    auto result = group.AllReduce(*input, ReduceOp::kMax, kTimeout);
    EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(result.status().message().find("cannot reduce i1"),
              std::string::npos)
        << result.status();
  });
}

TEST_F(GlooGroupTest, AStalledRankTimesOutAsRetryable) {
  RunRanks(store_.address(), 3, 2, [](CollectiveGroup& group) {
    if (group.rank() == 2) {
      // Stays in the group (its connections up) without joining.
      absl::SleepFor(absl::Seconds(2));
      return;
    }
    absl::Time start = absl::Now();
    auto result = group.AllReduce(Tensor<float>({4}, {1, 2, 3, 4}),
                                  ReduceOp::kSum, absl::Milliseconds(500));
    absl::Duration waited = absl::Now() - start;
    EXPECT_EQ(result.status().code(), absl::StatusCode::kDeadlineExceeded)
        << result.status();
    EXPECT_EQ(Classify(result.status()), FailureClass::kRetryable);
    EXPECT_EQ(GetErrorContext(result.status()).generation, 2);
    EXPECT_GE(waited, absl::Milliseconds(490));
    EXPECT_LT(waited, absl::Milliseconds(1500));
    EXPECT_EQ(group.health().code(), absl::StatusCode::kDeadlineExceeded);
  });
}

TEST_F(GlooGroupTest, AbortUnblocksAnAllReduceInFlight) {
  RunRanks(store_.address(), 3, 3, [](CollectiveGroup& group) {
    if (group.rank() == 2) {
      absl::SleepFor(absl::Seconds(1));
      return;
    }
    std::thread aborter;
    if (group.rank() == 0) {
      aborter = std::thread([&group] {
        absl::SleepFor(absl::Milliseconds(200));
        group.Abort(MarkStale(absl::AbortedError("quorum 4 replaced it"), 3));
      });
    }
    absl::Time start = absl::Now();
    auto result = group.AllReduce(Tensor<float>({4}, {1, 2, 3, 4}),
                                  ReduceOp::kSum, absl::Seconds(30));
    absl::Duration waited = absl::Now() - start;
    if (aborter.joinable()) aborter.join();
    ASSERT_FALSE(result.ok());
    // Far below the 30 s timeout: rank 0 by its Abort, rank 1 by rank 0's
    // connections closing.
    EXPECT_LT(waited, absl::Seconds(3));
    if (group.rank() == 0) {
      EXPECT_EQ(result.status().code(), absl::StatusCode::kAborted);
      EXPECT_NE(result.status().message().find(
                    "allreduce (sum) on rank 0 of 3 (generation 3): aborted: "
                    "quorum 4 replaced it"),
                std::string::npos)
          << result.status();
      EXPECT_EQ(Classify(result.status()), FailureClass::kStale);
    } else {
      EXPECT_EQ(result.status().code(), absl::StatusCode::kUnavailable)
          << result.status();
      EXPECT_EQ(Classify(result.status()), FailureClass::kRetryable);
    }
  });
}

TEST_F(GlooGroupTest, AbortFreesTheGroupsThreadAtOnce) {
  // The group's destructor waits for its Gloo thread: it returns long before
  // the timeout only if Abort really woke the blocked Gloo call.
  std::vector<std::thread> threads;
  std::atomic<int64_t> destroy_ms{-1};
  absl::Notification rank1_done;
  for (int rank = 0; rank < 2; ++rank) {
    threads.emplace_back([&, rank] {
      auto group = CreateGlooGroup(RankOptions(store_.address(), rank, 2, 9));
      ASSERT_TRUE(group.ok()) << group.status();
      if (rank == 1) {
        rank1_done.WaitForNotificationWithTimeout(absl::Seconds(20));
        return;
      }
      CollectiveGroup* raw = group->get();
      std::thread aborter([raw] {
        absl::SleepFor(absl::Milliseconds(200));
        raw->Abort(absl::CancelledError("stop"));
      });
      auto result = (*group)->AllReduce(Tensor<float>({1}, {1}), ReduceOp::kSum,
                                        absl::Seconds(30));
      EXPECT_EQ(result.status().code(), absl::StatusCode::kCancelled);
      aborter.join();
      absl::Time start = absl::Now();
      *group = RCReference<CollectiveGroup>();
      destroy_ms = absl::ToInt64Milliseconds(absl::Now() - start);
      rank1_done.Notify();
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_GE(destroy_ms.load(), 0);
  EXPECT_LT(destroy_ms.load(), 2000);
}

TEST_F(GlooGroupTest, AGroupNeverReadsAnOlderGenerationsKeys) {
  // Ranks 0 and 1 of generation 6 leave their (valid) addresses in the
  // store and go; generation 7's ranks must not take them for their own.
  RunRanks(store_.address(), 2, 6, [](CollectiveGroup&) {});
  GlooGroupOptions options = RankOptions(store_.address(), 0, 2, 7);
  options.connect_timeout = absl::Milliseconds(500);
  auto lonely = CreateGlooGroup(options);
  ASSERT_FALSE(lonely.ok());
  EXPECT_EQ(lonely.status().code(), absl::StatusCode::kDeadlineExceeded)
      << lonely.status();
  EXPECT_NE(lonely.status().message().find("gen/7/"), std::string::npos)
      << lonely.status();
  EXPECT_EQ(Classify(lonely.status()), FailureClass::kRetryable);
  EXPECT_EQ(GetErrorContext(lonely.status()).generation, 7);
  // Generation 8 works, with the keys of 6 and of 7's lonely rank (whose
  // address is gone) still in the store.
  RunRanks(store_.address(), 2, 8, [](CollectiveGroup& group) {
    EXPECT_EQ(Values<int32_t>(group.AllReduce(Tensor<int32_t>({1}, {2}),
                                              ReduceOp::kSum, kTimeout)),
              (std::vector<int32_t>{4}));
  });
}

TEST_F(GlooGroupTest, AFaultBeforeAnAllReduceFailsEveryRankAtOnce) {
  // The first rank to reach the allreduce fails there; it breaks its group,
  // which closes its connections, so the others fail long before the 20 s
  // timeout.
  ASSERT_TRUE(
      FaultInjector::Set("collective.allreduce.send=error:UNAVAILABLE@nth=1")
          .ok());
  std::atomic<int> injected{0};
  RunRanks(store_.address(), 3, 4, [&](CollectiveGroup& group) {
    absl::Time start = absl::Now();
    auto result =
        group.AllReduce(Tensor<float>({1}, {1}), ReduceOp::kSum, kTimeout);
    ASSERT_FALSE(result.ok());
    EXPECT_LT(absl::Now() - start, absl::Seconds(5));
    EXPECT_EQ(result.status().code(), absl::StatusCode::kUnavailable)
        << result.status();
    EXPECT_EQ(Classify(result.status()), FailureClass::kRetryable);
    EXPECT_EQ(GetErrorContext(result.status()).generation, 4);
    if (result.status().message().find("fault injected at "
                                       "collective.allreduce.send") !=
        std::string::npos) {
      injected.fetch_add(1);
    }
  });
  EXPECT_EQ(FaultInjector::Hits("collective.allreduce.send"), 3);
  FaultInjector::Clear();
  EXPECT_EQ(injected.load(), 1);
}

TEST_F(GlooGroupTest, BadOptionsAreRefused) {
  GlooGroupOptions options = RankOptions(store_.address(), 3, 3, 1);
  EXPECT_EQ(CreateGlooGroup(options).status().code(),
            absl::StatusCode::kInvalidArgument);
  options.rank = 0;
  options.store_address = "";
  EXPECT_EQ(CreateGlooGroup(options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ReduceOpTest, NamesRoundTrip) {
  for (ReduceOp op :
       {ReduceOp::kSum, ReduceOp::kAvg, ReduceOp::kMin, ReduceOp::kMax}) {
    auto parsed = ParseReduceOp(ReduceOpName(op));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, op);
  }
  EXPECT_EQ(ParseReduceOp("prod").status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sluice::ccl
