// WorkerFixture: the setup most integration tests share: N sluice_worker
// processes, task i on its own reserved port, and one client for all of
// them. Workers start from the test's main thread (see worker_process.h).
#ifndef SLUICE_TEST_INTEGRATION_WORKER_FIXTURE_H_
#define SLUICE_TEST_INTEGRATION_WORKER_FIXTURE_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "sluice/distributed/remote_client.h"
#include "sluice/distributed/rpc_options.h"
#include "sluice/support/failure.h"
#include "test/integration/remote_test_util.h"
#include "test/integration/worker_process.h"

namespace sluice::dist::testing {

class WorkerFixture : public ::testing::Test {
 protected:
  // Reserves `num_tasks` ports, starts a worker on each unless
  // `start_workers` is false, and makes the client, which then checks that
  // every started worker answers. Use with ASSERT_NO_FATAL_FAILURE.
  void StartCluster(int num_tasks, RpcOptions options = RpcOptions(),
                    bool start_workers = true,
                    std::vector<std::string> worker_flags = {
                        "--work_queue_type=mstd:2"});

  // (Re)starts the worker of task `index` on its port; a worker already
  // there is replaced (killed first).
  void StartWorker(int index);

  void TearDown() override;

  WorkerProcess& worker(int index) { return *workers_[index]; }
  TaskClient* task(int index) { return tasks_[index]; }
  static std::string Name(int index) { return TaskName("worker", index); }

  std::vector<PortReservation> ports_;
  std::vector<std::unique_ptr<WorkerProcess>> workers_;
  std::vector<std::string> worker_flags_;
  // Whether the workers serve the tfrt_test kernels (see
  // WorkerProcessOptions); set before StartCluster.
  bool worker_enable_test_kernels_ = true;
  // Set for every worker started, as "NAME=value" (see WorkerProcessOptions).
  std::vector<std::string> worker_environment_;
  std::unique_ptr<HostContext> host_;
  std::unique_ptr<ClusterClient> client_;
  std::vector<TaskClient*> tasks_;
};

// The policy a deployed client reads from SLUICE_RPC_FAIL_FAST=false (set
// only while it is read): waiting for a worker instead of failing fast.
FailFastPolicy WaitForReadyPolicyFromEnvironment();

// Checks that `result` failed with `code` and `failure_class`, that its
// message contains `what` ("remote call of 'add'") and names `task`, and
// that its ErrorContext records `task`.
void ExpectTaskError(const RCReference<AsyncValue>& result,
                     absl::StatusCode code, FailureClass failure_class,
                     std::string_view what, std::string_view task);

}  // namespace sluice::dist::testing

#endif  // SLUICE_TEST_INTEGRATION_WORKER_FIXTURE_H_
