// The tfrt_math dialect and RegisterMathKernels agree: every op has a kernel
// of its name and every kernel an op, so a program the compiler accepts
// never fails to load for want of a kernel.
#include <string>
#include <vector>

#include "dialects/tfrt_math/tfrt_math_dialect.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/kernels/math_kernels.h"

namespace sluice {
namespace {

using ::testing::Contains;
using ::testing::Not;
using ::testing::UnorderedElementsAreArray;

std::vector<std::string> OpNames() {
  mlir::MLIRContext context;
  context.loadDialect<tfrt_math::TfrtMathDialect>();
  std::vector<std::string> names;
  for (mlir::RegisteredOperationName op : context.getRegisteredOperations()) {
    const std::string name = op.getStringRef().str();
    if (name.rfind("tfrt_math.", 0) == 0) names.push_back(name);
  }
  return names;
}

TEST(KernelsMatchOpsTest, EveryOpHasAKernelAndEveryKernelAnOp) {
  KernelRegistry registry;
  ASSERT_TRUE(RegisterMathKernels(&registry).ok());
  EXPECT_THAT(registry.KernelNames(), UnorderedElementsAreArray(OpNames()));
}

TEST(KernelsMatchOpsTest, DTypesWhereTheyMeanSomething) {
  const std::vector<std::string> names = OpNames();
  for (const char* name :
       {"tfrt_math.matmul.f64", "tfrt_math.add.i32", "tfrt_math.relu.i64",
        "tfrt_math.sigmoid.f32", "tfrt_math.mean.f64", "tfrt_math.max.i32",
        "tfrt_math.argmax.i64", "tfrt_math.random_normal.f32",
        "tfrt_math.slice_rows"}) {
    EXPECT_THAT(names, Contains(name));
  }
  for (const char* name :
       {"tfrt_math.matmul.i32", "tfrt_math.sigmoid.i64", "tfrt_math.mean.i32",
        "tfrt_math.add.i1", "tfrt_math.random_uniform.i32"}) {
    EXPECT_THAT(names, Not(Contains(name)));
  }
}

TEST(KernelsMatchOpsTest, RegisteringTwiceIsRefused) {
  KernelRegistry registry;
  ASSERT_TRUE(RegisterMathKernels(&registry).ok());
  EXPECT_EQ(RegisterMathKernels(&registry).code(),
            absl::StatusCode::kAlreadyExists);
}

}  // namespace
}  // namespace sluice
