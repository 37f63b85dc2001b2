// The tfrt_gpu dialect and RegisterGpuKernels agree: every op has a kernel
// of its name and every kernel an op. Registering needs no device, so this
// runs everywhere.
#include <string>
#include <vector>

#include "dialects/tfrt_gpu/tfrt_gpu_dialect.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/kernels/gpu_kernels.h"

namespace sluice {
namespace {

using ::testing::UnorderedElementsAre;
using ::testing::UnorderedElementsAreArray;

std::vector<std::string> OpNames() {
  mlir::MLIRContext context;
  context.loadDialect<tfrt_gpu::TfrtGpuDialect>();
  std::vector<std::string> names;
  for (mlir::RegisteredOperationName op : context.getRegisteredOperations()) {
    const std::string name = op.getStringRef().str();
    if (name.rfind("tfrt_gpu.", 0) == 0) names.push_back(name);
  }
  return names;
}

TEST(KernelsMatchOpsTest, EveryOpHasAKernelAndEveryKernelAnOp) {
  KernelRegistry registry;
  ASSERT_TRUE(RegisterGpuKernels(&registry).ok());
  EXPECT_THAT(OpNames(),
              UnorderedElementsAre("tfrt_gpu.device_get", "tfrt_gpu.to_device",
                                   "tfrt_gpu.to_host", "tfrt_gpu.synchronize"));
  EXPECT_THAT(registry.KernelNames(), UnorderedElementsAreArray(OpNames()));
}

}  // namespace
}  // namespace sluice
