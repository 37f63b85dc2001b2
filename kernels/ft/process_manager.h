// The manager of this process's replica group for the tfrt_ft quorum ops
// (docs/lighthouse.md, "The tfrt_ft quorum ops"): one per process, made on
// first use from the environment, with a thread of its own on which the
// ops' blocking calls run one after the other, in the order they are
// posted, so that no host-queue thread ever waits on the lighthouse.
//
// The state it serves to recovering peers is the tensors last given to
// tfrt_ft.start_quorum on a HostContext: each host's tensors live in a
// HostReplicaState (a shared context of the host), attached to the manager
// while the host lives, so that nothing of a host's allocator outlives it.
#ifndef SLUICE_KERNELS_FT_PROCESS_MANAGER_H_
#define SLUICE_KERNELS_FT_PROCESS_MANAGER_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "absl/status/statusor.h"
#include "lib/ft/tensor_replica_state.h"
#include "sluice/ft/manager.h"
#include "sluice/host_context/host_context.h"

namespace sluice::ft {

// SLUICE_LIGHTHOUSE: every lighthouse's "host:port", comma-separated.
inline constexpr char kLighthouseVariable[] = "SLUICE_LIGHTHOUSE";
// SLUICE_REPLICA_ID: this replica group's id, stable across restarts.
inline constexpr char kReplicaIdVariable[] = "SLUICE_REPLICA_ID";
// SLUICE_REPLICA_HOST (optional): where this replica listens and what
// peers dial; 127.0.0.1 when unset.
inline constexpr char kReplicaHostVariable[] = "SLUICE_REPLICA_HOST";

class ProcessManager {
 public:
  // The process's manager, made by the first call. The same error for
  // every call when a variable is missing or the manager cannot start.
  static absl::StatusOr<ProcessManager*> Get();

  // Stops the thread (after the work posted so far) and the manager.
  ~ProcessManager();

  // Runs `work` on the manager's thread after everything posted before.
  void Post(std::function<void()> work);

  Manager& manager() { return *manager_; }

  // Serves `state` (a host's) from now on; Detach stops serving it,
  // waiting for a transfer reading it.
  void Attach(TensorReplicaState* state);
  void Detach(TensorReplicaState* state);

 private:
  // What the manager serves and heals into: the attached host's tensors.
  class AttachedState final : public ReplicaState {
   public:
    absl::StatusOr<std::string> Save() override;
    absl::Status Load(std::string_view bytes) override;

    std::mutex mu;
    TensorReplicaState* state = nullptr;  // guarded by mu
  };

  ProcessManager() = default;
  void Loop();

  AttachedState attached_;
  std::unique_ptr<Manager> manager_;
  std::mutex mu_;
  std::condition_variable work_ready_;
  std::deque<std::function<void()>> work_;  // guarded by mu_
  bool stopping_ = false;                   // guarded by mu_
  std::thread thread_;
};

// A host's replica state: the tensors of its programs' start_quorum ops,
// in buffers from the host's allocator, served while the host lives.
class HostReplicaState {
 public:
  explicit HostReplicaState(HostContext* host);
  ~HostReplicaState();
  TensorReplicaState& state() { return state_; }

 private:
  TensorReplicaState state_;
  ProcessManager* process_ = nullptr;  // null when there is none
};

}  // namespace sluice::ft

#endif  // SLUICE_KERNELS_FT_PROCESS_MANAGER_H_
