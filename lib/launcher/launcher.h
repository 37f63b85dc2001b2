// The launcher behind tools/sluice_launch: starts the ranks of a job, copies
// their output line by line with a rank prefix, runs the step monitor, and
// restarts every rank that has not finished (exited with 0) from the
// minimum finished epoch when one fails or the monitor finds one stuck,
// silent or dead. On several hosts, one
// launcher each, node 0 decides every restart and the others follow it
// (launcher_rendezvous.h). What to do when is decided by the state machines
// of launcher_decisions.h; launcher.cc runs the processes and carries the
// decisions out. See docs/launcher.md.
#ifndef SLUICE_LIB_LAUNCHER_LAUNCHER_H_
#define SLUICE_LIB_LAUNCHER_LAUNCHER_H_

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "lib/launcher/launcher_cluster.h"
#include "lib/launcher/launcher_policy.h"

namespace sluice::launcher {

struct LauncherOptions {
  // The ranks: `nproc` copies of `command`, or with `jobs` one per task.
  int nproc = 0;
  std::vector<JobCount> jobs;
  std::string host = "127.0.0.1";  // of the tasks and of the monitor
  // With jobs: the job whose task 0 ends the job by exiting with 0 (the
  // others, servers that never exit, are then stopped). Empty: the job ends
  // when every rank has exited with 0.
  std::string chief;
  // Without a chief: the job is done when the first rank exits with 0
  // (replicas of one data-parallel job finish together; one still running
  // is a late joiner that can no longer take part). The others get the
  // grace period to exit, then are stopped; no rank is restarted after.
  bool finish_on_first = false;
  std::vector<std::string> command;
  // Non-empty: "--<flag>=<resume epoch>" is appended to the command.
  std::string resume_epoch_flag;

  // "none": no monitor; "host:port": an external one; empty: a
  // sluice_monitor child (monitor_binary, given monitor_flags).
  std::string monitor;
  std::string monitor_binary;
  std::vector<std::string> monitor_flags;

  // Several hosts, one launcher each: node 0 serves the rendezvous at
  // `rendezvous` (host:port) and runs the monitor; every node runs `nproc`
  // ranks, node K the global ranks K*nproc.. (docs/launcher.md).
  int nnodes = 1;
  int node_rank = 0;
  std::string rendezvous;
  // How long node 0 waits for the others to join, and a node other than 0
  // keeps its ranks running without an answer from node 0.
  absl::Duration rendezvous_timeout = absl::Seconds(30);

  absl::Duration grace_period = absl::Seconds(5);
  absl::Duration poll_interval = absl::Milliseconds(150);
  RestartPolicy restart;
};

// Runs the job to its end and returns the launcher's exit code: 0 when it
// finished, the failing rank's code (or 1) when no restart was left,
// 128 + the signal when stopped by SIGINT or SIGTERM. Call it before any
// other thread exists: it blocks SIGINT, SIGTERM and SIGCHLD to wait for
// them itself, and its children die with the calling thread.
int RunLauncher(const LauncherOptions& options);

}  // namespace sluice::launcher

#endif  // SLUICE_LIB_LAUNCHER_LAUNCHER_H_
