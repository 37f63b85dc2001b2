// The state machine of a watched NCCL communicator, driven by Poll with
// chosen times over the fake NcclApi: collectives that stay in progress,
// complete, fail asynchronously, pass their deadline, are aborted; aborts
// that hang and are escalated; a closed communicator destroyed.
#include "lib/collective/nccl_comm_watch.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/collective/nccl_fake_api.h"
#include "lib/collective/nccl_watchdog.h"
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

  // With `device` >= 0, the communicator's stream is made on it and the
  // watch makes it current.
  void Open(FakeNcclScript script,
            absl::Duration abort_timeout = absl::Seconds(10), int device = -1) {
    api_ = std::make_unique<FakeNcclApi>(script);
    ncclUniqueId id;
    ASSERT_EQ(api_->GetUniqueId(&id), ncclSuccess);
    ASSERT_EQ(api_->CommInitRankConfig(&comm_, 2, id, 0, nullptr), ncclSuccess);
    if (device >= 0) {
      ASSERT_EQ(api_->SetDevice(device), cudaSuccess);
    }
    ASSERT_EQ(api_->StreamCreate(&stream_), cudaSuccess);
    NcclCommWatchOptions options;
    options.device = device;
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

// Polls with the real clock, as the watchdog does, until `condition` holds
// (at most 10 s).
template <typename F>
bool PollInRealTime(NcclCommWatch& watch, F condition) {
  absl::Time give_up = absl::Now() + absl::Seconds(10);
  while (!condition() && absl::Now() < give_up) {
    watch.Poll(absl::Now());
    absl::SleepFor(absl::Microseconds(50));
  }
  return condition();
}

TEST_F(NcclCommWatchTest, WatchdogNeverCallsNcclWhileACallerIsInside) {
  FakeNcclScript script;
  script.enqueue_takes = absl::Milliseconds(100);
  api_->SetScript(script);
  Outcome outcome;
  std::thread caller([&] { watch_->Submit(Op(outcome)); });
  EXPECT_TRUE(
      PollInRealTime(*watch_, [&] { return outcome.Get().has_value(); }));
  caller.join();
  EXPECT_TRUE(outcome.Get()->ok()) << *outcome.Get();
  EXPECT_GT(api_->async_error_polls(), 0);
  EXPECT_EQ(api_->concurrent_calls(), 0);
}

TEST_F(NcclCommWatchTest, AbortWaitsForTheCallerToLeaveNccl) {
  FakeNcclScript script;
  script.enqueue_takes = absl::Milliseconds(200);
  api_->SetScript(script);
  Outcome outcome;
  std::thread caller([&] { watch_->Submit(Op(outcome)); });
  absl::SleepFor(absl::Milliseconds(20));  // the caller is inside NCCL
  watch_->Abort(absl::UnavailableError("peer 1 died"));
  EXPECT_TRUE(PollInRealTime(*watch_, [&] { return watch_->finished(); }));
  caller.join();
  ASSERT_TRUE(outcome.Get().has_value());
  EXPECT_THAT(outcome.Get()->message(), HasSubstr("peer 1 died"));
  EXPECT_EQ(api_->aborts_returned(), 1);
  EXPECT_EQ(api_->concurrent_calls(), 0);
}

TEST_F(NcclCommWatchTest, StreamWorkWaitsUntilTheLastCallLeavesInProgress) {
  FakeNcclScript script;
  script.enqueue_in_progress_polls = 2;
  api_->SetScript(script);
  Outcome first;
  watch_->Submit(Op(first));
  ASSERT_EQ(watch_->CountInFlight(OpState::kPending), 1);
  api_->SetScript(FakeNcclScript{});
  Outcome second;
  std::atomic<int> pending_at_prologue{-1};
  std::thread caller([&] {
    NcclOp next = Op(second);
    next.prologue = [&] {
      pending_at_prologue = watch_->CountInFlight(OpState::kPending);
      return cudaSuccess;
    };
    watch_->Submit(std::move(next));
  });
  absl::SleepFor(absl::Milliseconds(20));
  EXPECT_EQ(pending_at_prologue, -1) << "stream work before NCCL took calls";
  PollUntil([&] { return second.Get().has_value(); });
  caller.join();
  EXPECT_EQ(pending_at_prologue, 0);
  EXPECT_TRUE(second.Get()->ok()) << *second.Get();
}

TEST_F(NcclCommWatchTest, WatchdogThreadMakesTheCommunicatorsDeviceCurrent) {
  FakeNcclScript script;
  script.devices = 2;
  Open(script, absl::Seconds(10), /*device=*/1);
  script.enqueue_in_progress_polls = 1;
  api_->SetScript(script);
  Outcome outcome;
  watch_->Submit(Op(outcome));
  ASSERT_EQ(watch_->CountInFlight(OpState::kPending), 1);
  // The watchdog's thread, whose current device is 0, starts it.
  std::thread watchdog([&] {
    PollInRealTime(*watch_, [&] { return outcome.Get().has_value(); });
  });
  watchdog.join();
  ASSERT_TRUE(outcome.Get().has_value());
  EXPECT_TRUE(outcome.Get()->ok()) << *outcome.Get();
  EXPECT_EQ(api_->device_mismatches(), 0);
}

TEST_F(NcclCommWatchTest, SlowFinalizeIsAbortedWithoutEscalation) {
  FakeNcclScript script;
  script.finalize_takes = absl::Seconds(5);
  Open(script, absl::Milliseconds(200));
  watch_->Close();
  EXPECT_TRUE(PollInRealTime(*watch_, [&] { return watch_->finished(); }));
  EXPECT_EQ(watch_->state(), CommState::kClosed);
  // The finalize had its 200 ms, then the abort its own.
  EXPECT_EQ(api_->aborts_returned(), 1);
  EXPECT_TRUE(Escalations().empty()) << Escalations()[0];
}

TEST_F(NcclCommWatchTest, ErrorsCarryNcclsLastError) {
  FakeNcclScript script;
  script.enqueue_result = ncclInvalidUsage;
  script.last_error =
      "Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000";
  api_->SetScript(script);
  Outcome outcome;
  watch_->Submit(Op(outcome));
  ASSERT_TRUE(outcome.Get().has_value());
  EXPECT_THAT(outcome.Get()->message(),
              HasSubstr("the nccl call failed: invalid usage: Duplicate GPU "
                        "detected : rank 1 and rank 0 both on CUDA device"));
}

TEST(NcclWatchdogTest, DrainWaitsForClosingCommunicatorsOnly) {
  FakeNcclScript script;
  script.finalize_takes = absl::Milliseconds(100);
  FakeNcclApi api(script);
  NcclWatchdog watchdog;
  auto watch_of = [&](const char* name) {
    ncclUniqueId id;
    ncclComm_t comm = nullptr;
    cudaStream_t stream = nullptr;
    EXPECT_EQ(api.GetUniqueId(&id), ncclSuccess);
    EXPECT_EQ(api.CommInitRankConfig(&comm, 1, id, 0, nullptr), ncclSuccess);
    EXPECT_EQ(api.StreamCreate(&stream), cudaSuccess);
    NcclCommWatchOptions options;
    options.name = name;
    auto watch = std::make_shared<NcclCommWatch>(&api, comm, stream, options);
    watchdog.Watch(watch);
    return watch;
  };
  std::shared_ptr<NcclCommWatch> open = watch_of("open");
  std::shared_ptr<NcclCommWatch> closing = watch_of("closing");
  closing->Close();
  EXPECT_TRUE(watchdog.Drain(absl::Seconds(10)));
  EXPECT_TRUE(closing->finished());
  EXPECT_EQ(api.comms_destroyed(), 1);
  EXPECT_FALSE(open->finished());
  open->Close();
  EXPECT_TRUE(watchdog.Drain(absl::Seconds(10)));
  EXPECT_EQ(api.comms_destroyed(), 2);
}

// A process that drops its communicator and exits while NCCL still
// finalizes it: exit waits for the finalize (on a GPU, NCCL otherwise
// finishes under a CUDA runtime already torn down).
TEST(NcclWatchdogDeathTest, ExitDrainsTheProcessWatchdog) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        FakeNcclScript script;
        script.finalize_takes = absl::Milliseconds(300);
        static FakeNcclApi* const api = new FakeNcclApi(script);
        // Registered first, so run last: after the drain.
        std::atexit([] {
          std::fprintf(stderr, "destroyed at exit: %d\n",
                       api->comms_destroyed());
        });
        NcclWatchdog::DrainProcessAtExit();
        ncclUniqueId id;
        ncclComm_t comm = nullptr;
        cudaStream_t stream = nullptr;
        api->GetUniqueId(&id);
        api->CommInitRankConfig(&comm, 1, id, 0, nullptr);
        api->StreamCreate(&stream);
        auto watch = std::make_shared<NcclCommWatch>(api, comm, stream,
                                                     NcclCommWatchOptions{});
        NcclWatchdog::Process()->Watch(watch);
        watch->Close();
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "destroyed at exit: 1");
}

}  // namespace
}  // namespace sluice::ccl
