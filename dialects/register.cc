#include "dialects/register.h"

#include "dialects/ht/ht_dialect.h"
#include "dialects/t/t_dialect.h"
#include "dialects/tfrt/tfrt_dialect.h"
#include "dialects/tfrt_ccl/tfrt_ccl_dialect.h"
#include "dialects/tfrt_data/tfrt_data_dialect.h"
#include "dialects/tfrt_dht/tfrt_dht_dialect.h"
#include "dialects/tfrt_dist/tfrt_dist_dialect.h"
#include "dialects/tfrt_ft/tfrt_ft_dialect.h"
#include "dialects/tfrt_gpu/tfrt_gpu_dialect.h"
#include "dialects/tfrt_math/tfrt_math_dialect.h"
#include "dialects/tfrt_test/tfrt_test_dialect.h"
#include "dialects/ts/ts_dialect.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace sluice {

void RegisterSluiceDialects(mlir::DialectRegistry& registry) {
  registry.insert<mlir::func::FuncDialect, tfrt::TfrtDialect,
                  tfrt_test::TfrtTestDialect, tfrt_dist::TfrtDistDialect,
                  t::TDialect, ts::TsDialect, ht::HtDialect,
                  tfrt_dht::TfrtDhtDialect, tfrt_math::TfrtMathDialect,
                  tfrt_ft::TfrtFtDialect, tfrt_data::TfrtDataDialect,
                  tfrt_ccl::TfrtCclDialect, tfrt_gpu::TfrtGpuDialect>();
  // tfrt.call is inlined into func.func bodies, whose dialect must agree.
  mlir::func::registerInlinerExtension(registry);
}

}  // namespace sluice
