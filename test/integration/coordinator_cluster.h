// A parameter-server cluster on 127.0.0.1 for the coordinator's tests,
// its chaos run and its benchmarks: worker and ps tasks as sluice_worker
// processes on reserved ports, restartable one by one, and the program
// their closures call. No gtest here: the chaos driver and the benchmarks
// use it too.
#ifndef SLUICE_TEST_INTEGRATION_COORDINATOR_CLUSTER_H_
#define SLUICE_TEST_INTEGRATION_COORDINATOR_CLUSTER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sluice/coordinator/coordinator.h"
#include "sluice/distributed/cluster_spec.h"
#include "test/integration/worker_process.h"

namespace sluice::dist::testing {

// Functions of CoordinatorTestProgram():
//   add(i32 a, i32 b) -> i32
//   sleep_then_add(i32 ms, i32 a, i32 b) -> i32   ms sleeps of 1 ms, each
//       printing "Slept for" on the worker, then a + b
//   identity(i32) -> i32                          a per-worker resource
//   pair(i32 r, i32 i) -> (i32, i32)              (r, i)
//   fail() -> i32                                 tfrt_test.fail's error
//   empty() -> !tfrt.chain
//   bump(!tfrt_dist.variable v, !t.tensor d, i32 ms) -> !tfrt.chain
//       assign-adds d to v on its parameter server, then sleeps ms
//       milliseconds: a worker killed in the sleep has applied the update
//       and not answered
std::shared_ptr<const std::vector<uint8_t>> CoordinatorTestProgram();

// The function `name` of CoordinatorTestProgram(); aborts if it has none.
ClosureFunction CoordinatorTestFunction(std::string_view name);

class CoordinatorCluster {
 public:
  // Reserves ports for `num_workers` worker and `num_ps` ps tasks; starts
  // nothing.
  static absl::StatusOr<std::unique_ptr<CoordinatorCluster>> Reserve(
      int num_workers, int num_ps);
  // Kills every process.
  ~CoordinatorCluster();

  // {"worker": [...], "ps": [...]}.
  const ClusterSpec& spec() const { return spec_; }
  int num_workers() const { return static_cast<int>(workers_.size()); }

  // (Re)starts worker `index` (a running one is killed first) with the
  // cluster in SLUICE_CLUSTER and `environment` ("NAME=value") on top.
  absl::Status StartWorker(int index,
                           std::vector<std::string> environment = {});
  absl::Status StartPs(int index);
  // Starts every ps task, then every worker.
  absl::Status StartAll();

  // Null while the task has not been started.
  WorkerProcess* worker(int index) { return workers_[index].get(); }
  WorkerProcess* ps(int index) { return ps_[index].get(); }

 private:
  CoordinatorCluster() = default;
  absl::StatusOr<std::unique_ptr<WorkerProcess>> Start(
      std::string task_name, const PortReservation& port,
      std::vector<std::string> environment);

  std::vector<PortReservation> worker_ports_;
  std::vector<PortReservation> ps_ports_;
  std::string spec_json_;
  ClusterSpec spec_;
  std::vector<std::unique_ptr<WorkerProcess>> workers_;
  std::vector<std::unique_ptr<WorkerProcess>> ps_;
};

}  // namespace sluice::dist::testing

#endif  // SLUICE_TEST_INTEGRATION_COORDINATOR_CLUSTER_H_
