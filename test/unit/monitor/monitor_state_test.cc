#include "lib/monitor/monitor_state.h"

#include <random>
#include <string>

#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace sluice::monitor {
namespace {

using proto::Signal;
using proto::Verdict;

const absl::Time kStart = absl::FromUnixSeconds(1'700'000'000);

// A MonitorState and a fake clock; each rank process has one stream.
class MonitorStateTest : public ::testing::Test {
 protected:
  void Configure(MonitorOptions options) {
    state_ = std::make_unique<MonitorState>(std::move(options));
  }
  void SetUp() override {
    MonitorOptions options;
    options.world_size = 3;
    options.step_kind_timeouts = {{"first", absl::Seconds(120)},
                                  {"checkpoint", absl::Seconds(300)}};
    Configure(options);
  }

  void Advance(absl::Duration d) { now_ += d; }

  static Signal Make(Signal::Kind kind, int64_t value, absl::Time at,
                     std::string step_kind = "") {
    Signal signal;
    signal.set_kind(kind);
    if (kind == Signal::EPOCH_END) {
      signal.set_epoch(value);
    } else {
      signal.set_step(value);
    }
    signal.set_step_kind(std::move(step_kind));
    signal.set_time_us(absl::ToUnixMicros(at));
    return signal;
  }

  // Sends one signal (made now, on a rank clock that is off by an hour) on
  // the rank's stream.
  absl::Status Send(int rank, Signal::Kind kind, int64_t value,
                    std::string step_kind = "") {
    proto::SignalBatch batch = Batch(rank);
    *batch.add_signals() =
        Make(kind, value, now_ + absl::Hours(1), std::move(step_kind));
    return state_->Apply(StreamOf(rank), batch, now_);
  }
  absl::Status Heartbeat(int rank) {
    return state_->Apply(StreamOf(rank), Batch(rank), now_);
  }
  proto::SignalBatch Batch(int rank) {
    proto::SignalBatch batch;
    batch.set_rank(rank);
    batch.set_incarnation(1000 + rank + 10 * generation_[rank]);
    return batch;
  }
  uint64_t StreamOf(int rank) { return 1 + rank + 10 * generation_[rank]; }
  // The rank's process is replaced by a new one (new incarnation and
  // stream).
  void NewProcess(int rank) { ++generation_[rank]; }

  proto::JobState Evaluate() { return state_->Evaluate(now_); }
  std::vector<std::string> Messages() {
    std::vector<std::string> messages;
    const proto::JobState state = Evaluate();
    for (const Verdict& v : state.verdicts()) {
      messages.push_back(v.message());
    }
    return messages;
  }

  std::unique_ptr<MonitorState> state_;
  absl::Time now_ = kStart;
  int generation_[3] = {0, 0, 0};
};

TEST_F(MonitorStateTest, NoVerdictWhileRanksProgress) {
  for (int step = 0; step < 5; ++step) {
    for (int rank = 0; rank < 3; ++rank) {
      ASSERT_TRUE(Send(rank, Signal::STEP_BEGIN, step).ok());
    }
    Advance(absl::Seconds(9));
    for (int rank = 0; rank < 3; ++rank) {
      ASSERT_TRUE(Send(rank, Signal::STEP_END, step).ok());
    }
  }
  proto::JobState state = Evaluate();
  EXPECT_EQ(state.verdicts_size(), 0);
  ASSERT_EQ(state.ranks_size(), 3);
  EXPECT_TRUE(state.ranks(1).connected());
  EXPECT_EQ(state.ranks(1).last_begin_step(), 4);
  EXPECT_EQ(state.ranks(1).last_end_step(), 4);
  EXPECT_EQ(state.ranks(1).last_contact_us(), absl::ToUnixMicros(now_));
  EXPECT_FALSE(state.ranks(1).has_exit_code());
}

TEST_F(MonitorStateTest, StepOpenPastItsLimitIsStuck) {
  ASSERT_TRUE(Send(2, Signal::STEP_BEGIN, 1841).ok());
  Advance(absl::Seconds(10));
  EXPECT_TRUE(Messages().empty());
  const absl::Time begun = now_ - absl::Seconds(10);
  Advance(absl::Milliseconds(2400));
  ASSERT_TRUE(Heartbeat(2).ok());  // heartbeats do not end a step
  proto::JobState state = Evaluate();
  ASSERT_EQ(state.verdicts_size(), 1);
  EXPECT_EQ(state.verdicts(0).rank(), 2);
  EXPECT_EQ(state.verdicts(0).kind(), Verdict::STUCK);
  EXPECT_EQ(state.verdicts(0).message(),
            "rank 2 stuck in step 1841 for 12.4 s (limit 10 s)");
  EXPECT_EQ(state.verdicts(0).time_us(),
            absl::ToUnixMicros(begun + absl::Seconds(10)));
  // The step ends late: the verdict no longer holds.
  ASSERT_TRUE(Send(2, Signal::STEP_END, 1841).ok());
  EXPECT_TRUE(Messages().empty());
}

TEST_F(MonitorStateTest, DeclaredStepKindsHaveTheirOwnLimits) {
  ASSERT_TRUE(Send(0, Signal::STEP_BEGIN, 0, "first").ok());
  ASSERT_TRUE(Send(1, Signal::STEP_BEGIN, 50, "checkpoint").ok());
  ASSERT_TRUE(Send(2, Signal::STEP_BEGIN, 50, "warmup").ok());
  for (int i = 0; i < 12; ++i) {
    Advance(absl::Seconds(10));
    for (int rank = 0; rank < 3; ++rank) ASSERT_TRUE(Heartbeat(rank).ok());
  }
  Advance(absl::Milliseconds(500));
  // 120.5 s: the first step is past its 120 s, the checkpoint within its
  // 300 s, and an undeclared kind takes the normal 10 s.
  EXPECT_EQ(Messages(),
            (std::vector<std::string>{
                "rank 2 stuck in step 50 (warmup) for 120.5 s (limit 10 s; "
                "no limit given for step kind 'warmup')",
                "rank 0 stuck in step 0 (first) for 120.5 s (limit 120 s)"}));
}

TEST_F(MonitorStateTest, JitteredSlowRanksGetNoVerdict) {
  // Steps up to 9.9 s against a 10 s limit, heartbeats up to 29 s apart
  // against 30 s, a first step of 119 s and checkpoints of 290 s: all
  // within their limits, checked after every signal and in between.
  std::mt19937 random(12);
  std::uniform_int_distribution<int> step_ms(100, 9900);
  ASSERT_TRUE(Send(0, Signal::STEP_BEGIN, 0, "first").ok());
  Advance(absl::Seconds(119));
  ASSERT_TRUE(Heartbeat(0).ok());
  EXPECT_TRUE(Messages().empty());
  ASSERT_TRUE(Send(0, Signal::STEP_END, 0).ok());
  for (int step = 1; step < 300; ++step) {
    const bool checkpoint = step % 50 == 0;
    ASSERT_TRUE(
        Send(0, Signal::STEP_BEGIN, step, checkpoint ? "checkpoint" : "").ok());
    absl::Duration length = absl::Milliseconds(step_ms(random));
    if (checkpoint) length = absl::Seconds(290);
    // Heartbeats every 29 s at most through a long step.
    while (length > absl::Seconds(29)) {
      Advance(absl::Seconds(29));
      length -= absl::Seconds(29);
      EXPECT_TRUE(Messages().empty()) << "in step " << step;
      ASSERT_TRUE(Heartbeat(0).ok());
    }
    Advance(length);
    EXPECT_TRUE(Messages().empty()) << "in step " << step;
    ASSERT_TRUE(Send(0, Signal::STEP_END, step).ok());
    if (step % 100 == 99) {
      ASSERT_TRUE(Send(0, Signal::EPOCH_END, step / 100).ok());
    }
    // Idle between steps, without a heartbeat, up to 29 s.
    Advance(absl::Milliseconds(step_ms(random) * 3));
    EXPECT_TRUE(Messages().empty()) << "after step " << step;
  }
  EXPECT_EQ(Evaluate().ranks(0).finished_epochs(), 3);
}

TEST_F(MonitorStateTest, NoContactPastTheLimitIsSilent) {
  ASSERT_TRUE(Send(1, Signal::STEP_BEGIN, 77).ok());
  ASSERT_TRUE(Send(1, Signal::STEP_END, 77).ok());
  ASSERT_TRUE(Heartbeat(0).ok());
  Advance(absl::Seconds(30));
  EXPECT_TRUE(Messages().empty());
  Advance(absl::Seconds(1));
  EXPECT_EQ(Messages(),
            (std::vector<std::string>{
                "rank 0 silent for 31.0 s (limit 30 s): last signal: none, "
                "heartbeats only",
                "rank 1 silent for 31.0 s (limit 30 s): last signal: step 77 "
                "ended"}));
  // Rank 2 never reported: no verdict before its first contact.
  EXPECT_EQ(Evaluate().verdicts(1).kind(), Verdict::SILENT);
  ASSERT_TRUE(Heartbeat(1).ok());
  ASSERT_EQ(Evaluate().verdicts_size(), 1);
  EXPECT_EQ(Evaluate().verdicts(0).rank(), 0);
}

TEST_F(MonitorStateTest, StuckTakesPrecedenceOverSilent) {
  ASSERT_TRUE(Send(0, Signal::STEP_BEGIN, 3).ok());
  Advance(absl::Seconds(40));
  EXPECT_EQ(Messages(), (std::vector<std::string>{
                            "rank 0 stuck in step 3 for 40.0 s (limit 10 s)"}));
}

TEST_F(MonitorStateTest, DroppedStreamIsDead) {
  ASSERT_TRUE(Send(0, Signal::STEP_BEGIN, 12).ok());
  ASSERT_TRUE(Send(1, Signal::STEP_BEGIN, 12).ok());
  ASSERT_TRUE(Send(1, Signal::STEP_END, 12).ok());
  ASSERT_TRUE(Heartbeat(2).ok());
  Advance(absl::Milliseconds(100));
  state_->StreamEnded(StreamOf(0), now_);
  state_->StreamEnded(StreamOf(1), now_);
  state_->StreamEnded(StreamOf(2), now_);
  proto::JobState state = Evaluate();
  EXPECT_FALSE(state.ranks(0).connected());
  ASSERT_EQ(state.verdicts_size(), 3);
  EXPECT_EQ(state.verdicts(0).kind(), Verdict::DEAD);
  EXPECT_EQ(state.verdicts(0).time_us(), absl::ToUnixMicros(now_));
  EXPECT_EQ(Messages(),
            (std::vector<std::string>{
                "rank 0 dead: its connection to the monitor dropped in step 12",
                "rank 1 dead: its connection to the monitor dropped after "
                "step 12",
                "rank 2 dead: its connection to the monitor dropped before its "
                "first step"}));
}

// A stream that broke long after its rank last spoke was given up by
// liveness: the rank went silent (stopped, or its host or the network is
// gone). One that broke at once, or that the rank closed, is a death.
TEST_F(MonitorStateTest, BrokenAfterSilenceIsSilentNotDead) {
  ASSERT_TRUE(Send(0, Signal::STEP_BEGIN, 7).ok());
  ASSERT_TRUE(Send(1, Signal::STEP_BEGIN, 7).ok());
  ASSERT_TRUE(Send(2, Signal::STEP_BEGIN, 7).ok());
  Advance(absl::Milliseconds(2200));
  state_->StreamEnded(StreamOf(0), now_, /*broken=*/true);
  state_->StreamEnded(StreamOf(1), now_, /*broken=*/false);
  ASSERT_TRUE(Heartbeat(2).ok());
  Advance(kSilentBeforeBreak - absl::Milliseconds(100));
  state_->StreamEnded(StreamOf(2), now_, /*broken=*/true);
  proto::JobState state = Evaluate();
  ASSERT_EQ(state.verdicts_size(), 3);
  EXPECT_EQ(state.verdicts(0).kind(), Verdict::SILENT);
  EXPECT_EQ(Messages(),
            (std::vector<std::string>{
                "rank 0 silent: its connection to the monitor went silent in "
                "step 7 (nothing heard for 2.2 s; the rank is stopped, or its "
                "host or the network is gone)",
                "rank 1 dead: its connection to the monitor dropped in step 7",
                "rank 2 dead: its connection to the monitor dropped in step "
                "7"}));
}

TEST_F(MonitorStateTest, ReconnectOfTheSameProcessClearsDead) {
  ASSERT_TRUE(Send(0, Signal::STEP_BEGIN, 5).ok());
  state_->StreamEnded(StreamOf(0), now_);
  ASSERT_EQ(Evaluate().verdicts_size(), 1);
  // The reporter reconnects on a new stream and resends its open step.
  proto::SignalBatch batch = Batch(0);
  *batch.add_signals() = Make(Signal::STEP_BEGIN, 5, now_);
  ASSERT_TRUE(state_->Apply(99, batch, now_).ok());
  EXPECT_TRUE(Messages().empty());
  EXPECT_TRUE(Evaluate().ranks(0).connected());
  // The old stream's end, seen late, changes nothing.
  state_->StreamEnded(StreamOf(0), now_);
  EXPECT_TRUE(Messages().empty());
}

TEST_F(MonitorStateTest, ExitReportsAreDeadOrFinished) {
  ASSERT_TRUE(Send(0, Signal::STEP_BEGIN, 1).ok());
  ASSERT_TRUE(Send(1, Signal::STEP_BEGIN, 1).ok());
  proto::ExitReport killed;
  killed.set_rank(0);
  killed.set_exit_code(137);
  killed.set_signal(9);
  ASSERT_TRUE(state_->ApplyExit(killed, now_).ok());
  proto::ExitReport failed;
  failed.set_rank(1);
  failed.set_exit_code(3);
  ASSERT_TRUE(state_->ApplyExit(failed, now_).ok());
  proto::ExitReport clean;
  clean.set_rank(2);
  ASSERT_TRUE(state_->ApplyExit(clean, now_).ok());
  // The stream's end after the exit adds nothing.
  state_->StreamEnded(StreamOf(0), now_);
  EXPECT_EQ(Messages(),
            (std::vector<std::string>{
                "rank 0 dead: exited with code 137 (killed by signal 9)",
                "rank 1 dead: exited with code 3",
                "rank 2 finished: exited with code 0 without a train end "
                "signal"}));
  EXPECT_EQ(Evaluate().ranks(0).exit_code(), 137);

  proto::ExitReport outside;
  outside.set_rank(3);
  absl::Status status = state_->ApplyExit(outside, now_);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "monitor: exit report of rank 3, outside the job of 3 ranks");
}

TEST_F(MonitorStateTest, TrainEndIsFinished) {
  ASSERT_TRUE(Send(1, Signal::STEP_BEGIN, 9).ok());
  ASSERT_TRUE(Send(1, Signal::TRAIN_END, 0).ok());
  state_->StreamEnded(StreamOf(1), now_);
  Advance(absl::Minutes(5));
  proto::ExitReport clean;
  clean.set_rank(1);
  ASSERT_TRUE(state_->ApplyExit(clean, now_).ok());
  proto::JobState state = Evaluate();
  ASSERT_EQ(state.verdicts_size(), 1);
  EXPECT_EQ(state.verdicts(0).kind(), Verdict::FINISHED);
  EXPECT_EQ(state.verdicts(0).message(), "rank 1 finished");
  EXPECT_TRUE(state.ranks(1).finished());
}

TEST_F(MonitorStateTest, SignalTimesCountBackFromTheBatchNewest) {
  // A batch carrying a begin made 4 s before its newest signal: the step
  // has been open 4 s when the batch arrives.
  proto::SignalBatch batch = Batch(0);
  const absl::Time rank_clock = now_ - absl::Hours(3);
  *batch.add_signals() = Make(Signal::STEP_BEGIN, 7, rank_clock);
  *batch.add_signals() =
      Make(Signal::EPOCH_END, 1, rank_clock + absl::Seconds(4));
  ASSERT_TRUE(state_->Apply(StreamOf(0), batch, now_).ok());
  Advance(absl::Seconds(6) + absl::Milliseconds(100));
  EXPECT_EQ(Messages(), (std::vector<std::string>{
                            "rank 0 stuck in step 7 for 10.1 s (limit 10 s)"}));
}

TEST_F(MonitorStateTest, MinFinishedEpochIsTheMinimumOverAllRanks) {
  EXPECT_EQ(Evaluate().min_finished_epoch(), 0);
  ASSERT_TRUE(Send(0, Signal::EPOCH_END, 4).ok());
  ASSERT_TRUE(Send(1, Signal::EPOCH_END, 2).ok());
  EXPECT_EQ(Evaluate().min_finished_epoch(), 0);  // rank 2 never reported
  ASSERT_TRUE(Send(2, Signal::EPOCH_END, 3).ok());
  EXPECT_EQ(Evaluate().min_finished_epoch(), 3);
  ASSERT_TRUE(Send(1, Signal::EPOCH_END, 1).ok());  // an older epoch
  EXPECT_EQ(Evaluate().ranks(1).finished_epochs(), 3);
  EXPECT_EQ(Evaluate().ranks(0).finished_epochs(), 5);
}

TEST_F(MonitorStateTest, ResetForgetsProcessesAndKeepsEpochs) {
  ASSERT_TRUE(Send(0, Signal::EPOCH_END, 4).ok());
  ASSERT_TRUE(Send(0, Signal::STEP_BEGIN, 500).ok());
  ASSERT_TRUE(Send(1, Signal::EPOCH_END, 1).ok());
  Advance(absl::Seconds(60));
  ASSERT_EQ(Evaluate().verdicts_size(), 2);
  state_->Reset(/*min_finished_epoch_floor=*/2);
  proto::JobState state = Evaluate();
  EXPECT_EQ(state.verdicts_size(), 0);
  EXPECT_FALSE(state.ranks(0).connected());
  EXPECT_EQ(state.ranks(0).last_begin_step(), -1);
  EXPECT_EQ(state.ranks(0).last_contact_us(), 0);
  EXPECT_EQ(state.ranks(0).finished_epochs(), 5);
  EXPECT_EQ(state.ranks(1).finished_epochs(), 2);
  EXPECT_EQ(state.min_finished_epoch(), 2);
  // The old processes' streams: their end is ignored, their batches refused.
  state_->StreamEnded(StreamOf(1), now_);
  absl::Status stale = Heartbeat(0);
  EXPECT_EQ(stale.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(stale.message(),
            "monitor: the report stream of rank 0 was opened before the "
            "monitor was reset; reconnect");
  EXPECT_EQ(Evaluate().verdicts_size(), 0);
  // The restarted processes report anew.
  NewProcess(0);
  ASSERT_TRUE(Send(0, Signal::STEP_BEGIN, 0, "first").ok());
  EXPECT_TRUE(Evaluate().ranks(0).connected());
  EXPECT_EQ(Evaluate().ranks(0).last_begin_step(), 0);
}

TEST_F(MonitorStateTest, NewIncarnationReplacesTheOldProcess) {
  ASSERT_TRUE(Send(1, Signal::EPOCH_END, 0).ok());
  ASSERT_TRUE(Send(1, Signal::STEP_BEGIN, 8).ok());
  proto::ExitReport killed;
  killed.set_rank(1);
  killed.set_signal(9);
  ASSERT_TRUE(state_->ApplyExit(killed, now_).ok());
  EXPECT_EQ(Messages(),
            (std::vector<std::string>{"rank 1 dead: killed by signal 9"}));
  NewProcess(1);
  ASSERT_TRUE(Heartbeat(1).ok());
  proto::JobState state = Evaluate();
  EXPECT_EQ(state.verdicts_size(), 0);
  EXPECT_EQ(state.ranks(1).last_begin_step(), -1);
  EXPECT_FALSE(state.ranks(1).has_exit_code());
  EXPECT_EQ(state.ranks(1).finished_epochs(), 1);
  // The old process's stream ending now does not kill the new one.
  state_->StreamEnded(StreamOf(1) - 10, now_);
  EXPECT_EQ(Evaluate().verdicts_size(), 0);
}

TEST_F(MonitorStateTest, BadBatchesAreRefused) {
  proto::SignalBatch outside = Batch(0);
  outside.set_rank(3);
  absl::Status status = state_->Apply(50, outside, now_);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "monitor: rank 3 is outside the job of 3 ranks (0 to 2)");
  ASSERT_TRUE(Heartbeat(0).ok());
  proto::SignalBatch other = Batch(1);
  status = state_->Apply(StreamOf(0), other, now_);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "monitor: a report stream of rank 0 incarnation 1000 sent a batch "
            "as rank 1 incarnation 1001");
}

TEST(MonitorOptionsTest, InvalidOptionsAreNamed) {
  MonitorOptions options;
  EXPECT_TRUE(ValidateMonitorOptions(options).ok());
  options.world_size = 0;
  EXPECT_EQ(ValidateMonitorOptions(options).message(),
            "monitor: world size must be at least 1, not 0");
  options.world_size = 2;
  options.silent_timeout = absl::ZeroDuration();
  EXPECT_EQ(ValidateMonitorOptions(options).message(),
            "monitor: the silent timeout must be positive, not 0");
  options.silent_timeout = absl::Seconds(1);
  options.step_kind_timeouts["checkpoint"] = absl::Seconds(-1);
  EXPECT_EQ(ValidateMonitorOptions(options).message(),
            "monitor: the limit of step kind 'checkpoint' must be positive, "
            "not -1s");
}

}  // namespace
}  // namespace sluice::monitor
