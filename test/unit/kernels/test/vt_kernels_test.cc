// vt.constant, vt.add, vt.print and the lifetime lines of their payload;
// tfrt_tutorial.create_coordinate and print_coordinate.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "gtest/gtest.h"
#include "kernels/test/test_kernels.h"
#include "kernels/test/test_kernels_internal.h"
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

using test_kernels::VtValue;

class VtKernelsTest : public ::testing::Test {
 protected:
  VtKernelsTest()
      : host_([](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
              CreateSingleThreadedWorkQueue()),
        request_(RequestContext::Create(&host_)) {
    RegisterTestKernels(&GetKernelRegistry(&host_));
  }

  std::unique_ptr<KernelFrameBuilder> Frame(std::string name) {
    return std::make_unique<KernelFrameBuilder>(
        ExecutionContext(request_.CopyRef()), std::move(name));
  }

  // Calls `name` on `frame` and returns what it printed. Every result must
  // be available when the kernel returns.
  std::string Call(KernelFrameBuilder& frame, std::string_view name) {
    const RegisteredKernel* kernel = GetKernelRegistry(&host_).GetKernel(name);
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

  // A vt.value made by vt.constant.
  RCReference<AsyncValue> Constant(int32_t value) {
    std::unique_ptr<KernelFrameBuilder> frame = Frame("vt.constant");
    frame->AddAttribute(frame->attribute_buffer().AddScalar<int32_t>(value))
        .SetNumResults(1);
    EXPECT_EQ(Call(*frame, "vt.constant"),
              "constructed vt.value(" + std::to_string(value) + ")\n");
    return frame->result(0).CopyRef();
  }

  // Returns what dropping `value` (the last reference) printed.
  static std::string Drop(RCReference<AsyncValue> value) {
    testing::internal::CaptureStdout();
    value.reset();
    return testing::internal::GetCapturedStdout();
  }

  HostContext host_;
  RCReference<RequestContext> request_;
};

TEST_F(VtKernelsTest, ConstantIsBuiltInPlaceAndDestroyedOnce) {
  RCReference<AsyncValue> value = Constant(3);
  EXPECT_EQ(value->get<VtValue>().value(), 3);
  EXPECT_EQ(Drop(std::move(value)), "destroyed vt.value(3)\n");
}

TEST_F(VtKernelsTest, AddAndPrint) {
  RCReference<AsyncValue> a = Constant(1);
  RCReference<AsyncValue> b = Constant(2);

  std::unique_ptr<KernelFrameBuilder> add = Frame("vt.add");
  add->AddArg(a.CopyRef()).AddArg(b.CopyRef()).SetNumResults(1);
  EXPECT_EQ(Call(*add, "vt.add"), "constructed vt.value(3)\n");
  RCReference<AsyncValue> sum = add->result(0).CopyRef();
  testing::internal::CaptureStdout();
  add.reset();
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "");

  std::unique_ptr<KernelFrameBuilder> print = Frame("vt.print");
  print->AddArg(sum.CopyRef()).AddAvailableArg<Chain>().SetNumResults(1);
  EXPECT_EQ(Call(*print, "vt.print"), "print vt_value(3)\n");
  (void)print->result(0)->get<Chain>();
  print.reset();

  EXPECT_EQ(Drop(std::move(sum)), "destroyed vt.value(3)\n");
  EXPECT_EQ(Drop(std::move(b)), "destroyed vt.value(2)\n");
  EXPECT_EQ(Drop(std::move(a)), "destroyed vt.value(1)\n");
}

// What a kernel that copies or moves its payload would print.
TEST(VtValueTest, CopiesAndMovesAreAnnounced) {
  testing::internal::CaptureStdout();
  {
    VtValue original(5);
    VtValue copy(original);
    VtValue moved(std::move(original));
  }
  // Destroyed in reverse order; the moved-from original stays silent.
  EXPECT_EQ(testing::internal::GetCapturedStdout(),
            "constructed vt.value(5)\n"
            "copy constructed vt.value(5)\n"
            "move constructed vt.value(5)\n"
            "destroyed vt.value(5)\n"
            "destroyed vt.value(5)\n");
}

TEST_F(VtKernelsTest, MovingIntoAnAsyncValue) {
  testing::internal::CaptureStdout();
  RCReference<AsyncValue> value =
      MakeAvailableAsyncValueRef<VtValue>(VtValue(7)).ReleaseRCRef();
  value.reset();
  EXPECT_EQ(testing::internal::GetCapturedStdout(),
            "constructed vt.value(7)\n"
            "move constructed vt.value(7)\n"
            "destroyed vt.value(7)\n");
}

TEST_F(VtKernelsTest, TutorialCoordinate) {
  std::unique_ptr<KernelFrameBuilder> create =
      Frame("tfrt_tutorial.create_coordinate");
  create->AddAvailableArg<int32_t>(2).AddAvailableArg<int32_t>(4).SetNumResults(
      1);
  EXPECT_EQ(Call(*create, "tfrt_tutorial.create_coordinate"), "");

  std::unique_ptr<KernelFrameBuilder> print =
      Frame("tfrt_tutorial.print_coordinate");
  print->AddArg(create->result(0).CopyRef())
      .AddAvailableArg<Chain>()
      .SetNumResults(1);
  EXPECT_EQ(Call(*print, "tfrt_tutorial.print_coordinate"), "(2, 4)\n");
  (void)print->result(0)->get<Chain>();
}

}  // namespace
}  // namespace sluice
