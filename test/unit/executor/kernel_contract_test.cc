// Program::Load checks every op against its kernel's signature and binds
// attributes by name: each rule, with the message a user sees.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/compiler/compile_program.h"
#include "sluice/executor/program.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernels/basic_kernels.h"
#include "sluice/support/error_util.h"

namespace sluice {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

int32_t Clamp(int32_t x, Attribute<int32_t> low, Attribute<int32_t> high) {
  return std::min(std::max(x, *low), *high);
}

// The same function without names: TFRT's order (sorted by name).
int32_t ClampSorted(int32_t x, Attribute<int32_t> high,
                    Attribute<int32_t> low) {
  return std::min(std::max(x, *low), *high);
}

int64_t Wide(Attribute<int64_t> value) { return *value; }

int32_t Scaled(int32_t x, OptionalAttribute<int32_t> factor) {
  return x * factor.value_or(1);
}

int32_t Sum(RemainingArguments values) {
  int32_t sum = 0;
  for (AsyncValue* value : values.values()) sum += value->get<int32_t>();
  return sum;
}

int32_t Length(ArrayAttribute<int32_t> values) {
  return static_cast<int32_t>(values.size());
}

std::string Text(StringAttribute text) { return text.str(); }

int32_t TextLength(OptionalStringAttribute text) {
  return static_cast<int32_t>(text.value_or("absent").size());
}

int32_t Leaves(AggregateAttribute values) {
  return static_cast<int32_t>(values.size());
}

// Reads the frame itself: counts are minimums, extra attributes follow.
int32_t CountAttributes(Attribute<int32_t> first, KernelFrame* frame) {
  return *first + static_cast<int32_t>(frame->GetNumAttributes());
}

int32_t NoFunctions() { return 0; }

class KernelContractTest : public ::testing::Test {
 protected:
  KernelContractTest()
      : host_([](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
              CreateSingleThreadedWorkQueue()) {
    EXPECT_TRUE(RegisterBasicKernels(&registry()).ok());
    EXPECT_TRUE(
        registry()
            .AddKernels({
                {"my.clamp",
                 SLUICE_KERNEL(Clamp).WithAttributeNames({"low", "high"})},
                {"my.clamp_sorted", SLUICE_KERNEL(ClampSorted)},
                {"my.wide", SLUICE_KERNEL(Wide).WithAttributeNames({"value"})},
                {"my.wide_unnamed", SLUICE_KERNEL(Wide)},
                {"my.scaled",
                 SLUICE_KERNEL(Scaled).WithAttributeNames({"factor"})},
                {"my.sum", SLUICE_KERNEL(Sum)},
                {"my.length",
                 SLUICE_KERNEL(Length).WithAttributeNames({"values"})},
                {"my.text", SLUICE_KERNEL(Text).WithAttributeNames({"text"})},
                {"my.text_length",
                 SLUICE_KERNEL(TextLength).WithAttributeNames({"text"})},
                {"my.leaves",
                 SLUICE_KERNEL(Leaves).WithAttributeNames({"values"})},
                {"my.count_attributes",
                 SLUICE_KERNEL(CountAttributes).WithAttributeNames({"first"})},
                {"my.no_functions", SLUICE_KERNEL(NoFunctions)},
            })
            .ok());
  }

  KernelRegistry& registry() { return GetKernelRegistry(&host_); }

  absl::StatusOr<std::unique_ptr<Program>> Load(const std::string& text) {
    absl::StatusOr<std::vector<uint8_t>> sbf =
        CompileProgram(text, "contract.mlir");
    EXPECT_TRUE(sbf.ok()) << sbf.status();
    if (!sbf.ok()) return sbf.status();
    return Program::Load(*sbf, registry());
  }

  // The message of loading `body` (the inside of a function returning i32).
  std::string LoadError(const std::string& body) {
    absl::StatusOr<std::unique_ptr<Program>> program =
        Load(absl::StrCat("func.func @main() -> i32 {\n", body, "\n}\n"));
    EXPECT_FALSE(program.ok());
    return program.ok() ? "" : std::string(program.status().message());
  }

  // Runs @main and returns its i32 result.
  int64_t Run(const std::string& body, bool wide = false) {
    absl::StatusOr<std::unique_ptr<Program>> program = Load(absl::StrCat(
        "func.func @main() -> ", wide ? "i64" : "i32", " {\n", body, "\n}\n"));
    EXPECT_TRUE(program.ok()) << program.status();
    if (!program.ok()) return -1;
    ExecutionContext context(RequestContext::Create(&host_));
    std::vector<RCReference<AsyncValue>> results =
        CallFunction(*(*program)->GetFunction("main"), context, {});
    host_.Await(results);
    EXPECT_FALSE(results[0]->IsError()) << results[0]->GetError();
    if (results[0]->IsError()) return -1;
    return wide ? results[0]->get<int64_t>() : results[0]->get<int32_t>();
  }

  HostContext host_;
};

TEST_F(KernelContractTest, NamedAttributesBindByName) {
  // Sorted by name, `high` comes first: by position, low would be 100.
  EXPECT_EQ(Run(R"(
  %x = tfrt.constant.i32 -5
  %y = "my.clamp"(%x) {low = 0 : i32, high = 100 : i32} : (i32) -> i32
  tfrt.return %y : i32)"),
            0);
  EXPECT_EQ(Run(R"(
  %x = tfrt.constant.i32 500
  %y = "my.clamp"(%x) {high = 100 : i32, low = 0 : i32} : (i32) -> i32
  tfrt.return %y : i32)"),
            100);
}

TEST_F(KernelContractTest, UnnamedAttributesBindInTfrtOrder) {
  EXPECT_EQ(Run(R"(
  %x = tfrt.constant.i32 -5
  %y = "my.clamp_sorted"(%x) {low = 0 : i32, high = 100 : i32} : (i32) -> i32
  tfrt.return %y : i32)"),
            0);
}

TEST_F(KernelContractTest, MissingNamedAttribute) {
  EXPECT_EQ(LoadError(R"(
  %x = tfrt.constant.i32 1
  %y = "my.clamp"(%x) {low = 0 : i32} : (i32) -> i32
  tfrt.return %y : i32)"),
            "kernel 'my.clamp' needs attribute 'high' (i32); the op has none");
}

TEST_F(KernelContractTest, ExtraAttributeIsRefused) {
  EXPECT_EQ(LoadError(R"(
  %x = "tfrt.constant.i32"() {value = 1 : i32, a = "hello"} : () -> i32
  tfrt.return %x : i32)"),
            "kernel 'tfrt.constant.i32' takes no attribute 'a'");
}

TEST_F(KernelContractTest, AttributeOfAnotherTypeIsRefused) {
  EXPECT_EQ(LoadError(R"(
  %x = tfrt.constant.i32 1
  %y = "my.clamp"(%x) {low = 0 : i64, high = 100 : i32} : (i32) -> i32
  tfrt.return %y : i32)"),
            "kernel 'my.clamp' needs attribute 'low' as i32; the op's is i64");
  EXPECT_EQ(LoadError(R"(
  %x = "my.wide_unnamed"() {value = 1 : i32} : () -> i64
  %y = tfrt.constant.i32 1
  tfrt.return %y : i32)"),
            "kernel 'my.wide_unnamed' takes attribute #0 as i64; the op's "
            "'value' is i32");
  EXPECT_EQ(LoadError(R"(
  %x = "my.text"() {text = 3 : i32} : () -> !tfrt.string
  %y = tfrt.constant.i32 1
  tfrt.return %y : i32)"),
            "kernel 'my.text' needs attribute 'text' as string; the op's is "
            "i32");
  EXPECT_EQ(LoadError(R"(
  %x = "my.leaves"() {values = "abc"} : () -> i32
  tfrt.return %x : i32)"),
            "kernel 'my.leaves' needs attribute 'values' as array; the op's "
            "is string");
  EXPECT_EQ(LoadError(R"(
  %x = "my.length"() {values = array<i64: 1, 2>} : () -> i32
  tfrt.return %x : i32)"),
            "kernel 'my.length' needs attribute 'values' as array of i32; "
            "the op's is dense<i64>");
}

TEST_F(KernelContractTest, UnnamedCountMismatch) {
  EXPECT_EQ(LoadError(R"(
  %x = tfrt.constant.i32 1
  %y = "my.clamp_sorted"(%x) {high = 1 : i32} : (i32) -> i32
  tfrt.return %y : i32)"),
            "kernel 'my.clamp_sorted' takes 2 attributes (i32, i32); the op "
            "has 1 ('high')");
  EXPECT_EQ(LoadError(R"(
  %x = "my.wide_unnamed"() : () -> i64
  %y = tfrt.constant.i32 1
  tfrt.return %y : i32)"),
            "kernel 'my.wide_unnamed' takes 1 attribute (i64); the op has "
            "none");
}

TEST_F(KernelContractTest, AttributeValuesReachTheKernel) {
  EXPECT_EQ(Run(R"(
  %x = "my.wide"() {value = 8589934592 : i64} : () -> i64
  tfrt.return %x : i64)",
                /*wide=*/true),
            int64_t{8589934592});
  EXPECT_EQ(Run(R"(
  %x = "my.length"() {values = array<i32: 4, 5, 6>} : () -> i32
  tfrt.return %x : i32)"),
            3);
  EXPECT_EQ(Run(R"(
  %x = "my.length"() {values = []} : () -> i32
  tfrt.return %x : i32)"),
            0);
  EXPECT_EQ(Run(R"(
  %x = "my.leaves"() {values = [1 : i32, "two", [3 : i32]]} : () -> i32
  tfrt.return %x : i32)"),
            3);
}

TEST_F(KernelContractTest, OptionalAttributes) {
  EXPECT_EQ(Run(R"(
  %x = tfrt.constant.i32 7
  %y = "my.scaled"(%x) : (i32) -> i32
  tfrt.return %y : i32)"),
            7);
  EXPECT_EQ(Run(R"(
  %x = tfrt.constant.i32 7
  %y = "my.scaled"(%x) {factor = 3 : i32} : (i32) -> i32
  tfrt.return %y : i32)"),
            21);
  EXPECT_EQ(LoadError(R"(
  %x = tfrt.constant.i32 7
  %y = "my.scaled"(%x) {factor = 3 : i64} : (i32) -> i32
  tfrt.return %y : i32)"),
            "kernel 'my.scaled' needs attribute 'factor' as i32; the op's is "
            "i64");
}

TEST_F(KernelContractTest, OptionalStringAttributes) {
  EXPECT_EQ(Run(R"(
  %y = "my.text_length"() : () -> i32
  tfrt.return %y : i32)"),
            6);
  EXPECT_EQ(Run(R"(
  %y = "my.text_length"() {text = "ab"} : () -> i32
  tfrt.return %y : i32)"),
            2);
  EXPECT_EQ(LoadError(R"(
  %y = "my.text_length"() {text = 2 : i32} : () -> i32
  tfrt.return %y : i32)"),
            "kernel 'my.text_length' needs attribute 'text' as string; the "
            "op's is i32");
}

TEST_F(KernelContractTest, OperandAndResultCounts) {
  EXPECT_EQ(LoadError(R"(
  %x = "my.clamp"() {low = 0 : i32, high = 1 : i32} : () -> i32
  tfrt.return %x : i32)"),
            "kernel 'my.clamp' takes 1 operand; the op has 0");
  EXPECT_EQ(LoadError(R"(
  %x = tfrt.constant.i32 1
  %y:2 = "my.clamp"(%x) {low = 0 : i32, high = 1 : i32} : (i32) -> (i32, i32)
  tfrt.return %y#0 : i32)"),
            "kernel 'my.clamp' takes 1 result; the op has 2");
  // One trailing operand more is a chain that orders the op.
  EXPECT_EQ(Run(R"(
  %ch = tfrt.new.chain
  %x = tfrt.constant.i32 5
  %y = "my.clamp"(%x, %ch) {low = 0 : i32, high = 9 : i32} : (i32, !tfrt.chain) -> i32
  tfrt.return %y : i32)"),
            5);
  // RemainingArguments takes any number.
  EXPECT_EQ(Run(R"(
  %a = tfrt.constant.i32 1
  %b = tfrt.constant.i32 2
  %c = tfrt.constant.i32 3
  %s = "my.sum"(%a, %b, %c) : (i32, i32, i32) -> i32
  tfrt.return %s : i32)"),
            6);
}

TEST_F(KernelContractTest, FrameKernelsTakeExtraAttributesAfterTheirOwn) {
  EXPECT_EQ(Run(R"(
  %x = "my.count_attributes"() {first = 10 : i32, b = 1 : i32, c = "x"} : () -> i32
  tfrt.return %x : i32)"),
            13);
  EXPECT_EQ(LoadError(R"(
  %x = "my.count_attributes"() {b = 1 : i32} : () -> i32
  tfrt.return %x : i32)"),
            "kernel 'my.count_attributes' needs attribute 'first' (i32); the "
            "op has none");
}

TEST_F(KernelContractTest, RegionsNeedAKernelThatRunsThem) {
  EXPECT_EQ(LoadError(R"(
  %x = "my.no_functions"() ({
    %y = tfrt.constant.i32 1
    tfrt.return %y : i32
  }) : () -> i32
  tfrt.return %x : i32)"),
            "kernel 'my.no_functions' runs no regions or functions; the op "
            "has 1");
}

TEST_F(KernelContractTest, EveryBadOpIsReportedAtItsLocation) {
  absl::StatusOr<std::unique_ptr<Program>> program =
      Load(R"(func.func @a() -> i32 {
  %x = "my.wide"() : () -> i64
  %y = tfrt.constant.i32 1
  tfrt.return %y : i32
}
func.func @b() -> i32 {
  %x = tfrt.constant.i32 1
  %y = "my.clamp"(%x) : (i32) -> i32
  %z = "my.unknown"() : () -> i32
  tfrt.return %y : i32
}
)");
  ASSERT_FALSE(program.ok());
  EXPECT_EQ(program.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(GetErrorContext(program.status()).location, "contract.mlir:2:8");
  EXPECT_EQ(GetErrorContext(program.status()).kernel, "my.wide");
  EXPECT_EQ(program.status().message(),
            "kernel 'my.wide' needs attribute 'value' (i64); the op has none\n"
            "contract.mlir:8:8: error: kernel 'my.clamp' needs attribute 'low' "
            "(i32); the op has none\n"
            "contract.mlir:8:8: error: kernel 'my.clamp' needs attribute "
            "'high' (i32); the op has none\n"
            "contract.mlir:9:8: error: unknown kernel name 'my.unknown'");
}

TEST_F(KernelContractTest, UnboundedRecursionIsAnErrorNamingTheFunction) {
  absl::StatusOr<std::unique_ptr<Program>> program = Load(R"(
func.func @forever(%x: i32) -> i32 {
  %y = tfrt.call @forever(%x) : (i32) -> i32
  tfrt.return %y : i32
}
func.func @deep(%n: i32) -> i32 {
  %zero = tfrt.constant.i32 0
  %done = "tfrt.lessequal.i32"(%n, %zero) : (i32, i32) -> i1
  %r = tfrt.if %done, %n : (i32) -> (i32) {
    tfrt.return %n : i32
  } else {
    %one = tfrt.constant.i32 1
    %m = "tfrt.minus.i32"(%n, %one) : (i32, i32) -> i32
    %d = tfrt.call @deep(%m) : (i32) -> i32
    %e = tfrt.add.i32 %d, %one
    tfrt.return %e : i32
  }
  tfrt.return %r : i32
}
)");
  ASSERT_TRUE(program.ok()) << program.status();
  ExecutionContext context(RequestContext::Create(&host_));
  AsyncValueRef<int32_t> one = MakeAvailableAsyncValueRef<int32_t>(1);
  AsyncValue* arguments[] = {one.GetAsyncValue()};
  std::vector<RCReference<AsyncValue>> results =
      CallFunction(*(*program)->GetFunction("forever"), context, arguments);
  host_.Await(results);
  ASSERT_TRUE(results[0]->IsError());
  EXPECT_EQ(results[0]->GetError().code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(results[0]->GetError().message(),
            "calls nested deeper than 1000 at a call of 'forever': unbounded "
            "recursion?");

  // A deep but finite recursion within the limit (each level is a call and
  // an if region) still runs.
  AsyncValueRef<int32_t> depth = MakeAvailableAsyncValueRef<int32_t>(490);
  AsyncValue* deep_arguments[] = {depth.GetAsyncValue()};
  results =
      CallFunction(*(*program)->GetFunction("deep"), context, deep_arguments);
  host_.Await(results);
  ASSERT_FALSE(results[0]->IsError()) << results[0]->GetError();
  EXPECT_EQ(results[0]->get<int32_t>(), 490);
}

}  // namespace
}  // namespace sluice
