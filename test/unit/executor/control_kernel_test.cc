// Calls and branches the executor runs itself (ControlKind): which kernels
// the loader hands it, and that whatever it leaves to the kernels' own
// frames (a function that does not fit, a pending or failed condition)
// still gives the values the kernels define.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/executor/executable_function.h"
#include "lib/executor/region_inlining.h"
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

  // Runs "main" three times, expecting `expected` as its results each time.
  void ExpectResults(const Program& program,
                     const std::vector<int32_t>& expected) {
    for (int run = 0; run < 3; ++run) {
      auto results = Run(program);
      for (size_t i = 0; i < expected.size(); ++i) {
        ASSERT_TRUE(results[i]->IsConcrete()) << i;
        EXPECT_EQ(results[i]->get<int32_t>(), expected[i]) << i;
      }
    }
  }

  static const ExecutableFunction& Loaded(const Program& program,
                                          std::string_view name) {
    return *static_cast<const ExecutableFunction*>(program.GetFunction(name));
  }
  static const executor_internal::KernelRecord& Record(
      const Program& program, uint32_t kernel, std::string_view name = "main") {
    return Loaded(program, name).record(kernel);
  }
  static ControlKind Control(const Program& program, uint32_t kernel,
                             std::string_view name = "main") {
    return static_cast<ControlKind>(Record(program, kernel, name).control);
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
  EXPECT_EQ(Control(*program, 4), ControlKind::kInlineIf);
  EXPECT_EQ(Control(*program, 5), ControlKind::kInlineIf);
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

// A branch whose functions are small runs them in the caller's frame, in
// an area after its own registers that fits the larger one. A function
// too big, or one that leads back by regions to the kernel's own function,
// runs in a frame of its own.
TEST_P(ControlKernelTest, RunsSmallRegionsInTheCallersFrame) {
  ProgramBuilder b;
  const auto [inc, add] = AddCallees(b);
  const uint32_t big = b.Declare("big", 1, 1);
  const uint32_t loop = b.Declare("loop", 1, 1);
  const uint32_t main = b.Declare("main", 0, 3);
  b.Begin(1);
  uint32_t sum = 0;
  const uint32_t zero = b.Constant(0);
  for (uint32_t i = 0; i < executor_internal::kMaxInlineRegionKernels; ++i) {
    sum = b.Kernel("test.add.i32", {sum, zero});
  }
  b.End(big, {sum});
  b.Begin(1);
  const uint32_t positive = b.Kernel("test.is_positive", {0});
  b.End(loop, {b.Kernel("tfrt.cond", {positive, 0}, 1, {}, {inc, loop})});
  b.Begin(0);
  const uint32_t one = b.Constant(1);                            // 0
  const uint32_t yes = b.Kernel("test.is_positive", {one});      // 1
  const uint32_t small = b.Kernel("tfrt.if", {yes, one}, 1, {},  // 2
                                  {inc, inc});
  const uint32_t large = b.Kernel("tfrt.if", {yes, one}, 1, {},  // 3
                                  {big, inc});
  const uint32_t looped = b.Kernel("tfrt.call", {one}, 1, {}, {loop});  // 4
  b.End(main, {small, large, looped});
  auto program = Load(b.Finish());

  EXPECT_EQ(Control(*program, 2), ControlKind::kInlineIf);
  EXPECT_EQ(Control(*program, 3), ControlKind::kIf);
  EXPECT_EQ(Control(*program, 1, "loop"), ControlKind::kIf);
  const ExecutableFunction& caller = Loaded(*program, "main");
  const ExecutableFunction& region = Loaded(*program, "inc");
  EXPECT_EQ(region.frame_registers, region.num_registers);
  EXPECT_EQ(caller.frame_registers,
            caller.num_registers + region.frame_registers);
  EXPECT_EQ(Loaded(*program, "loop").frame_registers,
            Loaded(*program, "loop").num_registers);
  ExpectResults(*program, {2, 1, 2});
}

// A region's own branches run inline too, in the area after its
// registers; the next branch of the caller reuses the area.
TEST_P(ControlKernelTest, NestsRegionsAndReusesTheirArea) {
  ProgramBuilder b;
  const auto [inc, add] = AddCallees(b);
  const uint32_t outer = b.Declare("outer", 1, 1);  // x + 1 + x
  const uint32_t main = b.Declare("main", 0, 2);
  b.Begin(1);
  const uint32_t positive = b.Kernel("test.is_positive", {0});
  const uint32_t next = b.Kernel("tfrt.if", {positive, 0}, 1, {}, {inc, inc});
  b.End(outer, {b.Kernel("test.add.i32", {next, 0})});
  b.Begin(0);
  const uint32_t one = b.Constant(1);
  const uint32_t yes = b.Kernel("test.is_positive", {one});
  const uint32_t three =
      b.Kernel("tfrt.if", {yes, one}, 1, {}, {outer, inc});  // 2
  const uint32_t four =
      b.Kernel("tfrt.if", {yes, three}, 1, {}, {inc, outer});  // 3
  b.End(main, {three, four});
  auto program = Load(b.Finish());

  EXPECT_EQ(Control(*program, 2), ControlKind::kInlineIf);
  EXPECT_EQ(Control(*program, 3), ControlKind::kInlineIf);
  EXPECT_EQ(Control(*program, 1, "outer"), ControlKind::kInlineIf);
  const ExecutableFunction& region = Loaded(*program, "outer");
  EXPECT_EQ(region.frame_registers,
            region.num_registers + Loaded(*program, "inc").num_registers);
  EXPECT_EQ(Loaded(*program, "main").frame_registers,
            Loaded(*program, "main").num_registers + region.frame_registers);
  ExpectResults(*program, {3, 4});
}

// A region running inline that meets a pending value moves to a frame of
// its own, which finishes it as dataflow: its results may be pending, and
// work it leaves behind runs after the caller moved on (and reused the
// area for its next branch).
TEST_P(ControlKernelTest, ARegionThatWaitsFinishesInAFrameOfItsOwn) {
  ProgramBuilder b;
  const auto [inc, add] = AddCallees(b);
  const uint32_t later = b.Declare("later", 1, 1);  // x + 1 + x, waiting
  const uint32_t side = b.Declare("side", 1, 1);    // x + x, leaving work
  const uint32_t main = b.Declare("main", 0, 4);
  b.Begin(1);
  uint32_t positive = b.Kernel("test.async_is_positive", {0});
  uint32_t next = b.Kernel("tfrt.if", {positive, 0}, 1, {}, {inc, inc});
  b.End(later, {b.Kernel("test.add.i32", {next, 0})});
  b.Begin(1);
  positive = b.Kernel("test.async_is_positive", {0});
  b.Kernel("tfrt.if", {positive, 0}, 1, {}, {inc, inc});
  b.End(side, {b.Kernel("test.add.i32", {0, 0})});
  b.Begin(0);
  const uint32_t one = b.Constant(1);
  const uint32_t yes = b.Kernel("test.is_positive", {one});
  const uint32_t two = b.Kernel("tfrt.if", {yes, one}, 1, {}, {side, inc});
  const uint32_t three = b.Kernel("tfrt.if", {yes, two}, 1, {}, {inc, inc});
  const uint32_t waited = b.Kernel("tfrt.if", {yes, one}, 1, {}, {later, inc});
  const uint32_t six = b.Kernel("test.add.i32", {waited, three});
  b.End(main, {two, three, waited, six});
  ExpectResults(*Load(b.Finish()), {2, 3, 3, 6});
}

// Inline, a region's kernels fail and see cancellation as in a frame of
// their own: a failure becomes the branch's result, and so does the
// cancellation of a kernel that runs after the region cancelled.
TEST_P(ControlKernelTest, FailuresAndCancellationInsideARegion) {
  ProgramBuilder b;
  const auto [inc, add] = AddCallees(b);
  const uint32_t fails = b.Declare("fails", 1, 1);
  const uint32_t cancels = b.Declare("cancels", 1, 1);
  const uint32_t main = b.Declare("main", 0, 2);
  b.Begin(1);
  const uint32_t failed = b.Kernel("test.fail_to_compare", {0});
  b.End(fails, {b.Kernel("tfrt.if", {failed, 0}, 1, {}, {inc, inc})});
  b.Begin(1);
  b.Kernel("test.cancel", {0});
  b.End(cancels, {b.Kernel("test.add.i32", {0, 0})});
  b.Begin(0);
  const uint32_t one = b.Constant(1);
  const uint32_t yes = b.Kernel("test.is_positive", {one});
  const uint32_t error =
      b.Kernel("tfrt.if", {yes, one}, 1, {}, {fails, inc});  // 2
  const uint32_t cancelled =
      b.Kernel("tfrt.if", {yes, one}, 1, {}, {cancels, inc});  // 3
  b.End(main, {error, cancelled});
  auto program = Load(b.Finish());

  EXPECT_EQ(Control(*program, 2), ControlKind::kInlineIf);
  EXPECT_EQ(Control(*program, 3), ControlKind::kInlineIf);
  auto results = Run(*program);
  ASSERT_TRUE(results[0]->IsError());
  EXPECT_THAT(results[0]->GetError().message(),
              HasSubstr("no comparison today"));
  ASSERT_TRUE(results[1]->IsError());
  EXPECT_EQ(results[1]->GetError().code(), absl::StatusCode::kCancelled);
}

INSTANTIATE_TEST_SUITE_P(Queues, ControlKernelTest,
                         ::testing::Values("s", "mstd:2,2"));

}  // namespace
}  // namespace sluice
