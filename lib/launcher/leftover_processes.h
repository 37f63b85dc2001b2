// LeftoverProcesses: ends what a launcher's ranks leave behind.
//
// A rank may start processes that leave its process group (setsid, a
// double fork) and so escape the signals sent to the group. The launcher
// makes itself a child subreaper (AdoptOrphans), so that such a process,
// once its parent has exited, becomes the launcher's child instead of
// init's: an orphan of the job. This class finds the launcher's
// descendants in /proc, signals them, sends SIGKILL to those still running
// after the grace period, and reaps the orphans. It never reaps a child
// that a ChildProcess owns (the caller names those), and never blocks.
#ifndef SLUICE_LIB_LAUNCHER_LEFTOVER_PROCESSES_H_
#define SLUICE_LIB_LAUNCHER_LEFTOVER_PROCESSES_H_

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/time/time.h"

namespace sluice::launcher {

// Makes this process the one its orphaned descendants are re-parented to
// (PR_SET_CHILD_SUBREAPER).
absl::Status AdoptOrphans();

// The value of `name` in the environment `pid` was started with, when
// /proc lets this process read it.
std::optional<std::string> StartEnvironmentValue(pid_t pid,
                                                 std::string_view name);

// Which process is whose child, read once from /proc/*/stat.
class ProcessTree {
 public:
  static ProcessTree Read();

  // Whether `pid` exists and has not exited (zombies have).
  bool Running(pid_t pid) const { return running_.contains(pid); }
  // `parent`'s children, exited ones (zombies) included.
  std::vector<pid_t> Children(pid_t parent) const;
  // Every running process below `root`, not `root` itself.
  std::vector<pid_t> Descendants(pid_t root) const;

 private:
  absl::flat_hash_map<pid_t, std::vector<pid_t>> children_;
  absl::flat_hash_set<pid_t> running_;
};

class LeftoverProcesses {
 public:
  explicit LeftoverProcesses(absl::Duration grace_period)
      : grace_period_(grace_period) {}

  // Starts ending, with `signal` now (and SIGCONT, so that a stopped one
  // acts on it) and SIGKILL once the grace period is over:
  //  - every descendant of each of `roots` (the roots themselves are the
  //    caller's to signal);
  //  - every orphan, a child of this process that is not in `owned`,
  //    unless `spare` keeps it, with its descendants.
  // A process already being ended keeps its earlier SIGKILL time.
  void End(int signal, const std::vector<pid_t>& roots,
           const std::vector<pid_t>& owned,
           const std::function<bool(pid_t)>& spare = nullptr);

  // Reaps the orphans that exited (ended or not), sends SIGKILL to the
  // processes being ended whose grace period is over, and ends with them
  // the children they started meanwhile. Returns how many still run.
  int Step(const std::vector<pid_t>& owned);

  // Sends SIGKILL to every process being ended, now.
  void KillNow(const std::vector<pid_t>& owned);

  bool ending() const { return !ending_.empty(); }

 private:
  struct Ending {
    int signal = 0;
    absl::Time kill_at;
    bool killed = false;
  };
  void Track(pid_t pid, int signal, absl::Time kill_at);
  // Waits for the exited children of this process that nobody owns.
  void Reap(const ProcessTree& tree, const std::vector<pid_t>& owned);

  const absl::Duration grace_period_;
  absl::flat_hash_map<pid_t, Ending> ending_;
};

}  // namespace sluice::launcher

#endif  // SLUICE_LIB_LAUNCHER_LEFTOVER_PROCESSES_H_
