// The monitor in this process, training ranks (monitored_rank) as child
// processes on 127.0.0.1: a stopped rank is stuck within its limit + 1 s, a
// killed rank dead within 1 s, and a rank whose monitor went away and came
// back keeps training and reconnects. Every wait is bounded; children are
// killed and reaped whatever happens.
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

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

std::unique_ptr<MonitorServer> StartMonitor(const std::string& address,
                                            int world_size) {
  MonitorOptions options;
  options.world_size = world_size;
  options.stuck_timeout = absl::Seconds(2);
  options.silent_timeout = absl::Seconds(5);
  options.step_kind_timeouts["first"] = absl::Seconds(10);
  auto server = MonitorServer::Start(address, options);
  EXPECT_TRUE(server.ok()) << server.status();
  return server.ok() ? *std::move(server) : nullptr;
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
