// Kernels with a DirectKernel entry, and the values the loader keeps in
// their registers (kInlineRegister): which values it keeps there, and that
// every way a value can reach a direct kernel other than in place (pending,
// forwarded, of another type, an error) still gives the right result.
#include <cstdint>
#include <memory>
#include <mutex>
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
#include "test/unit/executor/program_builder.h"
#include "test/unit/executor/run_program.h"

namespace sluice {
namespace {

using executor_internal::ExecutableFunction;
using executor_internal::KernelRecord;
using ::testing::HasSubstr;
using testing_util::ProgramBuilder;

int32_t Constant(Attribute<int32_t> value) { return *value; }
int32_t Add(int32_t a, int32_t b) { return a + b; }
int64_t AddWide(int64_t a, int64_t b) { return a + b; }
// Reads its operand as an AsyncValue: not direct.
int32_t Copy(Argument<int32_t> x) { return *x; }
AsyncValueRef<int32_t> AsyncIncrement(int32_t x, HostContext* host) {
  return EnqueueWork(host, [x] { return x + 1; });
}
void Call(RemainingArguments arguments, RemainingResults results,
          RemainingFunctions functions, const ExecutionContext& context) {
  std::vector<RCReference<AsyncValue>> out(results.size());
  functions[0]->Execute(context, arguments.values(), absl::MakeSpan(out));
  for (size_t i = 0; i < out.size(); ++i) results.SetAt(i, std::move(out[i]));
}

class DirectKernelTest : public ::testing::TestWithParam<const char*> {
 protected:
  DirectKernelTest()
      : host_(
            [this](const DecodedDiagnostic& d) {
              std::lock_guard<std::mutex> lock(mu_);
              diagnostics_.push_back(d.ToString());
            },
            CreateMallocAllocator(), *CreateWorkQueue(GetParam())) {
    EXPECT_TRUE(
        GetKernelRegistry(&host_)
            .AddKernels({
                {"test.constant.i32", SLUICE_KERNEL(Constant)},
                {"test.add.i32", SLUICE_KERNEL(Add)},
                {"test.add.i64", SLUICE_KERNEL(AddWide)},
                {"test.copy.i32", SLUICE_KERNEL(Copy)},
                {"test.async_increment", SLUICE_KERNEL(AsyncIncrement)},
                {"test.call", SLUICE_KERNEL(Call), Strictness::kNonStrict},
            })
            .ok());
  }

  std::unique_ptr<Program> Load(const std::vector<uint8_t>& bytes) {
    return testing_util::LoadProgram(host_, bytes);
  }

  std::vector<RCReference<AsyncValue>> Run(const Program& program,
                                           std::string_view name) {
    return testing_util::RunToEnd(host_, program, name);
  }

  // Whether kernel `k` of `name` runs directly, and keeps its result in
  // place.
  static const KernelRecord& Record(const Program& program,
                                    std::string_view name, uint32_t k) {
    return static_cast<const ExecutableFunction*>(program.GetFunction(name))
        ->record(k);
  }
  static bool InPlace(const KernelRecord& record) {
    return (record.results()[0] & executor_internal::kInlineRegister) != 0;
  }

  std::mutex mu_;
  std::vector<std::string> diagnostics_;
  HostContext host_;
};

// Kernel k of a body is the k-th Kernel() call (constants included).
TEST_P(DirectKernelTest, KeepsInPlaceOnlyValuesThatDirectKernelsRead) {
  ProgramBuilder b;
  uint32_t f = b.Declare("main", 0, 2);
  b.Begin(0);
  uint32_t one = b.Constant(1);                               // 0: in place
  uint32_t two = b.Kernel("test.add.i32", {one, one});        // 1: in place
  uint32_t copied = b.Kernel("test.add.i32", {two, one});     // 2: copied
  uint32_t copy = b.Kernel("test.copy.i32", {copied});        // 3: not direct
  uint32_t wide = b.Constant(5);                              // 4: read as i64
  b.Kernel("test.add.i64", {wide, wide});                     // 5: unused
  uint32_t returned = b.Kernel("test.add.i32", {two, copy});  // 6: returned
  b.End(f, {returned, copy});
  auto program = Load(b.Finish());

  EXPECT_TRUE(InPlace(Record(*program, "main", 0)));
  EXPECT_TRUE(InPlace(Record(*program, "main", 1)));
  EXPECT_FALSE(InPlace(Record(*program, "main", 2)));
  EXPECT_EQ(Record(*program, "main", 3).direct, nullptr);
  EXPECT_FALSE(InPlace(Record(*program, "main", 4)));
  EXPECT_NE(Record(*program, "main", 5).direct, nullptr);
  EXPECT_TRUE(InPlace(Record(*program, "main", 5)));
  EXPECT_NE(Record(*program, "main", 6).direct, nullptr);
  EXPECT_FALSE(InPlace(Record(*program, "main", 6)));

  // The i64 add reads i32 values: an error value, not a misread payload.
  auto results = Run(*program, "main");
  ASSERT_TRUE(results[0]->IsConcrete());
  EXPECT_EQ(results[0]->get<int32_t>(), 2 + 3);
  EXPECT_EQ(results[1]->get<int32_t>(), 3);
  std::lock_guard<std::mutex> lock(mu_);
  ASSERT_EQ(diagnostics_.size(), 1u);
  EXPECT_THAT(diagnostics_[0], HasSubstr("prog.mlir:6:5"));  // kernel 5
  EXPECT_THAT(diagnostics_[0],
              HasSubstr("operand #0 does not hold a value of the type the "
                        "kernel takes"));
}

// A direct kernel whose operands are a pending value, a forwarded one (a
// call's result that its callee makes later) and one kept in place: it
// waits, then runs through its frame with the in-place value handed over
// as an AsyncValue.
TEST_P(DirectKernelTest, MixesForwardedPendingAndInPlaceOperands) {
  ProgramBuilder b;
  uint32_t callee = b.Declare("later", 1, 1);
  uint32_t main = b.Declare("main", 0, 1);
  b.Begin(1);
  // Its result is made after the call returned: the caller gets a
  // placeholder that is forwarded to it.
  uint32_t incremented = b.Kernel("test.async_increment", {0});
  b.End(callee, {b.Kernel("test.add.i32", {incremented, incremented})});
  b.Begin(0);
  uint32_t ten = b.Constant(10);
  uint32_t forwarded = b.Kernel("test.call", {ten}, 1, {}, {callee});
  uint32_t pending = b.Kernel("test.async_increment", {ten});
  uint32_t hundred = b.Constant(100);
  uint32_t sum = b.Kernel("test.add.i32", {forwarded, hundred});
  uint32_t total = b.Kernel("test.add.i32", {sum, pending});
  b.End(main, {b.Kernel("test.add.i32", {total, hundred})});
  auto program = Load(b.Finish());
  EXPECT_TRUE(InPlace(Record(*program, "main", 3)));  // hundred

  for (int run = 0; run < 3; ++run) {
    auto results = Run(*program, "main");
    ASSERT_TRUE(results[0]->IsConcrete());
    EXPECT_EQ(results[0]->get<int32_t>(), 2 * 11 + 100 + 11 + 100);
  }
}

// An error stored in a register meant for a payload (its kernel was
// skipped) reaches the end of a direct chain as that one error.
TEST_P(DirectKernelTest, ErrorInAnInPlaceRegisterIsForwarded) {
  ProgramBuilder b;
  uint32_t f = b.Declare("main", 0, 1);
  b.Begin(0);
  uint32_t one = b.Constant(1);
  uint32_t bad = b.Constant(2);
  uint32_t misfit = b.Kernel("test.add.i64", {bad, bad});
  uint32_t x = b.Kernel("test.add.i32", {one, one});
  for (int i = 0; i < 100; ++i) {
    x = b.Kernel("test.add.i32", {x, i == 50 ? misfit : one});
  }
  b.End(f, {x});
  auto program = Load(b.Finish());
  auto results = Run(*program, "main");
  ASSERT_TRUE(results[0]->IsError());
  EXPECT_THAT(results[0]->GetError().message(),
              HasSubstr("does not hold a value of the type"));
  std::lock_guard<std::mutex> lock(mu_);
  EXPECT_EQ(diagnostics_.size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Queues, DirectKernelTest,
                         ::testing::Values("s", "mstd:2,2"));

}  // namespace
}  // namespace sluice
