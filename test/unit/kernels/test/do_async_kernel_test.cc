// tfrt_test.do.async, called through KernelFrameBuilder with hand-written
// bodies the way the executor calls them.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/test/test_kernels.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/diagnostic.h"
#include "sluice/host_context/execution_context.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernel/function.h"
#include "sluice/kernel/kernel_frame_builder.h"
#include "sluice/kernel/kernel_registry.h"

namespace sluice {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// A Function whose body is a lambda.
class LambdaFunction : public Function {
 public:
  using Body =
      std::function<void(const ExecutionContext&, absl::Span<AsyncValue* const>,
                         absl::Span<RCReference<AsyncValue>>)>;

  LambdaFunction(size_t num_arguments, size_t num_results, Body body)
      : Function("", num_arguments, num_results), body_(std::move(body)) {}

  void Execute(const ExecutionContext& context,
               absl::Span<AsyncValue* const> arguments,
               absl::Span<RCReference<AsyncValue>> results) const override {
    ++calls_;
    body_(context, arguments, results);
  }

  int calls() const { return calls_.load(); }

 private:
  Body body_;
  mutable std::atomic<int> calls_{0};
};

RCReference<AsyncValue> I32(int32_t value) {
  return MakeAvailableAsyncValueRef<int32_t>(value).ReleaseRCRef();
}

// (i32, i32) -> i32: the sum of its arguments.
LambdaFunction Adder() {
  return LambdaFunction(
      2, 1,
      [](const ExecutionContext&, absl::Span<AsyncValue* const> arguments,
         absl::Span<RCReference<AsyncValue>> results) {
        results[0] =
            I32(arguments[0]->get<int32_t>() + arguments[1]->get<int32_t>());
      });
}

class DoAsyncTest : public ::testing::Test {
 protected:
  explicit DoAsyncTest(std::string_view spec = "s") {
    absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> queue =
        CreateWorkQueue(spec);
    EXPECT_TRUE(queue.ok()) << queue.status();
    host_ = std::make_unique<HostContext>(
        [this](const DecodedDiagnostic& diagnostic) {
          std::lock_guard<std::mutex> lock(mu_);
          diagnostics_.push_back(diagnostic.ToString());
        },
        CreateMallocAllocator(), *std::move(queue));
    RegisterTestKernels(&GetKernelRegistry(host_.get()));
    request_ = RequestContext::Create(host_.get());
  }

  KernelFrameBuilder Frame(std::string name) {
    return KernelFrameBuilder(ExecutionContext(request_.CopyRef()),
                              std::move(name),
                              DecodedLocation{"prog.mlir", 5, 3});
  }

  void Invoke(KernelFrameBuilder& frame, std::string_view name) {
    const RegisteredKernel* kernel =
        GetKernelRegistry(host_.get()).GetKernel(name);
    ASSERT_NE(kernel, nullptr) << name;
    EXPECT_EQ(kernel->strictness, Strictness::kStrict);
    frame.Invoke(kernel->implementation);
  }

  std::vector<std::string> Diagnostics() {
    std::lock_guard<std::mutex> lock(mu_);
    return diagnostics_;
  }

  std::mutex mu_;
  std::vector<std::string> diagnostics_;
  std::unique_ptr<HostContext> host_;
  RCReference<RequestContext> request_;
};

// --- tfrt_test.do.async ------------------------------------------------------

TEST_F(DoAsyncTest, DoAsyncRunsTheBodyAsATask) {
  LambdaFunction body = Adder();
  KernelFrameBuilder frame = Frame("tfrt_test.do.async");
  frame.AddArg(I32(2)).AddArg(I32(3)).AddFunction(&body).SetNumResults(1);
  Invoke(frame, "tfrt_test.do.async");

  // Nothing runs on the single-threaded queue until someone waits.
  EXPECT_EQ(body.calls(), 0);
  ASSERT_TRUE(frame.result(0)->IsIndirect());
  EXPECT_TRUE(frame.result(0)->IsUnavailable());

  host_->Await(frame.results());
  EXPECT_EQ(body.calls(), 1);
  ASSERT_TRUE(frame.result(0)->IsConcrete());
  EXPECT_EQ(frame.result(0)->get<int32_t>(), 5);
  EXPECT_THAT(Diagnostics(), IsEmpty());
}

// The body's results may themselves still be pending when it returns.
TEST_F(DoAsyncTest, DoAsyncForwardsPendingBodyResults) {
  AsyncValueRef<int32_t> later = MakeUnconstructedAsyncValueRef<int32_t>();
  RCReference<AsyncValue> chain_seen;
  LambdaFunction body(
      1, 2,
      [&](const ExecutionContext&, absl::Span<AsyncValue* const> arguments,
          absl::Span<RCReference<AsyncValue>> results) {
        results[0] = later.CopyRCRef();
        results[1] = FormRef(arguments[0]);
      });
  KernelFrameBuilder frame = Frame("tfrt_test.do.async");
  RCReference<AsyncValue> chain = MakeReadyChain().ReleaseRCRef();
  // A trailing chain past the body's arguments is ignored.
  frame.AddArg(chain.CopyRef())
      .AddAvailableArg<Chain>()
      .AddFunction(&body)
      .SetNumResults(2);
  Invoke(frame, "tfrt_test.do.async");
  host_->Await(frame.result(1));
  EXPECT_EQ(body.calls(), 1);
  EXPECT_EQ(static_cast<IndirectAsyncValue*>(frame.result(1).get())->target(),
            chain.get());
  EXPECT_TRUE(frame.result(0)->IsUnavailable());
  later.emplace(8);
  ASSERT_TRUE(frame.result(0)->IsConcrete());
  EXPECT_EQ(frame.result(0)->get<int32_t>(), 8);
}

TEST_F(DoAsyncTest, DoAsyncWithAMismatchedBodyIsAnError) {
  LambdaFunction body = Adder();
  KernelFrameBuilder frame = Frame("tfrt_test.do.async");
  frame.AddArg(I32(2)).AddArg(I32(3)).AddFunction(&body).SetNumResults(2);
  Invoke(frame, "tfrt_test.do.async");
  ASSERT_TRUE(frame.result(0)->IsError());
  EXPECT_EQ(frame.result(0)->GetError().message(),
            "tfrt_test.do.async's region returns 1 values but the op has 2 "
            "result(s)");
  EXPECT_EQ(frame.result(1).get(), frame.result(0).get());
  EXPECT_EQ(Diagnostics().size(), 1u);
  EXPECT_EQ(body.calls(), 0);
}

TEST_F(DoAsyncTest, DoAsyncWithoutARegionIsAnError) {
  KernelFrameBuilder frame = Frame("tfrt_test.do.async");
  frame.SetNumResults(1);
  Invoke(frame, "tfrt_test.do.async");
  ASSERT_TRUE(frame.result(0)->IsError());
  EXPECT_THAT(Diagnostics(), ElementsAre("prog.mlir:5:3: error: runtime error: "
                                         "tfrt_test.do.async needs a region"));
}

class DoAsyncMultiThreadedTest : public DoAsyncTest {
 protected:
  DoAsyncMultiThreadedTest() : DoAsyncTest("mstd:4,2") {}
};

TEST_F(DoAsyncMultiThreadedTest, ManyDoAsyncs) {
  LambdaFunction body = Adder();
  constexpr int kCalls = 64;
  std::vector<std::unique_ptr<KernelFrameBuilder>> frames;
  std::vector<RCReference<AsyncValue>> results;
  for (int i = 0; i < kCalls; ++i) {
    auto frame = std::make_unique<KernelFrameBuilder>(
        ExecutionContext(request_.CopyRef()), "tfrt_test.do.async");
    frame->AddArg(I32(i)).AddArg(I32(1)).AddFunction(&body).SetNumResults(1);
    Invoke(*frame, "tfrt_test.do.async");
    results.push_back(frame->result(0).CopyRef());
    frames.push_back(std::move(frame));
  }
  host_->Await(results);
  for (int i = 0; i < kCalls; ++i) {
    EXPECT_EQ(results[i]->get<int32_t>(), i + 1);
  }
  EXPECT_EQ(body.calls(), kCalls);
}

}  // namespace
}  // namespace sluice
