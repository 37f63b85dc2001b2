// The tfrt_dht and ts dialects and RegisterTensorKernels agree: every op
// has a kernel of its name, and every kernel an op, so a program the
// compiler accepts never fails to load for want of a kernel.
#include <string>
#include <vector>

#include "dialects/tfrt_dht/tfrt_dht_dialect.h"
#include "dialects/ts/ts_dialect.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/kernels/tensor_kernels.h"

namespace sluice {
namespace {

using ::testing::Contains;
using ::testing::UnorderedElementsAreArray;

std::vector<std::string> OpNames() {
  mlir::MLIRContext context;
  context.loadDialect<tfrt_dht::TfrtDhtDialect, ts::TsDialect>();
  std::vector<std::string> names;
  for (mlir::RegisteredOperationName op : context.getRegisteredOperations()) {
    const std::string name = op.getStringRef().str();
    if (name.rfind("tfrt_dht.", 0) == 0 || name.rfind("ts.", 0) == 0) {
      names.push_back(name);
    }
  }
  return names;
}

TEST(KernelsMatchOpsTest, EveryOpHasAKernelAndEveryKernelAnOp) {
  KernelRegistry registry;
  ASSERT_TRUE(RegisterTensorKernels(&registry).ok());
  EXPECT_THAT(registry.KernelNames(), UnorderedElementsAreArray(OpNames()));
}

TEST(KernelsMatchOpsTest, BothSpellingsOfI1AndEveryRankUpToFour) {
  const std::vector<std::string> names = OpNames();
  for (const char* name :
       {"tfrt_dht.create_uninitialized_tensor.bool.0",
        "tfrt_dht.create_uninitialized_tensor.i1.4",
        "tfrt_dht.create_uninitialized_tensor.f64.3",
        "tfrt_dht.make_tensor.bool", "tfrt_dht.make_tensor.i1",
        "tfrt_dht.tensor_equal.bool", "tfrt_dht.set_tensor_with_values.i64"}) {
    EXPECT_THAT(names, Contains(name));
  }
}

}  // namespace
}  // namespace sluice
