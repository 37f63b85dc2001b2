// The embedding API of docs/tracing.md: a request watched by a Tracer and an
// ActivityRegistry, its timeline as JSON, and the hang explainer's answer
// while it waits.
#include <cstdlib>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/compiler/compile_program.h"
#include "sluice/executor/hang_explainer.h"
#include "sluice/executor/program.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/host_context/request_context.h"
#include "sluice/host_context/trace_activity.h"
#include "sluice/host_context/tracer.h"
#include "sluice/kernels/basic_kernels.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;

TEST(TracingExample, TraceAndExplainARequest) {
  HostContext host([](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
                   *CreateWorkQueue("s"));
  ASSERT_TRUE(RegisterBasicKernels(&GetKernelRegistry(&host)).ok());
  auto bytes = CompileProgram(R"mlir(
    func.func @main(%x: i32) -> i32 {
      %one = tfrt.constant.i32 1
      %y = tfrt.add.i32 %x, %one
      tfrt.return %y : i32
    })mlir",
                              "example.mlir");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto program = Program::Load(*bytes, GetKernelRegistry(&host));
  ASSERT_TRUE(program.ok()) << program.status();
  const Function& main = *(*program)->GetFunction("main");
  // An argument that is not there yet: the call waits for it.
  AsyncValueRef<int32_t> x = MakeUnconstructedAsyncValueRef<int32_t>();

  // [START observe]
  Tracer tracer("my_server");
  ActivityRegistry activity;
  RequestObservers observers{&tracer, &activity};

  RCReference<RequestContext> request = RequestContext::Create(&host);
  request->set_observers(&observers);  // before the request runs anything
  std::vector<RCReference<AsyncValue>> results = CallFunction(
      main, ExecutionContext(std::move(request)), {x.GetAsyncValue()});

  // While it waits: what is unresolved, and why.
  std::string explanation = ExplainHang(activity);
  // [END observe]
  EXPECT_THAT(explanation,
              HasSubstr("'tfrt.add.i32' at example.mlir:4:12 waits for:\n"
                        "      operand 0: from argument 0 of 'main', not "
                        "available yet\n"));

  x.emplace(41);
  host.Await(results);
  EXPECT_EQ(results[0]->get<int32_t>(), 42);
  const std::string path =
      std::string(std::getenv("TEST_TMPDIR")) + "/my_server.trace.json";
  // [START write]
  // Once the work is done: the timeline, for ui.perfetto.dev.
  absl::Status written = tracer.WriteFile(path);
  // [END write]
  EXPECT_TRUE(written.ok()) << written;
  EXPECT_THAT(tracer.ToJson(), HasSubstr("\"name\":\"tfrt.add.i32\""));
}

}  // namespace
}  // namespace sluice
