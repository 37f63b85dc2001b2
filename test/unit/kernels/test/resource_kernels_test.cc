// allocate_resource / deallocate_resource, use_sample_shared_context and the
// atomic counter kernels.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

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

namespace sluice {
namespace {

std::unique_ptr<HostContext> CreateHost() {
  auto host = std::make_unique<HostContext>([](const DecodedDiagnostic&) {},
                                            CreateMallocAllocator(),
                                            CreateSingleThreadedWorkQueue());
  RegisterTestKernels(&GetKernelRegistry(host.get()));
  return host;
}

class ResourceKernelsTest : public ::testing::Test {
 protected:
  ResourceKernelsTest()
      : host_(CreateHost()), request_(RequestContext::Create(host_.get())) {}

  KernelFrameBuilder Frame(std::string name) {
    return KernelFrameBuilder(ExecutionContext(request_.CopyRef()),
                              std::move(name),
                              DecodedLocation{"prog.mlir", 1, 1});
  }

  // Calls `name` on `frame` and returns what it printed. Every result must
  // be available when the kernel returns.
  std::string Call(KernelFrameBuilder& frame, std::string_view name) {
    const RegisteredKernel* kernel =
        GetKernelRegistry(host_.get()).GetKernel(name);
    if (kernel == nullptr) {
      ADD_FAILURE() << name << " is not registered";
      return "";
    }
    EXPECT_EQ(kernel->strictness, Strictness::kStrict);
    testing::internal::CaptureStdout();
    frame.Invoke(kernel->implementation);
    std::string printed = testing::internal::GetCapturedStdout();
    for (const RCReference<AsyncValue>& result : frame.results()) {
      EXPECT_TRUE(result && result->IsConcrete()) << name;
    }
    return printed;
  }

  // Allocates a resource and returns its value.
  RCReference<AsyncValue> Allocate() {
    KernelFrameBuilder frame = Frame("tfrt_test.allocate_resource");
    frame.AddAvailableArg<Chain>().SetNumResults(2);
    EXPECT_EQ(Call(frame, "tfrt_test.allocate_resource"),
              "Allocated TestResource\n");
    (void)frame.result(1)->get<Chain>();
    return frame.result(0).CopyRef();
  }

  std::unique_ptr<HostContext> host_;
  RCReference<RequestContext> request_;
};

// The payload type is private to the kernels: the tests observe the
// resource through what it prints.
TEST_F(ResourceKernelsTest, DeallocateDestroysTheResourceNow) {
  RCReference<AsyncValue> resource = Allocate();
  auto frame = std::make_unique<KernelFrameBuilder>(
      ExecutionContext(request_.CopyRef()), "tfrt_test.deallocate_resource");
  frame->AddArg(resource.CopyRef()).AddAvailableArg<Chain>().SetNumResults(1);
  EXPECT_EQ(Call(*frame, "tfrt_test.deallocate_resource"),
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
    KernelFrameBuilder frame = Frame("tfrt_test.use_sample_shared_context");
    AsyncValueRef<Chain> chain = MakeReadyChain();
    frame.AddArg(chain.CopyRCRef()).SetNumResults(2);
    EXPECT_EQ(Call(frame, "tfrt_test.use_sample_shared_context"), "");
    EXPECT_EQ(frame.result(0)->get<std::string>(), "sample_shared_context0");
    EXPECT_EQ(frame.result(1).get(), chain.GetAsyncValue());
  }
}

// One shared object per host: a second host gets its own, also numbered 0.
TEST_F(ResourceKernelsTest, UseSampleSharedContextOnAnotherHost) {
  std::unique_ptr<HostContext> other = CreateHost();
  RCReference<RequestContext> request = RequestContext::Create(other.get());
  auto frame = std::make_unique<KernelFrameBuilder>(
      ExecutionContext(request.CopyRef()),
      "tfrt_test.use_sample_shared_context");
  frame->AddAvailableArg<Chain>().SetNumResults(2);
  frame->Invoke(GetKernelRegistry(other.get())
                    .GetKernel("tfrt_test.use_sample_shared_context")
                    ->implementation);
  EXPECT_EQ(frame->result(0)->get<std::string>(), "sample_shared_context0");
}

TEST_F(ResourceKernelsTest, AtomicCounter) {
  KernelFrameBuilder create = Frame("tfrt_test.atomic.create.i32");
  create.SetNumResults(1);
  Call(create, "tfrt_test.atomic.create.i32");
  RCReference<AsyncValue> counter = create.result(0).CopyRef();

  auto get = [&] {
    KernelFrameBuilder frame = Frame("tfrt_test.atomic.get.i32");
    frame.AddArg(counter.CopyRef()).AddAvailableArg<Chain>().SetNumResults(2);
    Call(frame, "tfrt_test.atomic.get.i32");
    (void)frame.result(1)->get<Chain>();
    return frame.result(0)->get<int32_t>();
  };
  EXPECT_EQ(get(), 0);

  KernelFrameBuilder inc = Frame("tfrt_test.atomic.inc.i32");
  inc.AddArg(counter.CopyRef()).AddAvailableArg<Chain>().SetNumResults(1);
  Call(inc, "tfrt_test.atomic.inc.i32");
  (void)inc.result(0)->get<Chain>();
  EXPECT_EQ(get(), 1);

  KernelFrameBuilder add = Frame("tfrt_test.atomic.add.i32");
  add.AddArg(counter.CopyRef())
      .AddAvailableArg<int32_t>(41)
      .AddAvailableArg<Chain>()
      .SetNumResults(1);
  Call(add, "tfrt_test.atomic.add.i32");
  (void)add.result(0)->get<Chain>();
  EXPECT_EQ(get(), 42);
}

// A create with an ordering chain, and updates without one, also work.
TEST_F(ResourceKernelsTest, AtomicChainsAreOptional) {
  KernelFrameBuilder create = Frame("tfrt_test.atomic.create.i32");
  create.AddAvailableArg<Chain>().SetNumResults(1);
  Call(create, "tfrt_test.atomic.create.i32");
  KernelFrameBuilder inc = Frame("tfrt_test.atomic.inc.i32");
  inc.AddArg(create.result(0).CopyRef()).SetNumResults(1);
  Call(inc, "tfrt_test.atomic.inc.i32");
  KernelFrameBuilder get = Frame("tfrt_test.atomic.get.i32");
  get.AddArg(create.result(0).CopyRef()).SetNumResults(2);
  Call(get, "tfrt_test.atomic.get.i32");
  EXPECT_EQ(get.result(0)->get<int32_t>(), 1);
}

// Kernels on several threads update one counter without losing updates.
TEST_F(ResourceKernelsTest, AtomicUpdatesFromManyThreads) {
  KernelFrameBuilder create = Frame("tfrt_test.atomic.create.i32");
  create.SetNumResults(1);
  Call(create, "tfrt_test.atomic.create.i32");
  RCReference<AsyncValue> counter = create.result(0).CopyRef();
  const KernelImplementation inc = GetKernelRegistry(host_.get())
                                       .GetKernel("tfrt_test.atomic.inc.i32")
                                       ->implementation;
  const KernelImplementation add = GetKernelRegistry(host_.get())
                                       .GetKernel("tfrt_test.atomic.add.i32")
                                       ->implementation;

  constexpr int kThreads = 4;
  constexpr int kUpdates = 500;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kUpdates; ++i) {
        auto frame = std::make_unique<KernelFrameBuilder>(
            ExecutionContext(request_.CopyRef()),
            i % 2 == 0 ? "tfrt_test.atomic.inc.i32"
                       : "tfrt_test.atomic.add.i32");
        frame->AddArg(counter.CopyRef());
        if (i % 2 == 1) frame->AddAvailableArg<int32_t>(2);
        frame->AddAvailableArg<Chain>().SetNumResults(1);
        frame->Invoke(i % 2 == 0 ? inc : add);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  KernelFrameBuilder get = Frame("tfrt_test.atomic.get.i32");
  get.AddArg(counter.CopyRef()).AddAvailableArg<Chain>().SetNumResults(2);
  Call(get, "tfrt_test.atomic.get.i32");
  // Per thread: kUpdates / 2 increments of 1 and as many additions of 2.
  EXPECT_EQ(get.result(0)->get<int32_t>(), kThreads * (kUpdates / 2) * 3);
}

}  // namespace
}  // namespace sluice
