#include "test/integration/coordinator_fixture.h"

#include <future>
#include <thread>
#include <utility>

#include "test/integration/remote_test_util.h"

namespace sluice::dist::testing {

void CoordinatorFixture::StartCluster(int num_workers, int num_ps,
                                      bool start_workers) {
  absl::StatusOr<std::unique_ptr<CoordinatorCluster>> cluster =
      CoordinatorCluster::Reserve(num_workers, num_ps);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  cluster_ = *std::move(cluster);
  for (int i = 0; i < num_ps; ++i) {
    absl::Status started = cluster_->StartPs(i);
    ASSERT_TRUE(started.ok()) << started;
  }
  for (int i = 0; start_workers && i < num_workers; ++i) {
    absl::Status started = cluster_->StartWorker(i);
    ASSERT_TRUE(started.ok()) << started;
  }
  host_ = MakeClientHost();
}

CoordinatorOptions CoordinatorFixture::TestOptions() {
  CoordinatorOptions options;
  options.rpc.deadline = absl::Seconds(5);
  return options;
}

void CoordinatorFixture::MakeCoordinator(CoordinatorOptions options) {
  absl::StatusOr<std::unique_ptr<Coordinator>> coordinator =
      Coordinator::Create(cluster_->spec(), host_.get(), std::move(options));
  ASSERT_TRUE(coordinator.ok()) << coordinator.status();
  coordinator_ = *std::move(coordinator);
}

std::vector<RCReference<AsyncValue>> CoordinatorFixture::Schedule(
    std::string_view function, std::vector<ClosureArgument> arguments) {
  absl::StatusOr<std::vector<RCReference<AsyncValue>>> results =
      coordinator_->Schedule(CoordinatorTestFunction(function),
                             std::move(arguments));
  EXPECT_TRUE(results.ok()) << results.status();
  if (!results.ok()) return {};
  return *std::move(results);
}

absl::StatusOr<int32_t> CoordinatorFixture::I32Of(
    const RCReference<AsyncValue>& value) {
  if (!AwaitFor(value)) {
    return absl::DeadlineExceededError("TEST HARNESS: the result hung");
  }
  if (value->IsError()) return value->GetError();
  return value->get<int32_t>();
}

absl::Status CoordinatorFixture::JoinBounded() {
  // On a hang the thread is detached and the coordinator leaked, so that
  // the test fails instead of waiting, and nothing is freed under the
  // thread.
  auto joined = std::make_shared<std::promise<absl::Status>>();
  std::future<absl::Status> result = joined->get_future();
  std::thread([coordinator = coordinator_.get(), joined] {
    joined->set_value(coordinator->Join());
  }).detach();
  if (result.wait_for(absl::ToChronoSeconds(kHangBound)) !=
      std::future_status::ready) {
    coordinator_.release();  // NOLINT: leaked on purpose, see above
    return absl::DeadlineExceededError("TEST HARNESS: Join hung");
  }
  return result.get();
}

void CoordinatorFixture::TearDown() {
  coordinator_.reset();
  cluster_.reset();
  host_.reset();
}

}  // namespace sluice::dist::testing
