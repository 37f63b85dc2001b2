#include "sluice/kernel/kernel_binding.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernel/kernel_frame_builder.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/kernel/llvm_kernel_binding.h"
#include "sluice/support/error_util.h"
#include "sluice/support/llvm_error.h"

namespace sluice {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// --- Kernels under test ------------------------------------------------------

int32_t AddI32(int32_t a, const int32_t& b) { return a + b; }

std::string Describe(Argument<std::string> prefix, Attribute<int64_t> scale,
                     StringAttribute suffix, ArrayAttribute<int32_t> values) {
  std::string out = *prefix + ":" + std::to_string(*scale) + ":";
  for (int32_t v : values) out += std::to_string(v) + ",";
  return out + std::string(suffix.get());
}

llvm::Expected<int32_t> CheckedDiv(int32_t a, int32_t b) {
  if (b == 0) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "Divide by zero");
  }
  return a / b;
}

absl::StatusOr<int64_t> ParsePositive(int64_t x) {
  if (x <= 0) return absl::InvalidArgumentError("expected a positive number");
  return x;
}

llvm::Expected<int32_t> FailWithStatus() {
  return MakeLlvmError(absl::ResourceExhaustedError("out of tickets"));
}

std::tuple<int32_t, std::string> Split(int32_t x) {
  return {x * 2, std::to_string(x)};
}

AsyncValueRef<int32_t> AsyncSquare(int32_t x, HostContext* host) {
  return EnqueueWork(host, [x] { return x * x; });
}

void EmplaceAndAllocate(Argument<int32_t> x, Result<int32_t> same,
                        Result<int32_t> later, HostContext* host) {
  same.Emplace(*x);
  AsyncValueRef<int32_t> value = later.Allocate();
  host->EnqueueWork(
      [value = std::move(value), v = *x] { value.emplace(v + 1); });
}

// Forwards the chain-free tail of its arguments and returns their sum.
int64_t SumRest(Argument<int32_t> first, RemainingArguments rest,
                RemainingResults outs) {
  int64_t sum = *first;
  for (size_t i = 0; i < rest.size(); ++i) {
    sum += rest[i]->get<int32_t>();
    outs.SetAt(i, FormRef(rest[i]));
  }
  return sum;
}

// First result 1, second the error: a partial failure.
absl::Status PartialFail(Result<int32_t> ok, Result<int32_t> failed) {
  ok.Emplace(1);
  (void)failed;
  return absl::InternalError("something bad happened");
}

// Completes both results from another thread through a copy of the frame.
void CompleteElsewhere(int32_t x, AsyncKernelFrame* frame) {
  AsyncKernelFrame copy = *frame;
  std::thread([copy, x]() mutable {
    copy.EmplaceResultAt<int32_t>(0, x + 1);
    copy.EmplaceResultAt<std::string>(1, "done");
  }).detach();
}

// Sets its first result now and fails the rest later on another thread.
void FailLaterElsewhere(AsyncKernelFrame* frame) {
  frame->EmplaceResultAt<int32_t>(0, 7);
  AsyncKernelFrame copy = *frame;
  std::thread([copy]() mutable {
    copy.ReportError(absl::UnavailableError("peer went away"));
  }).detach();
}

// Allocates a result, then fails: the allocated value becomes the error.
void AllocateThenFail(Result<int32_t> out, KernelFrame* frame) {
  AsyncValueRef<int32_t> pending = out.Allocate();
  frame->ReportError(absl::AbortedError("gave up"));
  EXPECT_TRUE(pending.IsError());
}

// Returns the error of a failed check through llvm::Error.
llvm::Error CheckPositive(int32_t x) {
  if (x > 0) return llvm::Error::success();
  return MakeLlvmError(absl::OutOfRangeError("not positive"));
}

// Forwards its argument unchanged (no copy): an untyped reference result.
RCReference<AsyncValue> Forward(Argument<std::string> x) {
  return x.ValueRef();
}

// Result 0 is a value another producer resolves; result 1 is left unset.
AsyncValueRef<int32_t>* foreign_value = nullptr;
absl::Status SetForeignThenFail(Result<int32_t> foreign,
                                Result<int32_t> unset) {
  foreign.Set(foreign_value->CopyRef());
  (void)unset;
  return absl::InternalError("failed after handing off result 0");
}

bool SeesCancellation(const ExecutionContext& context) {
  return context.IsCancelled();
}

// --- Fixture
// -------------------------------------------------------------------

class KernelBindingTest : public ::testing::Test {
 protected:
  KernelBindingTest()
      : host_(
            [this](const DecodedDiagnostic& d) {
              std::lock_guard<std::mutex> lock(mu_);
              diagnostics_.push_back(d.ToString());
            },
            CreateMallocAllocator(), CreateSingleThreadedWorkQueue()),
        request_(RequestContext::Create(&host_)) {}

  KernelFrameBuilder Builder(std::string name = "test.kernel") {
    return KernelFrameBuilder(ExecutionContext(request_.CopyRef()),
                              std::move(name),
                              DecodedLocation{"prog.mlir", 3, 8});
  }

  std::vector<std::string> diagnostics() {
    std::lock_guard<std::mutex> lock(mu_);
    return diagnostics_;
  }

  void Await(const RCReference<AsyncValue>& value) { host_.Await(value); }

  std::mutex mu_;
  std::vector<std::string> diagnostics_;
  HostContext host_;
  RCReference<RequestContext> request_;
};

TEST_F(KernelBindingTest, PlainValuesInAndOut) {
  KernelFrameBuilder b = Builder();
  b.AddAvailableArg<int32_t>(40).AddAvailableArg<int32_t>(2).SetNumResults(1);
  b.Invoke(SLUICE_KERNEL(AddI32));
  ASSERT_TRUE(b.result(0)->IsConcrete());
  EXPECT_EQ(b.result(0)->get<int32_t>(), 42);
  EXPECT_TRUE(diagnostics().empty());
}

TEST_F(KernelBindingTest, AttributesOfEachKind) {
  KernelFrameBuilder b = Builder();
  AttributeBuffer& attrs = b.attribute_buffer();
  const int32_t values[] = {1, 2, 3};
  b.AddAvailableArg<std::string>("p")
      .AddAttribute(attrs.AddScalar<int64_t>(10))
      .AddAttribute(attrs.AddString("end"))
      .AddAttribute(attrs.AddArray<int32_t>(values))
      .SetNumResults(1);
  b.Invoke(SLUICE_KERNEL(Describe));
  EXPECT_EQ(b.result(0)->get<std::string>(), "p:10:1,2,3,end");
}

TEST_F(KernelBindingTest, ExpectedErrorBecomesResultAndDiagnostic) {
  KernelFrameBuilder b = Builder("tfrt.div.i32");
  b.AddAvailableArg<int32_t>(1).AddAvailableArg<int32_t>(0).SetNumResults(1);
  b.Invoke(SLUICE_KERNEL(CheckedDiv));
  ASSERT_TRUE(b.result(0)->IsError());
  const absl::Status& error = b.result(0)->GetError();
  EXPECT_EQ(error.message(), "Divide by zero");
  EXPECT_EQ(error.code(), absl::StatusCode::kInternal);
  ErrorContext context = GetErrorContext(error);
  EXPECT_EQ(context.kernel, "tfrt.div.i32");
  EXPECT_EQ(context.location, "prog.mlir:3:8");
  EXPECT_THAT(
      diagnostics(),
      ElementsAre("prog.mlir:3:8: error: runtime error: Divide by zero"));
}

TEST_F(KernelBindingTest, ExpectedSuccess) {
  KernelFrameBuilder b = Builder();
  b.AddAvailableArg<int32_t>(9).AddAvailableArg<int32_t>(2).SetNumResults(1);
  b.Invoke(SLUICE_KERNEL(CheckedDiv));
  EXPECT_EQ(b.result(0)->get<int32_t>(), 4);
}

TEST_F(KernelBindingTest, ExpectedKeepsStatusCode) {
  KernelFrameBuilder b = Builder();
  b.SetNumResults(1);
  b.Invoke(SLUICE_KERNEL(FailWithStatus));
  ASSERT_TRUE(b.result(0)->IsError());
  EXPECT_EQ(b.result(0)->GetError().code(),
            absl::StatusCode::kResourceExhausted);
}

TEST_F(KernelBindingTest, StatusOrBothWays) {
  KernelFrameBuilder ok = Builder();
  ok.AddAvailableArg<int64_t>(5).SetNumResults(1);
  ok.Invoke(SLUICE_KERNEL(ParsePositive));
  EXPECT_EQ(ok.result(0)->get<int64_t>(), 5);

  KernelFrameBuilder bad = Builder();
  bad.AddAvailableArg<int64_t>(-5).SetNumResults(1);
  bad.Invoke(SLUICE_KERNEL(ParsePositive));
  ASSERT_TRUE(bad.result(0)->IsError());
  EXPECT_EQ(bad.result(0)->GetError().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(diagnostics().size(), 1u);
}

TEST_F(KernelBindingTest, LlvmErrorReturn) {
  KernelFrameBuilder ok = Builder();
  ok.AddAvailableArg<int32_t>(1);
  ok.Invoke(SLUICE_KERNEL(CheckPositive));
  EXPECT_TRUE(diagnostics().empty());

  KernelFrameBuilder bad = Builder("test.check");
  bad.AddAvailableArg<int32_t>(-1);
  bad.Invoke(SLUICE_KERNEL(CheckPositive));
  EXPECT_THAT(diagnostics(),
              ElementsAre("prog.mlir:3:8: error: runtime error: not positive"));
}

TEST_F(KernelBindingTest, ForwardedArgumentIsTheSameValue) {
  KernelFrameBuilder b = Builder();
  b.AddAvailableArg<std::string>("shared").SetNumResults(1);
  b.Invoke(SLUICE_KERNEL(Forward));
  EXPECT_EQ(b.result(0)->get<std::string>(), "shared");
  EXPECT_EQ(b.result(0)->NumRef(), 2u);  // the frame's argument and result
}

TEST_F(KernelBindingTest, TupleFillsOneResultPerElement) {
  KernelFrameBuilder b = Builder();
  b.AddAvailableArg<int32_t>(21).SetNumResults(2);
  b.Invoke(SLUICE_KERNEL(Split));
  EXPECT_EQ(b.result(0)->get<int32_t>(), 42);
  EXPECT_EQ(b.result(1)->get<std::string>(), "21");
}

TEST_F(KernelBindingTest, AsyncValueRefResultResolvesLater) {
  KernelFrameBuilder b = Builder();
  b.AddAvailableArg<int32_t>(12).SetNumResults(1);
  b.Invoke(SLUICE_KERNEL(AsyncSquare));
  // The single-threaded queue runs the work only when someone waits.
  EXPECT_TRUE(b.result(0)->IsUnavailable());
  Await(b.result(0));
  EXPECT_EQ(b.result(0)->get<int32_t>(), 144);
}

TEST_F(KernelBindingTest, ResultParametersEmplaceAndAllocate) {
  KernelFrameBuilder b = Builder();
  b.AddAvailableArg<int32_t>(5).SetNumResults(2);
  b.Invoke(SLUICE_KERNEL(EmplaceAndAllocate));
  EXPECT_EQ(b.result(0)->get<int32_t>(), 5);
  EXPECT_TRUE(b.result(1)->IsUnavailable());
  Await(b.result(1));
  EXPECT_EQ(b.result(1)->get<int32_t>(), 6);
}

TEST_F(KernelBindingTest, RemainingArgumentsAndResults) {
  KernelFrameBuilder b = Builder();
  b.AddAvailableArg<int32_t>(1)
      .AddAvailableArg<int32_t>(2)
      .AddAvailableArg<int32_t>(3)
      .SetNumResults(3);
  b.Invoke(SLUICE_KERNEL(SumRest));
  // The two forwarded arguments come first; the return value follows them.
  EXPECT_EQ(b.result(0)->get<int32_t>(), 2);
  EXPECT_EQ(b.result(1)->get<int32_t>(), 3);
  EXPECT_EQ(b.result(2)->get<int64_t>(), 6);
}

TEST_F(KernelBindingTest, PartialFailureKeepsSetResults) {
  KernelFrameBuilder b = Builder("tfrt_test.partial_fail");
  b.SetNumResults(2);
  b.Invoke(SLUICE_KERNEL(PartialFail));
  ASSERT_TRUE(b.result(0)->IsConcrete());
  EXPECT_EQ(b.result(0)->get<int32_t>(), 1);
  ASSERT_TRUE(b.result(1)->IsError());
  EXPECT_EQ(b.result(1)->GetError().message(), "something bad happened");
  EXPECT_EQ(diagnostics().size(), 1u);
}

TEST_F(KernelBindingTest, AllocatedResultFailsOnReportError) {
  KernelFrameBuilder b = Builder();
  b.SetNumResults(1);
  b.Invoke(SLUICE_KERNEL(AllocateThenFail));
  ASSERT_TRUE(b.result(0)->IsError());
  EXPECT_EQ(b.result(0)->GetError().code(), absl::StatusCode::kAborted);
}

TEST_F(KernelBindingTest, ReportErrorLeavesForeignPendingResultAlone) {
  AsyncValueRef<int32_t> foreign = MakeUnconstructedAsyncValueRef<int32_t>();
  foreign_value = &foreign;
  KernelFrameBuilder b = Builder();
  b.SetNumResults(2);
  b.Invoke(SLUICE_KERNEL(SetForeignThenFail));
  foreign_value = nullptr;
  EXPECT_TRUE(b.result(0)->IsUnavailable());
  ASSERT_TRUE(b.result(1)->IsError());
  foreign.emplace(3);  // its producer finishes it as planned
  EXPECT_EQ(b.result(0)->get<int32_t>(), 3);
}

TEST_F(KernelBindingTest, CopiedFrameCompletesOnAnotherThread) {
  KernelFrameBuilder b = Builder();
  b.AddAvailableArg<int32_t>(41).SetNumResults(2);
  b.Invoke(SLUICE_KERNEL(CompleteElsewhere));
  ASSERT_TRUE(b.result(0));
  ASSERT_TRUE(b.result(1));
  Await(b.result(0));
  Await(b.result(1));
  EXPECT_EQ(b.result(0)->get<int32_t>(), 42);
  EXPECT_EQ(b.result(1)->get<std::string>(), "done");
}

TEST_F(KernelBindingTest, CopiedFrameReportsPartialErrorLater) {
  KernelFrameBuilder b = Builder("test.fail_later");
  b.SetNumResults(3);
  b.Invoke(SLUICE_KERNEL(FailLaterElsewhere));
  for (size_t i = 0; i < 3; ++i) Await(b.result(i));
  EXPECT_EQ(b.result(0)->get<int32_t>(), 7);
  for (size_t i = 1; i < 3; ++i) {
    ASSERT_TRUE(b.result(i)->IsError());
    EXPECT_EQ(b.result(i)->GetError().code(), absl::StatusCode::kUnavailable);
    EXPECT_EQ(GetErrorContext(b.result(i)->GetError()).kernel,
              "test.fail_later");
  }
  EXPECT_THAT(diagnostics(), ElementsAre(HasSubstr("peer went away")));
}

TEST_F(KernelBindingTest, KernelSeesCancellation) {
  KernelFrameBuilder before = Builder();
  before.SetNumResults(1);
  before.Invoke(SLUICE_KERNEL(SeesCancellation));
  EXPECT_FALSE(before.result(0)->get<bool>());
  request_->Cancel();
  KernelFrameBuilder after = Builder();
  after.SetNumResults(1);
  after.Invoke(SLUICE_KERNEL(SeesCancellation));
  EXPECT_TRUE(after.result(0)->get<bool>());
}

#ifndef NDEBUG
void ReportAfterAllSet(Result<int32_t> out, KernelFrame* frame) {
  out.Emplace(1);
  frame->ReportError(absl::InternalError("too late"));
}

TEST_F(KernelBindingTest, ReportErrorAfterEveryResultIsSetAbortsInDebug) {
  KernelFrameBuilder b = Builder();
  b.SetNumResults(1);
  EXPECT_DEATH(b.Invoke(SLUICE_KERNEL(ReportAfterAllSet)),
               "ReportError\\(\\) after every result was set");
}
#endif

// --- The frameless entry (DirectKernel) --------------------------------------

double Scale(const double& x, Attribute<int32_t> factor, float offset) {
  return x * *factor + offset;
}
Chain Touch(int64_t) { return Chain{}; }
struct Pair {
  int32_t first;
  int32_t second;
};
Pair MakePair(int32_t a, Attribute<int32_t> b) { return Pair{a, *b}; }
void Ignore(int32_t) {}
int32_t ReadArgument(Argument<int32_t> x) { return *x; }
std::string Stringify(int32_t x) { return std::to_string(x); }

TEST(DirectKernelTest, MadeForKernelsThatOnlyCompute) {
  EXPECT_NE(SLUICE_KERNEL(AddI32).direct(), nullptr);
  EXPECT_NE(SLUICE_KERNEL(Scale).direct(), nullptr);
  EXPECT_NE(SLUICE_KERNEL(Touch).direct(), nullptr);
  EXPECT_NE(SLUICE_KERNEL(MakePair).direct(), nullptr);
  // Results that need a frame, are not one small plain value, or none.
  EXPECT_EQ(SLUICE_KERNEL(CheckedDiv).direct(), nullptr);
  EXPECT_EQ(SLUICE_KERNEL(ParsePositive).direct(), nullptr);
  EXPECT_EQ(SLUICE_KERNEL(Split).direct(), nullptr);
  EXPECT_EQ(SLUICE_KERNEL(AsyncSquare).direct(), nullptr);
  EXPECT_EQ(SLUICE_KERNEL(Stringify).direct(), nullptr);
  EXPECT_EQ(SLUICE_KERNEL(Ignore).direct(), nullptr);
  // Parameters that read the AsyncValue itself or the context.
  EXPECT_EQ(SLUICE_KERNEL(ReadArgument).direct(), nullptr);
  EXPECT_EQ(SLUICE_KERNEL(Describe).direct(), nullptr);
}

TEST(DirectKernelTest, RunsOnPayloadsAndAttributes) {
  const DirectKernel& scale = *SLUICE_KERNEL(Scale).direct();
  ASSERT_EQ(scale.num_operands, 2u);
  EXPECT_EQ(scale.operand_types[0], &ConcreteAsyncValue<double>::kTypeInfo);
  EXPECT_EQ(scale.operand_types[1], &ConcreteAsyncValue<float>::kTypeInfo);
  EXPECT_EQ(scale.result_type, &ConcreteAsyncValue<double>::kTypeInfo);

  double x = 2.5;
  float offset = 0.25f;
  const int32_t factor = 4;
  void* operands[] = {&x, &offset};
  const void* attributes[] = {&factor};
  alignas(8) unsigned char result[8];
  scale.run(operands, attributes, result);
  EXPECT_EQ(*reinterpret_cast<double*>(result), 10.25);

  RCReference<AsyncValue> made = scale.make_result(result);
  ASSERT_TRUE(made->IsConcrete());
  EXPECT_EQ(made->get<double>(), 10.25);
  RCReference<AsyncValue> operand = scale.make_operand[1](&offset);
  EXPECT_EQ(operand->get<float>(), 0.25f);

  const DirectKernel& pair = *SLUICE_KERNEL(MakePair).direct();
  int32_t a = 7;
  const int32_t b = -3;
  void* pair_operands[] = {&a};
  const void* pair_attributes[] = {&b};
  pair.run(pair_operands, pair_attributes, result);
  EXPECT_EQ(reinterpret_cast<Pair*>(result)->first, 7);
  EXPECT_EQ(reinterpret_cast<Pair*>(result)->second, -3);
}

TEST(KernelRegistryTest, RegistersAndFindsKernels) {
  KernelRegistry registry;
  ASSERT_TRUE(registry.AddKernel("tfrt.add.i32", SLUICE_KERNEL(AddI32)).ok());
  ASSERT_TRUE(
      registry
          .AddKernel("test.split", SLUICE_KERNEL(Split), Strictness::kNonStrict)
          .ok());
  const RegisteredKernel* add = registry.GetKernel("tfrt.add.i32");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->implementation, SLUICE_KERNEL(AddI32).implementation());
  EXPECT_EQ(add->signature, SLUICE_KERNEL(AddI32).signature());
  EXPECT_EQ(add->strictness, Strictness::kStrict);
  EXPECT_EQ(registry.GetKernel("test.split")->strictness,
            Strictness::kNonStrict);
  EXPECT_EQ(registry.GetKernel("tfrt.mul.i32"), nullptr);
  EXPECT_THAT(registry.KernelNames(),
              ElementsAre("test.split", "tfrt.add.i32"));
}

TEST(KernelRegistryTest, DuplicateNameIsAnErrorAndKeepsTheFirst) {
  KernelRegistry registry;
  ASSERT_TRUE(registry.AddKernel("k", SLUICE_KERNEL(AddI32)).ok());
  absl::Status again = registry.AddKernel("k", SLUICE_KERNEL(Split));
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(again.message(), "kernel 'k' is already registered");
  EXPECT_EQ(registry.GetKernel("k")->implementation,
            SLUICE_KERNEL(AddI32).implementation());
}

TEST(KernelRegistryTest, AddKernelsRegistersNoneWhenOneFails) {
  KernelRegistry registry;
  ASSERT_TRUE(registry.AddKernel("taken", SLUICE_KERNEL(AddI32)).ok());
  absl::Status status = registry.AddKernels({
      {"fresh", SLUICE_KERNEL(AddI32)},
      {"taken", SLUICE_KERNEL(Split)},
      {"twice", SLUICE_KERNEL(AddI32)},
      {"twice", SLUICE_KERNEL(AddI32)},
  });
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(status.message(),
            "kernel 'taken' is already registered; kernel 'twice' is "
            "registered twice");
  EXPECT_EQ(registry.GetKernel("fresh"), nullptr);
  EXPECT_EQ(registry.size(), 1u);
}

TEST(KernelRegistryTest, AttributeNamesMustMatchTheAttributeParameters) {
  KernelRegistry registry;
  absl::Status status = registry.AddKernel(
      "k", SLUICE_KERNEL(AddI32).WithAttributeNames({"value"}));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "kernel 'k' names 1 attributes but its function takes 0");
  EXPECT_EQ(registry.GetKernel("k"), nullptr);
}

int32_t ClampForDescription(int32_t x, Attribute<int32_t> low,
                            OptionalAttribute<int32_t> high) {
  return std::min(std::max(x, *low), high.value_or(x));
}

TEST(KernelRegistryTest, DescribesWhatAKernelTakes) {
  KernelRegistry registry;
  ASSERT_TRUE(
      registry
          .AddKernels({
              {"my.clamp", SLUICE_KERNEL(ClampForDescription)
                               .WithAttributeNames({"low", "high"})},
              {"my.clamp_unnamed", SLUICE_KERNEL(ClampForDescription)},
              {"my.split", SLUICE_KERNEL(Split), Strictness::kNonStrict},
              {"my.raw", +[](KernelFrame*) {}},
          })
          .ok());
  EXPECT_EQ(DescribeKernel("my.clamp", *registry.GetKernel("my.clamp")),
            "my.clamp: 1 operand -> 1 result {low: i32, high?: i32}");
  EXPECT_EQ(DescribeKernel("my.clamp_unnamed",
                           *registry.GetKernel("my.clamp_unnamed")),
            "my.clamp_unnamed: 1 operand -> 1 result {#0: i32, #1?: i32}");
  EXPECT_THAT(DescribeKernel("my.split", *registry.GetKernel("my.split")),
              ::testing::StartsWith("my.split: non-strict, "));
  EXPECT_EQ(DescribeKernel("my.raw", *registry.GetKernel("my.raw")),
            "my.raw: no signature (checks its frame itself)");
}

TEST(KernelRegistryTest, DuplicateNativeFunctionIsAnError) {
  KernelRegistry registry;
  NativeFunction function = [](const ExecutionContext&,
                               absl::Span<AsyncValue* const>,
                               absl::Span<RCReference<AsyncValue>>) {};
  ASSERT_TRUE(registry.AddNativeFunction("f", function).ok());
  EXPECT_EQ(registry.AddNativeFunction("f", function).message(),
            "native function 'f' is already registered");
}

TEST(KernelRegistryTest, OneRegistryPerHost) {
  HostContext host([](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
                   CreateSingleThreadedWorkQueue());
  ASSERT_TRUE(
      GetKernelRegistry(&host).AddKernel("k", SLUICE_KERNEL(AddI32)).ok());
  EXPECT_EQ(&GetKernelRegistry(&host), &GetKernelRegistry(&host));
  EXPECT_NE(GetKernelRegistry(&host).GetKernel("k"), nullptr);
}

}  // namespace
}  // namespace sluice
