// NcclGroup over the fake NcclApi and the real rendezvous store, on every
// machine: values of a one-rank group through the staging path, the
// ncclUniqueId in the store, hangs and async errors turned into error
// values by a real watchdog thread, escalation of a hung abort, split and
// shrink from a parent generation (which is then stale), and no device.
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/collective/nccl_fake_api.h"
#include "lib/collective/nccl_group_internal.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/support/failure.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "test/util/store_server.h"

namespace sluice::ccl {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<HostAllocator> allocator = CreateMallocAllocator();

DenseHostTensor F32(std::vector<float> values) {
  auto tensor = DenseHostTensor::Create(
      DType::kF32, {static_cast<int64_t>(values.size())}, allocator.get());
  std::copy(values.begin(), values.end(),
            static_cast<float*>(tensor->raw_data()));
  return *std::move(tensor);
}

std::vector<float> Values(const DenseHostTensor& tensor) {
  const float* data = static_cast<const float*>(tensor.raw_data());
  return std::vector<float>(data, data + tensor.num_elements());
}

class NcclGroupTest : public ::testing::Test {
 protected:
  NcclGroupTest() : watchdog_(NcclWatchdogOptions{}) {
    environment_.api = &api_;
    environment_.watchdog = &watchdog_;
    environment_.device_tensors = false;
    environment_.escalate = [this](const absl::Status& reason) {
      std::lock_guard<std::mutex> lock(mu_);
      escalations_.push_back(reason);
    };
  }
  ~NcclGroupTest() override {
    api_.ReleaseAborts();
    // Groups are gone; wait (bounded) until the watchdog has released
    // their communicators before the fake goes.
    absl::Time give_up = absl::Now() + absl::Seconds(10);
    while (watchdog_.watched() > 0 && absl::Now() < give_up) {
      absl::SleepFor(absl::Milliseconds(1));
    }
    EXPECT_EQ(watchdog_.watched(), 0);
    EXPECT_EQ(api_.calls_after_release(), 0);
  }

  NcclGroupOptions Options(int64_t generation = 3) {
    NcclGroupOptions options;
    options.store_address = store_.address();
    options.generation = generation;
    options.connect_timeout = absl::Seconds(10);
    options.abort_timeout = absl::Milliseconds(300);
    return options;
  }

  RCReference<NcclGroup> Create(const NcclGroupOptions& options) {
    absl::StatusOr<RCReference<NcclGroup>> group =
        CreateNcclGroupIn(options, environment_);
    EXPECT_TRUE(group.ok()) << group.status();
    return group.ok() ? *std::move(group) : RCReference<NcclGroup>();
  }

  std::vector<absl::Status> Escalations() {
    std::lock_guard<std::mutex> lock(mu_);
    return escalations_;
  }

  testing::StoreServer store_;
  FakeNcclApi api_;
  NcclWatchdog watchdog_;
  NcclGroupEnvironment environment_;
  std::mutex mu_;
  std::vector<absl::Status> escalations_;
};

TEST_F(NcclGroupTest, OneRankMovesValuesThroughDeviceMemory) {
  RCReference<NcclGroup> group = Create(Options());
  ASSERT_TRUE(group);
  EXPECT_EQ(group->created_by(), "init");
  absl::StatusOr<DenseHostTensor> sum =
      group->AllReduce(F32({1, 2, 3, 4}), ReduceOp::kSum, absl::Seconds(5));
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(Values(*sum), (std::vector<float>{1, 2, 3, 4}));
  absl::StatusOr<DenseHostTensor> gathered =
      group->AllGather(F32({5, 6}), absl::Seconds(5));
  ASSERT_TRUE(gathered.ok()) << gathered.status();
  EXPECT_EQ(gathered->shape(), TensorShape({1, 2}));
  EXPECT_EQ(Values(*gathered), (std::vector<float>{5, 6}));
  absl::StatusOr<DenseHostTensor> part =
      group->ReduceScatter(F32({7, 8}), ReduceOp::kMax, absl::Seconds(5));
  ASSERT_TRUE(part.ok()) << part.status();
  EXPECT_EQ(Values(*part), (std::vector<float>{7, 8}));
  absl::StatusOr<DenseHostTensor> broadcast =
      group->Broadcast(F32({9}), 0, absl::Seconds(5));
  ASSERT_TRUE(broadcast.ok()) << broadcast.status();
  EXPECT_EQ(Values(*broadcast), (std::vector<float>{9}));
  EXPECT_TRUE(group->Barrier(absl::Seconds(5)).ok());
  EXPECT_TRUE(group->health().ok());
}

TEST_F(NcclGroupTest, BadArgumentsAreFatalAndLeaveTheGroupWorking) {
  RCReference<NcclGroup> group = Create(Options());
  ASSERT_TRUE(group);
  auto flags = DenseHostTensor::Create(DType::kI1, {2}, allocator.get());
  absl::StatusOr<DenseHostTensor> reduced =
      group->AllReduce(*flags, ReduceOp::kSum, absl::Seconds(5));
  EXPECT_EQ(reduced.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Classify(reduced.status()), FailureClass::kFatal);
  EXPECT_THAT(reduced.status().message(),
              HasSubstr("allreduce (sum) of i1[2] on rank 0 of 1 (generation "
                        "3): cannot reduce i1 tensors"));
  EXPECT_EQ(GetErrorContext(reduced.status()).generation, 3);
  absl::StatusOr<DenseHostTensor> broadcast =
      group->Broadcast(F32({1}), 2, absl::Seconds(5));
  EXPECT_THAT(broadcast.status().message(),
              HasSubstr("root 2 is not a rank of the group"));
  absl::StatusOr<DenseHostTensor> zero =
      group->AllReduce(F32({1}), ReduceOp::kSum, absl::ZeroDuration());
  EXPECT_THAT(zero.status().message(),
              HasSubstr("the timeout must be positive"));
  EXPECT_TRUE(group->health().ok());
  EXPECT_TRUE(
      group->AllReduce(F32({1}), ReduceOp::kSum, absl::Seconds(5)).ok());
}

TEST_F(NcclGroupTest, HungCollectiveIsAnErrorValueAtItsDeadline) {
  RCReference<NcclGroup> group = Create(Options());
  ASSERT_TRUE(group);
  FakeNcclScript script;
  script.complete_after_queries = -1;
  api_.SetScript(script);
  absl::Time start = absl::Now();
  absl::StatusOr<DenseHostTensor> sum =
      group->AllReduce(F32({1}), ReduceOp::kSum, absl::Milliseconds(200));
  absl::Duration took = absl::Now() - start;
  EXPECT_EQ(sum.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(Classify(sum.status()), FailureClass::kRetryable);
  EXPECT_EQ(GetErrorContext(sum.status()).generation, 3);
  EXPECT_THAT(sum.status().message(), HasSubstr("no result within 200ms"));
  EXPECT_GE(took, absl::Milliseconds(200));
  EXPECT_LT(took, absl::Seconds(1) + absl::Milliseconds(200));
  // The watchdog aborted the communicator; the group is broken for good.
  absl::Time give_up = absl::Now() + absl::Seconds(10);
  while (api_.aborts_returned() == 0 && absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(1));
  }
  EXPECT_EQ(api_.aborts_returned(), 1);
  absl::Status barrier = group->Barrier(absl::Seconds(5));
  EXPECT_THAT(barrier.message(), HasSubstr("refused: the group is broken"));
  EXPECT_EQ(barrier.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_TRUE(Escalations().empty());
}

TEST_F(NcclGroupTest, AsyncErrorOfAPeerIsUnavailable) {
  RCReference<NcclGroup> group = Create(Options());
  ASSERT_TRUE(group);
  FakeNcclScript script;
  script.complete_after_queries = -1;
  // Its first poll (joining) succeeds; the watchdog's next one fails.
  script.async_error_after_polls = 1;
  api_.SetScript(script);
  // The script applies to communicators made after it.
  RCReference<NcclGroup> next = Create(Options(4));
  ASSERT_TRUE(next);
  absl::StatusOr<DenseHostTensor> sum =
      next->AllReduce(F32({1}), ReduceOp::kSum, absl::Seconds(30));
  EXPECT_EQ(sum.status().code(), absl::StatusCode::kUnavailable)
      << sum.status();
  EXPECT_EQ(Classify(sum.status()), FailureClass::kRetryable);
  EXPECT_EQ(GetErrorContext(sum.status()).generation, 4);
}

TEST_F(NcclGroupTest, AbortThatHangsEscalatesAndTheCallerStillGetsItsError) {
  RCReference<NcclGroup> group = Create(Options());
  ASSERT_TRUE(group);
  FakeNcclScript script;
  script.complete_after_queries = -1;
  script.abort_hangs = true;
  api_.SetScript(script);
  absl::StatusOr<DenseHostTensor> sum =
      group->AllReduce(F32({1}), ReduceOp::kSum, absl::Milliseconds(100));
  EXPECT_EQ(sum.status().code(), absl::StatusCode::kDeadlineExceeded);
  absl::Time give_up = absl::Now() + absl::Seconds(10);
  while (Escalations().empty() && absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  std::vector<absl::Status> escalations = Escalations();
  ASSERT_EQ(escalations.size(), 1u);
  EXPECT_THAT(escalations[0].message(),
              HasSubstr("ncclCommAbort of rank 0 of 1 (generation 3) did not "
                        "return within 300ms"));
  EXPECT_THAT(escalations[0].message(), HasSubstr("no result within 100ms"));
  EXPECT_EQ(api_.aborts_returned(), 0);
}

TEST_F(NcclGroupTest, AbortFromAnotherThreadEndsTheCallAtOnce) {
  RCReference<NcclGroup> group = Create(Options());
  ASSERT_TRUE(group);
  FakeNcclScript script;
  script.complete_after_queries = -1;
  api_.SetScript(script);
  std::thread aborter([&] {
    absl::SleepFor(absl::Milliseconds(50));
    group->Abort(MarkStale(absl::AbortedError("quorum 4 formed"), 3));
  });
  absl::StatusOr<DenseHostTensor> sum =
      group->AllReduce(F32({1}), ReduceOp::kSum, absl::Seconds(30));
  aborter.join();
  EXPECT_EQ(sum.status().code(), absl::StatusCode::kAborted);
  EXPECT_EQ(Classify(sum.status()), FailureClass::kStale);
  EXPECT_THAT(sum.status().message(), HasSubstr("aborted: quorum 4 formed"));
}

TEST_F(NcclGroupTest, NextGenerationIsSplitAndTheParentIsStale) {
  RCReference<NcclGroup> parent = Create(Options(3));
  ASSERT_TRUE(parent);
  NcclGroupOptions options = Options(4);
  options.parent = parent.get();
  RCReference<NcclGroup> child = Create(options);
  ASSERT_TRUE(child);
  EXPECT_EQ(child->created_by(), "split");
  EXPECT_EQ(api_.splits(), 1);
  absl::StatusOr<DenseHostTensor> old =
      parent->AllReduce(F32({1}), ReduceOp::kSum, absl::Seconds(5));
  EXPECT_EQ(Classify(old.status()), FailureClass::kStale) << old.status();
  EXPECT_THAT(old.status().message(),
              HasSubstr("the group of generation 3 was retired for "
                        "generation 4"));
  EXPECT_EQ(GetErrorContext(old.status()).generation, 3);
  EXPECT_TRUE(
      child->AllReduce(F32({1}), ReduceOp::kSum, absl::Seconds(5)).ok());
}

TEST_F(NcclGroupTest, SplitFinishedOnNcclsThreadIsReadFromItsParent) {
  FakeNcclScript script;
  script.creation_takes = absl::Milliseconds(50);
  api_.SetScript(script);
  RCReference<NcclGroup> parent = Create(Options(3));
  ASSERT_TRUE(parent);
  for (std::vector<int> excluded : {std::vector<int>{}, std::vector<int>{1}}) {
    NcclGroupOptions options = Options(parent->generation() + 1);
    options.parent = parent.get();
    options.excluded_parent_ranks = excluded;
    RCReference<NcclGroup> child = Create(options);
    ASSERT_TRUE(child);
    EXPECT_EQ(child->created_by(), excluded.empty() ? "split" : "shrink");
    absl::StatusOr<DenseHostTensor> sum =
        child->AllReduce(F32({1, 2}), ReduceOp::kSum, absl::Seconds(5));
    ASSERT_TRUE(sum.ok()) << sum.status();
    // (The fake moves data only in communicators of one rank.)
    if (excluded.empty()) EXPECT_EQ(Values(*sum), (std::vector<float>{1, 2}));
    parent = std::move(child);
  }
  EXPECT_EQ(api_.concurrent_calls(), 0);
}

TEST_F(NcclGroupTest, SplitThatOutlastsTheConnectTimeoutAbortsItsParent) {
  RCReference<NcclGroup> parent = Create(Options(3));
  ASSERT_TRUE(parent);
  FakeNcclScript script;
  script.creation_takes = absl::Seconds(1);
  api_.SetScript(script);
  NcclGroupOptions options = Options(4);
  options.parent = parent.get();
  options.connect_timeout = absl::Milliseconds(100);
  absl::StatusOr<RCReference<NcclGroup>> child =
      CreateNcclGroupIn(options, environment_);
  EXPECT_EQ(child.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(Classify(child.status()), FailureClass::kRetryable);
  EXPECT_THAT(child.status().message(),
              HasSubstr("the ranks did not all join within 100ms"));
  // NCCL may still be splitting: the parent is aborted, which ends it.
  EXPECT_FALSE(parent->health().ok());
  absl::Time give_up = absl::Now() + absl::Seconds(10);
  while (api_.aborts_returned() == 0 && absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(1));
  }
  EXPECT_EQ(api_.aborts_returned(), 1);
}

TEST_F(NcclGroupTest, RefusedCallsSayWhatNcclSaid) {
  RCReference<NcclGroup> group = Create(Options());
  ASSERT_TRUE(group);
  FakeNcclScript script;
  script.enqueue_result = ncclInvalidUsage;
  script.last_error =
      "Duplicate GPU detected : rank 1 and rank 0 both on "
      "CUDA device 1000";
  api_.SetScript(script);
  absl::StatusOr<DenseHostTensor> sum =
      group->AllReduce(F32({1}), ReduceOp::kSum, absl::Seconds(5));
  EXPECT_EQ(sum.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(sum.status().message(),
              HasSubstr("invalid usage: Duplicate GPU detected"));
}

TEST_F(NcclGroupTest, ExcludedRanksShrinkAndABrokenParentReinitializes) {
  FakeNcclScript script;
  api_.SetScript(script);
  NcclGroupOptions first = Options(3);
  RCReference<NcclGroup> parent = Create(first);
  ASSERT_TRUE(parent);
  NcclGroupOptions shrunk = Options(4);
  shrunk.parent = parent.get();
  shrunk.excluded_parent_ranks = {1};
  RCReference<NcclGroup> child = Create(shrunk);
  ASSERT_TRUE(child);
  EXPECT_EQ(child->created_by(), "shrink");
  EXPECT_EQ(api_.shrinks(), 1);

  // A broken parent's communicator is aborted: the next one is new.
  child->Abort(absl::UnavailableError("peer 2 died"));
  NcclGroupOptions fresh = Options(5);
  fresh.parent = child.get();
  RCReference<NcclGroup> last = Create(fresh);
  ASSERT_TRUE(last);
  EXPECT_EQ(last->created_by(), "init");

  // Without the calls in the installed NCCL, every generation is new.
  script.split = false;
  api_.SetScript(script);
  NcclGroupOptions unsplit = Options(6);
  unsplit.parent = last.get();
  RCReference<NcclGroup> without = Create(unsplit);
  ASSERT_TRUE(without);
  EXPECT_EQ(without->created_by(), "init");
}

TEST_F(NcclGroupTest, CommunicatorThatNeverJoinsFailsAtTheConnectTimeout) {
  FakeNcclScript script;
  script.init_in_progress_polls = 1 << 30;
  api_.SetScript(script);
  NcclGroupOptions options = Options();
  options.connect_timeout = absl::Milliseconds(100);
  absl::StatusOr<RCReference<NcclGroup>> group =
      CreateNcclGroupIn(options, environment_);
  EXPECT_EQ(group.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(Classify(group.status()), FailureClass::kRetryable);
  EXPECT_THAT(group.status().message(),
              HasSubstr("the ranks did not all join within 100ms"));
  absl::Time give_up = absl::Now() + absl::Seconds(10);
  while (api_.aborts_returned() == 0 && absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(1));
  }
  EXPECT_EQ(api_.aborts_returned(), 1);
}

TEST_F(NcclGroupTest, OtherRanksWaitForRankZerosIdInTheStore) {
  NcclGroupOptions options = Options();
  options.size = 2;
  options.rank = 1;
  options.connect_timeout = absl::Milliseconds(200);
  absl::StatusOr<RCReference<NcclGroup>> alone =
      CreateNcclGroupIn(options, environment_);
  EXPECT_EQ(alone.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(alone.status().message(),
              HasSubstr("waiting for rank 0's gen/3/nccl_unique_id"));
  EXPECT_EQ(Classify(alone.status()), FailureClass::kRetryable);

  // Both ranks (as threads): rank 1 receives the id rank 0 set.
  options.generation = 8;
  options.connect_timeout = absl::Seconds(10);
  std::thread rank1([&] { EXPECT_TRUE(Create(options)); });
  NcclGroupOptions zero = options;
  zero.rank = 0;
  RCReference<NcclGroup> group0 = Create(zero);
  rank1.join();
  EXPECT_TRUE(group0);
}

TEST_F(NcclGroupTest, NoDeviceIsAFailedPrecondition) {
  FakeNcclScript script;
  script.devices = 0;
  api_.SetScript(script);
  absl::StatusOr<RCReference<NcclGroup>> group =
      CreateNcclGroupIn(Options(), environment_);
  EXPECT_EQ(group.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(group.status().message(), HasSubstr("no CUDA device"));
}

}  // namespace
}  // namespace sluice::ccl
