// A remote call of a traced, observed request, from a tfrt_dist.call kernel
// to a worker in the same process over loopback gRPC: while the worker
// runs, the hang explainer names the call as the root cause; once answered,
// the caller's trace has the call's span and the start of a flow arrow
// inside the kernel's span, and the worker's trace ends that arrow inside
// its span of the execution.
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/dist/distributed_context.h"
#include "llvm/Support/JSON.h"
#include "sluice/compiler/compile_program.h"
#include "sluice/distributed/cluster_spec.h"
#include "sluice/distributed/worker_server.h"
#include "sluice/executor/hang_explainer.h"
#include "sluice/executor/program.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/host_context/request_context.h"
#include "sluice/host_context/tracer.h"
#include "sluice/kernels/basic_kernels.h"
#include "sluice/kernels/dist_kernels.h"
#include "sluice/kernels/test_kernels.h"

namespace sluice {
namespace {

using ::testing::ContainsRegex;

constexpr char kProgram[] = R"mlir(
func.func @sleep(%n: i32) -> !tfrt.chain {
  %done = "tfrt_test.blocking.usleep"(%n) : (i32) -> !tfrt.chain
  tfrt.return %done : !tfrt.chain
}

func.func @main() -> !tfrt.chain {
  %task = tfrt_dist.get_task_handle "/job:worker/task:0"
  %sleep = tfrt_dist.register_function %task @sleep
  %n = tfrt.constant.i32 400000
  %done = tfrt_dist.call %sleep(%n) : (i32) -> !tfrt.chain
  tfrt.return %done : !tfrt.chain
}
)mlir";

std::unique_ptr<HostContext> MakeHost(const char* queue) {
  auto host = std::make_unique<HostContext>([](const DecodedDiagnostic&) {},
                                            CreateMallocAllocator(),
                                            *CreateWorkQueue(queue));
  KernelRegistry& registry = GetKernelRegistry(host.get());
  EXPECT_TRUE(RegisterBasicKernels(&registry).ok());
  EXPECT_TRUE(RegisterTestKernels(&registry).ok());
  EXPECT_TRUE(RegisterDistKernels(&registry).ok());
  return host;
}

struct Event {
  std::string phase;
  std::string name;
  double time = 0;
  double end = 0;
  int64_t tid = 0;
  int64_t id = 0;
};

std::vector<Event> Events(const Tracer& tracer) {
  std::vector<Event> events;
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(tracer.ToJson());
  EXPECT_TRUE(static_cast<bool>(parsed));
  if (!parsed) return events;
  for (const llvm::json::Value& value :
       *parsed->getAsObject()->getArray("traceEvents")) {
    const llvm::json::Object& object = *value.getAsObject();
    Event event;
    event.phase = object.getString("ph")->str();
    if (event.phase == "M") continue;
    event.name = object.getString("name")->str();
    event.time = *object.getNumber("ts");
    event.end = event.time + object.getNumber("dur").value_or(0);
    event.tid = *object.getInteger("tid");
    event.id = object.getInteger("id").value_or(0);
    events.push_back(event);
  }
  return events;
}

const Event* Find(const std::vector<Event>& events, const std::string& phase,
                  const std::string& name) {
  for (const Event& event : events) {
    if (event.phase == phase && event.name == name) return &event;
  }
  return nullptr;
}

TEST(RemoteTraceTest, ExplainsTheCallInFlightAndLinksBothTraces) {
  Tracer worker_tracer("worker");
  RequestObservers worker_observers;
  worker_observers.tracer = &worker_tracer;
  std::unique_ptr<HostContext> worker_host = MakeHost("mstd:2");
  dist::WorkerOptions options;
  options.task_name = "/job:worker/task:0";
  options.address = "127.0.0.1:0";
  options.observers = &worker_observers;
  auto server = dist::WorkerServer::Start(worker_host.get(), options);
  ASSERT_TRUE(server.ok()) << server.status();

  Tracer tracer("client");
  ActivityRegistry activity;
  RequestObservers observers{&tracer, &activity};
  // Multi-threaded, so that the call proceeds while the test polls.
  std::unique_ptr<HostContext> host = MakeHost("mstd:2");
  auto spec = dist::ClusterSpec::FromJson(
      absl::StrCat(R"({"worker": ["127.0.0.1:)", (*server)->port(), R"("]})"));
  ASSERT_TRUE(spec.ok());
  auto& distributed = host->GetOrCreateSharedContext<DistributedContext>();
  ASSERT_TRUE(distributed.Configure(*spec, dist::RpcOptions()).ok());
  auto bytes = CompileProgram(kProgram, "remote.mlir");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto program = Program::Load(*bytes, GetKernelRegistry(host.get()));
  ASSERT_TRUE(program.ok()) << program.status();

  RCReference<RequestContext> request = RequestContext::Create(host.get());
  request->set_observers(&observers);
  std::vector<RCReference<AsyncValue>> results =
      CallFunction(*(*program)->GetFunction("main"),
                   ExecutionContext(std::move(request)), {});
  // The worker sleeps 0.4 s; well before that the call is in flight, and
  // the kernel that sent it (on the worker thread that the registration's
  // answer woke) has returned.
  std::string explanation;
  for (int i = 0; i < 100; ++i) {
    explanation = ExplainHang(activity);
    if (explanation.find("sent") != std::string::npos &&
        explanation.find("has been running") == std::string::npos) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_THAT(explanation,
              ContainsRegex("root causes \\(what nothing else explains\\):\n"
                            "  1\\. remote call of 'sleep' on task "
                            "/job:worker/task:0, sent [0-9.]+ s ago, no answer "
                            "yet \\(by 'tfrt_dist.call' at remote.mlir:11:11\\)"
                            "\n"));
  host->Await(results);
  ASSERT_FALSE(results[0]->IsError()) << results[0]->GetError();
  results.clear();
  distributed.AwaitIdle();
  EXPECT_THAT(ExplainHang(activity), ContainsRegex("nothing is waiting"));
  (*server)->Shutdown();

  const std::vector<Event> client = Events(tracer);
  const std::vector<Event> worker = Events(worker_tracer);
  const std::string span_name = "remote call of 'sleep' on /job:worker/task:0";
  const Event* begin = Find(client, "b", span_name);
  const Event* end = Find(client, "e", span_name);
  const Event* flow_start = Find(client, "s", "remote call");
  const Event* kernel = Find(client, "X", "tfrt_dist.call");
  ASSERT_TRUE(begin && end && flow_start && kernel) << tracer.ToJson();
  EXPECT_EQ(begin->id, end->id);
  EXPECT_GE(end->time - begin->time, 400000.0);  // the worker slept 0.4 s
  // The arrow starts inside the kernel that made the call.
  EXPECT_EQ(flow_start->tid, kernel->tid);
  EXPECT_GE(flow_start->time, kernel->time);
  EXPECT_LE(flow_start->time, kernel->end);

  const Event* flow_end = Find(worker, "f", "remote call");
  const Event* execution = Find(worker, "X", "execution of 'sleep'");
  const Event* sleep = Find(worker, "X", "tfrt_test.blocking.usleep");
  ASSERT_TRUE(flow_end && execution && sleep) << worker_tracer.ToJson();
  EXPECT_EQ(flow_end->id, flow_start->id);
  EXPECT_EQ(flow_end->tid, execution->tid);
  EXPECT_GT(flow_end->time, execution->time);
  EXPECT_LT(flow_end->time, execution->end);
  EXPECT_EQ(sleep->tid, execution->tid);
}

}  // namespace
}  // namespace sluice
