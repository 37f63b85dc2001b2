// The ranks of a launched job and what each finds in its environment.
//
// With --nproc alone every rank runs the same role. With --jobs
// (ps:2,worker:4,chief:1) ranks are given to the jobs in that order, and
// each rank gets a TF_CONFIG naming the whole cluster (a free port per
// task) and its own task, as TensorFlow's coordinator jobs expect.
#ifndef SLUICE_LIB_LAUNCHER_LAUNCHER_CLUSTER_H_
#define SLUICE_LIB_LAUNCHER_LAUNCHER_CLUSTER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace sluice::launcher {

struct JobCount {
  std::string job;
  int count = 0;
};

// Parses "ps:2,worker:4,chief:1": job names of letters, digits, '_' and
// '-', each once, with positive counts adding up to at most 65535.
absl::StatusOr<std::vector<JobCount>> ParseJobs(const std::string& text);

// `count` distinct ports free now on every interface. They are free when
// picked, not reserved: another process could take one before its task
// listens (rare on a quiet machine).
absl::StatusOr<std::vector<int>> FreePorts(int count);

struct RankTask {
  std::string job;  // empty without --jobs
  int index = 0;    // within the job
};

// The tasks of ranks 0..N-1 in the order of `jobs`.
std::vector<RankTask> AssignTasks(const std::vector<JobCount>& jobs);

// Addresses of every task on `host`, a free port each, as the JSON object
// {"ps": ["host:port", ...], ...} (jobs in the order given).
absl::StatusOr<std::string> MakeClusterSpec(const std::vector<JobCount>& jobs,
                                            const std::string& host);

// TF_CONFIG for one task: {"cluster": <cluster_spec>, "task": {"type": job,
// "index": i}}.
std::string MakeTfConfig(const std::string& cluster_spec, const RankTask& task);

// What every rank of one start of the job shares.
struct LaunchEnvironment {
  int world_size = 1;
  // With --nnodes: this node's rank, and the global rank of its local rank
  // 0.
  int node_rank = 0;
  int rank_offset = 0;
  std::string monitor_address;  // empty: no monitor
  int64_t resume_epoch = 0;
  int restart = 0;
  std::string cluster_spec;  // empty without --jobs
};

// The "NAME=value" variables of this node's rank `local_rank` (see
// docs/launcher.md).
std::vector<std::string> RankEnvironment(const LaunchEnvironment& launch,
                                         int local_rank, const RankTask& task);

}  // namespace sluice::launcher

#endif  // SLUICE_LIB_LAUNCHER_LAUNCHER_CLUSTER_H_
