// allocate_resource / deallocate_resource, use_sample_shared_context and the
// atomic counter kernels.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/diagnostic.h"
#include "sluice/kernel/kernel_frame_builder.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/kernels/test_kernels.h"
#include "test/util/kernel_test_host.h"

namespace sluice {
namespace {

class ResourceKernelsTest : public ::testing::Test {
 protected:
  ResourceKernelsTest() : host_("s", DecodedLocation{"prog.mlir", 1, 1}) {
    EXPECT_TRUE(RegisterTestKernels(&host_.registry()).ok());
  }

  // Allocates a resource and returns its value.
  RCReference<AsyncValue> Allocate() {
    KernelFrameBuilder frame = host_.Frame("tfrt_test.allocate_resource");
    frame.AddAvailableArg<Chain>().SetNumResults(2);
    EXPECT_EQ(host_.InvokeCapturingStdout(frame, "tfrt_test.allocate_resource"),
              "Allocated TestResource\n");
    (void)frame.result(1)->get<Chain>();
    return frame.result(0).CopyRef();
  }

  test_util::KernelTestHost host_;
};

// The payload type is private to the kernels: the tests observe the
// resource through what it prints.
TEST_F(ResourceKernelsTest, DeallocateDestroysTheResourceNow) {
  RCReference<AsyncValue> resource = Allocate();
  std::unique_ptr<KernelFrameBuilder> frame =
      host_.NewFrame("tfrt_test.deallocate_resource", std::nullopt);
  frame->AddArg(resource.CopyRef()).AddAvailableArg<Chain>().SetNumResults(1);
  EXPECT_EQ(
      host_.InvokeCapturingStdout(*frame, "tfrt_test.deallocate_resource"),
      "Destroyed TestResource\n"
      "tfrt_test.deallocate_resource done\n");
  (void)frame->result(0)->get<Chain>();

  // The value outlived the resource; destroying it frees nothing more.
  testing::internal::CaptureStdout();
  frame.reset();
  ASSERT_EQ(resource->NumRef(), 1u);
  resource.reset();
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
}

TEST_F(ResourceKernelsTest, AResourceNeverDeallocatedIsFreedWithItsValue) {
  RCReference<AsyncValue> resource = Allocate();
  testing::internal::CaptureStdout();
  resource.reset();
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "Destroyed TestResource\n");
}

TEST_F(ResourceKernelsTest, UseSampleSharedContext) {
  for (int i = 0; i < 2; ++i) {
    KernelFrameBuilder frame =
        host_.Frame("tfrt_test.use_sample_shared_context");
    AsyncValueRef<Chain> chain = MakeReadyChain();
    frame.AddArg(chain.CopyRCRef()).SetNumResults(2);
    EXPECT_EQ(host_.InvokeCapturingStdout(
                  frame, "tfrt_test.use_sample_shared_context"),
              "");
    EXPECT_EQ(frame.result(0)->get<std::string>(), "sample_shared_context0");
    EXPECT_EQ(frame.result(1).get(), chain.GetAsyncValue());
  }
}

// One shared object per host: a second host gets its own, also numbered 0.
TEST_F(ResourceKernelsTest, UseSampleSharedContextOnAnotherHost) {
  test_util::KernelTestHost other;
  EXPECT_TRUE(RegisterTestKernels(&other.registry()).ok());
  std::unique_ptr<KernelFrameBuilder> frame =
      other.NewFrame("tfrt_test.use_sample_shared_context", std::nullopt);
  frame->AddAvailableArg<Chain>().SetNumResults(2);
  frame->Invoke(other.Kernel("tfrt_test.use_sample_shared_context"));
  EXPECT_EQ(frame->result(0)->get<std::string>(), "sample_shared_context0");
}

TEST_F(ResourceKernelsTest, AtomicCounter) {
  KernelFrameBuilder create = host_.Frame("tfrt_test.atomic.create.i32");
  create.SetNumResults(1);
  host_.InvokeCapturingStdout(create, "tfrt_test.atomic.create.i32");
  RCReference<AsyncValue> counter = create.result(0).CopyRef();

  auto get = [&] {
    KernelFrameBuilder frame = host_.Frame("tfrt_test.atomic.get.i32");
    frame.AddArg(counter.CopyRef()).AddAvailableArg<Chain>().SetNumResults(2);
    host_.InvokeCapturingStdout(frame, "tfrt_test.atomic.get.i32");
    (void)frame.result(1)->get<Chain>();
    return frame.result(0)->get<int32_t>();
  };
  EXPECT_EQ(get(), 0);

  KernelFrameBuilder inc = host_.Frame("tfrt_test.atomic.inc.i32");
  inc.AddArg(counter.CopyRef()).AddAvailableArg<Chain>().SetNumResults(1);
  host_.InvokeCapturingStdout(inc, "tfrt_test.atomic.inc.i32");
  (void)inc.result(0)->get<Chain>();
  EXPECT_EQ(get(), 1);

  KernelFrameBuilder add = host_.Frame("tfrt_test.atomic.add.i32");
  add.AddArg(counter.CopyRef())
      .AddAvailableArg<int32_t>(41)
      .AddAvailableArg<Chain>()
      .SetNumResults(1);
  host_.InvokeCapturingStdout(add, "tfrt_test.atomic.add.i32");
  (void)add.result(0)->get<Chain>();
  EXPECT_EQ(get(), 42);
}

// A create with an ordering chain, and updates without one, also work.
TEST_F(ResourceKernelsTest, AtomicChainsAreOptional) {
  KernelFrameBuilder create = host_.Frame("tfrt_test.atomic.create.i32");
  create.AddAvailableArg<Chain>().SetNumResults(1);
  host_.InvokeCapturingStdout(create, "tfrt_test.atomic.create.i32");
  KernelFrameBuilder inc = host_.Frame("tfrt_test.atomic.inc.i32");
  inc.AddArg(create.result(0).CopyRef()).SetNumResults(1);
  host_.InvokeCapturingStdout(inc, "tfrt_test.atomic.inc.i32");
  KernelFrameBuilder get = host_.Frame("tfrt_test.atomic.get.i32");
  get.AddArg(create.result(0).CopyRef()).SetNumResults(2);
  host_.InvokeCapturingStdout(get, "tfrt_test.atomic.get.i32");
  EXPECT_EQ(get.result(0)->get<int32_t>(), 1);
}

// Kernels on several threads update one counter without losing updates.
TEST_F(ResourceKernelsTest, AtomicUpdatesFromManyThreads) {
  KernelFrameBuilder create = host_.Frame("tfrt_test.atomic.create.i32");
  create.SetNumResults(1);
  host_.InvokeCapturingStdout(create, "tfrt_test.atomic.create.i32");
  RCReference<AsyncValue> counter = create.result(0).CopyRef();
  const KernelImplementation inc = host_.Kernel("tfrt_test.atomic.inc.i32");
  const KernelImplementation add = host_.Kernel("tfrt_test.atomic.add.i32");

  constexpr int kThreads = 4;
  constexpr int kUpdates = 500;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kUpdates; ++i) {
        std::unique_ptr<KernelFrameBuilder> frame =
            host_.NewFrame(i % 2 == 0 ? "tfrt_test.atomic.inc.i32"
                                      : "tfrt_test.atomic.add.i32",
                           std::nullopt);
        frame->AddArg(counter.CopyRef());
        if (i % 2 == 1) frame->AddAvailableArg<int32_t>(2);
        frame->AddAvailableArg<Chain>().SetNumResults(1);
        frame->Invoke(i % 2 == 0 ? inc : add);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  KernelFrameBuilder get = host_.Frame("tfrt_test.atomic.get.i32");
  get.AddArg(counter.CopyRef()).AddAvailableArg<Chain>().SetNumResults(2);
  host_.InvokeCapturingStdout(get, "tfrt_test.atomic.get.i32");
  // Per thread: kUpdates / 2 increments of 1 and as many additions of 2.
  EXPECT_EQ(get.result(0)->get<int32_t>(), kThreads * (kUpdates / 2) * 3);
}

}  // namespace
}  // namespace sluice
