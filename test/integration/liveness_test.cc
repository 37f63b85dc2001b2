// A worker whose packets stop (a host that lost power, a cut link) sends no
// reset: without liveness a call to it waits out its deadline. Here the
// worker's port is blackholed in a network namespace of the test's own
// while a long call runs on it; the call must fail within the liveness
// timeout and a second, as UNAVAILABLE saying the connection went silent,
// long before its deadline.
#include "sluice/support/liveness.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/compiler/compile_program.h"
#include "sluice/distributed/remote_client.h"
#include "sluice/distributed/worker_server.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/kernels/basic_kernels.h"
#include "sluice/kernels/test_kernels.h"
#include "sluice/support/failure.h"
#include "test/util/network_faults.h"

namespace sluice::dist {
namespace {

using test_util::NetworkFaults;
using test_util::Traffic;
using ::testing::HasSubstr;

// 10^6 sleeps of 1 ms: ends only when cancelled.
constexpr char kProgram[] = R"mlir(
func.func @spin(%n: i32) -> i32 {
  %zero = tfrt.constant.i32 0
  %ch0 = tfrt.new.chain
  %x, %ch1 = tfrt.repeat.i32 %n, %zero, %ch0 : i32, !tfrt.chain {
    %ms = tfrt.constant.i32 1000
    %ch2 = "tfrt_test.blocking.usleep"(%ms) : (i32) -> !tfrt.chain
    tfrt.return %zero, %ch2 : i32, !tfrt.chain
  }
  tfrt.return %x : i32
}
)mlir";

constexpr absl::Duration kLiveness = absl::Seconds(1);
constexpr absl::Duration kDeadline = absl::Seconds(60);

std::unique_ptr<HostContext> MakeHost(const char* queue) {
  auto host = std::make_unique<HostContext>([](const DecodedDiagnostic&) {},
                                            CreateMallocAllocator(),
                                            *CreateWorkQueue(queue));
  EXPECT_TRUE(RegisterBasicKernels(&GetKernelRegistry(host.get())).ok());
  EXPECT_TRUE(RegisterTestKernels(&GetKernelRegistry(host.get())).ok());
  return host;
}

class LivenessTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    entered_ = new absl::Status(test_util::EnterOwnNetworkNamespace());
  }

  void SetUp() override {
    if (!entered_->ok()) GTEST_SKIP() << *entered_;
    absl::StatusOr<NetworkFaults> faults = NetworkFaults::Create();
    if (!faults.ok()) GTEST_SKIP() << faults.status();
    faults_.emplace(std::move(*faults));

    worker_host_ = MakeHost("mstd:2");
    WorkerOptions options;
    options.task_name = "/job:worker/task:0";
    options.address = "127.0.0.1:0";
    options.liveness_timeout = kLiveness;
    auto server = WorkerServer::Start(worker_host_.get(), options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);

    client_host_ = MakeHost("s");
    auto spec = ClusterSpec::FromJson(
        absl::StrCat(R"({"worker": ["127.0.0.1:)", server_->port(), R"("]})"));
    ASSERT_TRUE(spec.ok());
    RpcOptions rpc;
    rpc.deadline = kDeadline;
    rpc.liveness_timeout = kLiveness;
    client_ = std::make_unique<ClusterClient>(*spec, rpc, client_host_.get());
    task_ = *client_->GetTask("/job:worker/task:0");
  }

  void TearDown() override {
    if (faults_) faults_->Heal().IgnoreError();
    client_.reset();
    client_host_.reset();
    server_.reset();
    worker_host_.reset();
  }

  static absl::Status* entered_;
  std::optional<NetworkFaults> faults_;
  std::unique_ptr<HostContext> worker_host_;
  std::unique_ptr<WorkerServer> server_;
  std::unique_ptr<HostContext> client_host_;
  std::unique_ptr<ClusterClient> client_;
  TaskClient* task_ = nullptr;
};

absl::Status* LivenessTest::entered_ = nullptr;

TEST_F(LivenessTest, ACallToASilentWorkerFailsWithinTheLivenessBound) {
  auto program = CompileProgram(kProgram, "liveness.mlir");
  ASSERT_TRUE(program.ok()) << program.status();
  AsyncValueRef<RemoteProgram> registered = task_->RegisterProgram(*program);
  client_host_->Await(registered.CopyRCRef());
  ASSERT_FALSE(registered.IsError()) << registered.GetError();

  std::vector<AsyncValue*> arguments = {
      MakeAvailableAsyncValueRef<int32_t>(1000000).ReleaseRCRef().release()};
  auto results =
      task_->Call(*registered->GetFunction("spin"), arguments, nullptr);
  arguments[0]->DropRef();
  absl::SleepFor(absl::Milliseconds(300));
  ASSERT_TRUE(faults_->Blackhole(server_->port(), Traffic::kBothWays).ok());
  const absl::Time cut = absl::Now();
  client_host_->Await(results);
  const absl::Duration detected = absl::Now() - cut;

  ASSERT_TRUE(results[0]->IsError());
  std::fprintf(stderr, "detected after %s: %s\n",
               absl::FormatDuration(detected).c_str(),
               results[0]->GetError().ToString().c_str());
  const absl::Status& error = results[0]->GetError();
  EXPECT_EQ(error.code(), absl::StatusCode::kUnavailable) << error;
  EXPECT_EQ(Classify(error), FailureClass::kRetryable) << error;
  EXPECT_THAT(error.message(), HasSubstr("/job:worker/task:0")) << error;
  EXPECT_THAT(error.message(), HasSubstr("went silent")) << error;
  // The bound: the liveness timeout and the ping's own second, with room
  // for a loaded machine; far from the 60 s deadline either way.
  EXPECT_LT(detected, kLiveness + kLivenessPingTimeout + absl::Seconds(2))
      << error;
}

}  // namespace
}  // namespace sluice::dist
