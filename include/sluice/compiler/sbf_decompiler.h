// DecompileSbf: turns a compiled program back into MLIR, for
// `sluice_translate --sbf-to-mlir` and round-trip tests.
#ifndef SLUICE_COMPILER_SBF_DECOMPILER_H_
#define SLUICE_COMPILER_SBF_DECOMPILER_H_

#include <cstdint>
#include <string_view>

#include "absl/types/span.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

namespace sluice {

// Rebuilds one `func.func` per listed or native function, with the kernels
// as generic operations (regions restored from region functions, attributes
// with their exact types, locations from the Locations section). Needs the
// optional RegisterTypes section for the kernels' result types. Type
// spellings and op names are resolved in `context`: an op or type of a
// dialect that is neither registered nor allowed as unregistered fails.
//
// `bytes` need not be aligned. Errors are emitted as diagnostics at
// `source_name` (unknown location when empty); the result is then null.
mlir::OwningOpRef<mlir::ModuleOp> DecompileSbf(
    absl::Span<const uint8_t> bytes, mlir::MLIRContext* context,
    std::string_view source_name = {});

}  // namespace sluice

#endif  // SLUICE_COMPILER_SBF_DECOMPILER_H_
