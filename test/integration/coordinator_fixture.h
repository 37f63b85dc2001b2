// The setup the coordinator's integration tests share: a
// CoordinatorCluster, a client host and a Coordinator over the cluster, and
// bounded waits for closures' results.
#ifndef SLUICE_TEST_INTEGRATION_COORDINATOR_FIXTURE_H_
#define SLUICE_TEST_INTEGRATION_COORDINATOR_FIXTURE_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "sluice/coordinator/coordinator.h"
#include "test/integration/coordinator_cluster.h"

namespace sluice::dist::testing {

class CoordinatorFixture : public ::testing::Test {
 protected:
  // Reserves the tasks' ports and starts every ps task and, unless
  // `start_workers` is false, every worker. Use with
  // ASSERT_NO_FATAL_FAILURE.
  void StartCluster(int num_workers, int num_ps = 0, bool start_workers = true);
  // Options for tests: RPCs other than closures give up after 5 s, so that
  // nothing waits long on a dead task.
  static CoordinatorOptions TestOptions();
  void MakeCoordinator(CoordinatorOptions options = TestOptions());

  // Schedules `function` of the test program; fails the test (and returns
  // no values) when Schedule refuses.
  std::vector<RCReference<AsyncValue>> Schedule(
      std::string_view function, std::vector<ClosureArgument> arguments);
  // The i32 a closure's result resolves to, or its error; an error saying
  // so when it does not resolve within kHangBound.
  static absl::StatusOr<int32_t> I32Of(const RCReference<AsyncValue>& value);
  // Join, bounded: DEADLINE_EXCEEDED "(hung)" past kHangBound.
  absl::Status JoinBounded();

  void TearDown() override;

  std::unique_ptr<CoordinatorCluster> cluster_;
  std::unique_ptr<HostContext> host_;
  std::unique_ptr<Coordinator> coordinator_;
};

}  // namespace sluice::dist::testing

#endif  // SLUICE_TEST_INTEGRATION_COORDINATOR_FIXTURE_H_
