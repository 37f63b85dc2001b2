// tfrt.call, tfrt.if, tfrt.cond, tfrt.case, tfrt.while, tfrt.repeat.i32 and
// tfrt.once, called through KernelFrameBuilder with hand-written functions
// the way the executor calls them.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/basic/basic_kernels_internal.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/execution_context.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernel/kernel_frame_builder.h"
#include "sluice/kernel/kernel_registry.h"
#include "test/util/kernel_test_host.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

using test_util::LambdaFunction;

RCReference<AsyncValue> I32(int32_t value) {
  return MakeAvailableAsyncValueRef<int32_t>(value).ReleaseRCRef();
}

RCReference<AsyncValue> Bool(bool value) {
  return MakeAvailableAsyncValueRef<bool>(value).ReleaseRCRef();
}

int32_t GetI32(const RCReference<AsyncValue>& value) {
  return value->get<int32_t>();
}

// Forwards its arguments as its results.
std::unique_ptr<LambdaFunction> Identity(std::string name, size_t n) {
  return std::make_unique<LambdaFunction>(
      std::move(name), n, n,
      [](const ExecutionContext&, absl::Span<AsyncValue* const> arguments,
         absl::Span<RCReference<AsyncValue>> results) {
        for (size_t i = 0; i < results.size(); ++i) {
          results[i] = FormRef(arguments[i]);
        }
      });
}

// (i32) -> i32: its argument plus `delta`. The argument must be available.
std::unique_ptr<LambdaFunction> AddConstant(std::string name, int32_t delta) {
  return std::make_unique<LambdaFunction>(
      std::move(name), 1, 1,
      [delta](const ExecutionContext&, absl::Span<AsyncValue* const> arguments,
              absl::Span<RCReference<AsyncValue>> results) {
        results[0] = I32(arguments[0]->get<int32_t>() + delta);
      });
}

class ControlFlowKernelsTest : public ::testing::Test {
 protected:
  explicit ControlFlowKernelsTest(std::string_view spec = "s") : host_(spec) {
    EXPECT_TRUE(
        basic_kernels::RegisterControlFlowKernels(&host_.registry()).ok());
  }

  test_util::KernelTestHost host_;
};

// Same, on a host with two worker threads.
class ControlFlowKernelsMultiThreadedTest : public ControlFlowKernelsTest {
 protected:
  ControlFlowKernelsMultiThreadedTest() : ControlFlowKernelsTest("mstd:2,2") {}
};

TEST_F(ControlFlowKernelsTest, EveryKernelIsRegisteredNonStrict) {
  for (const char* name : {"tfrt.call", "tfrt.if", "tfrt.cond", "tfrt.case",
                           "tfrt.while", "tfrt.repeat.i32", "tfrt.once"}) {
    const RegisteredKernel* kernel = host_.registry().GetKernel(name);
    ASSERT_NE(kernel, nullptr) << name;
    EXPECT_EQ(kernel->strictness, Strictness::kNonStrict) << name;
  }
}

// --- tfrt.call ---------------------------------------------------------------

TEST_F(ControlFlowKernelsTest, CallRunsTheCalleeWithAllOperands) {
  LambdaFunction add(
      "add", 2, 1,
      [](const ExecutionContext&, absl::Span<AsyncValue* const> arguments,
         absl::Span<RCReference<AsyncValue>> results) {
        results[0] =
            I32(arguments[0]->get<int32_t>() + arguments[1]->get<int32_t>());
      });
  KernelFrameBuilder frame(host_.Context(), "tfrt.call");
  frame.AddArg(I32(40)).AddArg(I32(2)).AddFunction(&add).SetNumResults(1);
  frame.Invoke(host_.Kernel("tfrt.call"));
  host_.Await(frame.results());
  EXPECT_EQ(GetI32(frame.result(0)), 42);
  EXPECT_EQ(add.calls(), 1);
}

TEST_F(ControlFlowKernelsTest, CallPassesPendingOperandsThrough) {
  auto identity = Identity("id", 2);
  AsyncValueRef<int32_t> pending = MakeUnconstructedAsyncValueRef<int32_t>();
  RCReference<AsyncValue> error =
      MakeErrorAsyncValueRef(absl::InternalError("upstream"));
  KernelFrameBuilder frame(host_.Context(), "tfrt.call");
  frame.AddArg(pending.CopyRCRef())
      .AddArg(error.CopyRef())
      .AddFunction(identity.get())
      .SetNumResults(2);
  frame.Invoke(host_.Kernel("tfrt.call"));
  // The callee ran at once and returned its operands as they were.
  EXPECT_EQ(frame.result(0).get(), pending.GetAsyncValue());
  EXPECT_EQ(frame.result(1).get(), error.get());
  pending.emplace(7);
  EXPECT_EQ(GetI32(frame.result(0)), 7);
  EXPECT_THAT(host_.diagnostics(), IsEmpty());
}

TEST_F(ControlFlowKernelsTest, CallIgnoresATrailingChainOperand) {
  auto add_one = AddConstant("add_one", 1);
  KernelFrameBuilder frame(host_.Context(), "tfrt.call");
  frame.AddArg(I32(1))
      .AddArg(MakeReadyChain().ReleaseRCRef())
      .AddFunction(add_one.get())
      .SetNumResults(1);
  frame.Invoke(host_.Kernel("tfrt.call"));
  EXPECT_EQ(GetI32(frame.result(0)), 2);
}

TEST_F(ControlFlowKernelsTest, CallReportsAMismatchedSignature) {
  auto identity = Identity("pair", 2);
  KernelFrameBuilder frame(host_.Context(), "tfrt.call");
  frame.AddArg(I32(1)).AddFunction(identity.get()).SetNumResults(2);
  frame.Invoke(host_.Kernel("tfrt.call"));
  ASSERT_TRUE(frame.result(0)->IsError());
  EXPECT_EQ(frame.result(0)->GetError().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(frame.result(0)->GetError().message(),
              HasSubstr("'pair' takes 2 arguments but tfrt.call passes 1"));
  EXPECT_EQ(frame.result(1).get(), frame.result(0).get());
  EXPECT_THAT(host_.diagnostics(), SizeIs(1));
  EXPECT_EQ(identity->calls(), 0);
}

// --- tfrt.if / tfrt.cond -----------------------------------------------------

class IfTest : public ControlFlowKernelsTest {
 protected:
  // then: (a, b) -> a + b; else: (a, b) -> a * b.
  IfTest()
      : then_("then", 2, 1,
              [](const ExecutionContext&, absl::Span<AsyncValue* const> args,
                 absl::Span<RCReference<AsyncValue>> results) {
                results[0] =
                    I32(args[0]->get<int32_t>() + args[1]->get<int32_t>());
              }),
        else_("else", 2, 1,
              [](const ExecutionContext&, absl::Span<AsyncValue* const> args,
                 absl::Span<RCReference<AsyncValue>> results) {
                results[0] =
                    I32(args[0]->get<int32_t>() * args[1]->get<int32_t>());
              }) {}

  void Build(KernelFrameBuilder& frame, RCReference<AsyncValue> condition) {
    frame.AddArg(std::move(condition))
        .AddArg(I32(6))
        .AddArg(I32(7))
        .AddFunction(&then_)
        .AddFunction(&else_)
        .SetNumResults(1);
  }

  LambdaFunction then_;
  LambdaFunction else_;
};

TEST_F(IfTest, RunsTheThenBranchOnTrue) {
  KernelFrameBuilder frame(host_.Context(), "tfrt.if");
  Build(frame, Bool(true));
  frame.Invoke(host_.Kernel("tfrt.if"));
  EXPECT_EQ(GetI32(frame.result(0)), 13);
  EXPECT_EQ(then_.calls(), 1);
  EXPECT_EQ(else_.calls(), 0);
}

// MLIR checks the selector's type; a program from elsewhere may not have.
TEST_F(IfTest, ASelectorOfAnotherTypeFailsTheResults) {
  KernelFrameBuilder frame(host_.Context(), "tfrt.if");
  Build(frame, I32(1));
  frame.Invoke(host_.Kernel("tfrt.if"));
  ASSERT_TRUE(frame.result(0)->IsError());
  EXPECT_EQ(frame.result(0)->GetError().message(),
            "the branch selector (operand #0) is not an i1 condition or i32 "
            "index");
  EXPECT_EQ(then_.calls() + else_.calls(), 0);
}

TEST_F(IfTest, RunsTheElseBranchOnFalse) {
  KernelFrameBuilder frame(host_.Context(), "tfrt.if");
  Build(frame, Bool(false));
  frame.Invoke(host_.Kernel("tfrt.if"));
  EXPECT_EQ(GetI32(frame.result(0)), 42);
  EXPECT_EQ(then_.calls(), 0);
  EXPECT_EQ(else_.calls(), 1);
}

TEST_F(IfTest, CondTakesTheTrueAndFalseFunctions) {
  for (bool condition : {true, false}) {
    KernelFrameBuilder frame(host_.Context(), "tfrt.cond");
    Build(frame, Bool(condition));
    frame.Invoke(host_.Kernel("tfrt.cond"));
    EXPECT_EQ(GetI32(frame.result(0)), condition ? 13 : 42);
  }
  EXPECT_EQ(then_.calls(), 1);
  EXPECT_EQ(else_.calls(), 1);
}

TEST_F(IfTest, WaitsForAPendingCondition) {
  AsyncValueRef<bool> condition = MakeUnconstructedAsyncValueRef<bool>();
  KernelFrameBuilder frame(host_.Context(), "tfrt.if");
  Build(frame, condition.CopyRCRef());
  frame.Invoke(host_.Kernel("tfrt.if"));
  ASSERT_NE(frame.result(0), nullptr);
  EXPECT_TRUE(frame.result(0)->IsUnavailable());
  EXPECT_EQ(then_.calls() + else_.calls(), 0);

  condition.emplace(false);
  host_.Await(frame.results());
  EXPECT_EQ(GetI32(frame.result(0)), 42);
  EXPECT_EQ(then_.calls(), 0);
  EXPECT_EQ(else_.calls(), 1);
}

TEST_F(IfTest, PendingConditionResolvedFromAnotherThread) {
  AsyncValueRef<bool> condition = MakeUnconstructedAsyncValueRef<bool>();
  KernelFrameBuilder frame(host_.Context(), "tfrt.if");
  Build(frame, condition.CopyRCRef());
  frame.Invoke(host_.Kernel("tfrt.if"));
  std::thread resolver([&condition] { condition.emplace(true); });
  resolver.join();
  host_.Await(frame.results());
  EXPECT_EQ(GetI32(frame.result(0)), 13);
}

TEST_F(IfTest, AnErrorConditionBecomesEveryResult) {
  RCReference<AsyncValue> error =
      MakeErrorAsyncValueRef(absl::DataLossError("bad condition"));
  // Two results, each checked to be the very same error value.
  auto then_pair = Identity("then", 2);
  auto else_pair = Identity("else", 2);
  KernelFrameBuilder frame(host_.Context(), "tfrt.if");
  frame.AddArg(error.CopyRef())
      .AddArg(I32(1))
      .AddArg(I32(2))
      .AddFunction(then_pair.get())
      .AddFunction(else_pair.get())
      .SetNumResults(2);
  frame.Invoke(host_.Kernel("tfrt.if"));
  EXPECT_EQ(frame.result(0).get(), error.get());
  EXPECT_EQ(frame.result(1).get(), error.get());
  EXPECT_EQ(then_pair->calls() + else_pair->calls(), 0);
  EXPECT_THAT(host_.diagnostics(), IsEmpty());
}

TEST_F(IfTest, APendingConditionThatFailsBecomesEveryResult) {
  AsyncValueRef<bool> condition = MakeUnconstructedAsyncValueRef<bool>();
  KernelFrameBuilder frame(host_.Context(), "tfrt.if");
  Build(frame, condition.CopyRCRef());
  frame.Invoke(host_.Kernel("tfrt.if"));
  condition.SetError(absl::AbortedError("no condition"));
  host_.Await(frame.results());
  ASSERT_TRUE(frame.result(0)->IsError());
  EXPECT_EQ(frame.result(0)->GetError(), absl::AbortedError("no condition"));
  EXPECT_EQ(then_.calls() + else_.calls(), 0);
  EXPECT_THAT(host_.diagnostics(), IsEmpty());
}

TEST_F(ControlFlowKernelsTest, IfWithoutResultsMayOmitTheElseRegion) {
  auto then_branch = std::make_unique<LambdaFunction>(
      "then", 0, 0,
      [](const ExecutionContext&, absl::Span<AsyncValue* const>,
         absl::Span<RCReference<AsyncValue>>) {});
  for (bool condition : {true, false}) {
    KernelFrameBuilder frame(host_.Context(), "tfrt.if");
    frame.AddArg(Bool(condition)).AddFunction(then_branch.get());
    frame.Invoke(host_.Kernel("tfrt.if"));
  }
  EXPECT_EQ(then_branch->calls(), 1);
  EXPECT_THAT(host_.diagnostics(), IsEmpty());
}

TEST_F(IfTest, PassesPendingBranchOperandsThrough) {
  auto then_id = Identity("then", 1);
  auto else_id = Identity("else", 1);
  AsyncValueRef<int32_t> operand = MakeUnconstructedAsyncValueRef<int32_t>();
  KernelFrameBuilder frame(host_.Context(), "tfrt.if");
  frame.AddArg(Bool(true))
      .AddArg(operand.CopyRCRef())
      .AddFunction(then_id.get())
      .AddFunction(else_id.get())
      .SetNumResults(1);
  frame.Invoke(host_.Kernel("tfrt.if"));
  EXPECT_EQ(frame.result(0).get(), operand.GetAsyncValue());
  operand.emplace(5);
  EXPECT_EQ(GetI32(frame.result(0)), 5);
}

// --- tfrt.case ---------------------------------------------------------------

class CaseTest : public ControlFlowKernelsTest {
 protected:
  CaseTest() {
    for (int32_t i = 0; i < 3; ++i) {
      branches_.push_back(AddConstant("b" + std::to_string(i), 100 * i));
    }
  }

  void Build(KernelFrameBuilder& frame, RCReference<AsyncValue> index) {
    frame.AddArg(std::move(index)).AddArg(I32(1));
    for (const auto& branch : branches_) frame.AddFunction(branch.get());
    frame.SetNumResults(1);
  }

  std::vector<std::unique_ptr<LambdaFunction>> branches_;
};

TEST_F(CaseTest, SelectsTheBranchByIndexAndTheLastWhenOutOfRange) {
  const std::vector<std::pair<int32_t, int32_t>> expectations = {
      {0, 1}, {1, 101}, {2, 201}, {3, 201}, {1000, 201}, {-1, 201}};
  for (const auto& [index, expected] : expectations) {
    KernelFrameBuilder frame(host_.Context(), "tfrt.case");
    Build(frame, I32(index));
    frame.Invoke(host_.Kernel("tfrt.case"));
    EXPECT_EQ(GetI32(frame.result(0)), expected) << "index " << index;
  }
  EXPECT_EQ(branches_[0]->calls(), 1);
  EXPECT_EQ(branches_[1]->calls(), 1);
  EXPECT_EQ(branches_[2]->calls(), 4);
}

TEST_F(CaseTest, WaitsForAPendingIndex) {
  AsyncValueRef<int32_t> index = MakeUnconstructedAsyncValueRef<int32_t>();
  KernelFrameBuilder frame(host_.Context(), "tfrt.case");
  Build(frame, index.CopyRCRef());
  frame.Invoke(host_.Kernel("tfrt.case"));
  EXPECT_TRUE(frame.result(0)->IsUnavailable());
  index.emplace(1);
  host_.Await(frame.results());
  EXPECT_EQ(GetI32(frame.result(0)), 101);
}

TEST_F(CaseTest, AnErrorIndexBecomesTheResult) {
  RCReference<AsyncValue> error =
      MakeErrorAsyncValueRef(absl::InternalError("no index"));
  KernelFrameBuilder frame(host_.Context(), "tfrt.case");
  Build(frame, error.CopyRef());
  frame.Invoke(host_.Kernel("tfrt.case"));
  EXPECT_EQ(frame.result(0).get(), error.get());
  EXPECT_THAT(host_.diagnostics(), IsEmpty());
}

// --- tfrt.while --------------------------------------------------------------

// (i, sum) -> (i + 1, sum + i, i + 1 < limit).
std::unique_ptr<LambdaFunction> SumBody(int32_t limit) {
  return std::make_unique<LambdaFunction>(
      "sum_body", 2, 3,
      [limit](const ExecutionContext&, absl::Span<AsyncValue* const> args,
              absl::Span<RCReference<AsyncValue>> results) {
        const int32_t i = args[0]->get<int32_t>();
        const int32_t sum = args[1]->get<int32_t>();
        results[0] = I32(i + 1);
        results[1] = I32(sum + i);
        results[2] = Bool(i + 1 < limit);
      });
}

TEST_F(ControlFlowKernelsTest, WhileLoopsUntilTheBodySaysStop) {
  auto body = SumBody(10);
  KernelFrameBuilder frame(host_.Context(), "tfrt.while");
  frame.AddArg(Bool(true))
      .AddArg(I32(0))
      .AddArg(I32(0))
      .AddFunction(body.get())
      .SetNumResults(2);
  frame.Invoke(host_.Kernel("tfrt.while"));
  host_.Await(frame.results());
  EXPECT_EQ(GetI32(frame.result(0)), 10);
  EXPECT_EQ(GetI32(frame.result(1)), 45);
  EXPECT_EQ(body->calls(), 10);
}

TEST_F(ControlFlowKernelsTest, WhileWithAFalseConditionReturnsItsOperands) {
  auto body = SumBody(10);
  AsyncValueRef<int32_t> pending = MakeUnconstructedAsyncValueRef<int32_t>();
  RCReference<AsyncValue> start = I32(3);
  KernelFrameBuilder frame(host_.Context(), "tfrt.while");
  frame.AddArg(Bool(false))
      .AddArg(start.CopyRef())
      .AddArg(pending.CopyRCRef())
      .AddFunction(body.get())
      .SetNumResults(2);
  frame.Invoke(host_.Kernel("tfrt.while"));
  EXPECT_EQ(frame.result(0).get(), start.get());
  EXPECT_EQ(frame.result(1).get(), pending.GetAsyncValue());
  EXPECT_EQ(body->calls(), 0);
  pending.emplace(0);
}

TEST_F(ControlFlowKernelsTest, WhileWaitsForAPendingCondition) {
  auto body = SumBody(4);
  AsyncValueRef<bool> condition = MakeUnconstructedAsyncValueRef<bool>();
  KernelFrameBuilder frame(host_.Context(), "tfrt.while");
  frame.AddArg(condition.CopyRCRef())
      .AddArg(I32(0))
      .AddArg(I32(0))
      .AddFunction(body.get())
      .SetNumResults(2);
  frame.Invoke(host_.Kernel("tfrt.while"));
  EXPECT_TRUE(frame.result(0)->IsUnavailable());
  EXPECT_EQ(body->calls(), 0);
  condition.emplace(true);
  host_.Await(frame.results());
  EXPECT_EQ(GetI32(frame.result(0)), 4);
  EXPECT_EQ(GetI32(frame.result(1)), 6);
  EXPECT_EQ(body->calls(), 4);
}

TEST_F(ControlFlowKernelsTest, WhileWaitsForPendingLoopValuesBeforeTheBody) {
  auto body = SumBody(3);
  AsyncValueRef<int32_t> start = MakeUnconstructedAsyncValueRef<int32_t>();
  KernelFrameBuilder frame(host_.Context(), "tfrt.while");
  frame.AddArg(Bool(true))
      .AddArg(start.CopyRCRef())
      .AddArg(I32(0))
      .AddFunction(body.get())
      .SetNumResults(2);
  frame.Invoke(host_.Kernel("tfrt.while"));
  EXPECT_EQ(body->calls(), 0);
  start.emplace(1);
  host_.Await(frame.results());
  EXPECT_EQ(GetI32(frame.result(0)), 3);
  EXPECT_EQ(GetI32(frame.result(1)), 3);
  EXPECT_EQ(body->calls(), 2);
}

TEST_F(ControlFlowKernelsTest, WhileStopsOnAnErrorCondition) {
  RCReference<AsyncValue> error =
      MakeErrorAsyncValueRef(absl::InternalError("condition failed"));
  int runs = 0;
  LambdaFunction body(
      "body", 1, 2,
      [&](const ExecutionContext&, absl::Span<AsyncValue* const> args,
          absl::Span<RCReference<AsyncValue>> results) {
        ++runs;
        results[0] = I32(args[0]->get<int32_t>() + 1);
        results[1] = runs == 3 ? error.CopyRef() : Bool(true);
      });
  KernelFrameBuilder frame(host_.Context(), "tfrt.while");
  frame.AddArg(Bool(true)).AddArg(I32(0)).AddFunction(&body).SetNumResults(1);
  frame.Invoke(host_.Kernel("tfrt.while"));
  EXPECT_EQ(frame.result(0).get(), error.get());
  EXPECT_EQ(runs, 3);
  EXPECT_THAT(host_.diagnostics(), IsEmpty());
}

// The body cancels the request during its 5th run; the check before the 6th
// iteration sees it, so the body ran exactly 5 times.
TEST_F(ControlFlowKernelsTest, WhileStopsWhenTheRequestIsCancelled) {
  LambdaFunction body(
      "body", 1, 2,
      [](const ExecutionContext& context, absl::Span<AsyncValue* const> args,
         absl::Span<RCReference<AsyncValue>> results) {
        const int32_t i = args[0]->get<int32_t>() + 1;
        if (i == 5) context.request_context()->Cancel();
        results[0] = I32(i);
        results[1] = Bool(true);
      });
  KernelFrameBuilder frame(host_.Context(), "tfrt.while");
  frame.AddArg(Bool(true)).AddArg(I32(0)).AddFunction(&body).SetNumResults(1);
  frame.Invoke(host_.Kernel("tfrt.while"));
  host_.Await(frame.results());
  ASSERT_TRUE(frame.result(0)->IsError());
  EXPECT_EQ(frame.result(0)->GetError().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(frame.result(0).get(), host_.request()->GetCancelAsyncValue());
  EXPECT_EQ(body.calls(), 5);
}

TEST_F(ControlFlowKernelsTest, WhileIgnoresParallelIterations) {
  auto body = SumBody(5);
  KernelFrameBuilder frame(host_.Context(), "tfrt.while");
  frame.AddArg(Bool(true))
      .AddArg(I32(0))
      .AddArg(I32(0))
      .AddAttribute(frame.attribute_buffer().AddScalar<int64_t>(8))
      .AddFunction(body.get())
      .SetNumResults(2);
  frame.Invoke(host_.Kernel("tfrt.while"));
  EXPECT_EQ(GetI32(frame.result(0)), 5);
  EXPECT_EQ(GetI32(frame.result(1)), 10);
}

// --- tfrt.repeat.i32 ---------------------------------------------------------

TEST_F(ControlFlowKernelsTest, RepeatRunsTheBodyCountTimes) {
  // (a, b) -> (a + 1, b * 2).
  LambdaFunction body(
      "body", 2, 2,
      [](const ExecutionContext&, absl::Span<AsyncValue* const> args,
         absl::Span<RCReference<AsyncValue>> results) {
        results[0] = I32(args[0]->get<int32_t>() + 1);
        results[1] = I32(args[1]->get<int32_t>() * 2);
      });
  KernelFrameBuilder frame(host_.Context(), "tfrt.repeat.i32");
  frame.AddArg(I32(7))
      .AddArg(I32(0))
      .AddArg(I32(1))
      .AddFunction(&body)
      .SetNumResults(2);
  frame.Invoke(host_.Kernel("tfrt.repeat.i32"));
  EXPECT_EQ(GetI32(frame.result(0)), 7);
  EXPECT_EQ(GetI32(frame.result(1)), 128);
  EXPECT_EQ(body.calls(), 7);
}

TEST_F(ControlFlowKernelsTest, LoopControlsOfAnotherTypeFailTheResults) {
  LambdaFunction body(
      "body", 1, 1,
      [](const ExecutionContext&, absl::Span<AsyncValue* const>,
         absl::Span<RCReference<AsyncValue>> results) { results[0] = I32(0); });
  KernelFrameBuilder repeat(host_.Context(), "tfrt.repeat.i32");
  repeat.AddArg(Bool(true)).AddArg(I32(0)).AddFunction(&body).SetNumResults(1);
  repeat.Invoke(host_.Kernel("tfrt.repeat.i32"));
  ASSERT_TRUE(repeat.result(0)->IsError());
  EXPECT_EQ(repeat.result(0)->GetError().message(),
            "the iteration count (operand #0) is not an i32");
  EXPECT_EQ(body.calls(), 0);
}

TEST_F(ControlFlowKernelsTest, RepeatWithoutLoopValues) {
  int runs = 0;
  LambdaFunction body(
      "body", 0, 0,
      [&runs](const ExecutionContext&, absl::Span<AsyncValue* const>,
              absl::Span<RCReference<AsyncValue>>) { ++runs; });
  KernelFrameBuilder frame(host_.Context(), "tfrt.repeat.i32");
  frame.AddArg(I32(3)).AddFunction(&body).SetNumResults(0);
  frame.Invoke(host_.Kernel("tfrt.repeat.i32"));
  EXPECT_EQ(runs, 3);
}

TEST_F(ControlFlowKernelsTest, RepeatZeroOrNegativeTimesReturnsTheInputs) {
  for (int32_t count : {0, -3}) {
    auto body = AddConstant("body", 1);
    AsyncValueRef<int32_t> pending = MakeUnconstructedAsyncValueRef<int32_t>();
    KernelFrameBuilder frame(host_.Context(), "tfrt.repeat.i32");
    frame.AddArg(I32(count))
        .AddArg(pending.CopyRCRef())
        .AddFunction(body.get())
        .SetNumResults(1);
    frame.Invoke(host_.Kernel("tfrt.repeat.i32"));
    EXPECT_EQ(frame.result(0).get(), pending.GetAsyncValue());
    EXPECT_EQ(body->calls(), 0);
    pending.emplace(1);
  }
}

TEST_F(ControlFlowKernelsTest, RepeatAMillionTimesInConstantStack) {
  constexpr int32_t kCount = 1000000;
  uintptr_t lowest = UINTPTR_MAX;
  uintptr_t highest = 0;
  LambdaFunction body(
      "body", 1, 1,
      [&](const ExecutionContext&, absl::Span<AsyncValue* const> args,
          absl::Span<RCReference<AsyncValue>> results) {
        // The frame address, not a local's: sanitizers may move locals to a
        // heap-allocated fake stack.
        const auto frame_address =
            reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
        lowest = std::min(lowest, frame_address);
        highest = std::max(highest, frame_address);
        results[0] = I32(args[0]->get<int32_t>() + 1);
      });
  KernelFrameBuilder frame(host_.Context(), "tfrt.repeat.i32");
  frame.AddArg(I32(kCount)).AddArg(I32(0)).AddFunction(&body).SetNumResults(1);
  frame.Invoke(host_.Kernel("tfrt.repeat.i32"));
  ASSERT_TRUE(frame.result(0)->IsAvailable());
  EXPECT_EQ(GetI32(frame.result(0)), kCount);
  EXPECT_EQ(body.calls(), kCount);
  // Every iteration ran at the same depth.
  EXPECT_EQ(highest - lowest, 0u);
}

TEST_F(ControlFlowKernelsTest, RepeatWaitsForAPendingCount) {
  auto body = AddConstant("body", 2);
  AsyncValueRef<int32_t> count = MakeUnconstructedAsyncValueRef<int32_t>();
  KernelFrameBuilder frame(host_.Context(), "tfrt.repeat.i32");
  frame.AddArg(count.CopyRCRef())
      .AddArg(I32(0))
      .AddFunction(body.get())
      .SetNumResults(1);
  frame.Invoke(host_.Kernel("tfrt.repeat.i32"));
  EXPECT_TRUE(frame.result(0)->IsUnavailable());
  count.emplace(5);
  host_.Await(frame.results());
  EXPECT_EQ(GetI32(frame.result(0)), 10);
  EXPECT_EQ(body->calls(), 5);
}

TEST_F(ControlFlowKernelsTest, RepeatWithAnErrorCountFailsEveryResult) {
  auto body = Identity("body", 2);
  RCReference<AsyncValue> error =
      MakeErrorAsyncValueRef(absl::InternalError("no count"));
  KernelFrameBuilder frame(host_.Context(), "tfrt.repeat.i32");
  frame.AddArg(error.CopyRef())
      .AddArg(I32(0))
      .AddArg(I32(1))
      .AddFunction(body.get())
      .SetNumResults(2);
  frame.Invoke(host_.Kernel("tfrt.repeat.i32"));
  EXPECT_EQ(frame.result(0).get(), error.get());
  EXPECT_EQ(frame.result(1).get(), error.get());
  EXPECT_EQ(body->calls(), 0);
  EXPECT_THAT(host_.diagnostics(), IsEmpty());
}

TEST_F(ControlFlowKernelsTest, RepeatRunsEachIterationAfterThePreviousOne) {
  // The body's result resolves only when the test says so.
  std::vector<AsyncValueRef<int32_t>> pending;
  LambdaFunction body(
      "body", 1, 1,
      [&pending](const ExecutionContext&, absl::Span<AsyncValue* const> args,
                 absl::Span<RCReference<AsyncValue>> results) {
        EXPECT_TRUE(args[0]->IsAvailable());
        pending.push_back(MakeUnconstructedAsyncValueRef<int32_t>());
        results[0] = pending.back().CopyRCRef();
      });
  KernelFrameBuilder frame(host_.Context(), "tfrt.repeat.i32");
  frame.AddArg(I32(3)).AddArg(I32(0)).AddFunction(&body).SetNumResults(1);
  frame.Invoke(host_.Kernel("tfrt.repeat.i32"));
  for (int i = 1; i <= 3; ++i) {
    ASSERT_EQ(body.calls(), i);
    EXPECT_TRUE(frame.result(0)->IsUnavailable());
    pending.back().emplace(10 * i);
  }
  EXPECT_EQ(body.calls(), 3);
  host_.Await(frame.results());
  EXPECT_EQ(GetI32(frame.result(0)), 30);
}

// The body cancels the request during its 5th run: the check before the 6th
// iteration stops the loop, so the body ran exactly 5 times.
TEST_F(ControlFlowKernelsTest, RepeatStopsWhenTheRequestIsCancelled) {
  LambdaFunction body(
      "body", 2, 2,
      [](const ExecutionContext& context, absl::Span<AsyncValue* const> args,
         absl::Span<RCReference<AsyncValue>> results) {
        const int32_t i = args[0]->get<int32_t>() + 1;
        if (i == 5) context.request_context()->Cancel();
        results[0] = I32(i);
        results[1] = FormRef(args[1]);
      });
  KernelFrameBuilder frame(host_.Context(), "tfrt.repeat.i32");
  frame.AddArg(I32(10))
      .AddArg(I32(0))
      .AddArg(MakeReadyChain().ReleaseRCRef())
      .AddFunction(&body)
      .SetNumResults(2);
  frame.Invoke(host_.Kernel("tfrt.repeat.i32"));
  host_.Await(frame.results());
  for (size_t i = 0; i < 2; ++i) {
    ASSERT_TRUE(frame.result(i)->IsError());
    EXPECT_EQ(frame.result(i)->GetError().code(), absl::StatusCode::kCancelled);
    EXPECT_EQ(frame.result(i).get(), host_.request()->GetCancelAsyncValue());
  }
  EXPECT_EQ(body.calls(), 5);
}

TEST_F(ControlFlowKernelsTest, RepeatInACancelledRequestDoesNotRunTheBody) {
  auto body = AddConstant("body", 1);
  host_.request()->Cancel(absl::CancelledError("stop"));
  KernelFrameBuilder frame(host_.Context(), "tfrt.repeat.i32");
  frame.AddArg(I32(3)).AddArg(I32(0)).AddFunction(body.get()).SetNumResults(1);
  frame.Invoke(host_.Kernel("tfrt.repeat.i32"));
  ASSERT_TRUE(frame.result(0)->IsError());
  EXPECT_EQ(frame.result(0)->GetError().message(), "stop");
  EXPECT_EQ(body->calls(), 0);
}

TEST_F(ControlFlowKernelsTest, RepeatCancelledWhileWaitingForTheBody) {
  AsyncValueRef<int32_t> pending = MakeUnconstructedAsyncValueRef<int32_t>();
  LambdaFunction body(
      "body", 1, 1,
      [&pending](const ExecutionContext&, absl::Span<AsyncValue* const>,
                 absl::Span<RCReference<AsyncValue>> results) {
        results[0] = pending.CopyRCRef();
      });
  KernelFrameBuilder frame(host_.Context(), "tfrt.repeat.i32");
  frame.AddArg(I32(3)).AddArg(I32(0)).AddFunction(&body).SetNumResults(1);
  frame.Invoke(host_.Kernel("tfrt.repeat.i32"));
  host_.request()->Cancel();
  pending.emplace(1);
  host_.Await(frame.results());
  ASSERT_TRUE(frame.result(0)->IsError());
  EXPECT_EQ(frame.result(0)->GetError().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(body.calls(), 1);
}

TEST_F(ControlFlowKernelsTest, LoopsReportAMismatchedBody) {
  auto body = AddConstant("body", 1);  // (i32) -> i32
  KernelFrameBuilder frame(host_.Context(), "tfrt.while");
  frame.AddArg(Bool(true))
      .AddArg(I32(0))
      .AddFunction(body.get())
      .SetNumResults(1);
  frame.Invoke(host_.Kernel("tfrt.while"));
  ASSERT_TRUE(frame.result(0)->IsError());
  EXPECT_THAT(frame.result(0)->GetError().message(),
              HasSubstr("'body' returns 1 results but tfrt.while has 2"));
  EXPECT_THAT(host_.diagnostics(), SizeIs(1));
}

TEST_F(ControlFlowKernelsMultiThreadedTest, RepeatWithAnAsynchronousBody) {
  constexpr int kCount = 200;
  std::atomic<int> in_flight{0};
  std::atomic<bool> overlapped{false};
  HostContext* host = host_.host_context();
  LambdaFunction body(
      "body", 1, 1,
      [&, host](const ExecutionContext&, absl::Span<AsyncValue* const> args,
                absl::Span<RCReference<AsyncValue>> results) {
        if (in_flight.fetch_add(1) != 0) overlapped = true;
        const int32_t next = args[0]->get<int32_t>() + 1;
        results[0] = EnqueueWork(host, [next, &in_flight] {
                       in_flight.fetch_sub(1);
                       return next;
                     }).ReleaseRCRef();
      });
  KernelFrameBuilder frame(host_.Context(), "tfrt.repeat.i32");
  frame.AddArg(I32(kCount)).AddArg(I32(0)).AddFunction(&body).SetNumResults(1);
  frame.Invoke(host_.Kernel("tfrt.repeat.i32"));
  host_.Await(frame.results());
  EXPECT_EQ(GetI32(frame.result(0)), kCount);
  EXPECT_EQ(body.calls(), kCount);
  EXPECT_FALSE(overlapped.load());
}

TEST_F(ControlFlowKernelsMultiThreadedTest, WhileWithAnAsynchronousBody) {
  HostContext* host = host_.host_context();
  LambdaFunction body(
      "body", 1, 2,
      [host](const ExecutionContext&, absl::Span<AsyncValue* const> args,
             absl::Span<RCReference<AsyncValue>> results) {
        const int32_t next = args[0]->get<int32_t>() + 1;
        results[0] = EnqueueWork(host, [next] { return next; }).ReleaseRCRef();
        results[1] =
            EnqueueWork(host, [next] { return next < 100; }).ReleaseRCRef();
      });
  KernelFrameBuilder frame(host_.Context(), "tfrt.while");
  frame.AddArg(Bool(true)).AddArg(I32(0)).AddFunction(&body).SetNumResults(1);
  frame.Invoke(host_.Kernel("tfrt.while"));
  host_.Await(frame.results());
  EXPECT_EQ(GetI32(frame.result(0)), 100);
  EXPECT_EQ(body.calls(), 100);
}

TEST_F(ControlFlowKernelsMultiThreadedTest, RepeatCancelledFromAnotherThread) {
  HostContext* host = host_.host_context();
  RequestContext* request = host_.request().get();
  LambdaFunction body(
      "body", 1, 1,
      [host, request](const ExecutionContext&,
                      absl::Span<AsyncValue* const> args,
                      absl::Span<RCReference<AsyncValue>> results) {
        const int32_t next = args[0]->get<int32_t>() + 1;
        results[0] = EnqueueWork(host, [next, request] {
                       if (next == 50) request->Cancel();
                       return next;
                     }).ReleaseRCRef();
      });
  KernelFrameBuilder frame(host_.Context(), "tfrt.repeat.i32");
  frame.AddArg(I32(1000)).AddArg(I32(0)).AddFunction(&body).SetNumResults(1);
  frame.Invoke(host_.Kernel("tfrt.repeat.i32"));
  host_.Await(frame.results());
  ASSERT_TRUE(frame.result(0)->IsError());
  EXPECT_EQ(frame.result(0)->GetError().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(body.calls(), 50);
}

// --- tfrt.once ---------------------------------------------------------------

TEST_F(ControlFlowKernelsTest, OnceRunsTheFunctionOncePerRequest) {
  auto function = AddConstant("f", 1);
  auto run_once = [&](const RCReference<RequestContext>& request,
                      int32_t operand) {
    KernelFrameBuilder frame(ExecutionContext(request.CopyRef()), "tfrt.once");
    frame.AddArg(I32(operand)).AddFunction(function.get()).SetNumResults(1);
    frame.Invoke(host_.Kernel("tfrt.once"));
    host_.Await(frame.results());
    return frame.result(0).CopyRef();
  };

  RCReference<AsyncValue> first = run_once(host_.request(), 1);
  RCReference<AsyncValue> second = run_once(host_.request(), 100);
  EXPECT_EQ(function->calls(), 1);
  EXPECT_EQ(GetI32(first), 2);
  // The very same value, computed from the first execution's operand.
  EXPECT_EQ(first.get(), second.get());

  RCReference<RequestContext> next_request = host_.NewRequest();
  RCReference<AsyncValue> third = run_once(next_request, 10);
  EXPECT_EQ(function->calls(), 2);
  EXPECT_EQ(GetI32(third), 11);
  EXPECT_EQ(GetI32(run_once(next_request, 0)), 11);
  EXPECT_EQ(function->calls(), 2);
}

TEST_F(ControlFlowKernelsTest, OnceKeepsResultsPerFunction) {
  auto f = AddConstant("f", 1);
  auto g = AddConstant("g", 2);
  for (const LambdaFunction* function : {f.get(), g.get(), f.get(), g.get()}) {
    KernelFrameBuilder frame(host_.Context(), "tfrt.once");
    frame.AddArg(I32(0)).AddFunction(function).SetNumResults(1);
    frame.Invoke(host_.Kernel("tfrt.once"));
    EXPECT_EQ(GetI32(frame.result(0)), function == f.get() ? 1 : 2);
  }
  EXPECT_EQ(f->calls(), 1);
  EXPECT_EQ(g->calls(), 1);
}

TEST_F(ControlFlowKernelsTest, OnceSharesPendingResults) {
  AsyncValueRef<int32_t> pending = MakeUnconstructedAsyncValueRef<int32_t>();
  auto function = Identity("f", 1);
  std::vector<RCReference<AsyncValue>> results;
  for (int i = 0; i < 2; ++i) {
    KernelFrameBuilder frame(host_.Context(), "tfrt.once");
    frame.AddArg(pending.CopyRCRef())
        .AddFunction(function.get())
        .SetNumResults(1);
    frame.Invoke(host_.Kernel("tfrt.once"));
    results.push_back(frame.result(0).CopyRef());
  }
  EXPECT_TRUE(results[0]->IsUnavailable());
  EXPECT_EQ(results[0].get(), results[1].get());
  pending.emplace(9);
  EXPECT_EQ(GetI32(results[1]), 9);
  EXPECT_EQ(function->calls(), 1);
}

TEST_F(ControlFlowKernelsMultiThreadedTest, OnceFromManyThreadsRunsOnce) {
  auto function = AddConstant("f", 1);
  KernelImplementation once = host_.Kernel("tfrt.once");
  std::vector<RCReference<AsyncValue>> results(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      KernelFrameBuilder frame(host_.Context(), "tfrt.once");
      frame.AddArg(I32(t)).AddFunction(function.get()).SetNumResults(1);
      frame.Invoke(once);
      results[t] = frame.result(0).CopyRef();
    });
  }
  for (std::thread& thread : threads) thread.join();
  host_.Await(results);
  EXPECT_EQ(function->calls(), 1);
  for (const RCReference<AsyncValue>& result : results) {
    EXPECT_EQ(result.get(), results[0].get());
  }
}

}  // namespace
}  // namespace sluice
