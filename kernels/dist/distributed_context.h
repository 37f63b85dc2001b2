// DistributedContext: the cluster the tfrt_dist kernels of one HostContext
// talk to, shared by every request on the host
// (host->GetOrCreateSharedContext<DistributedContext>()).
//
// A tool configures it explicitly (sluice_run's --cluster); otherwise the
// first kernel that needs it reads the cluster from SLUICE_CLUSTER and the
// fail-fast policy from SLUICE_RPC_FAIL_FAST. Programs that use no tfrt_dist
// op never touch it, so they run without any cluster.
#ifndef SLUICE_KERNELS_DIST_DISTRIBUTED_CONTEXT_H_
#define SLUICE_KERNELS_DIST_DISTRIBUTED_CONTEXT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "sluice/coordinator/coordinator.h"
#include "sluice/coordinator/variables.h"
#include "sluice/distributed/cluster_spec.h"
#include "sluice/distributed/remote_client.h"
#include "sluice/distributed/rpc_options.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/host_context.h"

namespace sluice {

class DistributedContext {
 public:
  explicit DistributedContext(HostContext* host);
  ~DistributedContext();
  DistributedContext(const DistributedContext&) = delete;
  DistributedContext& operator=(const DistributedContext&) = delete;

  // Sets the cluster the kernels use. Fails (FailedPrecondition) once a
  // cluster is in use, configured or read from the environment: kernels
  // hold on to its task clients.
  absl::Status Configure(dist::ClusterSpec spec, dist::RpcOptions options);

  // The RPC deadline used when the cluster comes from the environment
  // (RpcOptions' default unless a tool sets it, as --rpc_deadline_ms does).
  void SetDefaultDeadline(absl::Duration deadline);

  // RpcOptions::on_waiting when the cluster comes from the environment (a
  // tool says what a session start waits for, as sluice_run does).
  void SetOnWaiting(std::function<void(const std::string&)> on_waiting);

  // The cluster's client: the configured one, else one made on first use
  // from the environment. FailedPrecondition "no cluster configured: pass
  // --cluster or set SLUICE_CLUSTER" when there is none, or the
  // environment's error when it is malformed (the same error every time).
  absl::StatusOr<dist::ClusterClient*> GetClusterClient();

  // The client of the cluster's parameter servers (the tasks of its `ps`
  // job), made on first use with the cluster client's spec and options;
  // GetClusterClient's error when there is no cluster.
  absl::StatusOr<dist::VariableClient*> GetVariableClient();

  // The coordinator of the cluster's `worker` job (tfrt_dist.schedule and
  // the per-worker ops), made on first use from the cluster client's spec
  // with default CoordinatorOptions and the cluster client's RPC options.
  // GetClusterClient's error when there is no cluster; FailedPrecondition
  // when the host's work queue has one thread, which the coordinator's
  // worker threads would starve; the coordinator's own error (no worker
  // job) otherwise. A failed attempt is retried by the next call.
  absl::StatusOr<dist::Coordinator*> GetCoordinator();

  // Starts tracking one RPC a kernel started: the kernel resolves the
  // returned chain once the answer has been handed on. See AwaitIdle.
  AsyncValueRef<Chain> BeginOperation();

  // Waits until every tracked RPC has been answered and the work its answer
  // queued has run. Runners call it after each function, so that remote
  // calls whose results nobody waits for still finish before the next one.
  void AwaitIdle();

 private:
  HostContext* const host_;
  std::mutex mu_;
  absl::Duration default_deadline_ = dist::RpcOptions().deadline;
  std::function<void(const std::string&)> on_waiting_;
  std::unique_ptr<dist::ClusterClient> client_;
  std::unique_ptr<dist::VariableClient> variables_;
  std::unique_ptr<dist::Coordinator> coordinator_;
  // Why the environment gave no cluster, once a kernel asked for one.
  std::optional<absl::Status> environment_error_;
  uint64_t next_operation_ = 0;
  std::unordered_map<uint64_t, AsyncValueRef<Chain>> operations_;
};

}  // namespace sluice

#endif  // SLUICE_KERNELS_DIST_DISTRIBUTED_CONTEXT_H_
