// What a Coordinator's worker agents and its public API share: the closures
// waiting for a worker, the error to report, the per-worker resources, and
// which workers answer. One mutex guards it all; values are resolved only
// outside it, because resolving a value runs whatever waits for it (a
// closure that took it as an input enqueues itself).
#ifndef SLUICE_LIB_COORDINATOR_COORDINATOR_STATE_H_
#define SLUICE_LIB_COORDINATOR_COORDINATOR_STATE_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "sluice/coordinator/coordinator.h"
#include "sluice/coordinator/variables.h"
#include "sluice/distributed/remote_client.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/request_context.h"

namespace sluice::dist::internal {

class WorkerAgent;

struct Closure {
  ClosureFunction function;
  std::vector<ClosureArgument> arguments;
  std::vector<RCReference<IndirectAsyncValue>> results;
  // How many errors had been recorded when it was scheduled: a closure
  // older than a recorded error is cancelled instead of run.
  int64_t epoch = 0;
  // The failure classes its caller handles (Coordinator::Schedule): a
  // failure of one is not recorded for Join.
  std::vector<FailureClass> handled_classes;
  bool Handles(const absl::Status& failure) const;
};

// A function whose results each worker keeps (CreatePerWorkerResource).
struct ResourceSpec {
  ClosureFunction function;
  std::vector<ClosureArgument> arguments;
  // ids[worker][result]: where each worker keeps each result.
  std::vector<std::vector<uint64_t>> ids;
};

class CoordinatorState {
 public:
  CoordinatorState(ClusterSpec spec, HostContext* host,
                   CoordinatorOptions options,
                   std::vector<std::string> workers);
  ~CoordinatorState();

  // Starts one agent per worker.
  void Start();
  // Cancels everything queued or running and waits for the agents.
  void Stop();

  const CoordinatorOptions& options() const { return options_; }
  HostContext* host() const { return host_; }
  ClusterClient& client() { return client_; }
  VariableClient& variables() { return variables_; }
  const std::vector<std::string>& workers() const { return workers_; }

  // Admits a closure (waiting for room), or the error Schedule reports.
  absl::Status Admit(Closure& closure);
  // Queues a closure whose inputs are all available and none an error.
  void Enqueue(std::shared_ptr<Closure> closure);
  // Queues again, first, a closure whose worker failed.
  void Requeue(std::shared_ptr<Closure> closure);
  // The next closure for `agent`; null when the coordinator stops or a
  // resource was added that the agent has not built yet.
  std::shared_ptr<Closure> Take(size_t resources_built);

  // Resolves the closure's results to `values` (one per result) and counts
  // it finished. A fatal error among them is recorded for Join to report.
  void Finish(Closure& closure, std::vector<RCReference<AsyncValue>> values);
  // Resolves every result to `status` and counts the closure finished.
  void Fail(Closure& closure, const absl::Status& status);

  // Records the first fatal error since the last report and cancels the
  // closures queued before it.
  void RecordError(const absl::Status& status);
  // Stops the job: a failure no retry can mend (a parameter server lost).
  void FailJob(const absl::Status& status);

  // Waits until every admitted closure has finished and no hold is left,
  // or the job failed.
  absl::Status Join();
  void Hold();
  void ReleaseHold();
  bool Done() const;

  // The resource list grows only; agents build what they have not.
  size_t AddResource(ResourceSpec spec);
  size_t num_resources() const;
  ResourceSpec GetResource(size_t index) const;
  // Where `worker` keeps result `result` of resource `resource`.
  uint64_t ResourceId(size_t resource, size_t worker, size_t result) const;

  // Whether each worker answers; after recovery_timeout with none, the
  // closures waiting fail.
  void SetHealthy(size_t worker, bool healthy, const absl::Status& why);
  // Fails what waits when no worker has answered for recovery_timeout.
  void CheckRecovery();
  // Waits up to `duration` or until the coordinator stops; false if it did.
  bool SleepUnlessStopping(absl::Duration duration);
  bool stopping() const;

  // The request of the attempt an agent runs, cancelled by Stop.
  void SetRunning(size_t worker, RCReference<RequestContext> request);

  void Count(int64_t CoordinatorStats::*counter);
  CoordinatorStats stats() const;

  // A fresh resource id, unique among coordinators sharing a worker.
  uint64_t NewResourceId();

 private:
  // Takes what is queued out of the queue, for the caller to fail outside
  // the lock.
  std::deque<std::shared_ptr<Closure>> TakeAllLocked();
  absl::Status TakeReportLocked();
  // Counts a closure failure under its root cause. Under mu_.
  void TallyLocked(const absl::Status& failure);

  const CoordinatorOptions options_;
  HostContext* const host_;
  const std::vector<std::string> workers_;
  ClusterClient client_;
  VariableClient variables_;
  const uint64_t resource_id_base_;

  mutable std::mutex mu_;
  std::condition_variable changed_;
  bool stopping_ = false;
  std::deque<std::shared_ptr<Closure>> queue_;
  int64_t pending_ = 0;  // admitted and not finished
  int64_t holds_ = 0;    // Coordinator::JoinHold
  int64_t epoch_ = 0;    // errors recorded
  absl::Status first_error_;
  // The closures failed since the last report, by root cause
  // (sluice/support/error_util.h), in the order the causes came.
  std::vector<std::pair<std::string, int64_t>> failures_by_cause_;
  absl::Status job_failure_;
  absl::Status recovery_failure_;
  std::vector<ResourceSpec> resources_;
  std::vector<bool> healthy_;
  std::vector<absl::Status> last_failure_;
  size_t num_healthy_ = 0;
  absl::Time all_down_since_;
  std::vector<RCReference<RequestContext>> running_;
  uint64_t next_resource_id_ = 0;
  CoordinatorStats stats_;
  std::vector<std::unique_ptr<WorkerAgent>> agents_;
};

}  // namespace sluice::dist::internal

#endif  // SLUICE_LIB_COORDINATOR_COORDINATOR_STATE_H_
