// When the launcher restarts a job, and how long it waits first.
#ifndef SLUICE_LIB_LAUNCHER_LAUNCHER_POLICY_H_
#define SLUICE_LIB_LAUNCHER_LAUNCHER_POLICY_H_

#include <string>

#include "absl/time/time.h"

namespace sluice::launcher {

// Why the ranks of one start of a job were stopped.
struct Failure {
  int rank = 0;
  // The failing rank's exit code, which the launcher exits with once no
  // restart is left; 1 for a monitor verdict.
  int exit_code = 1;
  std::string reason;  // "rank 2 exited with code 1", a verdict's message
};

// What a failure restarts: every rank of the job that has not finished
// (each resumes from the minimum finished epoch), or only the failed rank
// while the others keep running, as data-parallel replicas that heal from
// their peers need. Neither starts a rank that exited with 0 again.
enum class RestartScope { kJob, kRank };

struct RestartPolicy {
  RestartScope scope = RestartScope::kJob;
  // With kRank, the limit and the backoff count each rank's own restarts.
  int max_restarts = 3;
  absl::Duration backoff = absl::Milliseconds(500);
  absl::Duration max_backoff = absl::Seconds(30);

  // The wait before restart number `restart` (1, 2, ...): backoff doubled
  // each time, at most max_backoff.
  absl::Duration BackoffBefore(int restart) const {
    absl::Duration wait = backoff;
    for (int i = 1; i < restart && wait < max_backoff; ++i) wait *= 2;
    return wait < max_backoff ? wait : max_backoff;
  }
};

}  // namespace sluice::launcher

#endif  // SLUICE_LIB_LAUNCHER_LAUNCHER_POLICY_H_
