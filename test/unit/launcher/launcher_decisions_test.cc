// The launcher's decisions on a fake clock: each scenario feeds the events
// the process layer would and checks every decision, in order.
#include "lib/launcher/launcher_decisions.h"

#include <signal.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "sluice/support/exit_codes.h"

namespace sluice::launcher {
namespace {

using Phase = JobDecisions::Phase;
using Lines = std::vector<std::string>;

const absl::Time kStart = absl::FromUnixSeconds(1000000);

absl::Time At(double seconds) { return kStart + absl::Seconds(seconds); }

std::string Since(absl::Time time) {
  return absl::FormatDuration(time - kStart);
}

// One line per decision with every field that kind uses, so that a test
// checks them all.
std::string Show(const LaunchDecision& d) {
  switch (d.kind) {
    case LaunchDecision::kLog:
      return absl::StrCat("log: ", d.message);
    case LaunchDecision::kStartRanks:
      return absl::StrCat("start ranks {", absl::StrJoin(d.locals, ", "),
                          "}: restart ", d.restart, ", epoch ", d.resume_epoch);
    case LaunchDecision::kStartRank:
      return absl::StrCat("start rank ", d.local, ": restart ", d.restart,
                          ", epoch ", d.resume_epoch);
    case LaunchDecision::kSignalRank:
      return absl::StrCat("signal rank ", d.local, ": ", d.signal,
                          d.signal == SIGTERM
                              ? absl::StrCat(", SIGKILL at ", Since(d.deadline))
                              : "");
    case LaunchDecision::kStopRanks:
      return absl::StrCat("stop ranks: ", d.signal, ", SIGKILL after ",
                          absl::FormatDuration(d.grace));
    case LaunchDecision::kStopJob:
      return absl::StrCat("stop job: ", d.signal, ", SIGKILL after ",
                          absl::FormatDuration(d.grace));
    case LaunchDecision::kWaitForRanksToExit:
      return absl::StrCat("wait for ranks: ", absl::FormatDuration(d.grace));
    case LaunchDecision::kBeginGeneration:
      return absl::StrCat("begin generation ", d.restart, ": epoch ",
                          d.resume_epoch);
    case LaunchDecision::kResetMonitor:
      return absl::StrCat("reset monitor: epoch ", d.resume_epoch);
    case LaunchDecision::kEndJob:
      return absl::StrCat(
          "end job: ",
          d.outcome == RendezvousView::kFinished ? "finished" : "gave up",
          " with ", d.exit_code, ", waiting ", absl::FormatDuration(d.grace));
    case LaunchDecision::kDrainOutput:
      return "drain";
    case LaunchDecision::kExit:
      return absl::StrCat("exit ", d.exit_code);
  }
  return "?";
}

Lines Show(const LaunchDecisions& decisions) {
  Lines lines;
  for (const LaunchDecision& decision : decisions) {
    lines.push_back(Show(decision));
  }
  return lines;
}

LauncherOptions Options(int nproc) {
  LauncherOptions options;
  options.nproc = nproc;
  options.command = {"train"};
  options.grace_period = absl::Seconds(5);
  options.restart.max_restarts = 2;
  options.restart.backoff = absl::Milliseconds(500);
  return options;
}

FailureVerdict MakeVerdict(int rank, const std::string& kind,
                           const std::string& message, absl::Time time) {
  FailureVerdict verdict;
  verdict.rank = rank;
  verdict.kind = kind;
  verdict.message = message;
  verdict.time = time;
  return verdict;
}

// Starts every rank at `at`; the decisions must have been a kStartRanks.
void StartAll(RankDecisions& decisions, absl::Time at) {
  for (int local = 0; local < decisions.local_count(); ++local) {
    decisions.RankStarted(local, at);
  }
}

// --- One host, --restart=job ---

TEST(JobDecisionsTest, FinishesOnceEveryRankExitedCleanly) {
  JobDecisions job(Options(2));
  EXPECT_EQ(Show(job.Start(At(0))),
            Lines{"start ranks {0, 1}: restart 0, epoch 0"});
  StartAll(job, At(0));
  EXPECT_EQ(Show(job.RankExited(0, RankExit::Code(0), At(5))), Lines{});
  EXPECT_EQ(job.phase(), Phase::kRunning);
  EXPECT_EQ(Show(job.RankExited(1, RankExit::Code(0), At(6))),
            (Lines{"stop ranks: 15, SIGKILL after 5s", "drain",
                   "log: the job finished", "exit 0"}));
  EXPECT_EQ(job.phase(), Phase::kDone);
}

TEST(JobDecisionsTest, FailureStopsTheJobAndRestartsAfterTheBackoff) {
  JobDecisions job(Options(2));
  job.Start(At(0));
  StartAll(job, At(0));
  job.MonitorEpoch(2);
  EXPECT_EQ(Show(job.RankExited(1, RankExit::Code(1), At(10))),
            (Lines{"log: stopping all ranks: rank 1 exited with code 1",
                   "stop job: 15, SIGKILL after 5s"}));
  EXPECT_EQ(job.phase(), Phase::kStopping);
  // The epoch read once the ranks stopped; it never goes down.
  job.MonitorEpoch(3);
  job.MonitorEpoch(1);
  EXPECT_EQ(Show(job.JobStopped(At(16))),
            Lines{"log: restart 1 of 2 in 500ms from epoch 3"});
  EXPECT_EQ(job.phase(), Phase::kBackoff);
  ASSERT_TRUE(job.NextDeadline().has_value());
  EXPECT_EQ(*job.NextDeadline(), At(16.5));
  EXPECT_EQ(Show(job.Tick(At(16.4), false)), Lines{});
  EXPECT_EQ(Show(job.Tick(At(16.5), false)),
            (Lines{"reset monitor: epoch 3",
                   "start ranks {0, 1}: restart 1, epoch 3"}));
  EXPECT_EQ(job.phase(), Phase::kRunning);
  EXPECT_EQ(job.restarts(), 1);
  StartAll(job, At(16.5));

  // The backoff doubles before the next restart.
  job.RankExited(0, RankExit::Code(1), At(20));
  EXPECT_EQ(Show(job.JobStopped(At(21))),
            Lines{"log: restart 2 of 2 in 1s from epoch 3"});
  EXPECT_EQ(*job.NextDeadline(), At(22));
}

TEST(JobDecisionsTest, GivesUpWithTheFailingRanksCodeAfterMaxRestarts) {
  LauncherOptions options = Options(2);
  options.restart.max_restarts = 1;
  JobDecisions job(options);
  job.Start(At(0));
  StartAll(job, At(0));
  job.RankExited(0, RankExit::Code(2), At(1));
  job.JobStopped(At(2));
  job.Tick(At(3), false);
  StartAll(job, At(3));
  EXPECT_EQ(Show(job.RankExited(0, RankExit::Signal(SIGKILL), At(4))),
            (Lines{"log: stopping all ranks: rank 0 was killed by signal 9 "
                   "(Killed)",
                   "stop job: 15, SIGKILL after 5s"}));
  EXPECT_EQ(Show(job.JobStopped(At(10))),
            (Lines{"drain",
                   "log: giving up after 1 restart(s) (--max_restarts=1): "
                   "rank 0 was killed by signal 9 (Killed); exiting with 137",
                   "exit 137"}));
  EXPECT_EQ(job.phase(), Phase::kDone);
}

TEST(JobDecisionsTest, NoRestartsMeansTheFirstFailureEndsTheJob) {
  LauncherOptions options = Options(1);
  options.restart.max_restarts = 0;
  JobDecisions job(options);
  job.Start(At(0));
  StartAll(job, At(0));
  job.RankExited(0, RankExit::Code(3), At(1));
  EXPECT_EQ(Show(job.JobStopped(At(2))).back(), "exit 3");
}

TEST(JobDecisionsTest, SaysThatTheRestartableExitCodeAsksForARestart) {
  JobDecisions job(Options(1));
  job.Start(At(0));
  StartAll(job, At(0));
  EXPECT_EQ(Show(job.RankExited(0, RankExit::Code(kRestartableExitCode), At(1)))
                .front(),
            "log: stopping all ranks: rank 0 exited with code 75 "
            "(restartable: it asks for a restart)");
}

TEST(JobDecisionsTest, VerdictStopsTheJobAndExitsWithOneWhenNoRestartIsLeft) {
  LauncherOptions options = Options(2);
  options.restart.max_restarts = 0;
  JobDecisions job(options);
  job.Start(At(0));
  StartAll(job, At(10));
  // Made before the rank's start: about an earlier one.
  EXPECT_EQ(Show(job.Verdict(MakeVerdict(1, "stuck", "old", At(9)), At(11))),
            Lines{});
  // Not one of this node's ranks.
  EXPECT_EQ(Show(job.Verdict(MakeVerdict(5, "dead", "x", At(12)), At(12))),
            Lines{});
  EXPECT_EQ(
      Show(job.Verdict(
          MakeVerdict(1, "stuck", "rank 1 stuck in step 41 for 2.0 s", At(12)),
          At(12))),
      (Lines{"log: stopping all ranks: monitor: stuck: rank 1 stuck in step "
             "41 for 2.0 s",
             "stop job: 15, SIGKILL after 5s"}));
  EXPECT_EQ(Show(job.JobStopped(At(13))).back(), "exit 1");
}

TEST(JobDecisionsTest, VerdictOnARankThatExitedIsIgnored) {
  JobDecisions job(Options(2));
  job.Start(At(0));
  StartAll(job, At(0));
  job.RankExited(1, RankExit::Code(0), At(1));
  EXPECT_EQ(Show(job.Verdict(MakeVerdict(1, "dead", "gone", At(2)), At(2))),
            Lines{});
  EXPECT_EQ(job.phase(), Phase::kRunning);
}

TEST(JobDecisionsTest, StopSignalIsPassedToTheRanksAndExitsWith128Plus) {
  JobDecisions job(Options(2));
  job.Start(At(0));
  StartAll(job, At(0));
  EXPECT_EQ(Show(job.StopSignal(SIGTERM, At(1))),
            (Lines{"log: got Terminated: passing it to the ranks",
                   "stop ranks: 15, SIGKILL after 5s", "drain", "exit 143"}));
}

TEST(JobDecisionsTest, StopSignalDuringTheBackoffEndsWithoutStoppingAgain) {
  JobDecisions job(Options(2));
  job.Start(At(0));
  StartAll(job, At(0));
  job.RankExited(0, RankExit::Code(1), At(1));
  job.JobStopped(At(2));
  EXPECT_EQ(Show(job.StopSignal(SIGINT, At(2.1))),
            (Lines{"log: got Interrupt while waiting to restart", "exit 130"}));
  EXPECT_EQ(Show(job.Tick(At(10), false)), Lines{});
}

TEST(JobDecisionsTest, StartFailureKillsWhatStartedAndExitsWithOne) {
  JobDecisions job(Options(2));
  job.Start(At(0));
  job.RankStarted(0, At(0));
  EXPECT_EQ(Show(job.StartFailed("cannot start rank 1: no such file", At(0))),
            (Lines{"log: cannot start rank 1: no such file",
                   "stop ranks: 9, SIGKILL after 5s", "exit 1"}));
}

TEST(JobDecisionsTest, ChiefEndsTheJobOthersExitingCleanlyDoNot) {
  LauncherOptions options = Options(0);
  options.jobs = {{"ps", 1}, {"worker", 1}, {"chief", 1}};
  options.chief = "chief";
  JobDecisions job(options);
  ASSERT_EQ(job.local_count(), 3);
  EXPECT_EQ(job.Describe(1), "rank 1 (worker 0)");
  job.Start(At(0));
  StartAll(job, At(0));
  EXPECT_EQ(Show(job.RankExited(1, RankExit::Code(0), At(1))), Lines{});
  EXPECT_EQ(Show(job.RankExited(2, RankExit::Code(0), At(2))),
            (Lines{"log: rank 2 (chief 0), the chief, finished",
                   "stop ranks: 15, SIGKILL after 5s", "drain",
                   "log: the job finished", "exit 0"}));
}

TEST(JobDecisionsTest, FinishOnFirstGivesTheOthersTheGracePeriod) {
  LauncherOptions options = Options(2);
  options.finish_on_first = true;
  options.restart.scope = RestartScope::kRank;
  JobDecisions job(options);
  job.Start(At(0));
  StartAll(job, At(0));
  EXPECT_EQ(Show(job.RankExited(1, RankExit::Code(0), At(1))),
            (Lines{"log: rank 1 finished: the job is done (--finish=first)",
                   "wait for ranks: 5s", "stop ranks: 15, SIGKILL after 5s",
                   "drain", "log: the job finished", "exit 0"}));
}

// The report this reproduces: ranks 0 and 1 finished, rank 2 hung; the
// restart must not train ranks 0 and 1 again.
TEST(JobDecisionsTest, RestartStartsOnlyTheRanksThatHaveNotFinished) {
  JobDecisions job(Options(3));
  EXPECT_EQ(Show(job.Start(At(0))),
            Lines{"start ranks {0, 1, 2}: restart 0, epoch 0"});
  StartAll(job, At(0));
  EXPECT_EQ(Show(job.RankExited(0, RankExit::Code(0), At(5))), Lines{});
  EXPECT_EQ(Show(job.RankExited(1, RankExit::Code(0), At(6))), Lines{});
  // A finished rank's verdict (its stream closed) is no failure.
  EXPECT_EQ(Show(job.Verdict(MakeVerdict(0, "dead", "gone", At(7)), At(7))),
            Lines{});
  EXPECT_EQ(
      Show(job.Verdict(MakeVerdict(2, "stuck", "rank 2 stuck", At(8)), At(8))),
      (Lines{"log: stopping all ranks: monitor: stuck: rank 2 stuck",
             "stop job: 15, SIGKILL after 5s"}));
  job.MonitorEpoch(2);
  EXPECT_EQ(Show(job.JobStopped(At(9))),
            Lines{"log: restart 1 of 2 in 500ms from epoch 2"});
  EXPECT_EQ(Show(job.Tick(At(9.5), false)),
            (Lines{"reset monitor: epoch 2",
                   "log: not restarting rank 0, rank 1: finished (exited with "
                   "0)",
                   "start ranks {2}: restart 1, epoch 2"}));
  EXPECT_TRUE(job.finished(0));
  EXPECT_FALSE(job.finished(2));
  job.RankStarted(2, At(9.5));

  // A restartable exit and a signal restart it again, and only it.
  EXPECT_EQ(
      Show(job.RankExited(2, RankExit::Code(kRestartableExitCode), At(10)))
          .front(),
      "log: stopping all ranks: rank 2 exited with code 75 "
      "(restartable: it asks for a restart)");
  job.JobStopped(At(11));
  EXPECT_EQ(Show(job.Tick(At(12), false)).back(),
            "start ranks {2}: restart 2, epoch 2");
  job.RankStarted(2, At(12));
  // The job is done once the last unfinished rank finishes.
  EXPECT_EQ(Show(job.RankExited(2, RankExit::Code(0), At(20))),
            (Lines{"stop ranks: 15, SIGKILL after 5s", "drain",
                   "log: the job finished", "exit 0"}));
}

TEST(JobDecisionsTest, RestartSkipsARankThatFinishedAsTheJobWasStopped) {
  JobDecisions job(Options(3));
  job.Start(At(0));
  StartAll(job, At(0));
  // Reaped together: rank 2's failure decides the stop, rank 0's exit with
  // 0 comes after it and still finishes rank 0.
  job.RankExited(2, RankExit::Signal(SIGKILL), At(5));
  EXPECT_EQ(Show(job.RankExited(0, RankExit::Code(0), At(5))), Lines{});
  // Rank 1 ran on: stopped with the job, it did not finish.
  job.JobStopped(At(6));
  EXPECT_EQ(Show(job.Tick(At(7), false)),
            (Lines{"reset monitor: epoch 0",
                   "log: not restarting rank 0: finished (exited with 0)",
                   "start ranks {1, 2}: restart 1, epoch 0"}));
}

TEST(JobDecisionsTest, FinishedServerOfAChiefJobIsNotStartedAgain) {
  LauncherOptions options = Options(0);
  options.jobs = {{"ps", 1}, {"worker", 1}, {"chief", 1}};
  options.chief = "chief";
  JobDecisions job(options);
  job.Start(At(0));
  StartAll(job, At(0));
  job.RankExited(1, RankExit::Code(0), At(1));
  job.RankExited(2, RankExit::Code(1), At(2));
  job.JobStopped(At(3));
  EXPECT_EQ(Show(job.Tick(At(4), false)),
            (Lines{"reset monitor: epoch 0",
                   "log: not restarting rank 1 (worker 0): finished (exited "
                   "with 0)",
                   "start ranks {0, 2}: restart 1, epoch 0"}));
}

// --- One host, --restart=rank ---

class EachRankTest : public ::testing::Test {
 protected:
  EachRankTest() : job_(EachRankOptions()) {
    job_.Start(At(0));
    StartAll(job_, At(0));
    job_.MonitorEpoch(4);
  }
  static LauncherOptions EachRankOptions() {
    LauncherOptions options = Options(2);
    options.restart.scope = RestartScope::kRank;
    return options;
  }
  JobDecisions job_;
};

TEST_F(EachRankTest, RestartsTheFailedRankAloneWithItsOwnCountAndBackoff) {
  EXPECT_EQ(Show(job_.RankExited(1, RankExit::Code(1), At(10))),
            Lines{"log: restarting rank 1 alone (restart 1 of 2 in 500ms), "
                  "the others keep running: rank 1 exited with code 1"});
  EXPECT_EQ(*job_.NextDeadline(), At(10.5));
  EXPECT_EQ(Show(job_.Tick(At(10.4), false)), Lines{});
  // Not while what its last start left behind is still being ended.
  EXPECT_EQ(Show(job_.Tick(At(10.5), true)), Lines{});
  EXPECT_EQ(Show(job_.Tick(At(10.6), false)),
            Lines{"start rank 1: restart 1, epoch 4"});
  job_.RankStarted(1, At(10.6));

  // Rank 0 counts its own restarts.
  EXPECT_EQ(Show(job_.RankExited(0, RankExit::Code(1), At(11))),
            Lines{"log: restarting rank 0 alone (restart 1 of 2 in 500ms), "
                  "the others keep running: rank 0 exited with code 1"});

  EXPECT_EQ(Show(job_.RankExited(1, RankExit::Code(1), At(20))),
            Lines{"log: restarting rank 1 alone (restart 2 of 2 in 1s), the "
                  "others keep running: rank 1 exited with code 1"});
  EXPECT_EQ(*job_.NextDeadline(), At(11.5));  // rank 0's comes first
  EXPECT_EQ(Show(job_.Tick(At(21), false)),
            (Lines{"start rank 0: restart 1, epoch 4",
                   "start rank 1: restart 2, epoch 4"}));
  job_.RankStarted(0, At(21));
  job_.RankStarted(1, At(21));

  EXPECT_EQ(Show(job_.RankExited(1, RankExit::Code(3), At(30))),
            (Lines{"log: stopping all ranks: rank 1 exited with code 3 and has "
                   "no restart left (--max_restarts=2 per rank)",
                   "stop ranks: 15, SIGKILL after 5s", "drain",
                   "log: giving up; exiting with 3", "exit 3"}));
  EXPECT_EQ(job_.phase(), Phase::kDone);
}

TEST_F(EachRankTest, VerdictStopsTheRankThenKillsItAfterTheGracePeriod) {
  const FailureVerdict verdict =
      MakeVerdict(0, "silent", "rank 0 sent nothing for 30 s", At(5));
  EXPECT_EQ(Show(job_.Verdict(verdict, At(6))),
            (Lines{"log: stopping rank 0: monitor: silent: rank 0 sent nothing "
                   "for 30 s",
                   "signal rank 0: 15, SIGKILL at 11s"}));
  // Already stopping.
  EXPECT_EQ(Show(job_.Verdict(verdict, At(7))), Lines{});
  EXPECT_EQ(*job_.NextDeadline(), At(11));
  EXPECT_EQ(Show(job_.Tick(At(10.9), false)), Lines{});
  EXPECT_EQ(Show(job_.Tick(At(11), false)),
            (Lines{"log: rank 0 still running after 5s: sending SIGKILL",
                   "signal rank 0: 9"}));
  // Its exit is the verdict's failure, whatever its code.
  EXPECT_EQ(Show(job_.RankExited(0, RankExit::Signal(SIGKILL), At(11.1))),
            Lines{"log: restarting rank 0 alone (restart 1 of 2 in 500ms), "
                  "the others keep running: monitor: silent: rank 0 sent "
                  "nothing for 30 s"});
}

TEST_F(EachRankTest, RankThatExitsWithinItsGraceIsNotKilled) {
  job_.Verdict(MakeVerdict(1, "stuck", "slow", At(1)), At(1));
  job_.RankExited(1, RankExit::Signal(SIGTERM), At(2));
  EXPECT_EQ(Show(job_.Tick(At(2.5), false)),
            Lines{"start rank 1: restart 1, epoch 4"});
  EXPECT_EQ(Show(job_.Tick(At(6), false)), Lines{});
}

TEST_F(EachRankTest, RestartThatCannotStartEndsTheJobWithOne) {
  job_.RankExited(1, RankExit::Code(1), At(1));
  job_.Tick(At(2), false);
  EXPECT_EQ(Show(job_.RankRestartFailed(1, "cannot start rank 1: gone", At(2))),
            (Lines{"log: stopping all ranks: cannot start rank 1: gone",
                   "stop ranks: 15, SIGKILL after 5s", "drain",
                   "log: giving up; exiting with 1", "exit 1"}));
}

TEST_F(EachRankTest, FinishedRankIsNotRestartedWhenTheOtherIs) {
  EXPECT_EQ(Show(job_.RankExited(0, RankExit::Code(0), At(1))), Lines{});
  job_.RankExited(1, RankExit::Signal(SIGKILL), At(2));
  EXPECT_EQ(Show(job_.Tick(At(3), false)),
            Lines{"start rank 1: restart 1, epoch 4"});
  job_.RankStarted(1, At(3));
  EXPECT_EQ(Show(job_.Verdict(MakeVerdict(0, "dead", "gone", At(4)), At(4))),
            Lines{});
  EXPECT_EQ(Show(job_.RankExited(1, RankExit::Code(0), At(9))),
            (Lines{"stop ranks: 15, SIGKILL after 5s", "drain",
                   "log: the job finished", "exit 0"}));
  EXPECT_TRUE(job_.finished(0));
}

TEST_F(EachRankTest, RankStoppedForAVerdictThatExitsWithZeroIsRestarted) {
  job_.Verdict(MakeVerdict(1, "stuck", "rank 1 stuck", At(1)), At(1));
  // It handled the SIGTERM by exiting with 0: it did not finish its work.
  EXPECT_EQ(Show(job_.RankExited(1, RankExit::Code(0), At(2))),
            Lines{"log: restarting rank 1 alone (restart 1 of 2 in 500ms), "
                  "the others keep running: monitor: stuck: rank 1 stuck"});
  EXPECT_FALSE(job_.finished(1));
}

// --- Node 0 of several ---

LauncherOptions TwoNodes(int node_rank) {
  LauncherOptions options = Options(2);
  options.nnodes = 2;
  options.node_rank = node_rank;
  options.rendezvous = "node0:29400";
  options.rendezvous_timeout = absl::Seconds(30);
  return options;
}

TEST(LeaderDecisionsTest, StartsOnceEveryOtherNodeJoined) {
  JobDecisions job(TwoNodes(0));
  EXPECT_EQ(Show(job.Start(At(0))), Lines{});
  EXPECT_EQ(job.phase(), Phase::kWaitingForNodes);
  EXPECT_EQ(*job.NextDeadline(), At(30));
  EXPECT_EQ(Show(job.NodesJoined(0, At(29))), Lines{});
  EXPECT_EQ(Show(job.NodesJoined(1, At(29.5))),
            (Lines{"begin generation 0: epoch 0",
                   "start ranks {0, 1}: restart 0, epoch 0"}));
  EXPECT_EQ(job.phase(), Phase::kRunning);
}

TEST(LeaderDecisionsTest, GivesUpWhenTheNodesDoNotJoinInTime) {
  JobDecisions job(TwoNodes(0));
  job.Start(At(0));
  EXPECT_EQ(Show(job.NodesJoined(0, At(30))),
            (Lines{"log: only 0 of 1 other node(s) joined within 30s "
                   "(--rendezvous_timeout_s)",
                   "end job: gave up with 1, waiting 7s", "exit 1"}));
}

TEST(LeaderDecisionsTest, StopSignalWhileWaitingForNodes) {
  JobDecisions job(TwoNodes(0));
  job.Start(At(0));
  EXPECT_EQ(Show(job.StopSignal(SIGINT, At(1))),
            (Lines{"log: got Interrupt while waiting for the other nodes",
                   "end job: gave up with 130, waiting 7s", "exit 130"}));
}

TEST(LeaderDecisionsTest, RemoteFailureRestartsEveryNodeInANewGeneration) {
  JobDecisions job(TwoNodes(0));
  job.Start(At(0));
  job.NodesJoined(1, At(1));
  StartAll(job, At(1));
  Failure failure;
  failure.rank = 3;
  failure.exit_code = 4;
  failure.reason = "rank 3 exited with code 4";
  EXPECT_EQ(Show(job.RemoteFailure(failure, At(5))),
            (Lines{"log: stopping all ranks: rank 3 exited with code 4",
                   "stop job: 15, SIGKILL after 5s"}));
  job.MonitorEpoch(2);
  EXPECT_EQ(Show(job.JobStopped(At(12))),
            Lines{"log: restart 1 of 2 in 500ms from epoch 2"});
  EXPECT_EQ(Show(job.Tick(At(12.5), false)),
            (Lines{"reset monitor: epoch 2", "begin generation 1: epoch 2",
                   "start ranks {0, 1}: restart 1, epoch 2"}));
}

TEST(LeaderDecisionsTest, FinishesOnlyWithEveryOtherNode) {
  JobDecisions job(TwoNodes(0));
  job.Start(At(0));
  job.NodesJoined(1, At(0));
  StartAll(job, At(0));
  EXPECT_EQ(Show(job.OtherNodesFinished(At(1))), Lines{});
  EXPECT_EQ(Show(job.RankExited(0, RankExit::Code(0), At(2))), Lines{});
  EXPECT_EQ(Show(job.RankExited(1, RankExit::Code(0), At(3))), Lines{});
  EXPECT_EQ(Show(job.OtherNodesFinished(At(4))),
            (Lines{"stop ranks: 15, SIGKILL after 5s",
                   "end job: finished with 0, waiting 7s", "drain",
                   "log: the job finished", "exit 0"}));
}

TEST(LeaderDecisionsTest, TellsTheOtherNodesWhenNoRestartIsLeft) {
  LauncherOptions options = TwoNodes(0);
  options.restart.max_restarts = 0;
  JobDecisions job(options);
  job.Start(At(0));
  job.NodesJoined(1, At(0));
  StartAll(job, At(0));
  job.RankExited(1, RankExit::Code(6), At(1));
  EXPECT_EQ(Show(job.JobStopped(At(2))),
            (Lines{"end job: gave up with 6, waiting 7s", "drain",
                   "log: giving up after 0 restart(s) (--max_restarts=0): "
                   "rank 1 exited with code 6; exiting with 6",
                   "exit 6"}));
}

TEST(LeaderDecisionsTest,
     NodeWhoseRanksFinishedStartsNoneAndWaitsForTheOthers) {
  JobDecisions job(TwoNodes(0));
  job.Start(At(0));
  job.NodesJoined(1, At(0));
  StartAll(job, At(0));
  job.RankExited(0, RankExit::Code(0), At(1));
  job.RankExited(1, RankExit::Code(0), At(2));
  Failure failure;
  failure.rank = 3;
  failure.reason = "rank 3 was killed by signal 9 (Killed)";
  job.RemoteFailure(failure, At(3));
  job.JobStopped(At(4));
  EXPECT_EQ(Show(job.Tick(At(5), false)),
            (Lines{"reset monitor: epoch 0", "begin generation 1: epoch 0",
                   "log: not restarting rank 0, rank 1: finished (exited with "
                   "0)",
                   "start ranks {}: restart 1, epoch 0"}));
  EXPECT_EQ(job.phase(), Phase::kRunning);
  EXPECT_EQ(Show(job.OtherNodesFinished(At(9))),
            (Lines{"stop ranks: 15, SIGKILL after 5s",
                   "end job: finished with 0, waiting 7s", "drain",
                   "log: the job finished", "exit 0"}));
}

TEST(LeaderDecisionsTest, StuckVerdictOnAnotherNodesRankRestartsEveryNode) {
  JobDecisions job(TwoNodes(0));
  job.Start(At(0));
  job.NodesJoined(1, At(1));
  StartAll(job, At(1));
  // Made before the generation began: about an earlier process.
  EXPECT_EQ(Show(job.Verdict(MakeVerdict(3, "stuck", "old", At(0.5)), At(2))),
            Lines{});
  // Outside the world of 2 nodes x 2 ranks.
  EXPECT_EQ(Show(job.Verdict(MakeVerdict(4, "stuck", "x", At(2)), At(2))),
            Lines{});
  EXPECT_EQ(job.phase(), Phase::kRunning);
  EXPECT_EQ(
      Show(job.Verdict(
          MakeVerdict(3, "stuck", "rank 3 stuck in step 12 for 2.0 s", At(5)),
          At(5.1))),
      (Lines{"log: stopping all ranks: monitor: stuck: rank 3 stuck in step "
             "12 for 2.0 s",
             "stop job: 15, SIGKILL after 5s"}));
  EXPECT_EQ(job.phase(), Phase::kStopping);
  // Held by the monitor until it is reset: nothing more while stopping.
  EXPECT_EQ(Show(job.Verdict(MakeVerdict(3, "stuck", "again", At(5)), At(6))),
            Lines{});
  job.MonitorEpoch(2);
  EXPECT_EQ(Show(job.JobStopped(At(12))),
            Lines{"log: restart 1 of 2 in 500ms from epoch 2"});
  EXPECT_EQ(Show(job.Tick(At(12.5), false)),
            (Lines{"reset monitor: epoch 2", "begin generation 1: epoch 2",
                   "start ranks {0, 1}: restart 1, epoch 2"}));
  StartAll(job, At(12.5));
  // A verdict on the stopped process, made before generation 1 began.
  EXPECT_EQ(Show(job.Verdict(MakeVerdict(3, "stuck", "late", At(6)), At(13))),
            Lines{});
  EXPECT_EQ(job.phase(), Phase::kRunning);
}

TEST(LeaderDecisionsTest, SilentVerdictOnAnotherNodesRankEndsTheJobWithOne) {
  LauncherOptions options = TwoNodes(0);
  options.restart.max_restarts = 0;
  JobDecisions job(options);
  job.Start(At(0));
  job.NodesJoined(1, At(0));
  StartAll(job, At(0));
  EXPECT_EQ(Show(job.Verdict(MakeVerdict(2, "silent", "rank 2 silent", At(3)),
                             At(3))),
            (Lines{"log: stopping all ranks: monitor: silent: rank 2 silent",
                   "stop job: 15, SIGKILL after 5s"}));
  EXPECT_EQ(Show(job.JobStopped(At(10))),
            (Lines{"end job: gave up with 1, waiting 7s", "drain",
                   "log: giving up after 0 restart(s) (--max_restarts=0): "
                   "monitor: silent: rank 2 silent; exiting with 1",
                   "exit 1"}));
}

TEST(LeaderDecisionsTest, DeadVerdictOnAnotherNodesRankWaitsForItsReport) {
  LauncherOptions options = TwoNodes(0);
  options.restart.max_restarts = 0;
  options.poll_interval = absl::Milliseconds(200);
  JobDecisions job(options);
  job.Start(At(0));
  job.NodesJoined(1, At(0));
  StartAll(job, At(0));
  // The monitor heard of the exit from node 1 before node 0 did: node 1
  // reports it, with its code, at its next poll.
  const FailureVerdict dead =
      MakeVerdict(3, "dead", "rank 3 dead: exited with code 4", At(3));
  EXPECT_EQ(Show(job.Verdict(dead, At(3.1))), Lines{});
  EXPECT_EQ(Show(job.Verdict(dead, At(3.2))), Lines{});
  Failure failure;
  failure.rank = 3;
  failure.exit_code = 4;
  failure.reason = "node 1: rank 3 exited with code 4";
  EXPECT_EQ(Show(job.RemoteFailure(failure, At(3.3))),
            (Lines{"log: stopping all ranks: node 1: rank 3 exited with code 4",
                   "stop job: 15, SIGKILL after 5s"}));
  EXPECT_EQ(Show(job.JobStopped(At(10))).back(), "exit 4");
}

TEST(LeaderDecisionsTest, DeadVerdictOnAnotherNodesRankActsWithoutItsReport) {
  LauncherOptions options = TwoNodes(0);
  options.poll_interval = absl::Milliseconds(200);
  JobDecisions job(options);
  job.Start(At(0));
  job.NodesJoined(1, At(0));
  StartAll(job, At(0));
  // Node 1 died with its ranks: no report comes. The wait counts from when
  // node 0 first saw the verdict, on its own clock: 200 ms + 2 s.
  const FailureVerdict dead = MakeVerdict(
      2, "dead", "rank 2 dead: its connection to the monitor dropped", At(1));
  EXPECT_EQ(Show(job.Verdict(dead, At(3))), Lines{});
  EXPECT_EQ(Show(job.Verdict(dead, At(5.1))), Lines{});
  EXPECT_EQ(Show(job.Verdict(dead, At(5.2))),
            (Lines{"log: stopping all ranks: monitor: dead: rank 2 dead: its "
                   "connection to the monitor dropped",
                   "stop job: 15, SIGKILL after 5s"}));
  job.JobStopped(At(12));
  job.Tick(At(12.5), false);
  StartAll(job, At(12.5));
  // A new generation waits afresh for the node's report.
  const FailureVerdict dead_again =
      MakeVerdict(2, "dead", "rank 2 dead: again", At(13));
  EXPECT_EQ(Show(job.Verdict(dead_again, At(13))), Lines{});
  EXPECT_EQ(Show(job.Verdict(dead_again, At(15.1))), Lines{});
  EXPECT_EQ(Show(job.Verdict(dead_again, At(15.2))).front(),
            "log: stopping all ranks: monitor: dead: rank 2 dead: again");
}

TEST(LeaderDecisionsTest, VerdictOnNodeZerosOwnRankIsNotHeldBack) {
  JobDecisions job(TwoNodes(0));
  job.Start(At(0));
  job.NodesJoined(1, At(0));
  StartAll(job, At(0));
  // Node 0 reaps its own ranks before it reads the monitor's verdicts.
  EXPECT_EQ(
      Show(job.Verdict(MakeVerdict(1, "dead", "rank 1 dead", At(2)), At(2))),
      (Lines{"log: stopping all ranks: monitor: dead: rank 1 dead",
             "stop job: 15, SIGKILL after 5s"}));
}

// --- A node other than 0 ---

RendezvousView View(int64_t generation, bool running, int restart = 0,
                    int64_t resume_epoch = 0) {
  RendezvousView view;
  view.generation = generation;
  view.running = running;
  view.restart = restart;
  view.resume_epoch = resume_epoch;
  return view;
}

class FollowerTest : public ::testing::Test {
 protected:
  FollowerTest() : node_(TwoNodes(1)) {}

  // Joins at time 0 and starts generation 0's ranks.
  void JoinAndStart() {
    ASSERT_EQ(Show(node_.Joined(4, 2, View(0, true), At(0))),
              Lines{"log: node 1 joined the rendezvous at node0:29400: ranks "
                    "2..3 of 4"});
    ASSERT_EQ(Show(node_.FollowLeader(At(0))),
              Lines{"start ranks {0, 1}: restart 0, epoch 0"});
    StartAll(node_, At(0));
  }

  FollowerDecisions node_;
};

TEST_F(FollowerTest, RefusesAWorldOfAnotherSize) {
  EXPECT_EQ(Show(node_.Joined(6, 2, View(0, true), At(0))),
            (Lines{"log: node 0 runs a world of 6 ranks, this node expects "
                   "--nnodes x --nproc = 4",
                   "exit 1"}));
}

TEST_F(FollowerTest, WaitsForTheFirstGenerationToRun) {
  node_.Joined(4, 2, View(0, false), At(0));
  EXPECT_FALSE(node_.watching_ranks());
  EXPECT_EQ(Show(node_.FollowLeader(At(0))), Lines{});
  EXPECT_EQ(Show(node_.LeaderAnswered(View(0, true), At(1))), Lines{});
  EXPECT_EQ(Show(node_.FollowLeader(At(1))),
            Lines{"start ranks {0, 1}: restart 0, epoch 0"});
  EXPECT_TRUE(node_.watching_ranks());
  EXPECT_EQ(node_.report().generation, 0);
}

TEST_F(FollowerTest, ReportsAFailureThenStopsItsRanksAfterThePoll) {
  JoinAndStart();
  EXPECT_EQ(
      Show(node_.RankExited(1, RankExit::Code(1), At(3))),
      Lines{"log: stopping this node's ranks: rank 3 exited with code 1"});
  EXPECT_EQ(node_.report().state, NodeReportInfo::kFailed);
  EXPECT_EQ(node_.report().failure.rank, 3);
  EXPECT_EQ(node_.report().failure.exit_code, 1);
  EXPECT_FALSE(node_.report().ranks_stopped);
  EXPECT_EQ(Show(node_.LeaderAnswered(View(0, true), At(3.1))),
            Lines{"stop ranks: 15, SIGKILL after 5s"});
  EXPECT_TRUE(node_.report().ranks_stopped);
  // Node 0's next generation.
  node_.LeaderAnswered(View(1, true, 1, 2), At(9));
  EXPECT_EQ(Show(node_.FollowLeader(At(9))),
            (Lines{"log: restart 1 from epoch 2, as node 0 decided",
                   "start ranks {0, 1}: restart 1, epoch 2"}));
  EXPECT_EQ(node_.report().generation, 1);
  EXPECT_EQ(node_.report().state, NodeReportInfo::kRunning);
}

TEST_F(FollowerTest, StopsItsRanksWhenNodeZeroStopsTheGeneration) {
  JoinAndStart();
  node_.LeaderAnswered(View(0, false), At(1));
  EXPECT_EQ(Show(node_.FollowLeader(At(1))),
            (Lines{"log: node 0 stops every rank to restart them",
                   "stop ranks: 15, SIGKILL after 5s"}));
  EXPECT_EQ(Show(node_.FollowLeader(At(2))), Lines{});
}

TEST_F(FollowerTest, RankNodeZeroFoundStuckIsStoppedAndStartedAgain) {
  JoinAndStart();
  // Rank 2 finishes; rank 3 hangs, and only the monitor, on node 0, sees
  // it: this node reports its ranks running until node 0 stops them.
  EXPECT_EQ(Show(node_.RankExited(0, RankExit::Code(0), At(1))), Lines{});
  EXPECT_EQ(Show(node_.LeaderAnswered(View(0, true), At(2))), Lines{});
  EXPECT_EQ(node_.report().state, NodeReportInfo::kRunning);
  node_.LeaderAnswered(View(0, false), At(4));
  EXPECT_EQ(Show(node_.FollowLeader(At(4))),
            (Lines{"log: node 0 stops every rank to restart them",
                   "stop ranks: 15, SIGKILL after 5s"}));
  EXPECT_TRUE(node_.report().ranks_stopped);
  EXPECT_FALSE(node_.watching_ranks());
  node_.LeaderAnswered(View(1, true, 1, 2), At(9));
  EXPECT_EQ(Show(node_.FollowLeader(At(9))),
            (Lines{"log: restart 1 from epoch 2, as node 0 decided",
                   "log: not restarting rank 2: finished (exited with 0)",
                   "start ranks {1}: restart 1, epoch 2"}));
  EXPECT_EQ(node_.report().generation, 1);
  EXPECT_FALSE(node_.report().ranks_stopped);
}

TEST_F(FollowerTest, FinishedRanksWaitForTheOtherNodes) {
  JoinAndStart();
  EXPECT_EQ(Show(node_.RankExited(0, RankExit::Code(0), At(1))), Lines{});
  EXPECT_EQ(Show(node_.RankExited(1, RankExit::Code(0), At(2))),
            Lines{"log: this node's ranks finished; waiting for the other "
                  "nodes"});
  EXPECT_EQ(node_.report().state, NodeReportInfo::kFinished);
  EXPECT_FALSE(node_.watching_ranks());
  RendezvousView end = View(0, false);
  end.outcome = RendezvousView::kFinished;
  node_.LeaderAnswered(end, At(3));
  EXPECT_EQ(Show(node_.FollowLeader(At(3))),
            (Lines{"stop ranks: 15, SIGKILL after 5s", "drain",
                   "log: the job finished", "exit 0"}));
}

TEST_F(FollowerTest, EndsWithNodeZerosExitCode) {
  JoinAndStart();
  RendezvousView end = View(2, false);
  end.outcome = RendezvousView::kGaveUp;
  end.exit_code = 3;
  node_.LeaderAnswered(end, At(3));
  EXPECT_EQ(Show(node_.FollowLeader(At(3))),
            (Lines{"stop ranks: 15, SIGKILL after 5s", "drain",
                   "log: node 0 ended the job with exit code 3", "exit 3"}));
}

TEST_F(FollowerTest, StopsAfterNodeZeroIsSilentForTheRendezvousTimeout) {
  JoinAndStart();
  EXPECT_EQ(Show(node_.LeaderUnreachable("connection refused", At(1))),
            Lines{"log: cannot reach node 0, ranks keep running: connection "
                  "refused"});
  EXPECT_EQ(Show(node_.LeaderUnreachable("connection refused", At(20))),
            Lines{});
  EXPECT_EQ(Show(node_.LeaderAnswered(View(0, true), At(25))),
            Lines{"log: node 0 answers again"});
  EXPECT_EQ(Show(node_.LeaderUnreachable("deadline", At(40))),
            Lines{"log: cannot reach node 0, ranks keep running: deadline"});
  // 30 s since the last answer is not yet past the timeout.
  EXPECT_EQ(Show(node_.LeaderUnreachable("deadline", At(55))), Lines{});
  EXPECT_EQ(Show(node_.LeaderUnreachable("deadline", At(55.5))),
            (Lines{"log: lost node 0 (the rendezvous at node0:29400) for 30s: "
                   "stopping this node's ranks",
                   "stop ranks: 15, SIGKILL after 5s", "drain", "exit 1"}));
}

TEST_F(FollowerTest, StartFailureIsReportedAndKillsWhatStarted) {
  node_.Joined(4, 2, View(0, true), At(0));
  node_.FollowLeader(At(0));
  EXPECT_EQ(Show(node_.StartFailed("cannot start rank 3: denied", At(0))),
            (Lines{"log: cannot start rank 3: denied",
                   "stop ranks: 9, SIGKILL after 5s"}));
  EXPECT_EQ(node_.report().state, NodeReportInfo::kFailed);
  EXPECT_EQ(node_.report().failure.reason, "cannot start rank 3: denied");
  EXPECT_TRUE(node_.report().ranks_stopped);
  EXPECT_EQ(Show(node_.RankExited(0, RankExit::Code(1), At(1))), Lines{});
}

TEST_F(FollowerTest, StopSignalIsPassedToTheRanks) {
  JoinAndStart();
  EXPECT_EQ(Show(node_.StopSignal(SIGTERM, At(1))),
            (Lines{"log: got Terminated: passing it to the ranks",
                   "stop ranks: 15, SIGKILL after 5s", "drain", "exit 143"}));
}

TEST_F(FollowerTest, RestartsOnlyItsRanksThatHaveNotFinished) {
  JoinAndStart();
  node_.RankExited(0, RankExit::Code(0), At(1));
  node_.RankExited(1, RankExit::Code(1), At(2));
  node_.LeaderAnswered(View(0, true), At(2.1));
  node_.LeaderAnswered(View(1, true, 1, 3), At(8));
  EXPECT_EQ(Show(node_.FollowLeader(At(8))),
            (Lines{"log: restart 1 from epoch 3, as node 0 decided",
                   "log: not restarting rank 2: finished (exited with 0)",
                   "start ranks {1}: restart 1, epoch 3"}));
  node_.RankStarted(1, At(8));
  EXPECT_EQ(Show(node_.RankExited(1, RankExit::Code(0), At(12))),
            Lines{"log: this node's ranks finished; waiting for the other "
                  "nodes"});
  EXPECT_EQ(node_.report().state, NodeReportInfo::kFinished);
}

TEST_F(FollowerTest, RankFinishingBeforeTheFailedNodeStopsIsNotRestarted) {
  JoinAndStart();
  node_.RankExited(1, RankExit::Code(1), At(2));
  EXPECT_TRUE(node_.watching_ranks());
  EXPECT_EQ(Show(node_.RankExited(0, RankExit::Code(0), At(2.05))), Lines{});
  EXPECT_EQ(node_.report().state, NodeReportInfo::kFailed);
  EXPECT_EQ(node_.report().failure.rank, 3);
  node_.LeaderAnswered(View(0, true), At(2.1));
  EXPECT_FALSE(node_.watching_ranks());
  node_.LeaderAnswered(View(1, true, 1, 0), At(8));
  EXPECT_EQ(Show(node_.FollowLeader(At(8))).back(),
            "start ranks {1}: restart 1, epoch 0");
}

TEST_F(FollowerTest, NodeWhoseRanksFinishedStartsNoneInTheNextGeneration) {
  JoinAndStart();
  node_.RankExited(0, RankExit::Code(0), At(1));
  node_.RankExited(1, RankExit::Code(0), At(2));
  // Node 0 restarts the job for a failure of its own.
  node_.LeaderAnswered(View(0, false), At(3));
  EXPECT_EQ(Show(node_.FollowLeader(At(3))), Lines{});
  node_.LeaderAnswered(View(1, true, 1, 2), At(9));
  EXPECT_EQ(Show(node_.FollowLeader(At(9))),
            (Lines{"log: restart 1 from epoch 2, as node 0 decided",
                   "log: not restarting rank 2, rank 3: finished (exited with "
                   "0)",
                   "start ranks {}: restart 1, epoch 2",
                   "log: this node's ranks finished; waiting for the other "
                   "nodes"}));
  EXPECT_EQ(node_.report().generation, 1);
  EXPECT_EQ(node_.report().state, NodeReportInfo::kFinished);
  EXPECT_TRUE(node_.report().ranks_stopped);
}

}  // namespace
}  // namespace sluice::launcher
