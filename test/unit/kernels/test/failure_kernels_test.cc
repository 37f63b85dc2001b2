// tfrt_test.fail, partial_fail, report_error_*async and cancel: the errors
// they make, where those errors become visible, and the diagnostics they
// emit.
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
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
#include "sluice/kernel/kernel_frame_builder.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/support/error_util.h"

namespace sluice {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

class FailureKernelsTest : public ::testing::Test {
 protected:
  explicit FailureKernelsTest(std::string_view spec = "s") {
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
                              DecodedLocation{"prog.mlir", 3, 8});
  }

  // Calls `name` on `frame`; does not wait.
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

constexpr char kBad[] = "something bad happened";
constexpr char kBadAsync[] = "something bad happened asynchronously";

TEST_F(FailureKernelsTest, FailReportsTheErrorAtTheOp) {
  KernelFrameBuilder frame = Frame("tfrt_test.fail");
  frame.SetNumResults(1);
  Invoke(frame, "tfrt_test.fail");

  ASSERT_TRUE(frame.result(0)->IsError());
  const absl::Status& error = frame.result(0)->GetError();
  EXPECT_EQ(error.message(), kBad);
  EXPECT_EQ(error.code(), absl::StatusCode::kUnknown);
  EXPECT_EQ(GetErrorContext(error).kernel, "tfrt_test.fail");
  EXPECT_EQ(GetErrorContext(error).location, "prog.mlir:3:8");
  EXPECT_THAT(Diagnostics(),
              ElementsAre("prog.mlir:3:8: error: runtime error: something "
                          "bad happened"));
}

TEST_F(FailureKernelsTest, PartialFailSetsTheFirstResultAndFailsTheSecond) {
  KernelFrameBuilder frame = Frame("tfrt_test.partial_fail");
  frame.SetNumResults(2);
  Invoke(frame, "tfrt_test.partial_fail");

  ASSERT_TRUE(frame.result(0)->IsConcrete());
  EXPECT_EQ(frame.result(0)->get<int32_t>(), 1);
  ASSERT_TRUE(frame.result(1)->IsError());
  EXPECT_EQ(frame.result(1)->GetError().message(), kBad);
  EXPECT_THAT(Diagnostics(),
              ElementsAre("prog.mlir:3:8: error: runtime error: something "
                          "bad happened"));
}

TEST_F(FailureKernelsTest, ReportErrorAsyncFailsTheAllocatedResultLater) {
  KernelFrameBuilder frame = Frame("tfrt_test.report_error_async");
  frame.SetNumResults(1);
  Invoke(frame, "tfrt_test.report_error_async");

  // Nothing runs on the single-threaded queue until someone waits.
  ASSERT_TRUE(frame.result(0)->IsUnavailable());
  EXPECT_FALSE(frame.result(0)->IsIndirect());
  EXPECT_THAT(Diagnostics(), IsEmpty());

  host_->Await(frame.results());
  ASSERT_TRUE(frame.result(0)->IsError());
  EXPECT_EQ(frame.result(0)->GetError().message(), kBadAsync);
  EXPECT_EQ(GetErrorContext(frame.result(0)->GetError()).kernel,
            "tfrt_test.report_error_async");
  EXPECT_THAT(Diagnostics(),
              ElementsAre("prog.mlir:3:8: error: runtime error: something "
                          "bad happened asynchronously"));
}

TEST_F(FailureKernelsTest, ReportErrorConcreteAsyncSucceedsOnZero) {
  KernelFrameBuilder frame = Frame("tfrt_test.report_error_concrete_async");
  frame.AddAvailableArg<int32_t>(0).SetNumResults(1);
  Invoke(frame, "tfrt_test.report_error_concrete_async");

  ASSERT_TRUE(frame.result(0)->IsConcrete());
  EXPECT_FALSE(frame.result(0)->IsIndirect());
  EXPECT_EQ(frame.result(0)->get<int32_t>(), 0);
  host_->Quiesce();
  EXPECT_THAT(Diagnostics(), IsEmpty());
}

TEST_F(FailureKernelsTest, ReportErrorConcreteAsyncFailsOtherwise) {
  KernelFrameBuilder frame = Frame("tfrt_test.report_error_concrete_async");
  frame.AddAvailableArg<int32_t>(1).SetNumResults(1);
  Invoke(frame, "tfrt_test.report_error_concrete_async");

  ASSERT_TRUE(frame.result(0)->IsUnavailable());
  EXPECT_FALSE(frame.result(0)->IsIndirect());
  host_->Await(frame.results());
  ASSERT_TRUE(frame.result(0)->IsError());
  EXPECT_EQ(frame.result(0)->GetError().message(), kBadAsync);
  EXPECT_THAT(Diagnostics(),
              ElementsAre("prog.mlir:3:8: error: runtime error: something "
                          "bad happened asynchronously"));
}

TEST_F(FailureKernelsTest, ReportErrorIndirectAsyncSucceedsOnZero) {
  KernelFrameBuilder frame = Frame("tfrt_test.report_error_indirect_async");
  frame.AddAvailableArg<int32_t>(0).SetNumResults(1);
  Invoke(frame, "tfrt_test.report_error_indirect_async");

  ASSERT_TRUE(frame.result(0)->IsIndirect());
  ASSERT_TRUE(frame.result(0)->IsConcrete());
  EXPECT_EQ(frame.result(0)->get<int32_t>(), 0);
  host_->Quiesce();
  EXPECT_THAT(Diagnostics(), IsEmpty());
}

TEST_F(FailureKernelsTest, ReportErrorIndirectAsyncFailsOtherwise) {
  KernelFrameBuilder frame = Frame("tfrt_test.report_error_indirect_async");
  frame.AddAvailableArg<int32_t>(-4).SetNumResults(1);
  Invoke(frame, "tfrt_test.report_error_indirect_async");

  ASSERT_TRUE(frame.result(0)->IsIndirect());
  ASSERT_TRUE(frame.result(0)->IsUnavailable());
  EXPECT_THAT(Diagnostics(), IsEmpty());
  host_->Await(frame.results());
  ASSERT_TRUE(frame.result(0)->IsError());
  EXPECT_EQ(frame.result(0)->GetError().message(), kBadAsync);
  EXPECT_THAT(Diagnostics(),
              ElementsAre("prog.mlir:3:8: error: runtime error: something "
                          "bad happened asynchronously"));
}

TEST_F(FailureKernelsTest, CancelCancelsTheRequestAndReturnsZeroAndTheChain) {
  KernelFrameBuilder frame = Frame("tfrt_test.cancel");
  AsyncValueRef<Chain> chain = MakeReadyChain();
  frame.AddArg(chain.CopyRCRef()).SetNumResults(2);
  ASSERT_FALSE(request_->IsCancelled());
  Invoke(frame, "tfrt_test.cancel");

  ASSERT_TRUE(request_->IsCancelled());
  const absl::Status& cancelled = request_->GetCancelAsyncValue()->GetError();
  EXPECT_EQ(cancelled.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(cancelled.message(), "Cancelled");
  ASSERT_TRUE(frame.result(0)->IsConcrete());
  EXPECT_EQ(frame.result(0)->get<int32_t>(), 0);
  EXPECT_EQ(frame.result(1).get(), chain.GetAsyncValue());
  EXPECT_THAT(Diagnostics(), IsEmpty());
}

class FailureKernelsMultiThreadedTest : public FailureKernelsTest {
 protected:
  FailureKernelsMultiThreadedTest() : FailureKernelsTest("mstd:4,2") {}
};

// The copied frames report from worker threads while the kernels are still
// being called: every result fails once, with one diagnostic each.
TEST_F(FailureKernelsMultiThreadedTest, ManyAsyncReportsFromWorkers) {
  constexpr int kCalls = 64;
  std::vector<std::unique_ptr<KernelFrameBuilder>> frames;
  std::vector<RCReference<AsyncValue>> results;
  for (int i = 0; i < kCalls; ++i) {
    const std::string name = i % 2 == 0
                                 ? "tfrt_test.report_error_async"
                                 : "tfrt_test.report_error_indirect_async";
    auto frame = std::make_unique<KernelFrameBuilder>(
        ExecutionContext(request_.CopyRef()), name,
        DecodedLocation{"prog.mlir", 3, 8});
    if (i % 2 == 1) frame->AddAvailableArg<int32_t>(i);
    frame->SetNumResults(1);
    Invoke(*frame, name);
    results.push_back(frame->result(0).CopyRef());
    frames.push_back(std::move(frame));
  }
  host_->Await(results);
  for (const RCReference<AsyncValue>& result : results) {
    ASSERT_TRUE(result->IsError());
    EXPECT_EQ(result->GetError().message(), kBadAsync);
  }
  host_->Quiesce();
  EXPECT_EQ(Diagnostics().size(), static_cast<size_t>(kCalls));
}

}  // namespace
}  // namespace sluice
