// A traced call: one span per kernel with its name, `.mlir` location and
// function, one per function call, nested as the calls ran.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "llvm/Support/JSON.h"
#include "sluice/compiler/compile_program.h"
#include "sluice/executor/program.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/host_context/trace_activity.h"
#include "sluice/host_context/tracer.h"
#include "sluice/kernels/basic_kernels.h"

namespace sluice {
namespace {

constexpr char kProgram[] = R"mlir(
func.func @add(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

func.func @main() -> i32 {
  %one = tfrt.constant.i32 1
  %two = tfrt.call @add(%one, %one) : (i32, i32) -> i32
  tfrt.return %two : i32
}
)mlir";

struct Span {
  std::string category;
  std::string location;
  std::string function;
  double start = 0;
  double end = 0;
  int64_t tid = 0;

  bool Contains(const Span& other) const {
    return tid == other.tid && start <= other.start && other.end <= end;
  }
};

// The trace's "X" events by name (each name occurs once in these tests).
std::map<std::string, Span> Spans(const Tracer& tracer) {
  std::map<std::string, Span> spans;
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(tracer.ToJson());
  EXPECT_TRUE(static_cast<bool>(parsed));
  if (!parsed) return spans;
  for (const llvm::json::Value& value :
       *parsed->getAsObject()->getArray("traceEvents")) {
    const llvm::json::Object& event = *value.getAsObject();
    if (event.getString("ph") != llvm::StringRef("X")) continue;
    Span span;
    span.category = event.getString("cat")->str();
    span.start = *event.getNumber("ts");
    span.end = span.start + *event.getNumber("dur");
    span.tid = *event.getInteger("tid");
    if (const llvm::json::Object* args = event.getObject("args")) {
      span.location = args->getString("location").value_or("").str();
      span.function = args->getString("function").value_or("").str();
    }
    const std::string name = event.getString("name")->str();
    EXPECT_EQ(spans.count(name), 0u) << name;
    spans[name] = span;
  }
  return spans;
}

class ExecutorTraceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    host_ = std::make_unique<HostContext>([](const DecodedDiagnostic&) {},
                                          CreateMallocAllocator(),
                                          *CreateWorkQueue("s"));
    ASSERT_TRUE(RegisterBasicKernels(&GetKernelRegistry(host_.get())).ok());
    auto bytes = CompileProgram(kProgram, "trace.mlir");
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    bytes_ = *std::move(bytes);
    auto program = Program::Load(bytes_, GetKernelRegistry(host_.get()));
    ASSERT_TRUE(program.ok()) << program.status();
    program_ = *std::move(program);
  }

  // Runs @main on a request watched by `observers` (may be null).
  void RunMain(const RequestObservers* observers) {
    RCReference<RequestContext> request = RequestContext::Create(host_.get());
    request->set_observers(observers);
    std::vector<RCReference<AsyncValue>> results =
        CallFunction(*program_->GetFunction("main"),
                     ExecutionContext(std::move(request)), {});
    host_->Await(results);
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0]->get<int32_t>(), 2);
  }

  std::unique_ptr<HostContext> host_;
  std::vector<uint8_t> bytes_;
  std::unique_ptr<Program> program_;
};

TEST_F(ExecutorTraceTest, KernelsAndCallsAreSpansWithTheirLocations) {
  Tracer tracer("executor_trace_test");
  RequestObservers observers;
  observers.tracer = &tracer;
  RunMain(&observers);

  std::map<std::string, Span> spans = Spans(tracer);
  ASSERT_EQ(spans.size(), 5u) << tracer.ToJson();
  const Span& constant = spans["tfrt.constant.i32"];
  EXPECT_EQ(constant.category, "kernel");
  EXPECT_EQ(constant.location, "trace.mlir:8:10");
  EXPECT_EQ(constant.function, "main");
  const Span& call = spans["tfrt.call"];
  EXPECT_EQ(call.location, "trace.mlir:9:10");
  const Span& add = spans["tfrt.add.i32"];
  EXPECT_EQ(add.location, "trace.mlir:3:8");
  EXPECT_EQ(add.function, "add");
  const Span& main = spans["main"];
  const Span& add_call = spans["add"];
  EXPECT_EQ(main.category, "function");
  EXPECT_EQ(add_call.category, "function");

  // main ⊃ tfrt.call ⊃ add ⊃ tfrt.add.i32, all on this thread.
  EXPECT_TRUE(main.Contains(constant));
  EXPECT_TRUE(main.Contains(call));
  EXPECT_TRUE(call.Contains(add_call));
  EXPECT_TRUE(add_call.Contains(add));
  EXPECT_LE(constant.end, call.start);
}

}  // namespace
}  // namespace sluice
