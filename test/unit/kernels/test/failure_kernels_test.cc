// tfrt_test.fail, partial_fail, report_error_*async and cancel: the errors
// they make, where those errors become visible, and the diagnostics they
// emit.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/diagnostic.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernel/kernel_frame_builder.h"
#include "sluice/kernels/test_kernels.h"
#include "sluice/support/error_util.h"
#include "test/util/kernel_test_host.h"

namespace sluice {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

class FailureKernelsTest : public ::testing::Test {
 protected:
  explicit FailureKernelsTest(std::string_view spec = "s")
      : host_(spec, DecodedLocation{"prog.mlir", 3, 8}) {
    EXPECT_TRUE(RegisterTestKernels(&host_.registry()).ok());
  }

  test_util::KernelTestHost host_;
};

constexpr char kBad[] = "something bad happened";
constexpr char kBadAsync[] = "something bad happened asynchronously";

TEST_F(FailureKernelsTest, FailReportsTheErrorAtTheOp) {
  KernelFrameBuilder frame = host_.Frame("tfrt_test.fail");
  frame.SetNumResults(1);
  host_.Invoke(frame, "tfrt_test.fail");

  ASSERT_TRUE(frame.result(0)->IsError());
  const absl::Status& error = frame.result(0)->GetError();
  EXPECT_EQ(error.message(), kBad);
  EXPECT_EQ(error.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(GetErrorContext(error).kernel, "tfrt_test.fail");
  EXPECT_EQ(GetErrorContext(error).location, "prog.mlir:3:8");
  EXPECT_THAT(host_.diagnostics(),
              ElementsAre("prog.mlir:3:8: error: runtime error: something "
                          "bad happened"));
}

TEST_F(FailureKernelsTest, PartialFailSetsTheFirstResultAndFailsTheSecond) {
  KernelFrameBuilder frame = host_.Frame("tfrt_test.partial_fail");
  frame.SetNumResults(2);
  host_.Invoke(frame, "tfrt_test.partial_fail");

  ASSERT_TRUE(frame.result(0)->IsConcrete());
  EXPECT_EQ(frame.result(0)->get<int32_t>(), 1);
  ASSERT_TRUE(frame.result(1)->IsError());
  EXPECT_EQ(frame.result(1)->GetError().message(), kBad);
  EXPECT_THAT(host_.diagnostics(),
              ElementsAre("prog.mlir:3:8: error: runtime error: something "
                          "bad happened"));
}

TEST_F(FailureKernelsTest, ReportErrorAsyncFailsTheAllocatedResultLater) {
  KernelFrameBuilder frame = host_.Frame("tfrt_test.report_error_async");
  frame.SetNumResults(1);
  host_.Invoke(frame, "tfrt_test.report_error_async");

  // Nothing runs on the single-threaded queue until someone waits.
  ASSERT_TRUE(frame.result(0)->IsUnavailable());
  EXPECT_FALSE(frame.result(0)->IsIndirect());
  EXPECT_THAT(host_.diagnostics(), IsEmpty());

  host_.Await(frame.results());
  ASSERT_TRUE(frame.result(0)->IsError());
  EXPECT_EQ(frame.result(0)->GetError().message(), kBadAsync);
  EXPECT_EQ(GetErrorContext(frame.result(0)->GetError()).kernel,
            "tfrt_test.report_error_async");
  EXPECT_THAT(host_.diagnostics(),
              ElementsAre("prog.mlir:3:8: error: runtime error: something "
                          "bad happened asynchronously"));
}

TEST_F(FailureKernelsTest, ReportErrorConcreteAsyncSucceedsOnZero) {
  KernelFrameBuilder frame =
      host_.Frame("tfrt_test.report_error_concrete_async");
  frame.AddAvailableArg<int32_t>(0).SetNumResults(1);
  host_.Invoke(frame, "tfrt_test.report_error_concrete_async");

  ASSERT_TRUE(frame.result(0)->IsConcrete());
  EXPECT_FALSE(frame.result(0)->IsIndirect());
  EXPECT_EQ(frame.result(0)->get<int32_t>(), 0);
  host_.Quiesce();
  EXPECT_THAT(host_.diagnostics(), IsEmpty());
}

TEST_F(FailureKernelsTest, ReportErrorConcreteAsyncFailsOtherwise) {
  KernelFrameBuilder frame =
      host_.Frame("tfrt_test.report_error_concrete_async");
  frame.AddAvailableArg<int32_t>(1).SetNumResults(1);
  host_.Invoke(frame, "tfrt_test.report_error_concrete_async");

  ASSERT_TRUE(frame.result(0)->IsUnavailable());
  EXPECT_FALSE(frame.result(0)->IsIndirect());
  host_.Await(frame.results());
  ASSERT_TRUE(frame.result(0)->IsError());
  EXPECT_EQ(frame.result(0)->GetError().message(), kBadAsync);
  EXPECT_THAT(host_.diagnostics(),
              ElementsAre("prog.mlir:3:8: error: runtime error: something "
                          "bad happened asynchronously"));
}

TEST_F(FailureKernelsTest, ReportErrorIndirectAsyncSucceedsOnZero) {
  KernelFrameBuilder frame =
      host_.Frame("tfrt_test.report_error_indirect_async");
  frame.AddAvailableArg<int32_t>(0).SetNumResults(1);
  host_.Invoke(frame, "tfrt_test.report_error_indirect_async");

  ASSERT_TRUE(frame.result(0)->IsIndirect());
  ASSERT_TRUE(frame.result(0)->IsConcrete());
  EXPECT_EQ(frame.result(0)->get<int32_t>(), 0);
  host_.Quiesce();
  EXPECT_THAT(host_.diagnostics(), IsEmpty());
}

TEST_F(FailureKernelsTest, ReportErrorIndirectAsyncFailsOtherwise) {
  KernelFrameBuilder frame =
      host_.Frame("tfrt_test.report_error_indirect_async");
  frame.AddAvailableArg<int32_t>(-4).SetNumResults(1);
  host_.Invoke(frame, "tfrt_test.report_error_indirect_async");

  ASSERT_TRUE(frame.result(0)->IsIndirect());
  ASSERT_TRUE(frame.result(0)->IsUnavailable());
  EXPECT_THAT(host_.diagnostics(), IsEmpty());
  host_.Await(frame.results());
  ASSERT_TRUE(frame.result(0)->IsError());
  EXPECT_EQ(frame.result(0)->GetError().message(), kBadAsync);
  EXPECT_THAT(host_.diagnostics(),
              ElementsAre("prog.mlir:3:8: error: runtime error: something "
                          "bad happened asynchronously"));
}

TEST_F(FailureKernelsTest, CancelCancelsTheRequestAndReturnsZeroAndTheChain) {
  KernelFrameBuilder frame = host_.Frame("tfrt_test.cancel");
  AsyncValueRef<Chain> chain = MakeReadyChain();
  frame.AddArg(chain.CopyRCRef()).SetNumResults(2);
  ASSERT_FALSE(host_.request()->IsCancelled());
  host_.Invoke(frame, "tfrt_test.cancel");

  ASSERT_TRUE(host_.request()->IsCancelled());
  const absl::Status& cancelled =
      host_.request()->GetCancelAsyncValue()->GetError();
  EXPECT_EQ(cancelled.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(cancelled.message(), "Cancelled");
  ASSERT_TRUE(frame.result(0)->IsConcrete());
  EXPECT_EQ(frame.result(0)->get<int32_t>(), 0);
  EXPECT_EQ(frame.result(1).get(), chain.GetAsyncValue());
  EXPECT_THAT(host_.diagnostics(), IsEmpty());
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
    std::unique_ptr<KernelFrameBuilder> frame = host_.NewFrame(name);
    if (i % 2 == 1) frame->AddAvailableArg<int32_t>(i);
    frame->SetNumResults(1);
    host_.Invoke(*frame, name);
    results.push_back(frame->result(0).CopyRef());
    frames.push_back(std::move(frame));
  }
  host_.Await(results);
  for (const RCReference<AsyncValue>& result : results) {
    ASSERT_TRUE(result->IsError());
    EXPECT_EQ(result->GetError().message(), kBadAsync);
  }
  host_.Quiesce();
  EXPECT_EQ(host_.diagnostics().size(), static_cast<size_t>(kCalls));
}

}  // namespace
}  // namespace sluice
