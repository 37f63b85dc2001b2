// tfrt.print.*: the exact lines programs written for TFRT expect on stdout.
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/basic/basic_kernels_internal.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/kernel/kernel_frame_builder.h"
#include "sluice/kernel/kernel_registry.h"
#include "test/util/kernel_test_host.h"

namespace sluice {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

class PrintKernelsTest : public ::testing::Test {
 protected:
  PrintKernelsTest() {
    EXPECT_TRUE(basic_kernels::RegisterPrintKernels(&host_.registry()).ok());
    // The spec's example computes its values with these.
    EXPECT_TRUE(basic_kernels::RegisterValueKernels(&host_.registry()).ok());
  }

  // Calls `kernel` with `operands` and the chain every print takes, plus
  // `extra_chains` more, and returns what it printed. The result must be an
  // available chain.
  template <typename T>
  std::string Print(std::string_view kernel, T value, int extra_chains = 0) {
    KernelFrameBuilder frame = host_.Frame(std::string(kernel));
    frame.AddAvailableArg<T>(value);
    frame.AddAvailableArg<Chain>();
    for (int i = 0; i < extra_chains; ++i) frame.AddAvailableArg<Chain>();
    frame.SetNumResults(1);
    const RegisteredKernel* registered = host_.registry().GetKernel(kernel);
    if (registered == nullptr) {
      ADD_FAILURE() << kernel << " is not registered";
      return "";
    }
    EXPECT_EQ(registered->strictness, Strictness::kStrict);
    testing::internal::CaptureStdout();
    frame.Invoke(registered->implementation);
    host_.Await(frame.results());
    std::string printed = testing::internal::GetCapturedStdout();
    const AsyncValue* result = frame.result(0).get();
    EXPECT_TRUE(result != nullptr && result->IsConcrete())
        << kernel << " returned no chain";
    if (result != nullptr && result->IsConcrete()) (void)result->get<Chain>();
    return printed;
  }

  template <typename R, typename... Ts>
  R Call(std::string_view kernel, Ts... operands) {
    KernelFrameBuilder frame = host_.Frame(std::string(kernel));
    (frame.AddAvailableArg<Ts>(operands), ...);
    frame.SetNumResults(1);
    frame.Invoke(host_.Kernel(kernel));
    host_.Await(frame.results());
    return frame.result(0)->get<R>();
  }

  test_util::KernelTestHost host_;
};

TEST_F(PrintKernelsTest, RegistersThePrintKernels) {
  for (std::string_view kernel :
       {"tfrt.print.i1", "tfrt.print.i32", "tfrt.print.i64", "tfrt.print.f32",
        "tfrt.print.f64"}) {
    EXPECT_NE(host_.registry().GetKernel(kernel), nullptr) << kernel;
  }
}

TEST_F(PrintKernelsTest, PrintsI1AsANumber) {
  EXPECT_EQ(Print("tfrt.print.i1", false), "int1 = 0\n");
  EXPECT_EQ(Print("tfrt.print.i1", true), "int1 = 1\n");
}

TEST_F(PrintKernelsTest, PrintsIntegers) {
  EXPECT_EQ(Print<int32_t>("tfrt.print.i32", 42), "int32 = 42\n");
  EXPECT_EQ(Print<int32_t>("tfrt.print.i32", -7), "int32 = -7\n");
  EXPECT_EQ(Print("tfrt.print.i32", std::numeric_limits<int32_t>::min()),
            "int32 = -2147483648\n");
  EXPECT_EQ(Print<int64_t>("tfrt.print.i64", 43), "int64 = 43\n");
  EXPECT_EQ(Print("tfrt.print.i64", std::numeric_limits<int64_t>::max()),
            "int64 = 9223372036854775807\n");
}

TEST_F(PrintKernelsTest, PrintsFloatsLikePrintfF) {
  EXPECT_EQ(Print("tfrt.print.f32", 312.27136f), "f32 = 312.271362\n");
  EXPECT_EQ(Print("tfrt.print.f32", -1.0f), "f32 = -1.000000\n");
  EXPECT_EQ(Print("tfrt.print.f32", 1e-7f), "f32 = 0.000000\n");
  EXPECT_EQ(Print("tfrt.print.f64", 0.347354), "f64 = 0.347354\n");
  EXPECT_EQ(Print("tfrt.print.f64", 1e20),
            "f64 = 100000000000000000000.000000\n");
  EXPECT_EQ(Print("tfrt.print.f64", 2.5e-7), "f64 = 0.000000\n");
  EXPECT_EQ(Print("tfrt.print.f64", std::numeric_limits<double>::infinity()),
            "f64 = inf\n");
}

TEST_F(PrintKernelsTest, IgnoresATrailingChainOperand) {
  EXPECT_EQ(Print<int32_t>("tfrt.print.i32", 42, /*extra_chains=*/1),
            "int32 = 42\n");
  EXPECT_EQ(Print("tfrt.print.i1", true, /*extra_chains=*/1), "int1 = 1\n");
  EXPECT_EQ(Print<int64_t>("tfrt.print.i64", 43, /*extra_chains=*/1),
            "int64 = 43\n");
  EXPECT_EQ(Print("tfrt.print.f32", 0.5f, /*extra_chains=*/1),
            "f32 = 0.500000\n");
  EXPECT_EQ(Print("tfrt.print.f64", 0.5, /*extra_chains=*/1),
            "f64 = 0.500000\n");
}

// The spec's resize example, with the lines it expects.
TEST_F(PrintKernelsTest, SpecResizeExample) {
  const double height = Call<double>("tfrt.cast.i64_to_f64", int64_t{737});
  const double width = Call<double>("tfrt.cast.i64_to_f64", int64_t{899});
  const double smaller = Call<double>("tfrt.minimum.f64", height, width);
  const double ratio = Call<double>("tfrt.div.f64", 256.0, smaller);
  const double new_height = Call<double>("tfrt.multiply.f64", height, ratio);
  const double new_width = Call<double>("tfrt.multiply.f64", width, ratio);
  std::vector<std::string> lines = {
      Print("tfrt.print.f64", height),
      Print("tfrt.print.f64", width),
      Print("tfrt.print.f64", smaller),
      Print("tfrt.print.f64", ratio),
      Print("tfrt.print.f64", new_height),
      Print("tfrt.print.f64", new_width),
      Print("tfrt.print.i64",
            Call<int64_t>("tfrt.cast.f64_to_i64", new_height)),
      Print("tfrt.print.i64", Call<int64_t>("tfrt.cast.f64_to_i64", new_width)),
  };
  EXPECT_THAT(lines, ElementsAre("f64 = 737.000000\n", "f64 = 899.000000\n",
                                 "f64 = 737.000000\n", "f64 = 0.347354\n",
                                 "f64 = 256.000000\n", "f64 = 312.271370\n",
                                 "int64 = 255\n", "int64 = 312\n"));

  const float width32 = Call<float>("tfrt.cast.i64_to_f32", int64_t{899});
  const float ratio32 = Call<float>("tfrt.div.f32", 256.0f, 737.0f);
  EXPECT_EQ(Print("tfrt.print.f32",
                  Call<float>("tfrt.multiply.f32", width32, ratio32)),
            "f32 = 312.271362\n");
  EXPECT_THAT(host_.diagnostics(), IsEmpty());
}

}  // namespace
}  // namespace sluice
