// The coordinator of a parameter-server job (TF2's ClusterCoordinator on
// Sluice's error values): it schedules closures, calls of a program's
// functions, on the tasks of the cluster's worker job, keeps a per-worker
// resource (a dataset iterator, ...) on every worker, and turns every
// failure into either a retry elsewhere or an error value. docs/coordinator.md
// describes the semantics; in short:
//
//   - Schedule returns the closure's results at once, as values that resolve
//     on the coordinator when a worker has run the closure and answered. A
//     closure runs at least once: a worker that dies, restarts, or does not
//     answer within the closure deadline gives its closure to another
//     worker, and is probed in the background until it answers again.
//   - An argument may be a value of an earlier closure: the closure waits
//     for it. Results travel back with the answer, so a producer whose
//     worker died before answering simply runs again (lineage re-execution).
//   - A closure that fails by itself (a fatal error: bad data, a shape
//     error, an exhausted iterator) resolves its results to the error; the
//     next Join or Schedule reports the first such error, the closures still
//     queued then are cancelled, and the error is cleared.
//   - A parameter server that fails cannot be retried on another worker: the
//     job stops, Join and Schedule report the failure from then on, and
//     ExitCodeFor() maps it to kRestartableExitCode.
//   - No worker answering for longer than the recovery timeout fails the
//     closures still waiting with UNAVAILABLE naming every worker.
#ifndef SLUICE_COORDINATOR_COORDINATOR_H_
#define SLUICE_COORDINATOR_COORDINATOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "sluice/coordinator/variables.h"
#include "sluice/distributed/cluster_spec.h"
#include "sluice/distributed/rpc_options.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/host_context.h"
#include "sluice/support/exit_codes.h"
#include "sluice/support/failure.h"

namespace sluice::dist {
namespace internal {
class CoordinatorState;
}  // namespace internal

// The MLIR spelling of a dataset iterator, the one result of a per-worker
// dataset's function (CreatePerWorkerDataset) and the first argument of a
// Fit step.
inline constexpr char kIteratorTypeName[] = "!tfrt_data.iterator";

// The exit status a job's main returns for `status`: 0 when OK,
// kRestartableExitCode (sluice/support/exit_codes.h) when Classify() says
// retryable, 1 otherwise.
int ExitCodeFor(const absl::Status& status);

struct CoordinatorOptions {
  // The job whose tasks run closures, and the job of the parameter servers.
  std::string worker_job = "worker";
  std::string ps_job = "ps";
  // Closures scheduled and not yet finished; Schedule waits past it.
  int max_pending_closures = 1024;
  // How long one attempt of a closure may take on a worker before the
  // worker counts as stalled and the closure goes elsewhere.
  absl::Duration closure_deadline = absl::Seconds(60);
  // How long every worker may be gone before the closures waiting fail.
  absl::Duration recovery_timeout = absl::Seconds(60);
  // How long one status probe of a failed worker waits for an answer, and
  // the least time between two probes.
  absl::Duration probe_deadline = absl::Seconds(1);
  absl::Duration probe_interval = absl::Milliseconds(50);
  // RPCs other than closures (registrations, releases, variables).
  RpcOptions rpc;
};

// A function of an SBF program, as closures and resources name it.
class ClosureFunction {
 public:
  // The function `name` of `program`, whose signature is read from the
  // bytes; InvalidArgument for bytes that are not a valid program, NotFound
  // naming the program's functions.
  static absl::StatusOr<ClosureFunction> FromProgram(
      std::shared_ptr<const std::vector<uint8_t>> program,
      std::string_view name);

  const std::string& name() const { return name_; }
  // MLIR spellings: "i32", "!t.tensor", "!tfrt_data.iterator".
  const std::vector<std::string>& argument_types() const {
    return argument_types_;
  }
  const std::vector<std::string>& result_types() const { return result_types_; }
  const std::shared_ptr<const std::vector<uint8_t>>& program() const {
    return program_;
  }

 private:
  std::shared_ptr<const std::vector<uint8_t>> program_;
  std::string name_;
  std::vector<std::string> argument_types_;
  std::vector<std::string> result_types_;
};

// A value every worker holds its own of: the results of a function run on
// each worker (CreatePerWorkerResource), kept there.
class PerWorkerResource {
 public:
  // Its place among the coordinator's resources, in creation order.
  size_t index() const { return index_; }
  const std::string& function_name() const { return function_name_; }
  size_t num_results() const { return num_results_; }

 private:
  friend class Coordinator;
  PerWorkerResource(size_t index, std::string function_name, size_t num_results)
      : index_(index),
        function_name_(std::move(function_name)),
        num_results_(num_results) {}
  size_t index_;
  std::string function_name_;
  size_t num_results_;
};

// One argument of a closure or of a resource's function.
class ClosureArgument {
 public:
  enum class Kind { kValue, kResource, kWorkerIndex };

  // A value on the coordinator: a plain value, or a result of an earlier
  // closure, which the closure waits for. An error fails the closure
  // without running it.
  ClosureArgument(RCReference<AsyncValue> value)  // NOLINT: implicit
      : kind_(Kind::kValue), value_(std::move(value)) {}
  template <typename T>
  ClosureArgument(AsyncValueRef<T> value)  // NOLINT: implicit
      : ClosureArgument(value.CopyRCRef()) {}
  // Result `result` of a per-worker resource: each worker passes its own.
  ClosureArgument(const PerWorkerResource& resource,  // NOLINT: implicit
                  size_t result = 0)
      : kind_(Kind::kResource),
        resource_index_(resource.index()),
        resource_result_(result) {}
  // The i32 index, in the worker job, of the worker that runs the call.
  static ClosureArgument WorkerIndex() {
    return ClosureArgument(Kind::kWorkerIndex);
  }
  // An available value holding `value`.
  template <typename T>
  static ClosureArgument Of(T value) {
    return ClosureArgument(MakeAvailableAsyncValueRef<T>(std::move(value)));
  }

  ClosureArgument(const ClosureArgument& other)
      : kind_(other.kind_),
        value_(other.value_.CopyRef()),
        resource_index_(other.resource_index_),
        resource_result_(other.resource_result_) {}
  ClosureArgument& operator=(const ClosureArgument& other) {
    *this = ClosureArgument(other);
    return *this;
  }
  ClosureArgument(ClosureArgument&&) = default;
  ClosureArgument& operator=(ClosureArgument&&) = default;

  Kind kind() const { return kind_; }
  const RCReference<AsyncValue>& value() const { return value_; }
  size_t resource_index() const { return resource_index_; }
  size_t resource_result() const { return resource_result_; }

 private:
  explicit ClosureArgument(Kind kind) : kind_(kind) {}
  Kind kind_;
  RCReference<AsyncValue> value_;
  size_t resource_index_ = 0;
  size_t resource_result_ = 0;
};

// What the coordinator has done so far.
struct CoordinatorStats {
  int64_t scheduled = 0;  // closures
  int64_t finished = 0;   // closures done: succeeded, failed or cancelled
  int64_t attempts = 0;   // closure runs started on a worker
  int64_t retried = 0;    // attempts lost to a worker's failure
  int64_t worker_failures = 0;
  int64_t resource_builds = 0;  // a resource built on a worker
};

class Coordinator {
 public:
  // A coordinator for the workers of `spec`; closures' results resolve on
  // `host`, which must outlive the coordinator and have a multi-threaded
  // work queue (each worker has a thread that waits on it). Fails when the
  // cluster has no worker job.
  static absl::StatusOr<std::unique_ptr<Coordinator>> Create(
      ClusterSpec spec, HostContext* host, CoordinatorOptions options = {});
  // Cancels what is queued (its values resolve to CANCELLED), cancels the
  // closures running, releases the resources on the workers that answer,
  // and waits for the worker threads.
  ~Coordinator();
  Coordinator(const Coordinator&) = delete;
  Coordinator& operator=(const Coordinator&) = delete;

  // The worker tasks, in index order.
  const std::vector<std::string>& workers() const;
  const CoordinatorOptions& options() const;
  HostContext* host() const;
  // The client of the cluster's parameter servers.
  VariableClient& variables();

  // Queues a call of `function` and returns one value per result, at once.
  // Waits while max_pending_closures are unfinished. Fails, without
  // scheduling, with the first error a closure failed with since the last
  // report (which clears it), with the job's failure once it has stopped,
  // or with InvalidArgument for arguments that do not fit the function.
  absl::StatusOr<std::vector<RCReference<AsyncValue>>> Schedule(
      const ClosureFunction& function, std::vector<ClosureArgument> arguments);

  // Schedule, for a caller that handles the closure's failures of
  // `handled_classes` itself (a failure policy that schedules it again or
  // falls back): such a failure resolves the results to the error but is
  // not reported by Join or Schedule and cancels nothing.
  absl::StatusOr<std::vector<RCReference<AsyncValue>>> Schedule(
      const ClosureFunction& function, std::vector<ClosureArgument> arguments,
      const std::vector<FailureClass>& handled_classes);

  // While one is held, Join waits as for an unfinished closure: a caller
  // between two attempts of a closure (a failure policy's backoff) holds
  // one so that Join does not end before the next attempt.
  class JoinHold {
   public:
    explicit JoinHold(std::shared_ptr<internal::CoordinatorState> state);
    JoinHold(JoinHold&&) = default;
    JoinHold& operator=(JoinHold&&) = default;
    ~JoinHold();

   private:
    std::shared_ptr<internal::CoordinatorState> state_;
  };
  JoinHold HoldJoin();

  // Waits until every scheduled closure has finished; the first error a
  // closure failed with since the last report (cleared by this report), the
  // job's failure, or UNAVAILABLE when no worker answered for longer than
  // the recovery timeout.
  absl::Status Join();

  // Whether every scheduled closure has finished, without waiting.
  bool Done() const;

  // Waits for `values` (results of closures) and returns the first error
  // among them.
  absl::Status Fetch(absl::Span<const RCReference<AsyncValue>> values);
  // Waits for `value` and returns a copy of its payload.
  template <typename T>
  absl::StatusOr<T> Fetch(const RCReference<AsyncValue>& value) {
    if (absl::Status fetched = Fetch(absl::MakeConstSpan(&value, 1));
        !fetched.ok()) {
      return fetched;
    }
    return value->get<T>();
  }

  // Runs `function` on every worker before it takes its next closure, and
  // again on each worker that comes back as a new process (incarnation);
  // the results stay on the worker, for closures to take as arguments.
  // Arguments may be values (available now) and WorkerIndex().
  absl::StatusOr<PerWorkerResource> CreatePerWorkerResource(
      const ClosureFunction& function, std::vector<ClosureArgument> arguments);
  // A per-worker resource whose function returns one !tfrt_data.iterator:
  // each worker's own iterator over its own dataset (see docs/datasets.md).
  // A step that finds it exhausted fails with OUT_OF_RANGE.
  absl::StatusOr<PerWorkerResource> CreatePerWorkerDataset(
      const ClosureFunction& function, std::vector<ClosureArgument> arguments);

  CoordinatorStats stats() const;

 private:
  explicit Coordinator(std::shared_ptr<internal::CoordinatorState> state);
  // Shared with the callbacks that wait for closures' inputs, which may
  // outlive the coordinator.
  std::shared_ptr<internal::CoordinatorState> state_;
};

}  // namespace sluice::dist

#endif  // SLUICE_COORDINATOR_COORDINATOR_H_
