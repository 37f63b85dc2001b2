// The manager of this process's replica group for the tfrt_ft quorum ops
// (docs/lighthouse.md, "The tfrt_ft quorum ops"): one per process, made on
// first use from the environment, with a thread of its own on which the
// ops' blocking calls run one after the other, in the order they are
// posted, so that no host-queue thread ever waits on the lighthouse.
#ifndef SLUICE_KERNELS_FT_PROCESS_MANAGER_H_
#define SLUICE_KERNELS_FT_PROCESS_MANAGER_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "absl/status/statusor.h"
#include "lib/ft/tensor_replica_state.h"
#include "sluice/ft/manager.h"
#include "sluice/host_context/host_allocator.h"

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
  // The process's manager, made by the first call (with `allocator` for
  // the tensors it heals into, which must outlive the process's use of
  // it). The same error for every call when a variable is missing or the
  // manager cannot start.
  static absl::StatusOr<ProcessManager*> Get(HostAllocator* allocator);

  // Stops the thread (after the work posted so far) and the manager.
  ~ProcessManager();

  // Runs `work` on the manager's thread after everything posted before.
  void Post(std::function<void()> work);

  Manager& manager() { return *manager_; }
  // The tensors served to recovering peers: those last passed to
  // tfrt_ft.start_quorum, or received when this replica healed.
  TensorReplicaState& state() { return state_; }

 private:
  explicit ProcessManager(HostAllocator* allocator);
  void Loop();

  TensorReplicaState state_;
  std::unique_ptr<Manager> manager_;
  std::mutex mu_;
  std::condition_variable work_ready_;
  std::deque<std::function<void()>> work_;  // guarded by mu_
  bool stopping_ = false;                   // guarded by mu_
  std::thread thread_;
};

}  // namespace sluice::ft

#endif  // SLUICE_KERNELS_FT_PROCESS_MANAGER_H_
