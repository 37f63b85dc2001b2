// The client side of remote execution: a TaskClient talks to one worker
// task (sluice_worker), a ClusterClient hands out TaskClients for the tasks
// of a ClusterSpec.
//
// Every call returns AsyncValues at once; they resolve on the HostContext's
// work queue when the worker answers. A worker that is down, dies, stops
// answering or answers with an error resolves them to error values whose
// message names the task and the function and whose ErrorContext
// (sluice/support/failure.h) records the task, so a program sees a dead
// worker as data, never as a hang: each RPC has a deadline. A worker that is
// down, dies, stops or misses the deadline gives retryable errors, which
// also record the worker's incarnation once a status answer has told it; an
// error the worker answered with keeps the context and class it had there.
#ifndef SLUICE_DISTRIBUTED_REMOTE_CLIENT_H_
#define SLUICE_DISTRIBUTED_REMOTE_CLIENT_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "sluice/distributed/cluster_spec.h"
#include "sluice/distributed/resource_ref.h"
#include "sluice/distributed/rpc_options.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/support/ref_count.h"

namespace sluice::dist {
namespace internal {
struct ExecuteCall;
struct ProgramCache;
class TaskChannel;
class WaitReporter;
}  // namespace internal

// What the status RPC reports.
struct TaskStatus {
  std::string task_name;
  bool serving = false;  // false while the worker shuts down
  int64_t active_executions = 0;
  int64_t cancelled_executions = 0;
  int64_t registered_programs = 0;  // loaded now, within the task's limits
  int64_t evicted_programs = 0;     // evicted to keep within them, in all
  // Changes when another process starts serving the task.
  uint64_t incarnation = 0;
  int64_t resources = 0;  // values kept now (CallOptions::keep_results_as)
};

// A function of a program registered on a task: what a remote call names.
struct RemoteFunction {
  std::string task_name;
  uint64_t program_id = 0;
  std::string name;
  std::vector<std::string> argument_types;  // MLIR spellings: "i32", ...
  std::vector<std::string> result_types;
};

// A program registered on a task.
struct RemoteProgram {
  std::string task_name;
  uint64_t program_id = 0;
  std::vector<RemoteFunction> functions;

  // The function called `name`, or NotFound naming the task and the
  // functions the program has.
  absl::StatusOr<RemoteFunction> GetFunction(std::string_view name) const;
};

struct CallOptions {
  // Overrides RpcOptions::deadline for this call.
  std::optional<absl::Duration> deadline;
  // Empty: the results come back. Otherwise one id per result (the caller
  // picks them; INVALID_ARGUMENT for another count): the worker keeps each
  // result under its id, replacing what it kept under that id, and the
  // call's result resolves to a Chain; a result that is an error stays that
  // error, is not kept, and drops what was kept under its id. Pass a kept
  // value to a later call on the same task as an argument holding a
  // ResourceRef with its id.
  std::vector<uint64_t> keep_results_as;
};

class TaskClient {
 public:
  ~TaskClient();
  TaskClient(const TaskClient&) = delete;
  TaskClient& operator=(const TaskClient&) = delete;

  const std::string& task_name() const { return task_name_; }
  const std::string& address() const { return address_; }

  // The status RPC, which starts a session with the task: under the
  // use_caller and false policies it waits for the task to come up, until
  // the deadline. Cancelling `request` (may be null) cancels the RPC; the
  // status then becomes the cancellation error.
  AsyncValueRef<TaskStatus> GetStatus(
      std::optional<absl::Duration> deadline = std::nullopt,
      RequestContext* request = nullptr);

  // Registers an SBF program on the task. Bytes already registered through
  // this client are not sent again, unless the task has restarted since: a
  // status answer from a new process, or a call that names a program the
  // task does not have (FAILED_PRECONDITION), makes the client forget. The
  // client keeps the bytes: a call to a program the task evicted (to keep
  // within its limits) registers it again and is then made, unseen by the
  // caller.
  AsyncValueRef<RemoteProgram> RegisterProgram(
      absl::Span<const uint8_t> program);

  // Calls `function` with `arguments`, which may still be unavailable: the
  // RPC is sent once all are available, and not at all if one is an error
  // (every result becomes that error). Returns function.result_types.size()
  // values. Cancelling `request` (may be null) cancels the call on the
  // worker; its results become the cancellation error. An argument holding
  // a ResourceRef passes the value the task keeps under its id, whatever
  // the argument's type; a task that keeps none (it restarted, or the value
  // was released) fails the call with FAILED_PRECONDITION, retryable, whose
  // ErrorContext records the task and its incarnation.
  std::vector<RCReference<AsyncValue>> Call(
      const RemoteFunction& function, absl::Span<AsyncValue* const> arguments,
      RequestContext* request, const CallOptions& options = {});

  // Drops the values the task keeps under `ids`; ids it does not keep are
  // ignored.
  AsyncValueRef<Chain> ReleaseResources(std::vector<uint64_t> ids);

 private:
  friend class ClusterClient;
  // Sends a call once its arguments are available.
  void Send(const std::shared_ptr<internal::ExecuteCall>& call,
            absl::Span<const RCReference<AsyncValue>> arguments);
  TaskClient(std::string task_name, std::string address, RpcOptions options,
             HostContext* host);

  const std::string task_name_;
  const std::string address_;
  const RpcOptions options_;
  HostContext* const host_;
  std::unique_ptr<internal::TaskChannel> channel_;

  // Registrations by program fingerprint, so each program is sent once per
  // worker process; shared with the RPCs that learn of a restart.
  std::shared_ptr<internal::ProgramCache> programs_;
  // Says what the RPCs that wait for the task wait for
  // (RpcOptions::on_waiting); null without one. Shared with the RPCs,
  // which end their waits.
  std::shared_ptr<internal::WaitReporter> waiting_;
};

class ClusterClient {
 public:
  // Results resolve on `host`, which must outlive the client.
  ClusterClient(ClusterSpec spec, RpcOptions options, HostContext* host);
  ~ClusterClient();
  ClusterClient(const ClusterClient&) = delete;
  ClusterClient& operator=(const ClusterClient&) = delete;

  const ClusterSpec& spec() const { return spec_; }
  const RpcOptions& options() const { return options_; }

  // The client of `task_name` (made on first use), or NotFound naming the
  // cluster's tasks.
  absl::StatusOr<TaskClient*> GetTask(std::string_view task_name);

  // Checks every task with the status RPC; the value resolves once all have
  // answered, to the first failure or to every task's status.
  AsyncValueRef<std::vector<TaskStatus>> CheckAllTasks();

 private:
  const ClusterSpec spec_;
  const RpcOptions options_;
  HostContext* const host_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<TaskClient>, std::less<>> tasks_;
};

}  // namespace sluice::dist

#endif  // SLUICE_DISTRIBUTED_REMOTE_CLIENT_H_
