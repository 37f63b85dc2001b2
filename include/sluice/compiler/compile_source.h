// CompileMlirToSbf: MLIR text to SBF bytes in one call, for the runner and
// embedders that compile in memory.
#ifndef SLUICE_COMPILER_COMPILE_SOURCE_H_
#define SLUICE_COMPILER_COMPILE_SOURCE_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "mlir/IR/DialectRegistry.h"

namespace llvm {
class raw_ostream;
}  // namespace llvm

namespace sluice {

struct CompileSourceOptions {
  bool include_optional_sections = true;
  // Host programs routinely use kernels of dialects that have no MLIR
  // definition (`vt`, `tfrt_tutorial`, ...): they only need a registered
  // kernel, so the runner accepts them by default.
  bool allow_unregistered_dialects = true;
  // Where diagnostics are printed; stderr when null.
  llvm::raw_ostream* diagnostics = nullptr;
};

// Parses `source` (diagnostics name it `filename`) with the dialects of
// `registry` plus `func`, verifies and compiles it. Text nested deeper than
// kMaxSourceNesting (source_nesting.h) is refused before it is parsed. Every
// diagnostic is printed as `file:line:col: error: message` with the source
// line; any error makes the result an InvalidArgument status whose message is
// the first error in that form.
absl::StatusOr<std::vector<uint8_t>> CompileMlirToSbf(
    std::string_view source, std::string_view filename,
    mlir::DialectRegistry& registry, const CompileSourceOptions& options = {});

}  // namespace sluice

#endif  // SLUICE_COMPILER_COMPILE_SOURCE_H_
