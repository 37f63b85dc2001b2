// sluice_opt: mlir-opt with Sluice's dialects, for testing parsing, printing,
// verification and the passes Sluice programs go through.

#include "dialects/register.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char** argv) {
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerInlinerPass();
  mlir::registerSymbolDCEPass();

  mlir::DialectRegistry registry;
  sluice::RegisterSluiceDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Sluice MLIR driver\n", registry));
}
