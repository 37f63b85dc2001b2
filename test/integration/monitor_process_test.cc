// The monitor in this process, training ranks (monitored_rank) as child
// processes on 127.0.0.1: a stopped rank is stuck within its limit + 1 s, a
// killed rank dead within 1 s, a rank that hangs between steps (in a phase
// or not) stuck within the progress limit + 1 s while one that pauses less
// gets no verdict, and a rank whose monitor went away and came back keeps
// training and reconnects. Every wait is bounded; children are killed and
// reaped whatever happens.
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "sluice/monitor/monitor.h"
#include "test/integration/worker_process.h"
#include "test/util/child_process.h"
#include "test/util/wait_until.h"

namespace sluice::monitor {
namespace {

using ::sluice::testing::ChildProcess;
using ::sluice::testing::ChildProcessOptions;
using ::sluice::testing::Runfile;
using ::sluice::testing::WaitUntil;

// One monitored_rank process reporting to `monitor` as `rank`; the test's
// own monitor variables are not its.
std::unique_ptr<ChildProcess> StartRank(const std::string& monitor, int rank,
                                        const std::vector<std::string>& flags) {
  ChildProcessOptions options;
  options.argv = {Runfile("test/integration/monitored_rank")};
  options.argv.insert(options.argv.end(), flags.begin(), flags.end());
  options.environment = {"SLUICE_MONITOR=" + monitor,
                         absl::StrCat("SLUICE_RANK=", rank)};
  options.name = absl::StrCat("monitored_rank", rank);
  options.stderr_to = ChildProcessOptions::Stderr::kInherit;
  auto child = std::make_unique<ChildProcess>(std::move(options));
  EXPECT_TRUE(child->started()) << child->start_error();
  return child;
}

MonitorOptions TestOptions(int world_size) {
  MonitorOptions options;
  options.world_size = world_size;
  options.stuck_timeout = absl::Seconds(2);
  options.silent_timeout = absl::Seconds(5);
  options.step_kind_timeouts["first"] = absl::Seconds(10);
  return options;
}

std::unique_ptr<MonitorServer> StartMonitor(const std::string& address,
                                            MonitorOptions options) {
  auto server = MonitorServer::Start(address, options);
  EXPECT_TRUE(server.ok()) << server.status();
  return server.ok() ? *std::move(server) : nullptr;
}

std::unique_ptr<MonitorServer> StartMonitor(const std::string& address,
                                            int world_size) {
  return StartMonitor(address, TestOptions(world_size));
}

// Whether the monitor's state comes to satisfy `holds` within `timeout`.
bool WaitFor(const MonitorServer& monitor,
             const std::function<bool(const JobState&)>& holds,
             absl::Duration timeout) {
  return WaitUntil([&] { return holds(monitor.State()); }, timeout);
}

bool Stepping(const JobState& s, int rank, int64_t past) {
  return s.ranks[rank].last_end_step > past;
}

const Verdict* StuckVerdict(const JobState& s, int rank) {
  for (const Verdict& v : s.verdicts) {
    if (v.rank == rank && v.kind == VerdictKind::kStuck) return &v;
  }
  return nullptr;
}

// The number of seconds written after the first `marker` in `message`
// ("... for 2.1 s ..."), or -1.
double SecondsAfter(const std::string& message, const std::string& marker) {
  const size_t at = message.find(marker);
  if (at == std::string::npos) return -1;
  const size_t begin = at + marker.size();
  const size_t end = message.find(" s", begin);
  double seconds = -1;
  if (end == std::string::npos ||
      !absl::SimpleAtod(message.substr(begin, end - begin), &seconds)) {
    return -1;
  }
  return seconds;
}

// Rank 0 hangs after step 20 (in `phase` unless empty) under a progress
// limit of 2 s: waits for the stuck verdict, checks it came within the
// limit + 1 s of the hang and says how long the rank had been idle, and
// returns its message (empty on failure).
std::string HangBetweenStepsVerdict(const std::string& phase) {
  MonitorOptions options = TestOptions(1);
  options.progress_timeout = absl::Seconds(2);
  auto monitor = StartMonitor("127.0.0.1:0", options);
  if (monitor == nullptr) return "";
  std::vector<std::string> flags = {"--step_ms=10", "--pause_after_step=20",
                                    "--pause_ms=600000"};
  if (!phase.empty()) flags.push_back("--pause_phase=" + phase);
  auto rank = StartRank(absl::StrCat("127.0.0.1:", monitor->port()), 0, flags);
  // The hang begins as step 20 ends; the monitor hears of it within a
  // report interval (50 ms).
  const bool hanging = WaitFor(
      *monitor,
      [&phase](const JobState& s) {
        return s.ranks[0].last_end_step == 20 && s.ranks[0].phase == phase;
      },
      absl::Seconds(20));
  EXPECT_TRUE(hanging) << monitor->State().ToString();
  if (!hanging) return "";
  const absl::Time hang_seen = absl::Now();
  const bool stuck = WaitFor(
      *monitor, [](const JobState& s) { return StuckVerdict(s, 0) != nullptr; },
      absl::Seconds(4));
  const absl::Duration waited = absl::Now() - hang_seen;
  const JobState state = monitor->State();
  EXPECT_TRUE(stuck) << state.ToString();
  if (!stuck) return "";
  EXPECT_LE(waited, absl::Seconds(3)) << state.ToString();
  EXPECT_EQ(state.verdicts.size(), 1u) << state.ToString();
  const std::string message = StuckVerdict(state, 0)->message;
  // How long the rank had hung when the verdict was first seen: the limit,
  // and at most a second more.
  const double idle = SecondsAfter(message, " for ");
  EXPECT_GE(idle, 2.0) << message;
  EXPECT_LE(idle, 3.0) << message;
  // For measurements: `waited` counts from when the test saw the hang, up
  // to a report interval after it began.
  std::printf(
      "hang between steps%s: verdict %.3f s after the hang was seen, idle "
      "%.1f s by the verdict (limit 2 s): %s\n",
      phase.empty() ? "" : " in a phase", absl::ToDoubleSeconds(waited), idle,
      message.c_str());
  return message;
}

TEST(MonitorProcessTest, StoppedRankIsStuckWithinItsLimitPlusOneSecond) {
  auto monitor = StartMonitor("127.0.0.1:0", 2);
  ASSERT_NE(monitor, nullptr);
  const std::string address = absl::StrCat("127.0.0.1:", monitor->port());
  // Rank 1's steps take 500 ms, so that a stop lands inside one.
  auto rank0 = StartRank(address, 0, {"--step_ms=10"});
  auto rank1 = StartRank(address, 1, {"--step_ms=500"});
  ASSERT_TRUE(WaitFor(
      *monitor,
      [](const JobState& s) { return Stepping(s, 0, 5) && Stepping(s, 1, 1); },
      absl::Seconds(20)));
  rank1->Stop();
  const absl::Time stopped = absl::Now();
  const bool stuck = WaitFor(
      *monitor,
      [](const JobState& s) {
        for (const Verdict& v : s.verdicts) {
          if (v.rank == 1 && v.kind == VerdictKind::kStuck) return true;
        }
        return false;
      },
      absl::Seconds(4));
  ASSERT_TRUE(stuck) << monitor->State().ToString();
  // At most the 2 s limit (the step began before the stop) plus 1 s.
  EXPECT_LE(absl::Now() - stopped, absl::Seconds(3));
  JobState state = monitor->State();
  ASSERT_EQ(state.verdicts.size(), 1u) << state.ToString();
  EXPECT_EQ(state.verdicts[0].message.rfind(
                absl::StrCat("rank 1 stuck in step ",
                             state.ranks[1].last_begin_step, " for "),
                0),
            0u)
      << state.verdicts[0].message;
  EXPECT_NE(state.verdicts[0].message.find("(limit 2 s)"), std::string::npos);
  rank1->Continue();
}

TEST(MonitorProcessTest, KilledRankIsDeadWithinOneSecond) {
  auto monitor = StartMonitor("127.0.0.1:0", 1);
  ASSERT_NE(monitor, nullptr);
  auto rank = StartRank(absl::StrCat("127.0.0.1:", monitor->port()), 0,
                        {"--step_ms=10"});
  ASSERT_TRUE(WaitFor(
      *monitor, [](const JobState& s) { return Stepping(s, 0, 5); },
      absl::Seconds(20)));
  rank->Kill();
  const bool dead = WaitFor(
      *monitor,
      [](const JobState& s) {
        return s.verdicts.size() == 1 &&
               s.verdicts[0].kind == VerdictKind::kDead;
      },
      absl::Seconds(1));
  ASSERT_TRUE(dead) << monitor->State().ToString();
  EXPECT_NE(monitor->State().verdicts[0].message.find(
                "rank 0 dead: its connection to the monitor dropped"),
            std::string::npos);
}

TEST(MonitorProcessTest, RankHungInAPhaseBetweenStepsIsStuckNamingThePhase) {
  const std::string message = HangBetweenStepsVerdict("checkpoint save");
  EXPECT_EQ(message.rfind("rank 0 stuck in phase 'checkpoint save' for ", 0),
            0u)
      << message;
  EXPECT_NE(message.find("(progress limit 2 s) between steps: step 20 ended"),
            std::string::npos)
      << message;
}

TEST(MonitorProcessTest, RankHungBetweenStepsIsStuckNamingItsLastStep) {
  const std::string message = HangBetweenStepsVerdict("");
  EXPECT_EQ(message.rfind("rank 0 stuck between steps: no step begun for ", 0),
            0u)
      << message;
  EXPECT_NE(message.find("(progress limit 2 s) since step 20 ended"),
            std::string::npos)
      << message;
}

// Pauses under their bounds: rank 0 saves a checkpoint for 2.5 s (its
// phase's own limit 4 s, past the progress limit of 2 s), rank 1 pauses
// 1 s outside any phase. Neither is ever stuck.
TEST(MonitorProcessTest, PausesBetweenStepsWithinTheirLimitsGetNoVerdict) {
  MonitorOptions options = TestOptions(2);
  options.progress_timeout = absl::Seconds(2);
  options.phase_timeouts["checkpoint save"] = absl::Seconds(4);
  auto monitor = StartMonitor("127.0.0.1:0", options);
  ASSERT_NE(monitor, nullptr);
  const std::string address = absl::StrCat("127.0.0.1:", monitor->port());
  auto rank0 = StartRank(address, 0,
                         {"--step_ms=10", "--steps=60", "--pause_after_step=20",
                          "--pause_ms=2500", "--pause_phase=checkpoint save"});
  auto rank1 = StartRank(address, 1,
                         {"--step_ms=10", "--steps=60", "--pause_after_step=20",
                          "--pause_ms=1000"});
  bool saw_phase = false;
  std::string stuck;
  const bool finished = WaitFor(
      *monitor,
      [&](const JobState& s) {
        saw_phase = saw_phase || s.ranks[0].phase == "checkpoint save";
        for (int rank : {0, 1}) {
          if (const Verdict* v = StuckVerdict(s, rank)) stuck = v->message;
        }
        return s.ranks[0].finished && s.ranks[1].finished;
      },
      absl::Seconds(30));
  ASSERT_TRUE(finished) << monitor->State().ToString();
  EXPECT_TRUE(saw_phase);
  EXPECT_EQ(stuck, "");
  EXPECT_EQ(rank0->WaitForExit(absl::Seconds(10)), 0) << rank0->DescribeExit();
  EXPECT_EQ(rank1->WaitForExit(absl::Seconds(10)), 0) << rank1->DescribeExit();
}

TEST(MonitorProcessTest, RankTrainsOnThroughAMonitorRestart) {
  auto port = dist::testing::PortReservation::Reserve();
  ASSERT_TRUE(port.ok()) << port.status();
  auto monitor = StartMonitor(port->address(), 1);
  ASSERT_NE(monitor, nullptr);
  auto rank =
      StartRank(port->address(), 0,
                {"--step_ms=5", "--steps=100000", "--steps_per_epoch=20"});
  ASSERT_TRUE(WaitFor(
      *monitor, [](const JobState& s) { return Stepping(s, 0, 40); },
      absl::Seconds(20)));
  const int64_t before = monitor->State().ranks[0].last_end_step;
  monitor.reset();
  absl::SleepFor(absl::Seconds(1));
  monitor = StartMonitor(port->address(), 1);
  ASSERT_NE(monitor, nullptr);
  // The rank reconnects with what it did meanwhile: it never waited for
  // the monitor (a second of 5 ms steps is well past 40 more).
  ASSERT_TRUE(WaitFor(
      *monitor,
      [before](const JobState& s) {
        return s.ranks[0].connected && Stepping(s, 0, before + 40);
      },
      absl::Seconds(10)))
      << monitor->State().ToString();
  JobState state = monitor->State();
  EXPECT_GE(state.ranks[0].finished_epochs, (before + 40) / 20);
  EXPECT_EQ(state.verdicts.size(), 0u) << state.ToString();
}

TEST(MonitorProcessTest, FinishedRankIsFinished) {
  auto monitor = StartMonitor("127.0.0.1:0", 1);
  ASSERT_NE(monitor, nullptr);
  auto rank = StartRank(absl::StrCat("127.0.0.1:", monitor->port()), 0,
                        {"--step_ms=1", "--steps=30", "--steps_per_epoch=10"});
  ASSERT_EQ(rank->WaitForExit(absl::Seconds(60)), 0) << rank->DescribeExit();
  JobState state = monitor->State();
  ASSERT_EQ(state.verdicts.size(), 1u) << state.ToString();
  EXPECT_EQ(state.verdicts[0].message, "rank 0 finished");
  EXPECT_EQ(state.min_finished_epoch, 3);
  EXPECT_EQ(state.ranks[0].last_end_step, 29);
}

}  // namespace
}  // namespace sluice::monitor
