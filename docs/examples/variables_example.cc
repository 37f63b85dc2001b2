// The code docs/variables.md quotes: two parameter servers and a client in
// one process, talking over loopback gRPC exactly as separate processes
// would.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "sluice/coordinator/variable_service.h"
#include "sluice/coordinator/variables.h"
#include "sluice/distributed/cluster_spec.h"
#include "sluice/distributed/worker_server.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/host_context/host_context.h"
#include "sluice/support/failure.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice::dist {
namespace {

std::unique_ptr<HostContext> MakeHost() {
  return std::make_unique<HostContext>([](const DecodedDiagnostic&) {},
                                       CreateMallocAllocator(),
                                       *CreateWorkQueue("mstd:2"));
}

// One parameter-server task, as sluice_worker serves one.
struct ParameterServer {
  std::unique_ptr<HostContext> host = MakeHost();
  std::unique_ptr<VariableService> variables;
  std::unique_ptr<WorkerServer> server;

  explicit ParameterServer(const std::string& task_name) {
    // [START serve]
    variables = std::make_unique<VariableService>(task_name, host->allocator());
    WorkerOptions options;
    options.task_name = task_name;  // "/job:ps/task:0"
    options.address = "127.0.0.1:0";
    options.services.push_back(variables->service());
    server = *WorkerServer::Start(host.get(), options);
    // [END serve]
  }
};

TEST(VariablesExample, TrainsAVariableOnTwoParameterServers) {
  ParameterServer ps0("/job:ps/task:0");
  ParameterServer ps1("/job:ps/task:1");
  const std::string cluster_json =
      absl::StrCat(R"({"ps": ["127.0.0.1:)", ps0.server->port(),
                   R"(", "127.0.0.1:)", ps1.server->port(), R"("]})");
  std::unique_ptr<HostContext> host = MakeHost();

  // [START client]
  absl::StatusOr<ClusterSpec> spec = ClusterSpec::FromJson(cluster_json);
  RpcOptions options;
  options.deadline = absl::Seconds(10);
  VariableClient variables(*spec, options, host.get());

  DenseHostTensor zeros = *DenseHostTensor::Create(
      DType::kF32, TensorShape({2}), host->allocator());
  for (float& x : zeros.mutable_values<float>()) x = 0;
  // Round robin: "w" goes to /job:ps/task:0, "b" to /job:ps/task:1.
  AsyncValueRef<VariableHandle> w = variables.Create("w", zeros);
  AsyncValueRef<VariableHandle> b = variables.Create("b", zeros);
  host->Await({w.CopyRCRef(), b.CopyRCRef()});
  if (w.IsError()) {
    std::cerr << w.GetError() << "\n";
    return;
  }

  DenseHostTensor gradient = *DenseHostTensor::Create(
      DType::kF32, TensorShape({2}), host->allocator());
  gradient.mutable_values<float>()[0] = 1.0f;
  gradient.mutable_values<float>()[1] = -2.0f;
  // Updates from any number of clients are applied one at a time, whole.
  AsyncValueRef<Chain> stepped = variables.ApplySgd(*w, gradient, 0.5);
  host->Await(stepped.CopyRCRef());
  AsyncValueRef<DenseHostTensor> value = variables.Read(*w);
  host->Await(value.CopyRCRef());
  if (value.IsError()) {
    // Names the task and the variable; a task that is down or did not
    // answer in time makes a retryable error.
    const bool retry = Classify(value.GetError()) == FailureClass::kRetryable;
    std::cerr << value.GetError() << (retry ? " (retryable)" : "") << "\n";
  } else {
    std::cout << value->ToString() << "\n";  // values = [-5.0e-01, 1.0e+00]
  }
  // [END client]

  EXPECT_EQ(w->task, "/job:ps/task:0");
  EXPECT_EQ(b->task, "/job:ps/task:1");
  ASSERT_FALSE(value.IsError()) << value.GetError();
  EXPECT_EQ(value->values<float>()[0], -0.5f);
  EXPECT_EQ(value->values<float>()[1], 1.0f);
}

}  // namespace
}  // namespace sluice::dist
