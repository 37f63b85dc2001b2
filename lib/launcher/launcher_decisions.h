// The launcher's decisions (docs/launcher.md), as state machines with no
// I/O, no clock and no threads of their own: the process layer in
// launcher.cc feeds them what happened (a rank exited, the monitor gave a
// verdict, a signal came, node 0 answered) with the time it happened, and
// carries out the decisions they return, in order. Tests drive them on a
// fake clock.
//
// JobDecisions decides for node 0, which is also the only node of a job on
// one host: when to start the ranks, whether a failure restarts the whole
// job (--restart=job) or the failed rank alone (--restart=rank), when the
// job is done and what the launcher exits with. FollowerDecisions decides
// for a node other than 0, which follows node 0's decisions.
#ifndef SLUICE_LIB_LAUNCHER_LAUNCHER_DECISIONS_H_
#define SLUICE_LIB_LAUNCHER_LAUNCHER_DECISIONS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "lib/launcher/launcher.h"
#include "lib/launcher/launcher_cluster.h"
#include "lib/launcher/launcher_monitor.h"
#include "lib/launcher/launcher_policy.h"
#include "lib/launcher/launcher_rendezvous.h"

namespace sluice::launcher {

// How node 0 waits for the other nodes past the grace period in which they
// stop their ranks: one poll of theirs, with room for a slow host.
inline constexpr absl::Duration kRemoteNodeSlack = absl::Seconds(2);
// How long node 0 holds back a dead verdict on another node's rank past
// that node's poll interval: the node reaps the rank and reports its exit
// itself, with the exit code the job ends with when no restart is left.
inline constexpr absl::Duration kRemoteExitReportSlack = kRemoteNodeSlack;

// A shell's exit code for a process killed by signal S is this + S; the
// launcher exits so when SIGINT or SIGTERM stops it.
inline constexpr int kSignalExitCodeBase = 128;

// How a rank's process ended.
struct RankExit {
  int code = 0;    // a shell's: the exit code, or 128 + the signal
  int signal = 0;  // the signal that killed it; 0 when it exited
  static RankExit Code(int code) { return RankExit{code, 0}; }
  static RankExit Signal(int signal) {
    return RankExit{kSignalExitCodeBase + signal, signal};
  }
};

// One thing for the process layer to do.
struct LaunchDecision {
  enum Kind {
    kLog,  // message, as a "sluice_launch: " line
    // The ranks `locals` of this node, every one that has not finished, as
    // start number `restart` from `resume_epoch`; each start reported with
    // RankStarted, a failure with StartFailed (the ranks after it are not
    // started). A rank not in `locals` finished in an earlier start and
    // stays ended.
    kStartRanks,
    // --restart=rank: rank `local` alone again as its `restart`th start
    // from `resume_epoch`; RankStarted or RankRestartFailed.
    kStartRank,
    // `signal` to rank `local`'s group and what it left elsewhere; with
    // SIGTERM, SIGKILL follows at `deadline` unless it exited (a later
    // kSignalRank with SIGKILL).
    kSignalRank,
    // `signal` to every rank and what they started, SIGKILL to what still
    // runs `grace` after; then no rank runs.
    kStopRanks,
    // Node 0, --restart=job: every node stops its ranks as kStopRanks
    // (SIGTERM, `grace`), node 0 waits up to `grace` + kRemoteNodeSlack
    // for the others to say so, and reads the monitor's minimum finished
    // epoch (MonitorEpoch); then JobStopped.
    kStopJob,
    // --finish=first: up to `grace` for the ranks still running to exit.
    kWaitForRanksToExit,
    // Node 0 of several: publishes generation `restart` from `resume_epoch`.
    kBeginGeneration,
    // The monitor forgets the old processes and keeps `resume_epoch`.
    kResetMonitor,
    // Node 0 of several: tells the other nodes `outcome` with `exit_code`
    // and gives them up to the grace period + kRemoteNodeSlack to hear it.
    kEndJob,
    kDrainOutput,  // what the ranks wrote, before the launcher's last line
    kExit,         // the launcher exits with `exit_code`
  };
  Kind kind = kLog;
  std::string message;
  int local = 0;
  std::vector<int> locals;  // kStartRanks
  int signal = 0;
  int restart = 0;
  int64_t resume_epoch = 0;
  absl::Duration grace;
  absl::Time deadline;
  RendezvousView::Outcome outcome = RendezvousView::kInProgress;
  int exit_code = 0;
};

using LaunchDecisions = std::vector<LaunchDecision>;

// The ranks of one node: `nproc` of the command, or with `jobs` one per
// task.
std::vector<RankTask> RankTasksOf(const LauncherOptions& options);

// What both nodes' decisions track of this node's ranks, and the events
// the process layer feeds either.
class RankDecisions {
 public:
  virtual ~RankDecisions() = default;

  // Rank `local` of this node ended.
  virtual LaunchDecisions RankExited(int local, RankExit exit,
                                     absl::Time now) = 0;
  // Rank `local` started (for kStartRanks or kStartRank) at `now`.
  void RankStarted(int local, absl::Time now);
  // kStartRanks failed with `message`.
  virtual LaunchDecisions StartFailed(const std::string& message,
                                      absl::Time now) = 0;
  // SIGINT or SIGTERM reached the launcher.
  virtual LaunchDecisions StopSignal(int signal, absl::Time now) = 0;

  int local_count() const { return static_cast<int>(tasks_.size()); }
  // Whether rank `local` exited with 0 in some start of the job: no restart
  // of the job or of the rank starts it again.
  bool finished(int local) const { return ranks_[local].finished; }
  int rank_offset() const { return rank_offset_; }
  // "rank 3", "rank 2 (worker 0)".
  std::string Describe(int local) const;

 protected:
  explicit RankDecisions(const LauncherOptions& options);

  struct RankState {
    bool running = false;
    // Exited with 0 while the launcher was not stopping it; kept across
    // restarts of the job, so that a finished rank is never started again
    // (it would train every epoch again from the resume epoch).
    bool finished = false;
    absl::Time started;
    // --restart=rank: its own restarts, when it starts again after a
    // failure, and why it is being stopped (a verdict), with when it gets
    // SIGKILL.
    int restarts = 0;
    std::optional<absl::Time> restart_at;
    std::string stop_reason;
    std::optional<absl::Time> kill_at;
  };

  // What a rank's exit means for this node's ranks.
  struct ExitMeaning {
    enum Kind { kNothing, kFinished, kFailed } kind = kNothing;
    Failure failure;  // kFailed
  };
  // Records the exit; `decisions` gets the line a finishing exit says.
  ExitMeaning Classify(int local, RankExit exit, LaunchDecisions& decisions);
  // Records an exit that came once the ranks' stop was already decided
  // (reaped with the exit that decided it): an exit with 0 the launcher did
  // not ask for still finishes the rank.
  void RecordLateExit(int local, RankExit exit);
  bool AllFinished() const;
  // Fresh rank states for a new start of the job; a finished rank stays
  // finished.
  void ResetRanks();
  // The ranks a new start of the job starts: those not finished.
  std::vector<int> UnfinishedRanks() const;
  // kStartRanks of the unfinished ranks, after a line naming the finished
  // ones when there are any.
  void StartUnfinished(int restart, int64_t resume_epoch,
                       LaunchDecisions& decisions) const;
  static LaunchDecision Log(std::string message);
  LaunchDecision StopRanks(int signal) const;
  static LaunchDecision Exit(int exit_code);

  const LauncherOptions options_;
  const std::vector<RankTask> tasks_;
  int rank_offset_ = 0;
  std::vector<RankState> ranks_;
};

// Node 0's, or the only node's, decisions.
class JobDecisions : public RankDecisions {
 public:
  enum class Phase {
    kWaitingForNodes,  // node 0 of several, before every other node joined
    kRunning,
    kStopping,  // --restart=job: kStopJob given, JobStopped not yet
    kBackoff,   // until deadline()
    kDone,
  };

  explicit JobDecisions(const LauncherOptions& options);

  Phase phase() const { return phase_; }
  // The epoch ranks (re)start from: the highest minimum finished epoch the
  // monitor reported.
  int64_t resume_epoch() const { return resume_epoch_; }
  // The restarts of the job so far (--restart=job).
  int restarts() const { return restart_; }
  // The earliest time a Tick has something to do: the end of the backoff,
  // of the wait for the other nodes, a --restart=rank restart or SIGKILL.
  std::optional<absl::Time> NextDeadline() const;

  // The launcher is ready (monitor and rendezvous started).
  LaunchDecisions Start(absl::Time now);
  // Node 0 of several: `joined` nodes other than 0 have joined so far.
  LaunchDecisions NodesJoined(int joined, absl::Time now);

  LaunchDecisions RankExited(int local, RankExit exit, absl::Time now) override;
  LaunchDecisions StartFailed(const std::string& message,
                              absl::Time now) override;
  LaunchDecisions StopSignal(int signal, absl::Time now) override;
  // --restart=rank: kStartRank of `local` failed.
  LaunchDecisions RankRestartFailed(int local, const std::string& message,
                                    absl::Time now);

  // The monitor's minimum finished epoch; the resume epoch never goes down.
  void MonitorEpoch(int64_t min_finished_epoch);
  // A verdict the monitor holds, on a rank of any node (global rank);
  // nothing when it is on an earlier start of the rank, a rank not running
  // or one already being stopped. On node 0 of several, a verdict on
  // another node's rank stops the job on every node as that node's failure
  // would; a dead one only once it has held for that node's poll interval
  // + kRemoteExitReportSlack without the node reporting the exit itself.
  LaunchDecisions Verdict(const FailureVerdict& verdict, absl::Time now);

  // Node 0 of several: a failure another node reported, or a node silent
  // for the rendezvous timeout.
  LaunchDecisions RemoteFailure(const Failure& failure, absl::Time now);
  // Node 0 of several: every other node finished the current generation.
  LaunchDecisions OtherNodesFinished(absl::Time now);

  // kStopJob was carried out.
  LaunchDecisions JobStopped(absl::Time now);

  // Time passed: ends the backoff, and with --restart=rank sends SIGKILL
  // to ranks past their grace and restarts those whose backoff is over,
  // unless what an earlier start left still runs (`leftovers_ending`).
  LaunchDecisions Tick(absl::Time now, bool leftovers_ending);

 private:
  bool each_rank() const {
    return options_.restart.scope == RestartScope::kRank;
  }
  bool several_nodes() const { return options_.nnodes > 1; }
  LaunchDecisions BeginGeneration(absl::Time now);
  LaunchDecisions Finish();
  // A verdict on rank `local` of this node.
  LaunchDecisions LocalVerdict(int local, const FailureVerdict& verdict,
                               absl::Time now);
  // Node 0 of several: a verdict on a rank another node runs.
  LaunchDecisions RemoteVerdict(const FailureVerdict& verdict, absl::Time now);
  LaunchDecisions StopJobFor(const Failure& failure);
  // --restart=rank: restarts rank `local` after `failure`, or ends the job
  // when it has no restart left.
  LaunchDecisions RestartAlone(int local, Failure failure, absl::Time now);
  LaunchDecisions GiveUpEachRank(const Failure& failure);
  // Node 0 of several tells the others; a single node has no one to tell.
  void EndJob(RendezvousView::Outcome outcome, int exit_code,
              LaunchDecisions& decisions) const;
  LaunchDecisions Done(LaunchDecisions decisions, int exit_code);

  Phase phase_ = Phase::kRunning;
  int restart_ = 0;
  int64_t resume_epoch_ = 0;
  Failure failure_;      // kStopping
  absl::Time deadline_;  // kWaitingForNodes, kBackoff
  int joined_ = 0;
  // When the current generation began: node 0 does not know when another
  // node started its ranks, only that it was not before this.
  absl::Time generation_began_ = absl::InfinitePast();
  // Node 0 of several, by global rank: when a dead verdict on another
  // node's rank was first seen in this generation.
  std::map<int, absl::Time> remote_dead_since_;
};

// The decisions of a node other than 0: it starts its ranks for each
// generation node 0 publishes, reports how they do, stops them when node 0
// says so, and ends with node 0, or on its own when node 0 is silent for
// the rendezvous timeout.
class FollowerDecisions : public RankDecisions {
 public:
  explicit FollowerDecisions(const LauncherOptions& options);

  // Node 0 answered the join: the world it runs, this node's first global
  // rank and its current decision.
  LaunchDecisions Joined(int world_size, int rank_offset,
                         const RendezvousView& view, absl::Time now);
  // Acts on node 0's last decision: ends, (re)starts or stops the ranks.
  LaunchDecisions FollowLeader(absl::Time now);
  // Whether this node's ranks of the current generation may run and their
  // exits matter: also after one failed, until they are stopped, as another
  // may finish meanwhile.
  bool watching_ranks() const { return !report_.ranks_stopped; }
  LaunchDecisions RankExited(int local, RankExit exit, absl::Time now) override;
  LaunchDecisions StartFailed(const std::string& message,
                              absl::Time now) override;
  LaunchDecisions StopSignal(int signal, absl::Time now) override;

  // What to tell node 0 at the next poll.
  const NodeReportInfo& report() const { return report_; }
  LaunchDecisions LeaderAnswered(const RendezvousView& view, absl::Time now);
  LaunchDecisions LeaderUnreachable(const std::string& why, absl::Time now);

 private:
  int WorldSize() const { return local_count() * options_.nnodes; }
  // After a poll: a failed node's ranks stop once node 0 heard of it.
  LaunchDecisions AfterPoll();

  RendezvousView view_;
  NodeReportInfo report_;
  absl::Time last_answer_;
  bool reachable_ = true;
};

}  // namespace sluice::launcher

#endif  // SLUICE_LIB_LAUNCHER_LAUNCHER_DECISIONS_H_
