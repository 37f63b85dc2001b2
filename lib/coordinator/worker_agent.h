// The coordinator's agent for one worker: a thread that runs the worker's
// closures one at a time (as TF's ClusterCoordinator does), probes the
// worker while it does not answer, and builds the per-worker resources on
// it before it takes closures: at first, when a resource is added, and when
// the worker comes back as a new process.
#ifndef SLUICE_LIB_COORDINATOR_WORKER_AGENT_H_
#define SLUICE_LIB_COORDINATOR_WORKER_AGENT_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/coordinator/coordinator_state.h"
#include "sluice/distributed/remote_client.h"

namespace sluice::dist::internal {

// What one attempt of a call on a worker came to.
enum class Outcome {
  kSucceeded,     // every result is a value
  kFailed,        // the function failed by itself: fatal errors
  kWorkerFailed,  // the worker died, restarted or stalled: retry
  kJobFailed,     // a parameter server failed: stop the job
};

class WorkerAgent {
 public:
  WorkerAgent(CoordinatorState* state, size_t index, TaskClient* task);
  ~WorkerAgent();

  void Start();
  void Join();

 private:
  void Run();
  // Waits for the worker to answer the status RPC; rebuilds its resources
  // when it answers as a new process.
  void Probe();
  // Builds the resources not built yet on this worker; false when the
  // worker failed meanwhile.
  bool BuildResources();
  void RunClosure(std::shared_ptr<Closure> closure);

  // Calls `function` with `arguments` on the worker and waits for the
  // results; an error when the call could not be made at all.
  absl::StatusOr<std::vector<RCReference<AsyncValue>>> Call(
      const ClosureFunction& function,
      const std::vector<ClosureArgument>& arguments,
      std::vector<uint64_t> keep_results_as);
  // Classifies the results (or the failure to call) of an attempt; the
  // status that decided it goes to `why`.
  Outcome Judge(
      const absl::StatusOr<std::vector<RCReference<AsyncValue>>>& results,
      absl::Status* why) const;
  // Acts on a failed attempt; true when the worker failed.
  bool HandleFailure(Outcome outcome, const absl::Status& why,
                     std::string_view what);
  absl::StatusOr<RemoteFunction> FunctionOn(const ClosureFunction& function);

  CoordinatorState* const state_;
  const size_t index_;
  TaskClient* const task_;
  std::thread thread_;

  // Only the agent's thread touches these.
  bool healthy_ = false;
  uint64_t incarnation_ = 0;  // of the process that answered last
  size_t resources_built_ = 0;
  // Why a resource failed to build here (fatal); closures that take it
  // fail with it.
  std::vector<absl::Status> resource_errors_;
  std::map<std::pair<const std::vector<uint8_t>*, std::string>, RemoteFunction>
      functions_;
};

}  // namespace sluice::dist::internal

#endif  // SLUICE_LIB_COORDINATOR_WORKER_AGENT_H_
