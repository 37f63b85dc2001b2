// The state machine of a watched NCCL communicator, driven by Poll with
// chosen times over the fake NcclApi: collectives that stay in progress,
// complete, fail asynchronously, pass their deadline, are aborted; aborts
// that hang and are escalated; a closed communicator destroyed.
#include "lib/collective/nccl_comm_watch.h"

#include <atomic>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/collective/nccl_fake_api.h"
#include "sluice/support/failure.h"

namespace sluice::ccl {
namespace {

using CommState = NcclCommWatch::CommState;
using OpState = NcclCommWatch::OpState;
using ::testing::HasSubstr;

constexpr int64_t kGeneration = 7;

// What a collective's `done` was called with.
struct Outcome {
  std::mutex mu;
  std::optional<absl::Status> status;
  int calls = 0;

  std::function<void(absl::Status)> Done() {
    return [this](absl::Status status) {
      std::lock_guard<std::mutex> lock(mu);
      this->status = std::move(status);
      ++calls;
    };
  }
  std::optional<absl::Status> Get() {
    std::lock_guard<std::mutex> lock(mu);
    return status;
  }
};

class NcclCommWatchTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(FakeNcclScript{}); }
  void TearDown() override {
    // Every test leaves the communicator finished, so no thread is left.
    api_->ReleaseAborts();
    if (!watch_->finished()) {
      watch_->Abort(absl::CancelledError("test over"));
      PollUntil([&] { return watch_->finished(); });
    }
    EXPECT_EQ(api_->calls_after_release(), 0);
  }

  void Open(FakeNcclScript script,
            absl::Duration abort_timeout = absl::Seconds(10)) {
    api_ = std::make_unique<FakeNcclApi>(script);
    ncclUniqueId id;
    ASSERT_EQ(api_->GetUniqueId(&id), ncclSuccess);
    ASSERT_EQ(api_->CommInitRankConfig(&comm_, 2, id, 0, nullptr), ncclSuccess);
    ASSERT_EQ(api_->StreamCreate(&stream_), cudaSuccess);
    NcclCommWatchOptions options;
    options.name = "rank 0 of 2 (generation 7)";
    options.generation = kGeneration;
    options.abort_timeout = abort_timeout;
    options.escalate = [this](const absl::Status& reason) {
      std::lock_guard<std::mutex> lock(mu_);
      escalations_.push_back(reason);
    };
    watch_ = std::make_unique<NcclCommWatch>(api_.get(), comm_, stream_,
                                             std::move(options));
  }

  // A collective that copies nothing and holds `buffers`.
  NcclOp Op(Outcome& outcome, absl::Duration timeout = absl::Seconds(5),
            std::shared_ptr<void> buffers = nullptr) {
    NcclOp op;
    op.what = "allreduce (sum) of f32[4] on rank 0 of 2 (generation 7)";
    op.timeout = timeout;
    op.deadline = now_ + timeout;
    op.enqueue = [this] {
      return api_->AllReduce(nullptr, nullptr, 4, ncclFloat32, ncclSum, comm_,
                             stream_);
    };
    op.done = outcome.Done();
    op.buffers = std::move(buffers);
    return op;
  }

  // Polls at `now_` until `condition` holds (the abort and destroy threads
  // run on their own), for at most 10 s.
  template <typename F>
  void PollUntil(F condition) {
    absl::Time give_up = absl::Now() + absl::Seconds(10);
    while (!condition() && absl::Now() < give_up) {
      watch_->Poll(now_);
      absl::SleepFor(absl::Milliseconds(1));
    }
    ASSERT_TRUE(condition()) << "not within 10 s";
  }

  std::vector<absl::Status> Escalations() {
    std::lock_guard<std::mutex> lock(mu_);
    return escalations_;
  }

  std::unique_ptr<FakeNcclApi> api_;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<NcclCommWatch> watch_;
  // Polls take chosen times; a Submit that waits does so on the clock.
  absl::Time now_ = absl::Now();
  std::mutex mu_;
  std::vector<absl::Status> escalations_;
};

TEST_F(NcclCommWatchTest, CollectiveIsDoneWhenItsEventIs) {
  FakeNcclScript script;
  script.complete_after_queries = 3;
  api_->SetScript(script);
  Outcome outcome;
  auto buffers = std::make_shared<int>(0);
  watch_->Submit(Op(outcome, absl::Seconds(5), buffers));
  EXPECT_EQ(watch_->CountInFlight(OpState::kInProgress), 1);
  for (int i = 0; i < 3; ++i) {
    watch_->Poll(now_);
    EXPECT_FALSE(outcome.Get().has_value()) << "poll " << i;
  }
  EXPECT_EQ(buffers.use_count(), 2);  // the watch holds them
  watch_->Poll(now_);
  ASSERT_TRUE(outcome.Get().has_value());
  EXPECT_TRUE(outcome.Get()->ok()) << *outcome.Get();
  EXPECT_EQ(buffers.use_count(), 1);
  EXPECT_EQ(watch_->CountInFlight(OpState::kInProgress), 0);
  EXPECT_TRUE(watch_->health().ok());
  EXPECT_FALSE(watch_->busy());
}

TEST_F(NcclCommWatchTest, InProgressCallIsPendingUntilNcclSaysSo) {
  FakeNcclScript script;
  script.enqueue_in_progress_polls = 2;
  api_->SetScript(script);
  Outcome first;
  std::atomic<int> epilogues{0};
  NcclOp op = Op(first);
  op.epilogue = [&] {
    ++epilogues;
    return cudaSuccess;
  };
  watch_->Submit(std::move(op));
  EXPECT_EQ(watch_->CountInFlight(OpState::kPending), 1);
  api_->SetScript(FakeNcclScript{});

  // NCCL takes no other call until the first is enqueued: the second
  // Submit waits for Poll.
  Outcome second;
  std::atomic<bool> second_enqueued{false};
  std::thread caller([&] {
    NcclOp next = Op(second);
    auto enqueue = next.enqueue;
    next.enqueue = [&, enqueue] {
      second_enqueued = true;
      return enqueue();
    };
    watch_->Submit(std::move(next));
  });
  for (int i = 0; i < 2; ++i) {
    watch_->Poll(now_);
    EXPECT_EQ(watch_->CountInFlight(OpState::kPending), 1) << "poll " << i;
    EXPECT_EQ(epilogues, 0);
  }
  absl::SleepFor(absl::Milliseconds(20));
  EXPECT_FALSE(second_enqueued);
  watch_->Poll(now_);  // ncclSuccess: the first is on the stream and done
  EXPECT_EQ(epilogues, 1);
  ASSERT_TRUE(first.Get().has_value());
  EXPECT_TRUE(first.Get()->ok()) << *first.Get();
  caller.join();
  EXPECT_TRUE(second_enqueued);
  PollUntil([&] { return second.Get().has_value(); });
  EXPECT_TRUE(second.Get()->ok()) << *second.Get();
}

TEST_F(NcclCommWatchTest, AsyncErrorFailsCollectivesAndAbortsTheCommunicator) {
  FakeNcclScript script;
  script.complete_after_queries = -1;
  script.async_error_after_polls = 1;
  Open(script);
  Outcome first, second;
  auto buffers = std::make_shared<int>(0);
  watch_->Submit(Op(first, absl::Seconds(5), buffers));
  watch_->Submit(Op(second));
  watch_->Poll(now_);
  EXPECT_FALSE(first.Get().has_value());
  watch_->Poll(now_);  // the async error
  ASSERT_TRUE(first.Get().has_value());
  absl::Status error = *first.Get();
  EXPECT_EQ(error.code(), absl::StatusCode::kUnavailable) << error;
  EXPECT_EQ(Classify(error), FailureClass::kRetryable);
  EXPECT_EQ(GetErrorContext(error).generation, kGeneration);
  EXPECT_THAT(error.message(),
              HasSubstr("remote process exited or there was a network error"));
  EXPECT_THAT(error.message(), HasSubstr("allreduce (sum) of f32[4]"));
  ASSERT_TRUE(second.Get().has_value());
  EXPECT_EQ(second.Get()->code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(GetErrorContext(*second.Get()).generation, kGeneration);

  // The abort started on a thread of the watch's own (and may already have
  // returned); the buffers wait for it.
  EXPECT_THAT(watch_->state(),
              ::testing::AnyOf(CommState::kAborting, CommState::kAborted));
  PollUntil([&] { return watch_->state() == CommState::kAborted; });
  EXPECT_EQ(api_->aborts_returned(), 1);
  EXPECT_EQ(buffers.use_count(), 1);
  EXPECT_TRUE(watch_->finished());

  // Broken for good: a later collective is refused at once with the error.
  Outcome later;
  watch_->Submit(Op(later));
  ASSERT_TRUE(later.Get().has_value());
  EXPECT_EQ(later.Get()->code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(later.Get()->message(),
              HasSubstr("refused: the group is broken"));
  EXPECT_EQ(GetErrorContext(*later.Get()).generation, kGeneration);
  EXPECT_EQ(watch_->health().code(), absl::StatusCode::kUnavailable);
}

TEST_F(NcclCommWatchTest, DeadlineFailsAHungCollective) {
  FakeNcclScript script;
  script.complete_after_queries = -1;
  api_->SetScript(script);
  Outcome outcome;
  watch_->Submit(Op(outcome, absl::Seconds(5)));
  watch_->Poll(now_ + absl::Seconds(4));
  EXPECT_FALSE(outcome.Get().has_value());
  watch_->Poll(now_ + absl::Seconds(5));
  ASSERT_TRUE(outcome.Get().has_value());
  absl::Status error = *outcome.Get();
  EXPECT_EQ(error.code(), absl::StatusCode::kDeadlineExceeded) << error;
  EXPECT_EQ(Classify(error), FailureClass::kRetryable);
  EXPECT_EQ(GetErrorContext(error).generation, kGeneration);
  EXPECT_THAT(error.message(),
              HasSubstr("allreduce (sum) of f32[4] on rank 0 of 2 "
                        "(generation 7): no result within 5s"));
  PollUntil([&] { return watch_->finished(); });
  EXPECT_EQ(api_->aborts_returned(), 1);
  EXPECT_TRUE(Escalations().empty());
}

TEST_F(NcclCommWatchTest, DeadlineOfACallNcclKeepsInProgress) {
  FakeNcclScript script;
  script.enqueue_in_progress_polls = 1000;
  api_->SetScript(script);
  Outcome outcome;
  watch_->Submit(Op(outcome, absl::Seconds(2)));
  watch_->Poll(now_ + absl::Seconds(2));
  ASSERT_TRUE(outcome.Get().has_value());
  EXPECT_EQ(outcome.Get()->code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(outcome.Get()->message(),
              HasSubstr("(nccl was still enqueuing it)"));
}

TEST_F(NcclCommWatchTest, AbortGivesItsReasonAndClass) {
  FakeNcclScript script;
  script.complete_after_queries = -1;
  api_->SetScript(script);
  Outcome outcome;
  watch_->Submit(Op(outcome));
  watch_->Abort(
      MarkStale(absl::AbortedError("retired for quorum 8"), kGeneration));
  ASSERT_TRUE(outcome.Get().has_value());
  absl::Status error = *outcome.Get();
  EXPECT_EQ(error.code(), absl::StatusCode::kAborted);
  EXPECT_EQ(Classify(error), FailureClass::kStale);
  EXPECT_THAT(error.message(), HasSubstr("aborted: retired for quorum 8"));
  EXPECT_EQ(GetErrorContext(error).generation, kGeneration);
  // Aborted from the watchdog's side, not the caller's.
  EXPECT_EQ(api_->aborts_started(), 0);
  PollUntil([&] { return watch_->finished(); });
  EXPECT_EQ(api_->aborts_returned(), 1);
  // The first reason wins.
  watch_->Abort(absl::CancelledError("second"));
  EXPECT_THAT(watch_->health().message(), HasSubstr("retired for quorum 8"));
}

TEST_F(NcclCommWatchTest, AbortThatHangsIsEscalatedOnce) {
  FakeNcclScript script;
  script.complete_after_queries = -1;
  script.abort_hangs = true;
  Open(script, absl::Seconds(2));
  Outcome outcome;
  auto buffers = std::make_shared<int>(0);
  watch_->Submit(Op(outcome, absl::Seconds(5), buffers));
  watch_->Poll(now_ + absl::Seconds(5));  // the deadline: abort starts
  ASSERT_TRUE(outcome.Get().has_value());
  EXPECT_EQ(outcome.Get()->code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(watch_->state(), CommState::kAborting);
  PollUntil([&] { return api_->aborts_started() == 1; });
  watch_->Poll(now_ + absl::Seconds(6));
  EXPECT_TRUE(Escalations().empty());
  watch_->Poll(now_ + absl::Seconds(7));  // 2 s after the abort started
  std::vector<absl::Status> escalations = Escalations();
  ASSERT_EQ(escalations.size(), 1u);
  EXPECT_THAT(escalations[0].message(),
              HasSubstr("ncclCommAbort of rank 0 of 2 (generation 7) did not "
                        "return within 2s (it broke with: allreduce"));
  watch_->Poll(now_ + absl::Seconds(60));
  EXPECT_EQ(Escalations().size(), 1u);
  // The device may still write to the buffers of a communicator that is not
  // aborted: they stay.
  EXPECT_EQ(buffers.use_count(), 2);
  EXPECT_EQ(watch_->state(), CommState::kAborting);

  api_->ReleaseAborts();
  PollUntil([&] { return watch_->finished(); });
  EXPECT_EQ(buffers.use_count(), 1);
}

TEST_F(NcclCommWatchTest, FailedCallBreaksTheCommunicatorAsFatal) {
  FakeNcclScript script;
  script.enqueue_result = ncclInvalidArgument;
  api_->SetScript(script);
  Outcome outcome;
  watch_->Submit(Op(outcome));
  ASSERT_TRUE(outcome.Get().has_value());
  EXPECT_EQ(outcome.Get()->code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Classify(*outcome.Get()), FailureClass::kFatal);
  EXPECT_THAT(outcome.Get()->message(),
              HasSubstr("the nccl call failed: invalid argument"));
  PollUntil([&] { return watch_->finished(); });
  EXPECT_EQ(api_->aborts_returned(), 1);
}

TEST_F(NcclCommWatchTest, ClosedCommunicatorIsDestroyedOnceIdle) {
  FakeNcclScript script;
  script.complete_after_queries = 2;
  api_->SetScript(script);
  Outcome outcome;
  watch_->Submit(Op(outcome));
  watch_->Close();
  watch_->Poll(now_);
  EXPECT_EQ(watch_->state(), CommState::kHealthy);  // still in flight
  PollUntil([&] { return watch_->finished(); });
  EXPECT_TRUE(outcome.Get()->ok());
  EXPECT_EQ(watch_->state(), CommState::kClosed);
  EXPECT_EQ(api_->comms_destroyed(), 1);
  EXPECT_EQ(api_->aborts_started(), 0);
}

}  // namespace
}  // namespace sluice::ccl
