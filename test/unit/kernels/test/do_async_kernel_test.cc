// tfrt_test.do.async, called through KernelFrameBuilder with hand-written
// bodies the way the executor calls them.
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/diagnostic.h"
#include "sluice/host_context/execution_context.h"
#include "sluice/kernel/kernel_frame_builder.h"
#include "sluice/kernels/test_kernels.h"
#include "test/util/kernel_test_host.h"

namespace sluice {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

using test_util::I32Adder;
using test_util::LambdaFunction;

RCReference<AsyncValue> I32(int32_t value) {
  return MakeAvailableAsyncValueRef<int32_t>(value).ReleaseRCRef();
}

class DoAsyncTest : public ::testing::Test {
 protected:
  explicit DoAsyncTest(std::string_view spec = "s")
      : host_(spec, DecodedLocation{"prog.mlir", 5, 3}) {
    EXPECT_TRUE(RegisterTestKernels(&host_.registry()).ok());
  }

  test_util::KernelTestHost host_;
};

// --- tfrt_test.do.async ------------------------------------------------------

TEST_F(DoAsyncTest, DoAsyncRunsTheBodyAsATask) {
  LambdaFunction body = I32Adder();
  KernelFrameBuilder frame = host_.Frame("tfrt_test.do.async");
  frame.AddArg(I32(2)).AddArg(I32(3)).AddFunction(&body).SetNumResults(1);
  host_.Invoke(frame, "tfrt_test.do.async");

  // Nothing runs on the single-threaded queue until someone waits.
  EXPECT_EQ(body.calls(), 0);
  ASSERT_TRUE(frame.result(0)->IsIndirect());
  EXPECT_TRUE(frame.result(0)->IsUnavailable());

  host_.Await(frame.results());
  EXPECT_EQ(body.calls(), 1);
  ASSERT_TRUE(frame.result(0)->IsConcrete());
  EXPECT_EQ(frame.result(0)->get<int32_t>(), 5);
  EXPECT_THAT(host_.diagnostics(), IsEmpty());
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
  KernelFrameBuilder frame = host_.Frame("tfrt_test.do.async");
  RCReference<AsyncValue> chain = MakeReadyChain().ReleaseRCRef();
  // A trailing chain past the body's arguments is ignored.
  frame.AddArg(chain.CopyRef())
      .AddAvailableArg<Chain>()
      .AddFunction(&body)
      .SetNumResults(2);
  host_.Invoke(frame, "tfrt_test.do.async");
  host_.Await(frame.result(1));
  EXPECT_EQ(body.calls(), 1);
  EXPECT_EQ(static_cast<IndirectAsyncValue*>(frame.result(1).get())->target(),
            chain.get());
  EXPECT_TRUE(frame.result(0)->IsUnavailable());
  later.emplace(8);
  ASSERT_TRUE(frame.result(0)->IsConcrete());
  EXPECT_EQ(frame.result(0)->get<int32_t>(), 8);
}

TEST_F(DoAsyncTest, DoAsyncWithAMismatchedBodyIsAnError) {
  LambdaFunction body = I32Adder();
  KernelFrameBuilder frame = host_.Frame("tfrt_test.do.async");
  frame.AddArg(I32(2)).AddArg(I32(3)).AddFunction(&body).SetNumResults(2);
  host_.Invoke(frame, "tfrt_test.do.async");
  ASSERT_TRUE(frame.result(0)->IsError());
  EXPECT_EQ(frame.result(0)->GetError().message(),
            "tfrt_test.do.async's region returns 1 values but the op has 2 "
            "result(s)");
  EXPECT_EQ(frame.result(1).get(), frame.result(0).get());
  EXPECT_EQ(host_.diagnostics().size(), 1u);
  EXPECT_EQ(body.calls(), 0);
}

TEST_F(DoAsyncTest, DoAsyncWithoutARegionIsAnError) {
  KernelFrameBuilder frame = host_.Frame("tfrt_test.do.async");
  frame.SetNumResults(1);
  host_.Invoke(frame, "tfrt_test.do.async");
  ASSERT_TRUE(frame.result(0)->IsError());
  EXPECT_THAT(host_.diagnostics(),
              ElementsAre("prog.mlir:5:3: error: runtime error: "
                          "tfrt_test.do.async needs a region"));
}

class DoAsyncMultiThreadedTest : public DoAsyncTest {
 protected:
  DoAsyncMultiThreadedTest() : DoAsyncTest("mstd:4,2") {}
};

TEST_F(DoAsyncMultiThreadedTest, ManyDoAsyncs) {
  LambdaFunction body = I32Adder();
  constexpr int kCalls = 64;
  std::vector<std::unique_ptr<KernelFrameBuilder>> frames;
  std::vector<RCReference<AsyncValue>> results;
  for (int i = 0; i < kCalls; ++i) {
    std::unique_ptr<KernelFrameBuilder> frame =
        host_.NewFrame("tfrt_test.do.async", std::nullopt);
    frame->AddArg(I32(i)).AddArg(I32(1)).AddFunction(&body).SetNumResults(1);
    host_.Invoke(*frame, "tfrt_test.do.async");
    results.push_back(frame->result(0).CopyRef());
    frames.push_back(std::move(frame));
  }
  host_.Await(results);
  for (int i = 0; i < kCalls; ++i) {
    EXPECT_EQ(results[i]->get<int32_t>(), i + 1);
  }
  EXPECT_EQ(body.calls(), kCalls);
}

}  // namespace
}  // namespace sluice
