// vt.constant, vt.add, vt.print and the lifetime lines of their payload;
// tfrt_tutorial.create_coordinate and print_coordinate.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "gtest/gtest.h"
#include "kernels/test/test_kernels_internal.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/kernel/kernel_frame_builder.h"
#include "sluice/kernels/test_kernels.h"
#include "test/util/kernel_test_host.h"

namespace sluice {
namespace {

using test_kernels::VtValue;

class VtKernelsTest : public ::testing::Test {
 protected:
  VtKernelsTest() { EXPECT_TRUE(RegisterTestKernels(&host_.registry()).ok()); }

  // A vt.value made by vt.constant.
  RCReference<AsyncValue> Constant(int32_t value) {
    std::unique_ptr<KernelFrameBuilder> frame = host_.NewFrame("vt.constant");
    frame->AddAttribute(frame->attribute_buffer().AddScalar<int32_t>(value))
        .SetNumResults(1);
    EXPECT_EQ(host_.InvokeCapturingStdout(*frame, "vt.constant"),
              "constructed vt.value(" + std::to_string(value) + ")\n");
    return frame->result(0).CopyRef();
  }

  // Returns what dropping `value` (the last reference) printed.
  static std::string Drop(RCReference<AsyncValue> value) {
    testing::internal::CaptureStdout();
    value.reset();
    return testing::internal::GetCapturedStdout();
  }

  test_util::KernelTestHost host_;
};

TEST_F(VtKernelsTest, ConstantIsBuiltInPlaceAndDestroyedOnce) {
  RCReference<AsyncValue> value = Constant(3);
  EXPECT_EQ(value->get<VtValue>().value(), 3);
  EXPECT_EQ(Drop(std::move(value)), "destroyed vt.value(3)\n");
}

TEST_F(VtKernelsTest, AddAndPrint) {
  RCReference<AsyncValue> a = Constant(1);
  RCReference<AsyncValue> b = Constant(2);

  std::unique_ptr<KernelFrameBuilder> add = host_.NewFrame("vt.add");
  add->AddArg(a.CopyRef()).AddArg(b.CopyRef()).SetNumResults(1);
  EXPECT_EQ(host_.InvokeCapturingStdout(*add, "vt.add"),
            "constructed vt.value(3)\n");
  RCReference<AsyncValue> sum = add->result(0).CopyRef();
  testing::internal::CaptureStdout();
  add.reset();
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "");

  std::unique_ptr<KernelFrameBuilder> print = host_.NewFrame("vt.print");
  print->AddArg(sum.CopyRef()).AddAvailableArg<Chain>().SetNumResults(1);
  EXPECT_EQ(host_.InvokeCapturingStdout(*print, "vt.print"),
            "print vt_value(3)\n");
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
      host_.NewFrame("tfrt_tutorial.create_coordinate");
  create->AddAvailableArg<int32_t>(2).AddAvailableArg<int32_t>(4).SetNumResults(
      1);
  EXPECT_EQ(
      host_.InvokeCapturingStdout(*create, "tfrt_tutorial.create_coordinate"),
      "");

  std::unique_ptr<KernelFrameBuilder> print =
      host_.NewFrame("tfrt_tutorial.print_coordinate");
  print->AddArg(create->result(0).CopyRef())
      .AddAvailableArg<Chain>()
      .SetNumResults(1);
  EXPECT_EQ(
      host_.InvokeCapturingStdout(*print, "tfrt_tutorial.print_coordinate"),
      "(2, 4)\n");
  (void)print->result(0)->get<Chain>();
}

}  // namespace
}  // namespace sluice
