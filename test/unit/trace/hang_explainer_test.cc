// The hang explainer on a call that waits for an asynchronous kernel that
// does not finish (until the test lets it): the kernel is the one root
// cause; the kernels waiting for it, in the call and in a callee, say what
// they wait for; once it finishes nothing is left to explain.
#include "sluice/executor/hang_explainer.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/compiler/compile_program.h"
#include "sluice/executor/program.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/kernels/basic_kernels.h"

namespace sluice {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

// Line numbers matter: the explanation names them.
constexpr char kProgram[] = R"mlir(
func.func @wait(%c: !tfrt.chain) -> !tfrt.chain {
  %n = tfrt.constant.i32 7
  %ch = tfrt.print.i32 %n, %c
  tfrt.return %ch : !tfrt.chain
}

func.func @main() -> (!tfrt.chain, !tfrt.chain) {
  %n = tfrt.constant.i32 5
  %done = "tfrt_test.blocking.usleep"(%n) : (i32) -> !tfrt.chain
  %ch = tfrt.print.i32 %n, %done
  %ch2 = tfrt.print.i32 %n, %ch
  %r = tfrt.call @wait(%done) : (!tfrt.chain) -> !tfrt.chain
  tfrt.return %ch2, %r : !tfrt.chain, !tfrt.chain
}
)mlir";

// Stands in for tfrt_test.blocking.usleep: its chain resolves only when the
// test says so.
AsyncValueRef<Chain>* pending_chain = nullptr;

AsyncValueRef<Chain> NeverDone(int32_t) { return pending_chain->CopyRef(); }

class HangExplainerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    host_ = std::make_unique<HostContext>([](const DecodedDiagnostic&) {},
                                          CreateMallocAllocator(),
                                          *CreateWorkQueue("s"));
    KernelRegistry& registry = GetKernelRegistry(host_.get());
    ASSERT_TRUE(RegisterBasicKernels(&registry).ok());
    ASSERT_TRUE(registry
                    .AddKernels({{"tfrt_test.blocking.usleep",
                                  SLUICE_KERNEL(NeverDone)}})
                    .ok());
    auto bytes = CompileProgram(kProgram, "hang.mlir");
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    bytes_ = *std::move(bytes);
    auto program = Program::Load(bytes_, registry);
    ASSERT_TRUE(program.ok()) << program.status();
    program_ = *std::move(program);
    chain_ = MakeUnconstructedAsyncValueRef<Chain>();
    pending_chain = &chain_;
  }

  void TearDown() override { pending_chain = nullptr; }

  std::unique_ptr<HostContext> host_;
  std::vector<uint8_t> bytes_;
  std::unique_ptr<Program> program_;
  AsyncValueRef<Chain> chain_;
};

TEST_F(HangExplainerTest, NamesTheAsyncKernelAndWhatWaitsForIt) {
  ActivityRegistry activity;
  RequestObservers observers;
  observers.activity = &activity;
  RCReference<RequestContext> request = RequestContext::Create(host_.get());
  request->set_observers(&observers);
  std::vector<RCReference<AsyncValue>> results = CallFunction(
      *program_->GetFunction("main"), ExecutionContext(std::move(request)), {});
  host_->Quiesce();

  const std::string explanation = ExplainHang(activity);
  EXPECT_THAT(explanation,
              HasSubstr("hang explanation: 2 live call(s) in 1 request(s), 0 "
                        "remote call(s) not answered\n"));
  // The one root cause, first, with the two prints that wait on it.
  EXPECT_THAT(explanation,
              ContainsRegex("root causes \\(what nothing else explains\\):\n"
                            "  1\\. async kernel 'tfrt_test.blocking.usleep' "
                            "at hang.mlir:10:11 in 'main', started [0-9.]+ s "
                            "ago, has not resolved its results; 2 waiting "
                            "kernel\\(s\\) wait on it\n"
                            "waiting kernels:\n"));
  // The first print waits for the async kernel; the second only for the
  // first, so it is counted, not listed.
  EXPECT_THAT(
      explanation,
      ContainsRegex("  in 'main' \\(called [0-9.]+ s ago\\):\n"
                    "    'tfrt.print.i32' at hang.mlir:11:9 waits for:\n"
                    "      operand 1: from async kernel "
                    "'tfrt_test.blocking.usleep' at hang.mlir:10:11, still "
                    "running \\(started [0-9.]+ s ago\\)\n"
                    "    and 1 kernel\\(s\\) that wait only for kernels not "
                    "run yet\n"));
  // The callee's kernel waits for its argument.
  EXPECT_THAT(explanation,
              ContainsRegex("  in 'wait' \\(called [0-9.]+ s ago\\):\n"
                            "    'tfrt.print.i32' at hang.mlir:4:9 waits for:\n"
                            "      operand 1: from argument 0 of 'wait', not "
                            "available yet\n"));
  EXPECT_THAT(explanation, HasSubstr("remote calls in flight:\n  none\n"));
  // The call kernel's pending result is explained by its live callee.
  EXPECT_THAT(explanation, Not(HasSubstr("2. ")));

  chain_.emplace();
  host_->Await(results);
  results.clear();
  EXPECT_EQ(ExplainHang(activity),
            "hang explanation: 0 live call(s) in 0 request(s), 0 remote "
            "call(s) not answered\nnothing is waiting\n");
}

}  // namespace
}  // namespace sluice
