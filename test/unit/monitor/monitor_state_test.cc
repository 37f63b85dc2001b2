#include "lib/monitor/monitor_state.h"

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

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
        Make(kind, value, RankClock(), std::move(step_kind));
    return state_->Apply(StreamOf(rank), batch, now_);
  }
  // PhaseBegin(phase) or PhaseEnd(), made now.
  absl::Status SendPhase(int rank, Signal::Kind kind, std::string phase = "") {
    proto::SignalBatch batch = Batch(rank);
    *batch.add_signals() = MakePhase(kind, RankClock(), std::move(phase));
    return state_->Apply(StreamOf(rank), batch, now_);
  }
  static Signal MakePhase(Signal::Kind kind, absl::Time at, std::string phase) {
    Signal signal = Make(kind, 0, at);
    signal.set_phase(std::move(phase));
    return signal;
  }
  absl::Status Heartbeat(int rank) {
    return state_->Apply(StreamOf(rank), Batch(rank), now_);
  }
  // What the ranks' clocks read now: off by an hour from the monitor's.
  absl::Time RankClock() const { return now_ + absl::Hours(1); }
  // Time passes while the ranks' reporter threads go on sending heartbeats
  // (one every 10 s here, every 50 ms for real), so that a rank that begins
  // no step is never silent: what it can get is the between-steps verdict.
  void AdvanceAlive(absl::Duration d, std::vector<int> ranks = {0}) {
    while (d > absl::ZeroDuration()) {
      const absl::Duration piece = std::min(d, absl::Seconds(10));
      Advance(piece);
      d -= piece;
      for (int rank : ranks) ASSERT_TRUE(Heartbeat(rank).ok());
    }
  }
  proto::SignalBatch Batch(int rank) {
    proto::SignalBatch batch;
    batch.set_rank(rank);
    batch.set_incarnation(1000 + rank + 10 * generation_[rank]);
    return batch;
  }
  uint64_t StreamOf(int rank) {
    return 1 + rank + 10 * generation_[rank] + 100 * reconnects_[rank];
  }
  // The rank's process is replaced by a new one (new incarnation and
  // stream).
  void NewProcess(int rank) { ++generation_[rank]; }
  // The same process opens a new report stream (the same incarnation).
  void NewStream(int rank) { ++reconnects_[rank]; }

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
  int reconnects_[3] = {0, 0, 0};
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

// ---- Between steps: the progress limit and phases ----

// The default options: a progress limit of 60 s, no phase limits; heartbeats
// keep the rank from being silent.
TEST_F(MonitorStateTest, IdleBetweenStepsPastTheProgressLimitIsStuck) {
  ASSERT_TRUE(Send(0, Signal::STEP_BEGIN, 40).ok());
  Advance(absl::Seconds(2));
  ASSERT_TRUE(Send(0, Signal::STEP_END, 40).ok());
  const absl::Time ended = now_;
  AdvanceAlive(absl::Seconds(30));
  // An epoch's end is not a step begun: the clock goes on.
  ASSERT_TRUE(Send(0, Signal::EPOCH_END, 3).ok());
  AdvanceAlive(absl::Seconds(29) + absl::Milliseconds(900));
  EXPECT_TRUE(Messages().empty());
  // At the limit, not yet past it.
  AdvanceAlive(absl::Milliseconds(100));
  EXPECT_TRUE(Messages().empty());
  AdvanceAlive(absl::Milliseconds(100));
  proto::JobState state = Evaluate();
  ASSERT_EQ(state.verdicts_size(), 1);
  EXPECT_EQ(state.verdicts(0).rank(), 0);
  EXPECT_EQ(state.verdicts(0).kind(), Verdict::STUCK);
  EXPECT_EQ(state.verdicts(0).message(),
            "rank 0 stuck between steps: no step begun for 60.1 s (progress "
            "limit 60 s) since step 40 ended");
  EXPECT_EQ(state.verdicts(0).time_us(),
            absl::ToUnixMicros(ended + absl::Seconds(60)));
  EXPECT_EQ(state.ranks(0).phase(), "");
  // Heartbeats do not clear it; the time it names grows.
  AdvanceAlive(absl::Seconds(5));
  EXPECT_EQ(Messages(),
            (std::vector<std::string>{
                "rank 0 stuck between steps: no step begun for 65.1 s "
                "(progress limit 60 s) since step 40 ended"}));
  // A step that begins does.
  ASSERT_TRUE(Send(0, Signal::STEP_BEGIN, 41).ok());
  EXPECT_TRUE(Messages().empty());
}

// A rank that never begins its first step is bounded too, from the moment
// the monitor first heard from it.
TEST_F(MonitorStateTest, RankThatBeginsNoFirstStepIsStuckSinceItConnected) {
  ASSERT_TRUE(Heartbeat(1).ok());
  const absl::Time connected = now_;
  AdvanceAlive(absl::Seconds(60), {1});
  EXPECT_TRUE(Messages().empty());
  AdvanceAlive(absl::Seconds(1), {1});
  proto::JobState state = Evaluate();
  ASSERT_EQ(state.verdicts_size(), 1);
  EXPECT_EQ(state.verdicts(0).kind(), Verdict::STUCK);
  EXPECT_EQ(state.verdicts(0).message(),
            "rank 1 stuck before its first step: no step begun for 61.0 s "
            "(progress limit 60 s) since it connected");
  EXPECT_EQ(state.verdicts(0).time_us(),
            absl::ToUnixMicros(connected + absl::Seconds(60)));
}

// A phase with a limit of its own longer than the progress limit: the
// progress limit does not apply inside it, its own does, and the verdict
// names it and the step before it.
TEST_F(MonitorStateTest, PhaseWithItsOwnLimitIsBoundByItAndNamed) {
  MonitorOptions options;
  options.world_size = 3;
  options.phase_timeouts = {{"checkpoint save", absl::Seconds(300)}};
  Configure(options);
  ASSERT_TRUE(Send(0, Signal::STEP_BEGIN, 40).ok());
  ASSERT_TRUE(Send(0, Signal::STEP_END, 40).ok());
  AdvanceAlive(absl::Seconds(1));
  ASSERT_TRUE(SendPhase(0, Signal::PHASE_BEGIN, "checkpoint save").ok());
  const absl::Time begun = now_;
  EXPECT_EQ(Evaluate().ranks(0).phase(), "checkpoint save");
  for (int i = 0; i < 30; ++i) {
    AdvanceAlive(absl::Seconds(10));
    ASSERT_TRUE(Messages().empty()) << now_ - begun << " into the phase";
  }
  AdvanceAlive(absl::Milliseconds(500));
  proto::JobState state = Evaluate();
  ASSERT_EQ(state.verdicts_size(), 1);
  EXPECT_EQ(state.verdicts(0).kind(), Verdict::STUCK);
  EXPECT_EQ(state.verdicts(0).message(),
            "rank 0 stuck in phase 'checkpoint save' for 300.5 s (limit "
            "300 s) between steps: step 40 ended 301.5 s ago");
  EXPECT_EQ(state.verdicts(0).time_us(),
            absl::ToUnixMicros(begun + absl::Seconds(300)));
  // The phase ends at last: that is progress, the verdict goes.
  ASSERT_TRUE(SendPhase(0, Signal::PHASE_END).ok());
  EXPECT_TRUE(Messages().empty());
  EXPECT_EQ(Evaluate().ranks(0).phase(), "");
}

// A phase without a limit of its own shares the progress limit, counted
// from the phase's begin rather than from the step before it.
TEST_F(MonitorStateTest, PhaseWithoutItsOwnLimitSharesTheProgressLimit) {
  MonitorOptions options;
  options.world_size = 3;
  options.phase_timeouts = {{"checkpoint save", absl::Seconds(300)}};
  Configure(options);
  ASSERT_TRUE(Send(0, Signal::STEP_BEGIN, 7).ok());
  ASSERT_TRUE(Send(0, Signal::STEP_END, 7).ok());
  AdvanceAlive(absl::Seconds(5));
  ASSERT_TRUE(SendPhase(0, Signal::PHASE_BEGIN, "eval").ok());
  // Rank 1 sets up before its first step; an unnamed phase gets a name.
  ASSERT_TRUE(SendPhase(1, Signal::PHASE_BEGIN, "").ok());
  EXPECT_EQ(Evaluate().ranks(1).phase(), "unnamed");
  // 61 s after step 7 ended, 56 s into the phase.
  AdvanceAlive(absl::Seconds(56), {0, 1});
  EXPECT_TRUE(Messages().empty());
  AdvanceAlive(absl::Seconds(4), {0, 1});
  EXPECT_TRUE(Messages().empty());
  AdvanceAlive(absl::Milliseconds(200), {0, 1});
  EXPECT_EQ(Messages(),
            (std::vector<std::string>{
                "rank 0 stuck in phase 'eval' for 60.2 s (progress limit "
                "60 s) between steps: step 7 ended 65.2 s ago",
                "rank 1 stuck in phase 'unnamed' for 60.2 s (progress limit "
                "60 s) before its first step"}));
}

// The idle clock starts over when a phase ends: a long phase under its own
// limit, then the progress limit counted from the phase's end.
TEST_F(MonitorStateTest, IdleTimeCountsFromTheEndOfAPhase) {
  MonitorOptions options;
  options.world_size = 3;
  options.phase_timeouts = {{"checkpoint save", absl::Seconds(300)}};
  Configure(options);
  ASSERT_TRUE(Send(0, Signal::STEP_BEGIN, 40).ok());
  ASSERT_TRUE(Send(0, Signal::STEP_END, 40).ok());
  AdvanceAlive(absl::Seconds(1));
  ASSERT_TRUE(SendPhase(0, Signal::PHASE_BEGIN, "checkpoint save").ok());
  AdvanceAlive(absl::Seconds(200));
  ASSERT_TRUE(SendPhase(0, Signal::PHASE_END).ok());
  const absl::Time phase_ended = now_;
  EXPECT_TRUE(Messages().empty());
  // 261 s after step 40 ended, 60 s after the phase did.
  AdvanceAlive(absl::Seconds(60));
  EXPECT_TRUE(Messages().empty());
  AdvanceAlive(absl::Milliseconds(100));
  proto::JobState state = Evaluate();
  ASSERT_EQ(state.verdicts_size(), 1);
  EXPECT_EQ(state.verdicts(0).message(),
            "rank 0 stuck between steps: no step begun for 60.1 s (progress "
            "limit 60 s) since phase 'checkpoint save' ended; step 40 ended "
            "261.1 s ago");
  EXPECT_EQ(state.verdicts(0).time_us(),
            absl::ToUnixMicros(phase_ended + absl::Seconds(60)));
  ASSERT_TRUE(Send(0, Signal::STEP_BEGIN, 41).ok());
  EXPECT_TRUE(Messages().empty());
}

// A restarted monitor meets a rank that resends its last epoch and its last
// step end; the phase it ended since, the new monitor never hears of. Dated
// back from the epoch's end, step 40 ended 50.5 s before the contact: idle
// time counted from it would make the rank stuck 9.5 s after the restart,
// though it made progress since. The clock starts at the first contact.
TEST_F(MonitorStateTest, RestartedMonitorCountsIdleTimeFromItsFirstContact) {
  MonitorOptions options;
  options.world_size = 3;
  options.phase_timeouts = {{"checkpoint save", absl::Seconds(300)}};
  Configure(options);
  ASSERT_TRUE(Send(0, Signal::STEP_BEGIN, 40).ok());
  ASSERT_TRUE(Send(0, Signal::STEP_END, 40).ok());
  const absl::Time step_end_sent = RankClock();
  AdvanceAlive(absl::Seconds(1));
  ASSERT_TRUE(SendPhase(0, Signal::PHASE_BEGIN, "checkpoint save").ok());
  AdvanceAlive(absl::Seconds(49));
  ASSERT_TRUE(SendPhase(0, Signal::PHASE_END).ok());
  Advance(absl::Milliseconds(500));
  ASSERT_TRUE(Send(0, Signal::EPOCH_END, 3).ok());
  const absl::Time epoch_end_sent = RankClock();
  EXPECT_TRUE(Messages().empty());

  // The monitor restarts; the reporter's new stream reaches it 6.5 s later.
  Configure(options);
  Advance(absl::Milliseconds(6500));
  NewStream(0);
  proto::SignalBatch resent = Batch(0);
  *resent.add_signals() = Make(Signal::EPOCH_END, 3, epoch_end_sent);
  *resent.add_signals() = Make(Signal::STEP_END, 40, step_end_sent);
  ASSERT_TRUE(state_->Apply(StreamOf(0), resent, now_).ok());
  const absl::Time contact = now_;
  proto::JobState state = Evaluate();
  EXPECT_EQ(state.verdicts_size(), 0);
  EXPECT_EQ(state.ranks(0).last_end_step(), 40);
  EXPECT_EQ(state.ranks(0).finished_epochs(), 4);
  AdvanceAlive(absl::Seconds(10));
  EXPECT_TRUE(Messages().empty());
  AdvanceAlive(absl::Seconds(50));
  EXPECT_TRUE(Messages().empty());
  AdvanceAlive(absl::Milliseconds(100));
  state = Evaluate();
  ASSERT_EQ(state.verdicts_size(), 1);
  // "110.6 s ago": the end's age within the batch (50.5 s) plus the time
  // since the contact; the outage before the contact is unknown to it.
  EXPECT_EQ(state.verdicts(0).message(),
            "rank 0 stuck between steps: no step begun for 60.1 s (progress "
            "limit 60 s) since it connected; step 40 ended 110.6 s ago");
  EXPECT_EQ(state.verdicts(0).time_us(),
            absl::ToUnixMicros(contact + absl::Seconds(60)));
}

// A restarted monitor meets a rank 296 s into a checkpoint save (limit
// 300 s), 297 s after its last step: no verdict right after the restart,
// neither from the step's end (past the progress limit on the rank's
// clock) nor from the phase; the phase counts from the first contact.
TEST_F(MonitorStateTest, RestartedMonitorCountsAnOpenPhaseFromItsFirstContact) {
  MonitorOptions options;
  options.world_size = 3;
  options.phase_timeouts = {{"checkpoint save", absl::Seconds(300)}};
  Configure(options);
  ASSERT_TRUE(Send(0, Signal::STEP_BEGIN, 40).ok());
  ASSERT_TRUE(Send(0, Signal::STEP_END, 40).ok());
  const absl::Time step_end_sent = RankClock();
  AdvanceAlive(absl::Seconds(1));
  ASSERT_TRUE(SendPhase(0, Signal::PHASE_BEGIN, "checkpoint save").ok());
  const absl::Time phase_begin_sent = RankClock();
  AdvanceAlive(absl::Seconds(290));
  EXPECT_TRUE(Messages().empty());

  Configure(options);
  Advance(absl::Seconds(6));
  NewStream(0);
  proto::SignalBatch resent = Batch(0);
  *resent.add_signals() = Make(Signal::STEP_END, 40, step_end_sent);
  *resent.add_signals() =
      MakePhase(Signal::PHASE_BEGIN, phase_begin_sent, "checkpoint save");
  ASSERT_TRUE(state_->Apply(StreamOf(0), resent, now_).ok());
  const absl::Time contact = now_;
  proto::JobState state = Evaluate();
  EXPECT_EQ(state.verdicts_size(), 0);
  EXPECT_EQ(state.ranks(0).phase(), "checkpoint save");
  EXPECT_EQ(state.ranks(0).last_end_step(), 40);
  for (int i = 0; i < 30; ++i) {
    AdvanceAlive(absl::Seconds(10));
    ASSERT_TRUE(Messages().empty()) << now_ - contact << " after the contact";
  }
  AdvanceAlive(absl::Milliseconds(100));
  state = Evaluate();
  ASSERT_EQ(state.verdicts_size(), 1);
  EXPECT_EQ(state.verdicts(0).message(),
            "rank 0 stuck in phase 'checkpoint save' for 300.1 s (limit "
            "300 s) between steps: step 40 ended 301.1 s ago");
  EXPECT_EQ(state.verdicts(0).time_us(),
            absl::ToUnixMicros(contact + absl::Seconds(300)));
}

// A stream that breaks and reconnects to the same monitor resends the last
// step end and the open phase, which the monitor already has: that is no
// progress, and must not restart the clocks of a rank hung between steps
// (or a flapping connection would hide the hang for good).
TEST_F(MonitorStateTest, ReconnectToTheSameMonitorKeepsTheBetweenStepsClocks) {
  MonitorOptions options;
  options.world_size = 3;
  options.phase_timeouts = {{"checkpoint save", absl::Seconds(300)}};
  Configure(options);
  for (int rank : {0, 1}) {
    ASSERT_TRUE(Send(rank, Signal::STEP_BEGIN, 40).ok());
    ASSERT_TRUE(Send(rank, Signal::STEP_END, 40).ok());
  }
  const absl::Time ended = now_;
  const absl::Time step_end_sent = RankClock();
  AdvanceAlive(absl::Seconds(1), {0, 1});
  ASSERT_TRUE(SendPhase(1, Signal::PHASE_BEGIN, "checkpoint save").ok());
  const absl::Time begun = now_;
  const absl::Time phase_begin_sent = RankClock();
  AdvanceAlive(absl::Seconds(39), {0, 1});
  state_->StreamEnded(StreamOf(0), now_, /*broken=*/true);
  state_->StreamEnded(StreamOf(1), now_, /*broken=*/true);
  ASSERT_EQ(Evaluate().verdicts_size(), 2);
  Advance(absl::Milliseconds(200));
  NewStream(0);
  NewStream(1);
  proto::SignalBatch resent0 = Batch(0);
  *resent0.add_signals() = Make(Signal::STEP_END, 40, step_end_sent);
  ASSERT_TRUE(state_->Apply(StreamOf(0), resent0, now_).ok());
  proto::SignalBatch resent1 = Batch(1);
  *resent1.add_signals() = Make(Signal::STEP_END, 40, step_end_sent);
  *resent1.add_signals() =
      MakePhase(Signal::PHASE_BEGIN, phase_begin_sent, "checkpoint save");
  ASSERT_TRUE(state_->Apply(StreamOf(1), resent1, now_).ok());
  EXPECT_TRUE(Messages().empty());
  EXPECT_EQ(Evaluate().ranks(1).phase(), "checkpoint save");
  // 60.1 s after step 40 ended, 19.9 s after the reconnect.
  AdvanceAlive(absl::Milliseconds(19900), {0, 1});
  proto::JobState state = Evaluate();
  ASSERT_EQ(state.verdicts_size(), 1);
  EXPECT_EQ(state.verdicts(0).message(),
            "rank 0 stuck between steps: no step begun for 60.1 s (progress "
            "limit 60 s) since step 40 ended");
  EXPECT_EQ(state.verdicts(0).time_us(),
            absl::ToUnixMicros(ended + absl::Seconds(60)));
  // 300.1 s into rank 1's phase.
  AdvanceAlive(absl::Seconds(241), {0, 1});
  EXPECT_EQ(Messages(),
            (std::vector<std::string>{
                "rank 0 stuck between steps: no step begun for 301.1 s "
                "(progress limit 60 s) since step 40 ended",
                "rank 1 stuck in phase 'checkpoint save' for 300.1 s (limit "
                "300 s) between steps: step 40 ended 301.1 s ago"}));
  EXPECT_EQ(Evaluate().verdicts(1).time_us(),
            absl::ToUnixMicros(begun + absl::Seconds(300)));
}

// progress_timeout 0: no limit between steps, in a phase without a limit of
// its own, or before the first step. A phase's own limit still holds.
TEST_F(MonitorStateTest, ZeroProgressLimitTurnsItOff) {
  MonitorOptions options;
  options.world_size = 3;
  options.progress_timeout = absl::ZeroDuration();
  options.phase_timeouts = {{"checkpoint save", absl::Seconds(300)}};
  Configure(options);
  ASSERT_TRUE(Send(0, Signal::STEP_BEGIN, 40).ok());
  ASSERT_TRUE(Send(0, Signal::STEP_END, 40).ok());
  ASSERT_TRUE(Heartbeat(1).ok());
  ASSERT_TRUE(SendPhase(2, Signal::PHASE_BEGIN, "eval").ok());
  AdvanceAlive(absl::Hours(1), {0, 1, 2});
  EXPECT_TRUE(Messages().empty());
  ASSERT_TRUE(SendPhase(0, Signal::PHASE_BEGIN, "checkpoint save").ok());
  AdvanceAlive(absl::Seconds(300), {0, 1, 2});
  EXPECT_TRUE(Messages().empty());
  AdvanceAlive(absl::Milliseconds(100), {0, 1, 2});
  EXPECT_EQ(Messages(),
            (std::vector<std::string>{
                "rank 0 stuck in phase 'checkpoint save' for 300.1 s (limit "
                "300 s) between steps: step 40 ended 3900.1 s ago"}));
  // Once the phase ends, nothing bounds the rank's idle time again.
  ASSERT_TRUE(SendPhase(0, Signal::PHASE_END).ok());
  AdvanceAlive(absl::Hours(1), {0, 1, 2});
  EXPECT_TRUE(Messages().empty());
}

// Ranks that go on beginning steps, with pauses and phases under their
// limits, are never stuck between steps. Each pause is checked at its end,
// where the time between steps is longest.
TEST_F(MonitorStateTest, RanksThatBeginStepsInTimeAreNeverStuck) {
  MonitorOptions options;
  options.world_size = 3;
  options.phase_timeouts = {{"checkpoint save", absl::Seconds(300)}};
  Configure(options);
  std::mt19937 random(41);
  auto up_to = [&](int max_ms) {
    return absl::Milliseconds(
        std::uniform_int_distribution<int>(100, max_ms)(random));
  };
  for (int step = 0; step < 200; ++step) {
    ASSERT_TRUE(Send(0, Signal::STEP_BEGIN, step).ok());
    AdvanceAlive(up_to(9900));
    ASSERT_TRUE(Send(0, Signal::STEP_END, step).ok());
    auto pause = [&](absl::Duration d) {
      AdvanceAlive(d);
      EXPECT_TRUE(Messages().empty()) << "after step " << step;
    };
    switch (step % 4) {
      case 0:  // idle, outside any phase
        pause(up_to(59900));
        break;
      case 1:  // a checkpoint save under its own limit, idle around it
        pause(up_to(59900));
        ASSERT_TRUE(SendPhase(0, Signal::PHASE_BEGIN, "checkpoint save").ok());
        pause(up_to(299900));
        ASSERT_TRUE(SendPhase(0, Signal::PHASE_END).ok());
        pause(up_to(59900));
        break;
      case 2:  // an evaluation under the shared progress limit
        ASSERT_TRUE(SendPhase(0, Signal::PHASE_BEGIN, "eval").ok());
        pause(up_to(59900));
        ASSERT_TRUE(SendPhase(0, Signal::PHASE_END).ok());
        pause(up_to(59900));
        break;
      default:  // the next step at once
        break;
    }
  }
  EXPECT_EQ(Evaluate().ranks(0).last_end_step(), 199);
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

TEST(MonitorOptionsTest, ProgressAndPhaseLimitsAreChecked) {
  MonitorOptions options;
  options.progress_timeout = absl::ZeroDuration();  // none
  EXPECT_TRUE(ValidateMonitorOptions(options).ok());
  options.progress_timeout = absl::Seconds(-1);
  EXPECT_EQ(ValidateMonitorOptions(options).message(),
            "monitor: the progress timeout must not be negative (zero: none), "
            "not -1s");
  options.progress_timeout = absl::Seconds(60);
  options.phase_timeouts[""] = absl::Seconds(1);
  EXPECT_EQ(ValidateMonitorOptions(options).message(),
            "monitor: a phase limit needs the phase's name");
  options.phase_timeouts.clear();
  options.phase_timeouts["checkpoint save"] = absl::ZeroDuration();
  EXPECT_EQ(ValidateMonitorOptions(options).message(),
            "monitor: the limit of phase 'checkpoint save' must be positive, "
            "not 0");
}

}  // namespace
}  // namespace sluice::monitor
