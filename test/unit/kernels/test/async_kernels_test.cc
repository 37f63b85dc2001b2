// The async_* kernels, copy.with_delay.* and the usleep kernels: their
// values, and that their results arrive late, from the work queue or the
// blocking pool.
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/diagnostic.h"
#include "sluice/host_context/host_context.h"
#include "sluice/kernel/kernel_frame_builder.h"
#include "sluice/kernels/test_kernels.h"
#include "test/util/kernel_test_host.h"

namespace sluice {
namespace {

using ::testing::IsEmpty;

class AsyncKernelsTest : public ::testing::Test {
 protected:
  explicit AsyncKernelsTest(std::string_view spec = "s")
      : host_(spec, DecodedLocation{"prog.mlir", 1, 1}) {
    EXPECT_TRUE(RegisterTestKernels(&host_.registry()).ok());
  }

  // Calls a kernel with one result whose value arrives from the work queue:
  // still unavailable when the kernel returns (nothing runs on the
  // single-threaded queue until someone waits), then `T`.
  template <typename T>
  T CallAsync(KernelFrameBuilder& frame, std::string_view name) {
    frame.SetNumResults(1);
    host_.Invoke(frame, name);
    EXPECT_TRUE(frame.result(0)->IsUnavailable()) << name;
    host_.Await(frame.results());
    EXPECT_TRUE(frame.result(0)->IsConcrete()) << name;
    return frame.result(0)->get<T>();
  }

  test_util::KernelTestHost host_;
};

TEST_F(AsyncKernelsTest, CopyWithDelaySleepsOnTheCallingThread) {
  for (const char* name :
       {"tfrt_test.copy.with_delay.i32", "tfrt_test.copy.with_delay.i64"}) {
    KernelFrameBuilder frame = host_.Frame(name);
    if (std::string_view(name).back() == '2') {
      frame.AddAvailableArg<int32_t>(42);
    } else {
      frame.AddAvailableArg<int64_t>(int64_t{1} << 40);
    }
    frame.SetNumResults(1);
    const absl::Time start = absl::Now();
    host_.Invoke(frame, name);
    EXPECT_GE(absl::Now() - start, absl::Milliseconds(1)) << name;
    // Synchronous: available when the kernel returns.
    ASSERT_TRUE(frame.result(0)->IsConcrete()) << name;
    if (std::string_view(name).back() == '2') {
      EXPECT_EQ(frame.result(0)->get<int32_t>(), 42);
    } else {
      EXPECT_EQ(frame.result(0)->get<int64_t>(), int64_t{1} << 40);
    }
  }
}

TEST_F(AsyncKernelsTest, AsyncAdd) {
  KernelFrameBuilder frame = host_.Frame("tfrt_test.async_add.i32");
  frame.AddAvailableArg<int32_t>(1).AddAvailableArg<int32_t>(2);
  EXPECT_EQ(CallAsync<int32_t>(frame, "tfrt_test.async_add.i32"), 3);
}

TEST_F(AsyncKernelsTest, AsyncAddWrapsAround) {
  KernelFrameBuilder frame = host_.Frame("tfrt_test.async_add.i32");
  frame.AddAvailableArg<int32_t>(std::numeric_limits<int32_t>::max())
      .AddAvailableArg<int32_t>(1);
  EXPECT_EQ(CallAsync<int32_t>(frame, "tfrt_test.async_add.i32"),
            std::numeric_limits<int32_t>::min());
}

TEST_F(AsyncKernelsTest, AsyncCopies) {
  for (const char* name :
       {"tfrt_test.async_copy.i32", "tfrt_test.async_copy.with_delay.i32",
        "tfrt_test.async_copy_2.i32"}) {
    KernelFrameBuilder frame = host_.Frame(name);
    frame.AddAvailableArg<int32_t>(-7);
    EXPECT_EQ(CallAsync<int32_t>(frame, name), -7) << name;
  }
}

// The value takes a second trip through the queue: one round of tasks is not
// enough to produce it.
TEST_F(AsyncKernelsTest, AsyncCopy2TakesTwoTasks) {
  KernelFrameBuilder frame = host_.Frame("tfrt_test.async_copy_2.i32");
  frame.AddAvailableArg<int32_t>(5).SetNumResults(1);
  host_.Invoke(frame, "tfrt_test.async_copy_2.i32");
  AsyncValueRef<Chain> first_round =
      EnqueueWork(host_.host_context(), [] { return Chain(); });
  host_.Await(first_round.CopyRCRef());
  EXPECT_TRUE(frame.result(0)->IsUnavailable());
  host_.Await(frame.results());
  EXPECT_EQ(frame.result(0)->get<int32_t>(), 5);
}

TEST_F(AsyncKernelsTest, AsyncConstant) {
  KernelFrameBuilder frame = host_.Frame("tfrt_test.async_constant.i32");
  frame.AddAttribute(frame.attribute_buffer().AddScalar<int32_t>(17));
  EXPECT_EQ(CallAsync<int32_t>(frame, "tfrt_test.async_constant.i32"), 17);
}

TEST_F(AsyncKernelsTest, UsleepSleepsAsBlockingWorkAndPrints) {
  KernelFrameBuilder frame = host_.Frame("tfrt_test.usleep");
  frame.AddAvailableArg<int32_t>(1500).SetNumResults(0);
  testing::internal::CaptureStdout();
  const absl::Time start = absl::Now();
  host_.Invoke(frame, "tfrt_test.usleep");
  host_.Quiesce();
  const absl::Duration elapsed = absl::Now() - start;
  EXPECT_EQ(testing::internal::GetCapturedStdout(),
            "Slept for 1500 microseconds\n");
  EXPECT_GE(elapsed, absl::Microseconds(1500));
}

// Nothing is printed before the queue runs the blocking task.
TEST_F(AsyncKernelsTest, UsleepDoesNotSleepInTheKernel) {
  KernelFrameBuilder frame = host_.Frame("tfrt_test.usleep");
  frame.AddAvailableArg<int32_t>(10).SetNumResults(0);
  testing::internal::CaptureStdout();
  host_.Invoke(frame, "tfrt_test.usleep");
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
  testing::internal::CaptureStdout();
  host_.Quiesce();
  EXPECT_EQ(testing::internal::GetCapturedStdout(),
            "Slept for 10 microseconds\n");
}

TEST_F(AsyncKernelsTest, BlockingUsleepResolvesTheChainAfterTheSleep) {
  KernelFrameBuilder frame = host_.Frame("tfrt_test.blocking.usleep");
  frame.AddAvailableArg<int32_t>(2000).SetNumResults(1);
  testing::internal::CaptureStdout();
  const absl::Time start = absl::Now();
  host_.Invoke(frame, "tfrt_test.blocking.usleep");
  EXPECT_TRUE(frame.result(0)->IsUnavailable());
  host_.Await(frame.results());
  const absl::Duration elapsed = absl::Now() - start;
  EXPECT_EQ(testing::internal::GetCapturedStdout(),
            "Slept for 2000 microseconds\n");
  ASSERT_TRUE(frame.result(0)->IsConcrete());
  (void)frame.result(0)->get<Chain>();
  EXPECT_GE(elapsed, absl::Microseconds(2000));
  EXPECT_THAT(host_.diagnostics(), IsEmpty());
}

class AsyncKernelsMultiThreadedTest : public AsyncKernelsTest {
 protected:
  AsyncKernelsMultiThreadedTest() : AsyncKernelsTest("mstd:4,4") {}
};

TEST_F(AsyncKernelsMultiThreadedTest, ManyAsyncKernelsAtOnce) {
  constexpr int kCalls = 50;
  const char* const kNames[] = {
      "tfrt_test.async_add.i32", "tfrt_test.async_copy.i32",
      "tfrt_test.async_copy.with_delay.i32", "tfrt_test.async_copy_2.i32",
      "tfrt_test.blocking.usleep"};
  std::vector<std::unique_ptr<KernelFrameBuilder>> frames;
  std::vector<RCReference<AsyncValue>> results;
  testing::internal::CaptureStdout();
  for (int i = 0; i < kCalls; ++i) {
    const std::string name = kNames[i % 5];
    std::unique_ptr<KernelFrameBuilder> frame =
        host_.NewFrame(name, std::nullopt);
    frame->AddAvailableArg<int32_t>(i);
    if (i % 5 == 0) frame->AddAvailableArg<int32_t>(1000);
    frame->SetNumResults(1);
    host_.Invoke(*frame, name);
    results.push_back(frame->result(0).CopyRef());
    frames.push_back(std::move(frame));
  }
  host_.Await(results);
  host_.Quiesce();
  const std::string printed = testing::internal::GetCapturedStdout();
  for (int i = 0; i < kCalls; ++i) {
    ASSERT_TRUE(results[i]->IsConcrete()) << i;
    if (i % 5 == 0) {
      EXPECT_EQ(results[i]->get<int32_t>(), i + 1000);
    } else if (i % 5 == 4) {
      EXPECT_NE(
          printed.find("Slept for " + std::to_string(i) + " microseconds\n"),
          std::string::npos)
          << i;
    } else {
      EXPECT_EQ(results[i]->get<int32_t>(), i);
    }
  }
}

}  // namespace
}  // namespace sluice
