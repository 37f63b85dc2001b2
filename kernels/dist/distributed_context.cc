#include "kernels/dist/distributed_context.h"

#include <utility>
#include <vector>

namespace sluice {

DistributedContext::DistributedContext(HostContext* host) : host_(host) {}

DistributedContext::~DistributedContext() {
  // A tfrt_dist.join waits inside the coordinator on a thread of the host's
  // blocking pool, and closures' results end operations: both must be over
  // before the coordinator goes. The runners' AwaitIdle after each function
  // leaves nothing here; a host destroyed earlier waits as they do.
  bool has_coordinator;
  {
    std::lock_guard<std::mutex> lock(mu_);
    has_coordinator = coordinator_ != nullptr;
  }
  if (has_coordinator) AwaitIdle();
  // The client cancels what is still in flight and waits for it; answers
  // that came just before are queued on the host (which still runs: the
  // host destroys shared objects before its queue). They end operations,
  // which needs the map still alive and the mutex free, so they run here.
  std::unique_ptr<dist::ClusterClient> client;
  std::unique_ptr<dist::VariableClient> variables;
  std::unique_ptr<dist::Coordinator> coordinator;
  {
    std::lock_guard<std::mutex> lock(mu_);
    client = std::move(client_);
    variables = std::move(variables_);
    coordinator = std::move(coordinator_);
  }
  // Its queued closures resolve to CANCELLED, which ends their operations.
  coordinator.reset();
  variables.reset();
  client.reset();
  host_->Quiesce();
}

absl::Status DistributedContext::Configure(dist::ClusterSpec spec,
                                           dist::RpcOptions options) {
  std::lock_guard<std::mutex> lock(mu_);
  if (client_ != nullptr) {
    return absl::FailedPreconditionError(
        "the cluster of the tfrt_dist kernels is already in use and cannot "
        "be configured again");
  }
  client_ =
      std::make_unique<dist::ClusterClient>(std::move(spec), options, host_);
  environment_error_.reset();
  return absl::OkStatus();
}

void DistributedContext::SetDefaultDeadline(absl::Duration deadline) {
  std::lock_guard<std::mutex> lock(mu_);
  default_deadline_ = deadline;
}

void DistributedContext::SetOnWaiting(
    std::function<void(const std::string&)> on_waiting) {
  std::lock_guard<std::mutex> lock(mu_);
  on_waiting_ = std::move(on_waiting);
}

absl::StatusOr<dist::ClusterClient*> DistributedContext::GetClusterClient() {
  std::lock_guard<std::mutex> lock(mu_);
  if (client_ != nullptr) return client_.get();
  if (environment_error_) return *environment_error_;
  absl::StatusOr<dist::ClusterSpec> spec =
      dist::ClusterSpec::FromFlagOrEnvironment("");
  if (!spec.ok()) {
    environment_error_ = spec.status();
    return spec.status();
  }
  absl::StatusOr<dist::FailFastPolicy> policy =
      dist::FailFastPolicyFromEnvironment();
  if (!policy.ok()) {
    environment_error_ = policy.status();
    return policy.status();
  }
  dist::RpcOptions options;
  options.fail_fast = *policy;
  options.deadline = default_deadline_;
  options.on_waiting = on_waiting_;
  client_ =
      std::make_unique<dist::ClusterClient>(*std::move(spec), options, host_);
  return client_.get();
}

absl::StatusOr<dist::VariableClient*> DistributedContext::GetVariableClient() {
  absl::StatusOr<dist::ClusterClient*> cluster = GetClusterClient();
  if (!cluster.ok()) return cluster.status();
  std::lock_guard<std::mutex> lock(mu_);
  if (variables_ == nullptr) {
    variables_ = std::make_unique<dist::VariableClient>(
        (*cluster)->spec(), (*cluster)->options(), host_);
  }
  return variables_.get();
}

absl::StatusOr<dist::Coordinator*> DistributedContext::GetCoordinator() {
  absl::StatusOr<dist::ClusterClient*> cluster = GetClusterClient();
  if (!cluster.ok()) return cluster.status();
  std::lock_guard<std::mutex> lock(mu_);
  if (coordinator_ != nullptr) return coordinator_.get();
  if (host_->work_queue().GetParallelismLevel() < 2) {
    return absl::FailedPreconditionError(
        "the coordinator needs a host with a multi-threaded work queue, and "
        "this one has a single thread (sluice_run: pass "
        "-work_queue_type=mstd)");
  }
  dist::CoordinatorOptions options;
  options.rpc = (*cluster)->options();
  absl::StatusOr<std::unique_ptr<dist::Coordinator>> coordinator =
      dist::Coordinator::Create((*cluster)->spec(), host_, std::move(options));
  if (!coordinator.ok()) return coordinator.status();
  coordinator_ = *std::move(coordinator);
  return coordinator_.get();
}

AsyncValueRef<Chain> DistributedContext::BeginOperation() {
  AsyncValueRef<Chain> done = MakeUnconstructedAsyncValueRef<Chain>();
  uint64_t id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    id = next_operation_++;
    operations_.emplace(id, done.CopyRef());
  }
  done.AndThen([this, id] {
    AsyncValueRef<Chain> finished;
    std::lock_guard<std::mutex> lock(mu_);
    auto it = operations_.find(id);
    if (it == operations_.end()) return;
    // Dropped after the lock, by `finished`'s destructor.
    finished = std::move(it->second);
    operations_.erase(it);
  });
  return done;
}

void DistributedContext::AwaitIdle() {
  // An answer may start more RPCs (a call waiting on a registration), so
  // wait until a round finds nothing in flight.
  while (true) {
    std::vector<RCReference<AsyncValue>> pending;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const auto& [id, operation] : operations_) {
        pending.push_back(operation.CopyRCRef());
      }
    }
    if (pending.empty()) return;
    host_->Await(pending);
    host_->Quiesce();
  }
}

}  // namespace sluice
