// The monitor in this process, training ranks (monitored_rank) as child
// processes on 127.0.0.1: a stopped rank is stuck within its limit + 1 s, a
// killed rank dead within 1 s, and a rank whose monitor went away and came
// back keeps training and reconnects. Every wait is bounded; children are
// killed and reaped whatever happens.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "sluice/ft/monitor.h"
#include "test/integration/worker_process.h"

extern char** environ;

namespace sluice::ft {
namespace {

// One monitored_rank process, killed and reaped on destruction.
class RankProcess {
 public:
  RankProcess(const std::string& monitor, int rank,
              std::vector<std::string> flags) {
    const char* srcdir = std::getenv("TEST_SRCDIR");
    const char* workspace = std::getenv("TEST_WORKSPACE");
    std::vector<std::string> strings = {absl::StrCat(
        srcdir ? srcdir : ".", "/", workspace ? workspace : "sluice",
        "/test/integration/monitored_rank")};
    strings.insert(strings.end(), flags.begin(), flags.end());
    std::vector<std::string> environment;
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string entry = *e;
      if (entry.rfind("SLUICE_MONITOR=", 0) != 0 &&
          entry.rfind("SLUICE_RANK=", 0) != 0) {
        environment.push_back(entry);
      }
    }
    environment.push_back("SLUICE_MONITOR=" + monitor);
    environment.push_back(absl::StrCat("SLUICE_RANK=", rank));
    std::vector<char*> argv, envp;
    for (std::string& s : strings) argv.push_back(s.data());
    argv.push_back(nullptr);
    for (std::string& s : environment) envp.push_back(s.data());
    envp.push_back(nullptr);
    const int error =
        posix_spawn(&pid_, argv[0], nullptr, nullptr, argv.data(), envp.data());
    EXPECT_EQ(error, 0) << "cannot start " << argv[0];
    if (error != 0) pid_ = 0;
  }
  ~RankProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      Wait();
    }
  }
  void Signal(int signal) { kill(pid_, signal); }
  int Wait() {
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = 0;
    return status;
  }

 private:
  pid_t pid_ = 0;
};

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

// Polls the monitor until `holds`; returns how long that took, or nullopt
// past `timeout`.
std::optional<absl::Duration> WaitFor(
    const MonitorServer& monitor,
    const std::function<bool(const JobState&)>& holds, absl::Duration timeout) {
  const absl::Time start = absl::Now();
  while (absl::Now() - start < timeout) {
    if (holds(monitor.State())) return absl::Now() - start;
    absl::SleepFor(absl::Milliseconds(10));
  }
  return std::nullopt;
}

bool Stepping(const JobState& s, int rank, int64_t past) {
  return s.ranks[rank].last_end_step > past;
}

TEST(MonitorProcessTest, StoppedRankIsStuckWithinItsLimitPlusOneSecond) {
  auto monitor = StartMonitor("127.0.0.1:0", 2);
  ASSERT_NE(monitor, nullptr);
  const std::string address = absl::StrCat("127.0.0.1:", monitor->port());
  // Rank 1's steps take 500 ms, so that a stop lands inside one.
  RankProcess rank0(address, 0, {"--step_ms=10"});
  RankProcess rank1(address, 1, {"--step_ms=500"});
  ASSERT_TRUE(WaitFor(
      *monitor,
      [](const JobState& s) { return Stepping(s, 0, 5) && Stepping(s, 1, 1); },
      absl::Seconds(20)));
  rank1.Signal(SIGSTOP);
  const absl::Time stopped = absl::Now();
  auto stuck = WaitFor(
      *monitor,
      [](const JobState& s) {
        for (const Verdict& v : s.verdicts) {
          if (v.rank == 1 && v.kind == VerdictKind::kStuck) return true;
        }
        return false;
      },
      absl::Seconds(4));
  ASSERT_TRUE(stuck.has_value()) << monitor->State().ToString();
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
  rank1.Signal(SIGCONT);
}

TEST(MonitorProcessTest, KilledRankIsDeadWithinOneSecond) {
  auto monitor = StartMonitor("127.0.0.1:0", 1);
  ASSERT_NE(monitor, nullptr);
  RankProcess rank(absl::StrCat("127.0.0.1:", monitor->port()), 0,
                   {"--step_ms=10"});
  ASSERT_TRUE(WaitFor(
      *monitor, [](const JobState& s) { return Stepping(s, 0, 5); },
      absl::Seconds(20)));
  rank.Signal(SIGKILL);
  auto dead = WaitFor(
      *monitor,
      [](const JobState& s) {
        return s.verdicts.size() == 1 &&
               s.verdicts[0].kind == VerdictKind::kDead;
      },
      absl::Seconds(1));
  ASSERT_TRUE(dead.has_value()) << monitor->State().ToString();
  EXPECT_NE(monitor->State().verdicts[0].message.find(
                "rank 0 dead: its connection to the monitor dropped"),
            std::string::npos);
}

TEST(MonitorProcessTest, RankTrainsOnThroughAMonitorRestart) {
  auto port = dist::testing::PortReservation::Reserve();
  ASSERT_TRUE(port.ok()) << port.status();
  auto monitor = StartMonitor(port->address(), 1);
  ASSERT_NE(monitor, nullptr);
  RankProcess rank(port->address(), 0,
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
  RankProcess rank(absl::StrCat("127.0.0.1:", monitor->port()), 0,
                   {"--step_ms=1", "--steps=30", "--steps_per_epoch=10"});
  const int status = rank.Wait();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  JobState state = monitor->State();
  ASSERT_EQ(state.verdicts.size(), 1u) << state.ToString();
  EXPECT_EQ(state.verdicts[0].message, "rank 0 finished");
  EXPECT_EQ(state.min_finished_epoch, 3);
  EXPECT_EQ(state.ranks[0].last_end_step, 29);
}

}  // namespace
}  // namespace sluice::ft
