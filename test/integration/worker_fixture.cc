#include "test/integration/worker_fixture.h"

#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "sluice/support/error_util.h"

namespace sluice::dist::testing {

void WorkerFixture::StartCluster(int num_tasks, RpcOptions options,
                                 bool start_workers,
                                 std::vector<std::string> worker_flags) {
  worker_flags_ = std::move(worker_flags);
  std::vector<std::string> addresses;
  for (int i = 0; i < num_tasks; ++i) {
    absl::StatusOr<PortReservation> port = PortReservation::Reserve();
    ASSERT_TRUE(port.ok()) << port.status();
    addresses.push_back(port->address());
    ports_.push_back(*std::move(port));
  }
  workers_.resize(num_tasks);
  if (start_workers) {
    for (int i = 0; i < num_tasks; ++i) {
      ASSERT_NO_FATAL_FAILURE(StartWorker(i));
    }
  }
  host_ = MakeClientHost();
  client_ = std::make_unique<ClusterClient>(WorkerCluster(addresses), options,
                                            host_.get());
  for (int i = 0; i < num_tasks; ++i) {
    absl::StatusOr<TaskClient*> task = client_->GetTask(Name(i));
    ASSERT_TRUE(task.ok()) << task.status();
    tasks_.push_back(*task);
  }
  if (start_workers) {
    // A session starts with the status RPC (docs: the fail-fast policy),
    // which waits for the connection; execution RPCs then find it ready.
    AsyncValueRef<std::vector<TaskStatus>> all = client_->CheckAllTasks();
    ASSERT_TRUE(AwaitFor(all.CopyRCRef()));
    ASSERT_FALSE(all.IsError()) << all.GetError();
  }
}

void WorkerFixture::StartWorker(int index) {
  workers_[index].reset();
  WorkerProcessOptions options;
  options.task_name = Name(index);
  options.port = ports_[index].port();
  options.flags = worker_flags_;
  options.enable_test_kernels = worker_enable_test_kernels_;
  options.environment = worker_environment_;
  absl::StatusOr<std::unique_ptr<WorkerProcess>> worker =
      WorkerProcess::Start(std::move(options));
  ASSERT_TRUE(worker.ok()) << worker.status();
  workers_[index] = *std::move(worker);
}

void WorkerFixture::TearDown() {
  // The client first: it cancels what is still in flight and waits for it.
  client_.reset();
  host_.reset();
  workers_.clear();
}

FailFastPolicy WaitForReadyPolicyFromEnvironment() {
  setenv("SLUICE_RPC_FAIL_FAST", "false", /*overwrite=*/1);
  absl::StatusOr<FailFastPolicy> policy = FailFastPolicyFromEnvironment();
  unsetenv("SLUICE_RPC_FAIL_FAST");
  EXPECT_TRUE(policy.ok()) << policy.status();
  EXPECT_EQ(policy.value_or(FailFastPolicy::kTrue), FailFastPolicy::kFalse);
  return policy.value_or(FailFastPolicy::kTrue);
}

void ExpectTaskError(const RCReference<AsyncValue>& result,
                     absl::StatusCode code, FailureClass failure_class,
                     std::string_view what, std::string_view task) {
  ASSERT_TRUE(result->IsError());
  const absl::Status& error = result->GetError();
  EXPECT_EQ(error.code(), code) << error;
  EXPECT_EQ(FailureClassName(Classify(error)), FailureClassName(failure_class))
      << error;
  EXPECT_THAT(error.message(), ::testing::HasSubstr(std::string(what)))
      << error;
  EXPECT_THAT(error.message(),
              ::testing::HasSubstr(absl::StrCat("on task ", std::string(task))))
      << error;
  EXPECT_EQ(GetErrorContext(error).task, task) << error;
}

}  // namespace sluice::dist::testing
