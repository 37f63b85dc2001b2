// The tfrt_data dialect and RegisterDataKernels agree: every op has a kernel
// of its name and every kernel an op, so a program the compiler accepts
// never fails to load for want of a kernel.
#include <string>
#include <vector>

#include "dialects/tfrt_data/tfrt_data_dialect.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/kernels/data_kernels.h"

namespace sluice {
namespace {

using ::testing::UnorderedElementsAreArray;

std::vector<std::string> OpNames() {
  mlir::MLIRContext context;
  context.loadDialect<tfrt_data::TfrtDataDialect>();
  std::vector<std::string> names;
  for (mlir::RegisteredOperationName op : context.getRegisteredOperations()) {
    const std::string name = op.getStringRef().str();
    if (name.rfind("tfrt_data.", 0) == 0) names.push_back(name);
  }
  return names;
}

TEST(KernelsMatchOpsTest, EveryOpHasAKernelAndEveryKernelAnOp) {
  KernelRegistry registry;
  ASSERT_TRUE(RegisterDataKernels(&registry).ok());
  EXPECT_THAT(registry.KernelNames(), UnorderedElementsAreArray(OpNames()));
}

}  // namespace
}  // namespace sluice
