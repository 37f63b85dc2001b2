// Calls and branches the executor runs itself (ControlKind): which kernels
// the loader hands it, and that whatever it leaves to the kernels' own
// frames (a function that does not fit, a pending or failed condition)
// still gives the values the kernels define.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/executor/executable_function.h"
#include "sluice/executor/program.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/kernels/basic_kernels.h"
#include "test/unit/executor/program_builder.h"
#include "test/unit/executor/run_program.h"

namespace sluice {
namespace {

using executor_internal::ControlKind;
using executor_internal::ExecutableFunction;
using ::testing::HasSubstr;
using testing_util::ProgramBuilder;

int32_t Constant(Attribute<int32_t> value) { return *value; }
int32_t Add(int32_t a, int32_t b) { return a + b; }
bool IsPositive(int32_t x) { return x > 0; }
AsyncValueRef<bool> AsyncIsPositive(int32_t x, HostContext* host) {
  return EnqueueWork(host, [x] { return x > 0; });
}
Chain CancelRequest(int32_t, const ExecutionContext& context) {
  context.request_context()->Cancel();
  return Chain{};
}
absl::StatusOr<bool> FailToCompare(int32_t) {
  return absl::InvalidArgumentError("no comparison today");
}

class ControlKernelTest : public ::testing::TestWithParam<const char*> {
 protected:
  ControlKernelTest()
      : host_([](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
              *CreateWorkQueue(GetParam())) {
    KernelRegistry& registry = GetKernelRegistry(&host_);
    EXPECT_TRUE(RegisterBasicKernels(&registry).ok());
    EXPECT_TRUE(
        registry
            .AddKernels({
                {"test.constant.i32", SLUICE_KERNEL(Constant)},
                {"test.add.i32", SLUICE_KERNEL(Add)},
                {"test.is_positive", SLUICE_KERNEL(IsPositive)},
                {"test.async_is_positive", SLUICE_KERNEL(AsyncIsPositive)},
                {"test.fail_to_compare", SLUICE_KERNEL(FailToCompare)},
                {"test.cancel", SLUICE_KERNEL(CancelRequest)},
            })
            .ok());
  }

  std::unique_ptr<Program> Load(const std::vector<uint8_t>& bytes) {
    return testing_util::LoadProgram(host_, bytes);
  }

  std::vector<RCReference<AsyncValue>> Run(const Program& program) {
    return testing_util::RunToEnd(host_, program, "main");
  }

  static const executor_internal::KernelRecord& Record(const Program& program,
                                                       uint32_t kernel) {
    return static_cast<const ExecutableFunction*>(program.GetFunction("main"))
        ->record(kernel);
  }
  static ControlKind Control(const Program& program, uint32_t kernel) {
    return static_cast<ControlKind>(Record(program, kernel).control);
  }
  static bool InPlace(const Program& program, uint32_t kernel) {
    return (Record(program, kernel).results()[0] &
            executor_internal::kInlineRegister) != 0;
  }

  // Declares "inc" (x + 1) and "add" (a + b); returns their indices.
  static std::pair<uint32_t, uint32_t> AddCallees(ProgramBuilder& b) {
    const uint32_t inc = b.Declare("inc", 1, 1);
    const uint32_t add = b.Declare("add", 2, 1);
    b.Begin(1);
    b.End(inc, {b.Kernel("test.add.i32", {0, b.Constant(1)})});
    b.Begin(2);
    b.End(add, {b.Kernel("test.add.i32", {0, 1})});
    return {inc, add};
  }

  HostContext host_;
};

// Kernel k of main is the k-th Kernel() call of its body.
TEST_P(ControlKernelTest, TakesOverCallsAndBranchesWhoseFunctionsFit) {
  ProgramBuilder b;
  const auto [inc, add] = AddCallees(b);
  const uint32_t main = b.Declare("main", 0, 5);
  b.Begin(0);
  const uint32_t one = b.Constant(1);                                  // 0
  const uint32_t two = b.Kernel("tfrt.call", {one}, 1, {}, {inc});     // 1
  const uint32_t misfit = b.Kernel("tfrt.call", {one}, 1, {}, {add});  // 2
  const uint32_t yes = b.Kernel("test.is_positive", {one});            // 3
  const uint32_t three =
      b.Kernel("tfrt.if", {yes, two, one}, 1, {}, {inc, add});  // 4
  const uint32_t sum =
      b.Kernel("tfrt.cond", {yes, two, one}, 1, {}, {add, inc});           // 5
  const uint32_t no_else = b.Kernel("tfrt.if", {yes, two}, 1, {}, {inc});  // 6
  b.End(main, {two, misfit, three, sum, no_else});
  auto program = Load(b.Finish());

  EXPECT_EQ(Control(*program, 1), ControlKind::kCall);
  EXPECT_EQ(Control(*program, 2), ControlKind::kNone);
  EXPECT_EQ(Control(*program, 4), ControlKind::kIf);
  EXPECT_EQ(Control(*program, 5), ControlKind::kIf);
  EXPECT_EQ(Control(*program, 6), ControlKind::kNone);

  for (int run = 0; run < 3; ++run) {
    auto results = Run(*program);
    ASSERT_TRUE(results[0]->IsConcrete());
    EXPECT_EQ(results[0]->get<int32_t>(), 2);
    ASSERT_TRUE(results[1]->IsError());
    EXPECT_THAT(results[1]->GetError().message(),
                HasSubstr("'add' takes 2 arguments but tfrt.call passes 1"));
    ASSERT_TRUE(results[2]->IsConcrete());
    EXPECT_EQ(results[2]->get<int32_t>(), 3);
    ASSERT_TRUE(results[3]->IsConcrete());
    EXPECT_EQ(results[3]->get<int32_t>(), 3);
    ASSERT_TRUE(results[4]->IsError());
    EXPECT_THAT(results[4]->GetError().message(),
                HasSubstr("tfrt.if needs 2 function(s), got 1"));
  }
}

// A condition that is still pending, or an error, leaves the branch to
// tfrt.if's own kernel: it waits for the one, and forwards the other.
TEST_P(ControlKernelTest, LeavesPendingAndFailedConditionsToTheKernel) {
  ProgramBuilder b;
  const auto [inc, add] = AddCallees(b);
  const uint32_t main = b.Declare("main", 0, 3);
  b.Begin(0);
  const uint32_t one = b.Constant(1);
  const uint32_t minus = b.Constant(-1);
  const uint32_t later = b.Kernel("test.async_is_positive", {one});
  const uint32_t later_no = b.Kernel("test.async_is_positive", {minus});
  const uint32_t failed = b.Kernel("test.fail_to_compare", {one});
  const uint32_t taken = b.Kernel("tfrt.if", {later, one}, 1, {}, {inc, inc});
  const uint32_t other =
      b.Kernel("tfrt.if", {later_no, one, minus}, 1, {}, {inc, add});
  const uint32_t skipped =
      b.Kernel("tfrt.if", {failed, one}, 1, {}, {inc, inc});
  b.End(main, {taken, other, skipped});
  auto program = Load(b.Finish());

  for (int run = 0; run < 3; ++run) {
    auto results = Run(*program);
    ASSERT_TRUE(results[0]->IsConcrete());
    EXPECT_EQ(results[0]->get<int32_t>(), 2);
    ASSERT_TRUE(results[1]->IsConcrete());
    EXPECT_EQ(results[1]->get<int32_t>(), 0);
    ASSERT_TRUE(results[2]->IsError());
    EXPECT_THAT(results[2]->GetError().message(),
                HasSubstr("no comparison today"));
  }
}

// A condition that only tfrt.if branches on stays in place; one also
// passed on to a branch is an AsyncValue. A branch that becomes ready after
// the request was cancelled runs nothing: its result is the cancellation.
TEST_P(ControlKernelTest, BranchesOnAConditionKeptInPlace) {
  ProgramBuilder b;
  const auto [inc, add] = AddCallees(b);
  const uint32_t main = b.Declare("main", 0, 2);
  b.Begin(0);
  const uint32_t one = b.Constant(1);                            // 0
  const uint32_t yes = b.Kernel("test.is_positive", {one});      // 1
  const uint32_t taken = b.Kernel("tfrt.if", {yes, one}, 1, {},  // 2
                                  {inc, inc});
  const uint32_t passed = b.Kernel("test.is_positive", {one});    // 3
  b.Kernel("tfrt.if", {passed, one, passed}, 1, {}, {inc, inc});  // 4
  const uint32_t cancelled = b.Kernel("test.cancel", {taken});    // 5
  const uint32_t late =
      b.Kernel("tfrt.if", {yes, one, cancelled}, 1, {}, {inc, inc});  // 6
  b.End(main, {taken, late});
  auto program = Load(b.Finish());

  EXPECT_TRUE(InPlace(*program, 1));
  EXPECT_FALSE(InPlace(*program, 3));
  auto results = Run(*program);
  ASSERT_TRUE(results[0]->IsConcrete());
  EXPECT_EQ(results[0]->get<int32_t>(), 2);
  ASSERT_TRUE(results[1]->IsError());
  EXPECT_EQ(results[1]->GetError().code(), absl::StatusCode::kCancelled);
}

INSTANTIATE_TEST_SUITE_P(Queues, ControlKernelTest,
                         ::testing::Values("s", "mstd:2,2"));

}  // namespace
}  // namespace sluice
