// The code docs/distributed.md quotes: a worker and a client in one process,
// talking over loopback gRPC exactly as separate processes would.
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "sluice/compiler/compile_program.h"
#include "sluice/distributed/cluster_spec.h"
#include "sluice/distributed/remote_client.h"
#include "sluice/distributed/rpc_options.h"
#include "sluice/distributed/worker_server.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/host_context/host_context.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/kernels/basic_kernels.h"
#include "sluice/support/error_util.h"

namespace sluice::dist {
namespace {

std::unique_ptr<HostContext> MakeHost() {
  auto host = std::make_unique<HostContext>([](const DecodedDiagnostic&) {},
                                            CreateMallocAllocator(),
                                            *CreateWorkQueue("mstd:2"));
  EXPECT_TRUE(RegisterBasicKernels(&GetKernelRegistry(host.get())).ok());
  return host;
}

TEST(DistributedExample, CallsAFunctionOnAWorker) {
  std::unique_ptr<HostContext> worker_host = MakeHost();
  // [START worker]
  WorkerOptions worker_options;
  worker_options.task_name = "/job:worker/task:0";
  worker_options.address = "127.0.0.1:0";  // any free port
  absl::StatusOr<std::unique_ptr<WorkerServer>> worker =
      WorkerServer::Start(worker_host.get(), worker_options);
  // [END worker]
  ASSERT_TRUE(worker.ok()) << worker.status();
  const std::string cluster_json =
      absl::StrCat(R"({"worker": ["127.0.0.1:)", (*worker)->port(), R"("]})");

  std::unique_ptr<HostContext> host = MakeHost();
  absl::StatusOr<std::vector<uint8_t>> program = CompileProgram(R"mlir(
    func.func @scale(%x: i32) -> i32 {
      %ten = tfrt.constant.i32 10
      %y = tfrt.mul.i32 %x, %ten
      tfrt.return %y : i32
    }
  )mlir");
  ASSERT_TRUE(program.ok()) << program.status();

  // [START client]
  absl::StatusOr<ClusterSpec> spec = ClusterSpec::FromJson(cluster_json);
  RpcOptions options;
  options.fail_fast = *FailFastPolicyFromEnvironment();
  options.deadline = absl::Seconds(10);
  ClusterClient cluster(*spec, options, host.get());
  TaskClient* task = *cluster.GetTask("/job:worker/task:0");

  // Starts the session: waits for the task to come up (until the deadline).
  AsyncValueRef<TaskStatus> status = task->GetStatus();
  // Sends the program once; the answer lists its functions and signatures.
  AsyncValueRef<RemoteProgram> registered = task->RegisterProgram(*program);
  host->Await({status.CopyRCRef(), registered.CopyRCRef()});
  if (status.IsError()) {
    std::cerr << DescribeError(status.GetError()) << "\n";
    return;
  }
  absl::StatusOr<RemoteFunction> scale = registered->GetFunction("scale");

  AsyncValueRef<int32_t> x = MakeAvailableAsyncValueRef<int32_t>(4);
  AsyncValue* arguments[] = {x.GetAsyncValue()};
  std::vector<RCReference<AsyncValue>> results =
      task->Call(*scale, arguments, /*request=*/nullptr);
  host->Await(results);
  if (results[0]->IsError()) {
    // Names the task and the function; GetErrorContext(...).task says
    // which task failed.
    std::cerr << DescribeError(results[0]->GetError()) << "\n";
  } else {
    std::cout << "scale(4) = " << results[0]->get<int32_t>() << "\n";
  }
  // [END client]
  ASSERT_FALSE(status.IsError());
  ASSERT_FALSE(results[0]->IsError()) << results[0]->GetError();
  EXPECT_EQ(results[0]->get<int32_t>(), 40);
}

}  // namespace
}  // namespace sluice::dist
