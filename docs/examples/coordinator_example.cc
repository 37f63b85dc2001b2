// The code docs/coordinator.md quotes: two workers and a coordinator in one
// process, talking over loopback gRPC exactly as separate processes would.
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "sluice/compiler/compile_program.h"
#include "sluice/coordinator/coordinator.h"
#include "sluice/distributed/cluster_spec.h"
#include "sluice/distributed/worker_server.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/host_context/host_context.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/kernels/basic_kernels.h"

namespace sluice::dist {
namespace {

std::unique_ptr<HostContext> MakeHost() {
  auto host = std::make_unique<HostContext>([](const DecodedDiagnostic&) {},
                                            CreateMallocAllocator(),
                                            *CreateWorkQueue("mstd:2"));
  EXPECT_TRUE(RegisterBasicKernels(&GetKernelRegistry(host.get())).ok());
  return host;
}

struct Worker {
  std::unique_ptr<HostContext> host = MakeHost();
  std::unique_ptr<WorkerServer> server;

  explicit Worker(const std::string& task_name) {
    WorkerOptions options;
    options.task_name = task_name;
    options.address = "127.0.0.1:0";
    server = *WorkerServer::Start(host.get(), options);
  }
};

TEST(CoordinatorExample, SchedulesClosuresWithAPerWorkerResource) {
  Worker worker0("/job:worker/task:0");
  Worker worker1("/job:worker/task:1");
  const std::string cluster_json =
      absl::StrCat(R"({"worker": ["127.0.0.1:)", worker0.server->port(),
                   R"(", "127.0.0.1:)", worker1.server->port(), R"("]})");
  std::unique_ptr<HostContext> host = MakeHost();

  // [START program]
  absl::StatusOr<std::vector<uint8_t>> compiled = CompileProgram(R"mlir(
    // Runs once on each worker; the result stays there.
    func.func @offset(%worker: i32) -> i32 {
      %thousand = tfrt.constant.i32 1000
      %offset = tfrt.mul.i32 %worker, %thousand
      tfrt.return %offset : i32
    }
    func.func @step(%offset: i32, %x: i32) -> i32 {
      %y = tfrt.add.i32 %offset, %x
      tfrt.return %y : i32
    }
  )mlir");
  auto program =
      std::make_shared<const std::vector<uint8_t>>(*std::move(compiled));
  // [END program]

  // [START coordinator]
  CoordinatorOptions options;
  options.closure_deadline = absl::Seconds(10);
  options.recovery_timeout = absl::Seconds(30);
  absl::StatusOr<std::unique_ptr<Coordinator>> coordinator =
      Coordinator::Create(*ClusterSpec::FromJson(cluster_json), host.get(),
                          options);
  ClosureFunction offset = *ClosureFunction::FromProgram(program, "offset");
  ClosureFunction step = *ClosureFunction::FromProgram(program, "step");

  // Each worker runs @offset with its own index before its first closure.
  PerWorkerResource offsets =
      *(*coordinator)
           ->CreatePerWorkerResource(offset, {ClosureArgument::WorkerIndex()});

  std::vector<RCReference<AsyncValue>> results;
  for (int32_t x = 0; x < 10; ++x) {
    // Returns at once; any worker runs the closure, with its own offset.
    absl::StatusOr<std::vector<RCReference<AsyncValue>>> y =
        (*coordinator)
            ->Schedule(step, {offsets, ClosureArgument::Of<int32_t>(x)});
    results.push_back(std::move((*y)[0]));
  }
  absl::Status joined = (*coordinator)->Join();  // every closure finished
  // [END coordinator]
  ASSERT_TRUE(joined.ok()) << joined;

  std::set<int32_t> offsets_used;
  for (int32_t x = 0; x < 10; ++x) {
    absl::StatusOr<int32_t> y = (*coordinator)->Fetch<int32_t>(results[x]);
    ASSERT_TRUE(y.ok()) << y.status();
    // Worker 0 added 0, worker 1 added 1000.
    EXPECT_TRUE(*y == x || *y == x + 1000) << *y;
    offsets_used.insert(*y - x);
  }
  // Built once on each worker that ran a closure (a fast worker may have
  // taken all ten), and at most once on each worker: a worker builds its
  // resource before it asks for a closure, and may find none left.
  EXPECT_GE((*coordinator)->stats().resource_builds,
            static_cast<int64_t>(offsets_used.size()));
  EXPECT_LE((*coordinator)->stats().resource_builds, 2);
}

}  // namespace
}  // namespace sluice::dist
