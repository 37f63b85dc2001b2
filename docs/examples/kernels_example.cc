// The code shown in docs/kernels.md. Each `[START name]` region appears
// verbatim in the guide (doc_snippets_test keeps the two in step); the tests
// call the kernels through KernelFrameBuilder, as the executor would, and
// check their results and diagnostics.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/execution_context.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernel/async_kernel_frame.h"
#include "sluice/kernel/attribute_buffer.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernel/kernel_frame.h"
#include "sluice/kernel/kernel_frame_builder.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/kernel/llvm_kernel_binding.h"
#include "sluice/support/error_util.h"
#include "sluice/support/llvm_error.h"

namespace sluice {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// --- Kernels -----------------------------------------------------------------

// [START sync_kernels]
int32_t AddI32(int32_t a, int32_t b) { return a + b; }

absl::StatusOr<int64_t> ParseI64(const std::string& text) {
  int64_t value = 0;
  if (!absl::SimpleAtoi(text, &value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("not an integer: '", text, "'"));
  }
  return value;
}

llvm::Expected<double> SqrtF64(double x) {
  if (x < 0) {
    return MakeLlvmError(absl::InvalidArgumentError(
        absl::StrCat("square root of negative number ", x)));
  }
  return std::sqrt(x);
}
// [END sync_kernels]

// [START attributes]
int32_t ScaleI32(int32_t x, Attribute<int32_t> factor) { return x * *factor; }

std::string JoinI32(ArrayAttribute<int32_t> values, StringAttribute separator) {
  std::string joined;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) joined += separator.get();
    joined += std::to_string(values[i]);
  }
  return joined;
}
// [END attributes]

// [START results]
std::tuple<int32_t, int32_t> MinMaxI32(int32_t a, int32_t b) {
  return {std::min(a, b), std::max(a, b)};
}

absl::Status CheckInRange(Argument<int32_t> value, Attribute<int32_t> low,
                          Attribute<int32_t> high, Result<int32_t> checked) {
  if (*value < *low || *value > *high) {
    return absl::OutOfRangeError(
        absl::StrCat(*value, " is outside [", *low, ", ", *high, "]"));
  }
  checked.Set(value.ValueRef());  // Forwards the argument without a copy.
  return absl::OkStatus();
}
// [END results]

// [START async_return]
AsyncValueRef<int64_t> CountPrimes(int64_t limit, HostContext* host) {
  return EnqueueWork(host, [limit] {
    int64_t count = 0;
    for (int64_t n = 2; n < limit; ++n) {
      bool prime = true;
      for (int64_t d = 2; d * d <= n && prime; ++d) prime = n % d != 0;
      count += prime ? 1 : 0;
    }
    return count;
  });
}
// [END async_return]

// [START allocate]
void MeanF64(Argument<std::vector<double>> samples, Result<size_t> count,
             Result<double> mean, HostContext* host) {
  count.Emplace(samples->size());
  AsyncValueRef<double> pending = mean.Allocate();
  // The argument is only borrowed for the call: keep a reference to it.
  host->EnqueueWork(
      [samples = samples.ValueRef(), pending = std::move(pending)] {
        const auto& values = samples->get<std::vector<double>>();
        if (values.empty()) {
          pending.SetError(absl::InvalidArgumentError("mean of no samples"));
          return;
        }
        pending.emplace(std::accumulate(values.begin(), values.end(), 0.0) /
                        values.size());
      });
}
// [END allocate]

// [START async_frame]
// Stands in for a read from disk or the network.
std::optional<std::string> ReadRecordBlocking(const std::string& key) {
  static const auto* const records = new std::map<std::string, std::string>{
      {"alice", "admin"}, {"bob", "viewer"}};
  auto it = records->find(key);
  if (it == records->end()) return std::nullopt;
  return it->second;
}

void LookUpRole(const std::string& user, AsyncKernelFrame* frame) {
  frame->host()->EnqueueBlockingWork([frame = *frame, user]() mutable {
    std::optional<std::string> role = ReadRecordBlocking(user);
    if (!role) {
      frame.ReportError(absl::NotFoundError(absl::StrCat("no user ", user)));
      return;
    }
    frame.EmplaceResultAt<std::string>(0, *std::move(role));
  });
}
// [END async_frame]

// [START partial_failure]
void SplitPair(const std::string& line, Result<std::string> key,
               Result<std::string> value, KernelFrame* frame) {
  const size_t equals = line.find('=');
  key.Emplace(line.substr(0, equals));
  if (equals == std::string::npos) {
    frame->ReportError(
        absl::InvalidArgumentError(absl::StrCat("no '=' in '", line, "'")));
    return;
  }
  value.Emplace(line.substr(equals + 1));
}
// [END partial_failure]

// Fails after allocating its result: the allocated value becomes the error.
void AllocateThenFail(Result<int32_t> out, KernelFrame* frame) {
  AsyncValueRef<int32_t> pending = out.Allocate();
  frame->ReportError(absl::AbortedError("gave up"));
}

// [START cancellation]
absl::StatusOr<int64_t> SumTo(int64_t n, const ExecutionContext& context) {
  int64_t sum = 0;
  for (int64_t i = 1; i <= n; ++i) {
    if (context.IsCancelled()) {
      return context.request_context()->GetCancelAsyncValue()->GetError();
    }
    sum += i;
  }
  return sum;
}
// [END cancellation]

// [START resources]
struct CallCounter {
  std::atomic<int64_t> calls{0};
};

// How many times this kernel ran in this request; the host-wide count goes
// to a shared context.
int64_t CountCalls(const ExecutionContext& context) {
  CallCounter* per_request =
      context.request_context()->resources().GetOrCreateResource<CallCounter>(
          "my.count_calls", [] { return std::make_unique<CallCounter>(); });
  context.host()->GetOrCreateSharedContext<CallCounter>().calls.fetch_add(1);
  return per_request->calls.fetch_add(1) + 1;
}
// [END resources]

// [START non_strict]
AsyncValueRef<int32_t> ValueOrI32(Argument<int32_t> value,
                                  Attribute<int32_t> fallback) {
  AsyncValueRef<int32_t> result = MakeUnconstructedAsyncValueRef<int32_t>();
  value.value()->AndThen([value = value.ValueRef(), result = result.CopyRef(),
                          fallback = *fallback] {
    result.emplace(value->IsError() ? fallback : value->get<int32_t>());
  });
  return result;
}
// [END non_strict]

// [START register]
absl::Status RegisterMyKernels(KernelRegistry* registry) {
  return registry->AddKernels({
      {"my.add.i32", SLUICE_KERNEL(AddI32)},
      {"my.parse.i64", SLUICE_KERNEL(ParseI64)},
      {"my.sqrt.f64", SLUICE_KERNEL(SqrtF64)},
      {"my.scale.i32", SLUICE_KERNEL(ScaleI32)},
      {"my.join.i32", SLUICE_KERNEL(JoinI32)},
      {"my.min_max.i32", SLUICE_KERNEL(MinMaxI32)},
      {"my.check_in_range",
       SLUICE_KERNEL(CheckInRange).WithAttributeNames({"low", "high"})},
      {"my.count_primes", SLUICE_KERNEL(CountPrimes)},
      {"my.mean.f64", SLUICE_KERNEL(MeanF64)},
      {"my.look_up_role", SLUICE_KERNEL(LookUpRole)},
      {"my.split_pair", SLUICE_KERNEL(SplitPair)},
      {"my.sum_to", SLUICE_KERNEL(SumTo)},
      {"my.count_calls", SLUICE_KERNEL(CountCalls)},
      {"my.value_or.i32", SLUICE_KERNEL(ValueOrI32), Strictness::kNonStrict},
  });
}
// [END register]

// --- Tests -------------------------------------------------------------------

TEST(KernelsExample, CallAKernelByHand) {
  // [START call_by_hand]
  std::vector<std::string> diagnostics;
  HostContext host(
      [&diagnostics](const DecodedDiagnostic& diagnostic) {
        diagnostics.push_back(diagnostic.ToString());
      },
      CreateMallocAllocator(), CreateSingleThreadedWorkQueue());
  EXPECT_TRUE(RegisterMyKernels(&GetKernelRegistry(&host)).ok());
  RCReference<RequestContext> request = RequestContext::Create(&host);

  KernelFrameBuilder frame(ExecutionContext(request.CopyRef()),
                           "my.check_in_range",
                           DecodedLocation{"prog.mlir", 4, 10});
  AttributeBuffer& attributes = frame.attribute_buffer();
  frame.AddAvailableArg<int32_t>(12)
      .AddAttribute(attributes.AddScalar<int32_t>(0))
      .AddAttribute(attributes.AddScalar<int32_t>(10))
      .SetNumResults(1);
  frame.Invoke(
      GetKernelRegistry(&host).GetKernel("my.check_in_range")->implementation);
  host.Await(frame.result(0));

  ASSERT_TRUE(frame.result(0)->IsError());
  EXPECT_EQ(frame.result(0)->GetError().message(), "12 is outside [0, 10]");
  EXPECT_THAT(diagnostics, ElementsAre("prog.mlir:4:10: error: runtime error: "
                                       "12 is outside [0, 10]"));
  // [END call_by_hand]

  // [START attribute_buffer]
  KernelFrameBuilder join(ExecutionContext(request.CopyRef()), "my.join.i32");
  const int32_t values[] = {3, 1, 4};
  join.AddAttribute(join.attribute_buffer().AddArray<int32_t>(values))
      .AddAttribute(join.attribute_buffer().AddString(", "))
      .SetNumResults(1);
  join.Invoke(
      GetKernelRegistry(&host).GetKernel("my.join.i32")->implementation);
  EXPECT_EQ(join.result(0)->get<std::string>(), "3, 1, 4");
  // [END attribute_buffer]
}

// Runs the kernels on a multi-threaded host, as a program would, and
// collects the diagnostics they emit.
class KernelsExampleTest : public ::testing::Test {
 protected:
  KernelsExampleTest()
      : host_(
            [this](const DecodedDiagnostic& diagnostic) {
              std::lock_guard<std::mutex> lock(mu_);
              diagnostics_.push_back(diagnostic.ToString());
            },
            CreateMallocAllocator(), *CreateWorkQueue("mstd:2,2")),
        request_(RequestContext::Create(&host_)) {
    EXPECT_TRUE(RegisterMyKernels(&GetKernelRegistry(&host_)).ok());
  }

  // A frame for the registered kernel `name`, located at prog.mlir:1:1.
  KernelFrameBuilder Frame(std::string name) {
    return KernelFrameBuilder(ExecutionContext(request_.CopyRef()),
                              std::move(name),
                              DecodedLocation{"prog.mlir", 1, 1});
  }

  void Invoke(KernelFrameBuilder& frame, std::string_view name) {
    const RegisteredKernel* kernel = GetKernelRegistry(&host_).GetKernel(name);
    ASSERT_NE(kernel, nullptr) << name;
    frame.Invoke(kernel->implementation);
    host_.Await(frame.results());
  }

  std::vector<std::string> diagnostics() {
    std::lock_guard<std::mutex> lock(mu_);
    return diagnostics_;
  }

  std::mutex mu_;
  std::vector<std::string> diagnostics_;
  HostContext host_;
  RCReference<RequestContext> request_;
};

TEST_F(KernelsExampleTest, SyncKernels) {
  KernelFrameBuilder add = Frame("my.add.i32");
  add.AddAvailableArg<int32_t>(40).AddAvailableArg<int32_t>(2).SetNumResults(1);
  Invoke(add, "my.add.i32");
  EXPECT_EQ(add.result(0)->get<int32_t>(), 42);

  KernelFrameBuilder parse = Frame("my.parse.i64");
  parse.AddAvailableArg<std::string>("123").SetNumResults(1);
  Invoke(parse, "my.parse.i64");
  EXPECT_EQ(parse.result(0)->get<int64_t>(), 123);

  KernelFrameBuilder sqrt = Frame("my.sqrt.f64");
  sqrt.AddAvailableArg<double>(6.25).SetNumResults(1);
  Invoke(sqrt, "my.sqrt.f64");
  EXPECT_EQ(sqrt.result(0)->get<double>(), 2.5);
  EXPECT_TRUE(diagnostics().empty());
}

TEST_F(KernelsExampleTest, ErrorsFromStatusOrAndExpected) {
  KernelFrameBuilder parse = Frame("my.parse.i64");
  parse.AddAvailableArg<std::string>("12x").SetNumResults(1);
  Invoke(parse, "my.parse.i64");
  ASSERT_TRUE(parse.result(0)->IsError());
  EXPECT_EQ(parse.result(0)->GetError().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(parse.result(0)->GetError().message(), "not an integer: '12x'");

  KernelFrameBuilder sqrt = Frame("my.sqrt.f64");
  sqrt.AddAvailableArg<double>(-4.0).SetNumResults(1);
  Invoke(sqrt, "my.sqrt.f64");
  ASSERT_TRUE(sqrt.result(0)->IsError());
  // MakeLlvmError keeps the code through llvm::Expected.
  EXPECT_EQ(sqrt.result(0)->GetError().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(GetErrorContext(sqrt.result(0)->GetError()).kernel, "my.sqrt.f64");
  EXPECT_THAT(diagnostics(),
              ElementsAre("prog.mlir:1:1: error: runtime error: not an "
                          "integer: '12x'",
                          "prog.mlir:1:1: error: runtime error: square root "
                          "of negative number -4"));
}

TEST_F(KernelsExampleTest, Attributes) {
  KernelFrameBuilder scale = Frame("my.scale.i32");
  scale.AddAvailableArg<int32_t>(7)
      .AddAttribute(scale.attribute_buffer().AddScalar<int32_t>(6))
      .SetNumResults(1);
  Invoke(scale, "my.scale.i32");
  EXPECT_EQ(scale.result(0)->get<int32_t>(), 42);

  KernelFrameBuilder join = Frame("my.join.i32");
  const int32_t values[] = {3, 1, 4};
  join.AddAttribute(join.attribute_buffer().AddArray<int32_t>(values))
      .AddAttribute(join.attribute_buffer().AddString(", "))
      .SetNumResults(1);
  Invoke(join, "my.join.i32");
  EXPECT_EQ(join.result(0)->get<std::string>(), "3, 1, 4");
}

TEST_F(KernelsExampleTest, TupleAndResultParameters) {
  KernelFrameBuilder min_max = Frame("my.min_max.i32");
  min_max.AddAvailableArg<int32_t>(9)
      .AddAvailableArg<int32_t>(-2)
      .SetNumResults(2);
  Invoke(min_max, "my.min_max.i32");
  EXPECT_EQ(min_max.result(0)->get<int32_t>(), -2);
  EXPECT_EQ(min_max.result(1)->get<int32_t>(), 9);

  RCReference<AsyncValue> five =
      MakeAvailableAsyncValueRef<int32_t>(5).ReleaseRCRef();
  AsyncValue* argument = five.get();
  KernelFrameBuilder check = Frame("my.check_in_range");
  check.AddArg(std::move(five))
      .AddAttribute(check.attribute_buffer().AddScalar<int32_t>(0))
      .AddAttribute(check.attribute_buffer().AddScalar<int32_t>(10))
      .SetNumResults(1);
  Invoke(check, "my.check_in_range");
  // Result::Set() forwarded the argument itself: no copy was made.
  EXPECT_EQ(check.result(0).get(), argument);
  EXPECT_EQ(argument->get<int32_t>(), 5);
  EXPECT_TRUE(diagnostics().empty());
}

TEST_F(KernelsExampleTest, AsyncReturnValue) {
  KernelFrameBuilder frame = Frame("my.count_primes");
  frame.AddAvailableArg<int64_t>(100).SetNumResults(1);
  Invoke(frame, "my.count_primes");
  EXPECT_EQ(frame.result(0)->get<int64_t>(), 25);
}

TEST_F(KernelsExampleTest, AllocatedResultFilledLater) {
  KernelFrameBuilder frame = Frame("my.mean.f64");
  frame.AddAvailableArg<std::vector<double>>(std::vector<double>{1, 2, 6})
      .SetNumResults(2);
  Invoke(frame, "my.mean.f64");
  EXPECT_EQ(frame.result(0)->get<size_t>(), 3u);
  EXPECT_EQ(frame.result(1)->get<double>(), 3.0);

  KernelFrameBuilder empty = Frame("my.mean.f64");
  empty.AddAvailableArg<std::vector<double>>().SetNumResults(2);
  Invoke(empty, "my.mean.f64");
  EXPECT_EQ(empty.result(0)->get<size_t>(), 0u);
  ASSERT_TRUE(empty.result(1)->IsError());
  EXPECT_EQ(empty.result(1)->GetError().message(), "mean of no samples");
}

TEST_F(KernelsExampleTest, CopiedFrameFinishesOnAnotherThread) {
  KernelFrameBuilder found = Frame("my.look_up_role");
  found.AddAvailableArg<std::string>("alice").SetNumResults(1);
  Invoke(found, "my.look_up_role");
  EXPECT_EQ(found.result(0)->get<std::string>(), "admin");

  KernelFrameBuilder missing = Frame("my.look_up_role");
  missing.AddAvailableArg<std::string>("mallory").SetNumResults(1);
  Invoke(missing, "my.look_up_role");
  ASSERT_TRUE(missing.result(0)->IsError());
  EXPECT_EQ(missing.result(0)->GetError().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(GetErrorContext(missing.result(0)->GetError()).location,
            "prog.mlir:1:1");
  EXPECT_THAT(diagnostics(), ElementsAre(HasSubstr("no user mallory")));
}

TEST_F(KernelsExampleTest, PartialFailureKeepsSetResults) {
  KernelFrameBuilder good = Frame("my.split_pair");
  good.AddAvailableArg<std::string>("color=blue").SetNumResults(2);
  Invoke(good, "my.split_pair");
  EXPECT_EQ(good.result(0)->get<std::string>(), "color");
  EXPECT_EQ(good.result(1)->get<std::string>(), "blue");

  KernelFrameBuilder bad = Frame("my.split_pair");
  bad.AddAvailableArg<std::string>("color").SetNumResults(2);
  Invoke(bad, "my.split_pair");
  EXPECT_EQ(bad.result(0)->get<std::string>(), "color");
  ASSERT_TRUE(bad.result(1)->IsError());
  EXPECT_EQ(DescribeError(bad.result(1)->GetError()),
            "no '=' in 'color' (kernel my.split_pair at prog.mlir:1:1)");
  EXPECT_THAT(diagnostics(),
              ElementsAre("prog.mlir:1:1: error: runtime error: no '=' in "
                          "'color'"));
}

TEST_F(KernelsExampleTest, ReportErrorFailsAllocatedResults) {
  KernelFrameBuilder frame = Frame("test.allocate_then_fail");
  frame.SetNumResults(1);
  frame.Invoke(SLUICE_KERNEL(AllocateThenFail));
  ASSERT_TRUE(frame.result(0)->IsError());
  EXPECT_EQ(frame.result(0)->GetError().code(), absl::StatusCode::kAborted);
}

TEST_F(KernelsExampleTest, CancellationStopsALoop) {
  KernelFrameBuilder running = Frame("my.sum_to");
  running.AddAvailableArg<int64_t>(1000).SetNumResults(1);
  Invoke(running, "my.sum_to");
  EXPECT_EQ(running.result(0)->get<int64_t>(), 500500);

  request_->Cancel(absl::DeadlineExceededError("deadline exceeded"));
  KernelFrameBuilder cancelled = Frame("my.sum_to");
  cancelled.AddAvailableArg<int64_t>(1000).SetNumResults(1);
  Invoke(cancelled, "my.sum_to");
  ASSERT_TRUE(cancelled.result(0)->IsError());
  EXPECT_EQ(cancelled.result(0)->GetError().code(),
            absl::StatusCode::kDeadlineExceeded);
}

TEST_F(KernelsExampleTest, RequestAndHostResources) {
  RCReference<RequestContext> other = RequestContext::Create(&host_);
  std::vector<int64_t> counts;
  for (RequestContext* request :
       {request_.get(), request_.get(), other.get()}) {
    KernelFrameBuilder frame(ExecutionContext(FormRef(request)),
                             "my.count_calls");
    frame.SetNumResults(1);
    Invoke(frame, "my.count_calls");
    counts.push_back(frame.result(0)->get<int64_t>());
  }
  EXPECT_THAT(counts, ElementsAre(1, 2, 1));
  EXPECT_EQ(host_.GetOrCreateSharedContext<CallCounter>().calls.load(), 3);
}

TEST_F(KernelsExampleTest, NonStrictKernelSeesPendingAndFailedArguments) {
  AsyncValueRef<int32_t> input = MakeUnconstructedAsyncValueRef<int32_t>();
  KernelFrameBuilder frame = Frame("my.value_or.i32");
  frame.AddArg(input.CopyRCRef())
      .AddAttribute(frame.attribute_buffer().AddScalar<int32_t>(-1))
      .SetNumResults(1);
  frame.Invoke(
      GetKernelRegistry(&host_).GetKernel("my.value_or.i32")->implementation);
  EXPECT_TRUE(frame.result(0)->IsUnavailable());
  input.SetError(absl::UnavailableError("sensor offline"));
  ASSERT_TRUE(frame.result(0)->IsConcrete());
  EXPECT_EQ(frame.result(0)->get<int32_t>(), -1);
}

TEST_F(KernelsExampleTest, RegistryListsTheKernels) {
  const KernelRegistry& registry = GetKernelRegistry(&host_);
  EXPECT_EQ(registry.size(), 14u);
  EXPECT_EQ(registry.GetKernel("my.add.i32")->strictness, Strictness::kStrict);
  EXPECT_EQ(registry.GetKernel("my.value_or.i32")->strictness,
            Strictness::kNonStrict);
  EXPECT_EQ(registry.GetKernel("my.missing"), nullptr);
}

}  // namespace
}  // namespace sluice
