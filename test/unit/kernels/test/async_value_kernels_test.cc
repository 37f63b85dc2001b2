// tfrt_test.async_value_get and tfrt_test.async_value_ref: the AsyncValue
// self-tests print and return exactly the spec's strings.
#include <memory>
#include <string>
#include <string_view>

#include "gtest/gtest.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/kernel/kernel_frame_builder.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/kernels/test_kernels.h"
#include "test/util/kernel_test_host.h"

namespace sluice {
namespace {

class AsyncValueKernelsTest : public ::testing::Test {
 protected:
  AsyncValueKernelsTest() {
    EXPECT_TRUE(RegisterTestKernels(&host_.registry()).ok());
  }

  // Runs the self-test `name`; returns what it printed and checks that it
  // returned the same text.
  std::string SelfTest(std::string_view name) {
    std::unique_ptr<KernelFrameBuilder> frame =
        host_.NewFrame(std::string(name));
    frame->SetNumResults(1);
    const RegisteredKernel* kernel = host_.registry().GetKernel(name);
    if (kernel == nullptr) {
      ADD_FAILURE() << name << " is not registered";
      return "";
    }
    testing::internal::CaptureStdout();
    frame->Invoke(kernel->implementation);
    std::string printed = testing::internal::GetCapturedStdout();
    EXPECT_TRUE(frame->result(0)->IsConcrete());
    if (frame->result(0)->IsConcrete()) {
      EXPECT_EQ(frame->result(0)->get<std::string>() + "\n", printed);
    }
    return printed;
  }

  test_util::KernelTestHost host_;
};

TEST_F(AsyncValueKernelsTest, AsyncValueGet) {
  EXPECT_EQ(SelfTest("tfrt_test.async_value_get"),
            "base1:base2:final_class:3\n");
}

TEST_F(AsyncValueKernelsTest, AsyncValueRef) {
  EXPECT_EQ(SelfTest("tfrt_test.async_value_ref"),
            "available:2;unavailable;(3);available:3;unavailable;"
            "available:4\n");
}

}  // namespace
}  // namespace sluice
