// CompileModuleToSbf: lowers a module of `func.func` host programs to the
// Sluice binary format (docs/format.md).
//
// The emitter works on generic operations by name, not on dialect classes:
// any op that is not `tfrt.return` becomes a kernel, so programs that use ops
// unknown to the compiler still compile and are resolved against the kernel
// registry when the executor loads them.
#ifndef SLUICE_COMPILER_SBF_EMITTER_H_
#define SLUICE_COMPILER_SBF_EMITTER_H_

#include <cstdint>
#include <vector>

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"

namespace sluice {

// Errors (a module the format cannot hold) are emitted as MLIR diagnostics on
// the offending op, so `-verify-diagnostics` can check them; the result is
// then a failure. Without optional sections the file cannot be decompiled.
mlir::FailureOr<std::vector<uint8_t>> CompileModuleToSbf(
    mlir::ModuleOp module, bool include_optional_sections = true);

}  // namespace sluice

#endif  // SLUICE_COMPILER_SBF_EMITTER_H_
