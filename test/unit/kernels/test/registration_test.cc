// RegisterTestKernels registers every test kernel of the spec, strict, and
// the built-in native functions.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/kernels/test_kernels.h"

namespace sluice {
namespace {

using ::testing::ElementsAreArray;

TEST(RegistrationTest, RegistersEveryKernelStrict) {
  KernelRegistry registry;
  EXPECT_TRUE(RegisterTestKernels(&registry).ok());
  // Sorted, as KernelNames() lists them.
  const std::vector<std::string> expected = {
      "tfrt_test.allocate_resource",
      "tfrt_test.append_string",
      "tfrt_test.as_chain",
      "tfrt_test.async_add.i32",
      "tfrt_test.async_constant.i32",
      "tfrt_test.async_copy.i32",
      "tfrt_test.async_copy.with_delay.i32",
      "tfrt_test.async_copy_2.i32",
      "tfrt_test.async_value_get",
      "tfrt_test.async_value_ref",
      "tfrt_test.atomic.add.i32",
      "tfrt_test.atomic.create.i32",
      "tfrt_test.atomic.get.i32",
      "tfrt_test.atomic.inc.i32",
      "tfrt_test.benchmark",
      "tfrt_test.blocking.usleep",
      "tfrt_test.cancel",
      "tfrt_test.copy.with_delay.i32",
      "tfrt_test.copy.with_delay.i64",
      "tfrt_test.count3.i32",
      "tfrt_test.deallocate_resource",
      "tfrt_test.do.async",
      "tfrt_test.fail",
      "tfrt_test.flat",
      "tfrt_test.get_string",
      "tfrt_test.get_thread_id",
      "tfrt_test.get_uniqueness",
      "tfrt_test.identity",
      "tfrt_test.logging",
      "tfrt_test.make_indirect",
      "tfrt_test.memory_leak_one_int32",
      "tfrt_test.multi_arg_result",
      "tfrt_test.partial_fail",
      "tfrt_test.print_bool",
      "tfrt_test.print_debug_info",
      "tfrt_test.print_hello",
      "tfrt_test.print_string",
      "tfrt_test.report_error_async",
      "tfrt_test.report_error_concrete_async",
      "tfrt_test.report_error_indirect_async",
      "tfrt_test.share_to_two",
      "tfrt_test.test_cost",
      "tfrt_test.unique_loc",
      "tfrt_test.use_sample_shared_context",
      "tfrt_test.usleep",
      "tfrt_tutorial.create_coordinate",
      "tfrt_tutorial.print_coordinate",
      "vt.add",
      "vt.constant",
      "vt.print",
  };
  EXPECT_THAT(registry.KernelNames(), ElementsAreArray(expected));
  for (const std::string& name : expected) {
    const RegisteredKernel* kernel = registry.GetKernel(name);
    ASSERT_NE(kernel, nullptr) << name;
    EXPECT_NE(kernel->implementation, nullptr) << name;
    EXPECT_EQ(kernel->strictness, Strictness::kStrict) << name;
  }
}

TEST(RegistrationTest, RegistersTheNativeFunctions) {
  KernelRegistry registry;
  EXPECT_TRUE(RegisterTestKernels(&registry).ok());
  for (const char* name : {"native_add", "native_async_add", "native_error",
                           "native_sink", "native_async_sink"}) {
    EXPECT_NE(registry.GetNativeFunction(name), nullptr) << name;
  }
  EXPECT_EQ(registry.GetNativeFunction("native_unknown"), nullptr);
}

}  // namespace
}  // namespace sluice
