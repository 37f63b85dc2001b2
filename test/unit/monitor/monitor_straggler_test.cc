// The straggler verdict of MonitorState with a fake clock: named after
// exactly straggler_steps slow steps, cleared after as many healthy ones,
// never for jitter, a job that slows down as a whole, or steps with a kind;
// a rank alone judged against its own earlier steps.
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "lib/monitor/monitor_state.h"

namespace sluice::monitor {
namespace {

using proto::Signal;
using proto::Verdict;

// 2023-11-14 22:13:20 UTC.
const absl::Time kStart = absl::FromUnixSeconds(1'700'000'000);

class MonitorStragglerTest : public ::testing::Test {
 protected:
  void Configure(int world_size, int straggler_steps = 5) {
    MonitorOptions options;
    options.world_size = world_size;
    options.straggler_threshold = 1.5;
    options.straggler_steps = straggler_steps;
    options.step_kind_timeouts = {{"checkpoint", absl::Seconds(300)}};
    state_ = std::make_unique<MonitorState>(options);
    incarnation_.assign(world_size, 1);
  }

  // Rank `rank` runs step `step` (of `kind`) for `took`, beginning at the
  // start of the step's round: one second per round, so that the message's
  // times are known. The rank's clock is an hour off the monitor's.
  void Step(int rank, int64_t step, absl::Duration took,
            const std::string& kind = "") {
    const absl::Time begun = kStart + absl::Seconds(step);
    proto::SignalBatch batch;
    batch.set_rank(rank);
    batch.set_incarnation(incarnation_[rank]);
    Signal* begin = batch.add_signals();
    begin->set_kind(Signal::STEP_BEGIN);
    begin->set_step(step);
    begin->set_step_kind(kind);
    begin->set_time_us(absl::ToUnixMicros(begun + absl::Hours(1)));
    Signal* end = batch.add_signals();
    end->set_kind(Signal::STEP_END);
    end->set_step(step);
    end->set_time_us(absl::ToUnixMicros(begun + took + absl::Hours(1)));
    ASSERT_TRUE(state_->Apply(StreamOf(rank), batch, begun + took).ok());
    now_ = begun + took;
  }
  // Every rank runs `step`: rank `slow` for `slow_took`, the others for
  // 100 ms.
  void Round(int64_t step, int slow = -1,
             absl::Duration slow_took = absl::ZeroDuration()) {
    for (int rank = 0; rank < static_cast<int>(incarnation_.size()); ++rank) {
      Step(rank, step, rank == slow ? slow_took : absl::Milliseconds(100));
    }
  }
  uint64_t StreamOf(int rank) const {
    return 1 + rank + 100 * incarnation_[rank];
  }

  proto::JobState Evaluate() const { return state_->Evaluate(now_); }
  // The straggler verdict of `rank` now, or "".
  std::string StragglerOf(int rank) const {
    const proto::JobState state = Evaluate();
    for (const Verdict& verdict : state.stragglers()) {
      if (verdict.rank() == rank) return verdict.message();
    }
    return "";
  }

  std::unique_ptr<MonitorState> state_;
  std::vector<uint64_t> incarnation_;
  absl::Time now_ = kStart;
};

TEST_F(MonitorStragglerTest, SlowRankIsNamedAfterExactlyTheGivenSteps) {
  Configure(4);
  for (int64_t step = 0; step < 20; ++step) Round(step);
  for (int64_t step = 20; step < 24; ++step) {
    Round(step, 2, absl::Milliseconds(210));
    EXPECT_EQ(StragglerOf(2), "") << "after slow step " << step;
  }
  Round(24, 2, absl::Milliseconds(210));
  const proto::JobState state = Evaluate();
  ASSERT_EQ(state.stragglers_size(), 1) << state.DebugString();
  const Verdict& verdict = state.stragglers(0);
  EXPECT_EQ(verdict.rank(), 2);
  EXPECT_EQ(verdict.kind(), Verdict::STRAGGLER);
  EXPECT_EQ(verdict.message(),
            "rank 2 straggles: its last 5 steps took a median 210 ms, 2.1x "
            "its peers' 100 ms (and 2.1x its own earlier 100 ms), since step "
            "20 at 2023-11-14 22:13:40.000 UTC");
  // When step 24 ended, on the monitor's clock.
  EXPECT_EQ(verdict.time_us(), absl::ToUnixMicros(kStart + absl::Seconds(24) +
                                                  absl::Milliseconds(210)));
  // Informational: nothing a launcher restarts for.
  EXPECT_EQ(state.verdicts_size(), 0);
  EXPECT_TRUE(state.ranks(2).step_times().straggling());
  EXPECT_EQ(state.ranks(2).step_times().steps(), 25);
  EXPECT_FALSE(state.ranks(1).step_times().straggling());
}

TEST_F(MonitorStragglerTest, OnlyConsecutiveSlowStepsCount) {
  Configure(4);
  for (int64_t step = 0; step < 20; ++step) Round(step);
  int64_t step = 20;
  for (int run = 0; run < 10; ++run) {
    for (int slow = 0; slow < 4; ++slow) {
      Round(step++, 2, absl::Milliseconds(300));
    }
    Round(step++);
  }
  EXPECT_EQ(Evaluate().stragglers_size(), 0);
}

TEST_F(MonitorStragglerTest, VerdictClearsAfterAsManyHealthySteps) {
  Configure(4);
  for (int64_t step = 0; step < 20; ++step) Round(step);
  for (int64_t step = 20; step < 30; ++step) {
    Round(step, 2, absl::Milliseconds(250));
  }
  ASSERT_NE(StragglerOf(2), "");
  // A healthy step between slow ones does not clear it.
  Round(30);
  Round(31, 2, absl::Milliseconds(250));
  for (int64_t step = 32; step < 36; ++step) {
    Round(step);
    EXPECT_NE(StragglerOf(2), "") << "after healthy step " << step;
  }
  EXPECT_EQ(Evaluate().ranks(2).straggler_recovered(), "");
  Round(36);
  const proto::JobState state = Evaluate();
  EXPECT_EQ(state.stragglers_size(), 0);
  EXPECT_FALSE(state.ranks(2).step_times().straggling());
  EXPECT_EQ(state.ranks(2).straggler_recovered(),
            "rank 2 no longer straggles: its last 5 steps took a median "
            "100 ms, 1.0x its peers' 100 ms (and 1.0x its own earlier "
            "100 ms), since step 32; it straggled from step 20 to step 31");
}

TEST_F(MonitorStragglerTest, UniformJitterGivesNoVerdictOver1000Steps) {
  Configure(4);
  // +-20% around 100 ms, and one step in 50 a lone spike of 2x to 3x (a
  // pause for garbage collection, a page fault storm): noise of healthy
  // ranks.
  std::mt19937 random(20261129);
  std::uniform_real_distribution<double> jitter(0.8, 1.2);
  std::uniform_real_distribution<double> spike(2.0, 3.0);
  std::bernoulli_distribution spiked(1.0 / 50);
  int verdicts = 0;
  int spikes = 0;
  for (int64_t step = 0; step < 1000; ++step) {
    for (int rank = 0; rank < 4; ++rank) {
      double factor = jitter(random);
      if (spiked(random)) {
        factor = spike(random);
        ++spikes;
      }
      Step(rank, step, absl::Microseconds(std::lround(100'000 * factor)));
    }
    verdicts += Evaluate().stragglers_size();
  }
  // The rate the issue asks for: straggler verdicts per rank-step.
  std::printf(
      "false straggler verdicts: %d in 1000 steps of 4 ranks (%d "
      "lone spikes): rate %g per rank-step\n",
      verdicts, spikes, verdicts / 4000.0);
  EXPECT_GT(spikes, 40);
  EXPECT_EQ(verdicts, 0);
  const proto::JobState state = Evaluate();
  for (const proto::RankState& rank : state.ranks()) {
    EXPECT_NEAR(rank.step_times().relative(), 1.0, 0.2);
    EXPECT_NEAR(rank.step_times().individual(), 1.0, 0.2);
  }
}

TEST_F(MonitorStragglerTest, DelaysUnderAMillisecondAreNoStraggling) {
  Configure(4);
  // Steps of 20 us, rank 2's 5x longer: scheduler noise, not a straggler.
  for (int64_t step = 0; step < 40; ++step) {
    for (int rank = 0; rank < 4; ++rank) {
      Step(rank, step, absl::Microseconds(rank == 2 && step >= 20 ? 100 : 20));
    }
  }
  EXPECT_EQ(Evaluate().stragglers_size(), 0);
  // 1.2 ms against 0.1 ms is.
  Configure(4);
  for (int64_t step = 0; step < 40; ++step) {
    for (int rank = 0; rank < 4; ++rank) {
      Step(rank, step,
           absl::Microseconds(rank == 2 && step >= 20 ? 1200 : 100));
    }
  }
  EXPECT_EQ(StragglerOf(2),
            "rank 2 straggles: its last 5 steps took a median 1.2 ms, 12.0x "
            "its peers' 0.1 ms (and 12.0x its own earlier 0.1 ms), since "
            "step 20 at 2023-11-14 22:13:40.000 UTC");
}

TEST_F(MonitorStragglerTest, JobThatSlowsDownAsAWholeHasNoStraggler) {
  Configure(4);
  for (int64_t step = 0; step < 20; ++step) Round(step);
  auto slow_round = [this](int64_t step) {
    for (int rank = 0; rank < 4; ++rank) {
      Step(rank, step, absl::Milliseconds(rank == 0 ? 300 : 310));
    }
  };
  for (int64_t step = 20; step < 30; ++step) slow_round(step);
  proto::JobState state = Evaluate();
  EXPECT_EQ(state.stragglers_size(), 0);
  // Each rank is 3x its own earlier steps, but that is the job's pace.
  EXPECT_NEAR(state.ranks(1).step_times().individual(), 3.1, 0.01);
  EXPECT_NEAR(state.ranks(1).step_times().relative(), 1.0, 0.05);
  // Healthy steps make the baseline, which comes to the new pace.
  for (int64_t step = 30; step < 80; ++step) slow_round(step);
  state = Evaluate();
  EXPECT_EQ(state.stragglers_size(), 0);
  EXPECT_NEAR(state.ranks(1).step_times().individual(), 1.0, 0.01);
}

TEST_F(MonitorStragglerTest, OfTwoRanksOnlyTheSlowOneIsNamed) {
  Configure(2);
  for (int64_t step = 0; step < 10; ++step) Round(step);
  for (int64_t step = 10; step < 15; ++step) {
    Round(step, 0, absl::Milliseconds(160));
  }
  const proto::JobState state = Evaluate();
  ASSERT_EQ(state.stragglers_size(), 1);
  EXPECT_EQ(state.stragglers(0).rank(), 0);
}

TEST_F(MonitorStragglerTest, StepsWithAKindAreNotTimed) {
  Configure(4);
  for (int64_t step = 0; step < 30; ++step) {
    for (int rank = 0; rank < 4; ++rank) {
      // Rank 2 saves a checkpoint in every step it takes long.
      if (rank == 2 && step >= 10) {
        Step(rank, step, absl::Milliseconds(900), "checkpoint");
      } else {
        Step(rank, step, absl::Milliseconds(100));
      }
    }
  }
  const proto::JobState state = Evaluate();
  EXPECT_EQ(state.stragglers_size(), 0);
  EXPECT_EQ(state.ranks(2).step_times().steps(), 10);
}

TEST_F(MonitorStragglerTest, RankAloneIsJudgedAgainstItsOwnEarlierSteps) {
  Configure(1);
  for (int64_t step = 0; step < 10; ++step) {
    Step(0, step, absl::Milliseconds(100));
  }
  for (int64_t step = 10; step < 14; ++step) {
    Step(0, step, absl::Milliseconds(300));
  }
  EXPECT_EQ(StragglerOf(0), "");
  Step(0, 14, absl::Milliseconds(300));
  EXPECT_EQ(StragglerOf(0),
            "rank 0 straggles: its last 5 steps took a median 300 ms, 3.0x "
            "its own earlier 100 ms, since step 10 at 2023-11-14 "
            "22:13:30.000 UTC");
  const proto::JobState state = Evaluate();
  EXPECT_EQ(state.ranks(0).step_times().relative(), 0);
  EXPECT_EQ(state.ranks(0).step_times().baseline_median_us(), 100'000);
}

TEST_F(MonitorStragglerTest, RankAloneNeedsABaselineFirst) {
  Configure(1);
  // Slow from its fourth step on: too early to know its pace, so the slow
  // pace is its pace.
  for (int64_t step = 0; step < 3; ++step) {
    Step(0, step, absl::Milliseconds(100));
  }
  for (int64_t step = 3; step < 40; ++step) {
    Step(0, step, absl::Milliseconds(300));
  }
  EXPECT_EQ(Evaluate().stragglers_size(), 0);
}

TEST_F(MonitorStragglerTest, ZeroStepsKeepsStatisticsWithoutVerdicts) {
  Configure(4, /*straggler_steps=*/0);
  for (int64_t step = 0; step < 20; ++step) Round(step);
  for (int64_t step = 20; step < 60; ++step) {
    Round(step, 2, absl::Milliseconds(400));
  }
  const proto::JobState state = Evaluate();
  EXPECT_EQ(state.stragglers_size(), 0);
  EXPECT_NEAR(state.ranks(2).step_times().relative(), 4.0, 0.01);
  EXPECT_EQ(state.ranks(2).step_times().recent_median_us(), 400'000);
}

TEST_F(MonitorStragglerTest, NewProcessAndResetForgetTheVerdict) {
  Configure(4);
  for (int64_t step = 0; step < 20; ++step) Round(step);
  for (int64_t step = 20; step < 25; ++step) {
    Round(step, 2, absl::Milliseconds(400));
  }
  ASSERT_NE(StragglerOf(2), "");
  ++incarnation_[2];  // a restarted rank 2
  Step(2, 0, absl::Milliseconds(100));
  EXPECT_EQ(StragglerOf(2), "");
  EXPECT_EQ(Evaluate().ranks(2).step_times().steps(), 1);

  for (int64_t step = 25; step < 30; ++step) {
    Round(step, 1, absl::Milliseconds(400));
  }
  ASSERT_NE(StragglerOf(1), "");
  state_->Reset(0);
  for (uint64_t& incarnation : incarnation_) ++incarnation;
  Round(30);
  EXPECT_EQ(Evaluate().stragglers_size(), 0);
  EXPECT_EQ(Evaluate().ranks(1).step_times().steps(), 1);
}

TEST_F(MonitorStragglerTest, RankWithAFailureVerdictIsNotAlsoAStraggler) {
  Configure(4);
  for (int64_t step = 0; step < 20; ++step) Round(step);
  for (int64_t step = 20; step < 25; ++step) {
    Round(step, 2, absl::Milliseconds(400));
  }
  ASSERT_NE(StragglerOf(2), "");
  proto::ExitReport exit;
  exit.set_rank(2);
  exit.set_signal(9);
  ASSERT_TRUE(state_->ApplyExit(exit, now_).ok());
  const proto::JobState state = Evaluate();
  EXPECT_EQ(state.stragglers_size(), 0);
  ASSERT_EQ(state.verdicts_size(), 1);
  EXPECT_EQ(state.verdicts(0).kind(), Verdict::DEAD);
}

TEST_F(MonitorStragglerTest, PlainStateKeepsStragglersApart) {
  Configure(4);
  for (int64_t step = 0; step < 20; ++step) Round(step);
  for (int64_t step = 20; step < 25; ++step) {
    Round(step, 3, absl::Milliseconds(400));
  }
  const JobState plain = JobStateFromProto(Evaluate());
  EXPECT_TRUE(plain.verdicts.empty());
  ASSERT_EQ(plain.stragglers.size(), 1u);
  EXPECT_EQ(plain.stragglers[0].kind, VerdictKind::kStraggler);
  EXPECT_EQ(plain.stragglers[0].rank, 3);
  EXPECT_TRUE(plain.ranks[3].step_times.straggling);
  EXPECT_EQ(plain.ranks[3].step_times.steps, 25);
  EXPECT_NE(plain.ToString().find("verdict: rank 3 straggles: "),
            std::string::npos);
}

TEST(MonitorStragglerOptionsTest, BadOptionsAreRefused) {
  MonitorOptions options;
  options.straggler_threshold = 1.0;
  EXPECT_EQ(ValidateMonitorOptions(options).message(),
            "monitor: the straggler threshold must be a finite ratio above 1, "
            "not 1");
  options.straggler_threshold = std::nan("");
  EXPECT_FALSE(ValidateMonitorOptions(options).ok());
  options.straggler_threshold = 1.5;
  options.straggler_steps = -1;
  EXPECT_EQ(ValidateMonitorOptions(options).message(),
            "monitor: straggler steps must be 0 (no verdicts) to 1000, not -1");
  options.straggler_steps = 1001;
  EXPECT_FALSE(ValidateMonitorOptions(options).ok());
  options.straggler_steps = 0;
  EXPECT_TRUE(ValidateMonitorOptions(options).ok());
}

}  // namespace
}  // namespace sluice::monitor
