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
  void SetUp() override {
    absl::StatusOr<NetworkFaults> faults =
        test_util::StartNetworkFaultTest(kLiveness);
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

  // Starts a call that spins until cancelled; its results.
  std::vector<RCReference<AsyncValue>> StartSpin() {
    auto program = CompileProgram(kProgram, "liveness.mlir");
    EXPECT_TRUE(program.ok()) << program.status();
    AsyncValueRef<RemoteProgram> registered = task_->RegisterProgram(*program);
    client_host_->Await(registered.CopyRCRef());
    EXPECT_FALSE(registered.IsError()) << registered.GetError();
    std::vector<AsyncValue*> arguments = {
        MakeAvailableAsyncValueRef<int32_t>(1000000).ReleaseRCRef().release()};
    auto results =
        task_->Call(*registered->GetFunction("spin"), arguments, nullptr);
    arguments[0]->DropRef();
    // Running on the worker before the network fails.
    absl::SleepFor(absl::Milliseconds(300));
    return results;
  }

  // How long after the cut the spinning call failed, and that it failed
  // as a lost connection, not a deadline.
  absl::Duration ExpectSilent(std::vector<RCReference<AsyncValue>>& results,
                              absl::Time cut) {
    client_host_->Await(results);
    const absl::Duration detected = absl::Now() - cut;
    EXPECT_TRUE(results[0]->IsError());
    if (!results[0]->IsError()) return detected;
    const absl::Status& error = results[0]->GetError();
    std::fprintf(stderr, "detected after %s: %s\n",
                 absl::FormatDuration(detected).c_str(),
                 error.ToString().c_str());
    EXPECT_EQ(error.code(), absl::StatusCode::kUnavailable) << error;
    EXPECT_EQ(Classify(error), FailureClass::kRetryable) << error;
    EXPECT_THAT(error.message(),
                HasSubstr("remote call of 'spin' on task /job:worker/task:0 "
                          "failed: the connection went silent"))
        << error;
    // The bound: the liveness timeout and the ping's own second, with room
    // for a loaded machine; far from the 60 s deadline either way.
    EXPECT_LT(detected, kLiveness + kLivenessPingTimeout + absl::Seconds(2))
        << error;
    return detected;
  }

  absl::StatusOr<TaskStatus> Status() {
    AsyncValueRef<TaskStatus> status = task_->GetStatus(absl::Seconds(5));
    client_host_->Await(status.CopyRCRef());
    if (status.IsError()) return status.GetError();
    return status.get();
  }

  std::optional<NetworkFaults> faults_;
  std::unique_ptr<HostContext> worker_host_;
  std::unique_ptr<WorkerServer> server_;
  std::unique_ptr<HostContext> client_host_;
  std::unique_ptr<ClusterClient> client_;
  TaskClient* task_ = nullptr;
};

TEST_F(LivenessTest, ACallToASilentWorkerFailsWithinTheLivenessBound) {
  auto results = StartSpin();
  ASSERT_TRUE(faults_->Blackhole(server_->port(), Traffic::kBothWays).ok());
  ExpectSilent(results, absl::Now());
}

// A one-way cut is as fatal as a two-way one: the client's pings go
// unanswered whether they are lost or their answers are.
TEST_F(LivenessTest, AWorkerThatHearsNothingIsSilent) {
  auto results = StartSpin();
  ASSERT_TRUE(faults_->Blackhole(server_->port(), Traffic::kToPort).ok());
  ExpectSilent(results, absl::Now());
}

TEST_F(LivenessTest, AWorkerWhoseAnswersAreLostIsSilent) {
  auto results = StartSpin();
  ASSERT_TRUE(faults_->Blackhole(server_->port(), Traffic::kFromPort).ok());
  ExpectSilent(results, absl::Now());
}

// Once the network heals, the same client reaches the worker again, and
// the worker, whose own pings to the silent client went unanswered too,
// cancelled the call it was running for it: nothing spins for nobody.
TEST_F(LivenessTest, AfterTheNetworkHealsTheWorkerServesAndDroppedTheCall) {
  auto results = StartSpin();
  ASSERT_TRUE(faults_->Blackhole(server_->port(), Traffic::kBothWays).ok());
  ExpectSilent(results, absl::Now());
  // The worker's side gives up within the same bound.
  absl::SleepFor(kLiveness + kServerPingDelay + kLivenessPingTimeout);
  ASSERT_TRUE(faults_->Heal().ok());

  const absl::Time healed = absl::Now();
  absl::StatusOr<TaskStatus> status = Status();
  while (!(status.ok() && status->active_executions == 0) &&
         absl::Now() - healed < absl::Seconds(10)) {
    absl::SleepFor(absl::Milliseconds(100));
    status = Status();
  }
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->active_executions, 0);
  std::fprintf(stderr, "served again %s after the heal\n",
               absl::FormatDuration(absl::Now() - healed).c_str());
}

// An idle connection costs one ping and its answer per liveness period:
// the client pings, and the worker, which hears the ping, has no need to.
TEST_F(LivenessTest, AnIdleConnectionCostsOnePingPerPeriod) {
  absl::StatusOr<TaskStatus> status = Status();
  ASSERT_TRUE(status.ok()) << status.status();
  ASSERT_TRUE(faults_->CountSegmentsWithData(server_->port()).ok());
  constexpr int kPeriods = 8;
  absl::SleepFor(kPeriods * kLiveness);
  absl::StatusOr<NetworkFaults::Segments> segments =
      faults_->SegmentsWithData(server_->port());
  ASSERT_TRUE(segments.ok()) << segments.status();
  std::fprintf(stderr,
               "idle for %d periods: %lld segments with data to the worker, "
               "%lld from it\n",
               kPeriods, static_cast<long long>(segments->to_port),
               static_cast<long long>(segments->from_port));
  // Pings are HTTP/2 frames of their own: one segment each way per ping.
  EXPECT_LE(segments->to_port, kPeriods + 1);
  EXPECT_LE(segments->from_port, kPeriods + 1);
  // And there are pings: the peer's silence would be noticed.
  EXPECT_GE(segments->to_port, kPeriods / 2);
}

}  // namespace
}  // namespace sluice::dist
