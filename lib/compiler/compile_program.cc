#include "sluice/compiler/compile_program.h"

#include <string>

#include "dialects/register.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/DialectRegistry.h"
#include "sluice/compiler/compile_source.h"

namespace sluice {

absl::StatusOr<std::vector<uint8_t>> CompileProgram(std::string_view source,
                                                    std::string_view filename) {
  mlir::DialectRegistry registry;
  RegisterSluiceDialects(registry);
  std::string diagnostics;
  llvm::raw_string_ostream stream(diagnostics);
  CompileSourceOptions options;
  options.diagnostics = &stream;
  absl::StatusOr<std::vector<uint8_t>> sbf =
      CompileMlirToSbf(source, filename, registry, options);
  if (!sbf.ok()) {
    return absl::Status(sbf.status().code(), stream.str());
  }
  return sbf;
}

}  // namespace sluice
