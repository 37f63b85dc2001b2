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
// with their exact types, locations from the Locations section), the nested
// `tfrt.compiled` modules where they were, and the module, function and op
// attributes the Annotations section keeps (`tfrt.sync`, `_tfrt_cost`).
// Every op comes back: `context` is set to allow unregistered dialects, so
// ops no dialect of it knows come back in generic form.
//
// Kernels' result types come from the optional RegisterTypes section.
// Without it (--disable-optional-sections) a warning says so, registers that
// are not a function's arguments or results get the type `none`, the module
// is not verified, and `*types_complete` (when given) is set to false: print
// it in generic form.
//
// `bytes` need not be aligned. Errors are emitted as diagnostics at
// `source_name` (unknown location when empty); the result is then null.
mlir::OwningOpRef<mlir::ModuleOp> DecompileSbf(
    absl::Span<const uint8_t> bytes, mlir::MLIRContext* context,
    std::string_view source_name = {}, bool* types_complete = nullptr);

}  // namespace sluice

#endif  // SLUICE_COMPILER_SBF_DECOMPILER_H_
