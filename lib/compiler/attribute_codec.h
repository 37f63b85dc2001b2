// Attributes and types between MLIR and the SBF tables, in both directions.
// Not part of the public API: the emitter and the decompiler share it so
// that what one writes the other reads back exactly.
#ifndef SLUICE_LIB_COMPILER_ATTRIBUTE_CODEC_H_
#define SLUICE_LIB_COMPILER_ATTRIBUTE_CODEC_H_

#include <cstdint>
#include <string>
#include <vector>

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Types.h"
#include "mlir/Support/LogicalResult.h"
#include "sluice/bef/sbf_reader.h"
#include "sluice/bef/sbf_writer.h"

namespace sluice {
namespace compiler_internal {

// A type as MLIR prints it: the spelling the Types table holds and that
// mlir::parseType reads back.
std::string TypeSpelling(mlir::Type type);

// How deeply `attribute` nests arrays (0 for anything but an array, 1 for
// an array of non-arrays), counted without recursion. Past
// bef::kMaxArrayNesting the walk stops and the result is only known to be
// larger than that.
uint32_t ArrayNesting(mlir::Attribute attribute);

class AttributeEncoder {
 public:
  // `functions` maps function names to their indices; symbol references are
  // resolved through it. Nested references (`@kernel::@main`) resolve in
  // the `tfrt.compiled` modules of `module`. The pointers and the module
  // must outlive the encoder.
  AttributeEncoder(bef::SbfWriter* writer,
                   const llvm::StringMap<uint32_t>* functions,
                   mlir::ModuleOp module);

  uint32_t TypeIndex(mlir::Type type);

  // Adds `attribute` (an array's elements first, as the format requires)
  // and returns its attribute reference. An attribute the format cannot
  // hold is an error on `op` naming `name`.
  mlir::FailureOr<uint32_t> Encode(mlir::Attribute attribute,
                                   mlir::Operation* op, llvm::StringRef name);

  // The function a flat symbol reference names, or an error on `op`.
  mlir::FailureOr<uint32_t> ResolveSymbol(mlir::Attribute symbol,
                                          mlir::Operation* op);

  // Checks that a symbol reference names a function of this module or of
  // one of its `tfrt.compiled` modules; an error on `op` if not.
  mlir::LogicalResult CheckSymbolDefined(mlir::SymbolRefAttr symbol,
                                         mlir::Operation* op);

 private:
  mlir::FailureOr<uint32_t> EncodeUncached(mlir::Attribute attribute,
                                           mlir::Operation* op,
                                           llvm::StringRef name);
  mlir::FailureOr<uint32_t> EncodeDenseElements(
      mlir::DenseIntOrFPElementsAttr dense, mlir::Operation* op,
      llvm::StringRef name);

  bef::SbfWriter* writer_;
  const llvm::StringMap<uint32_t>* functions_;
  mlir::ModuleOp module_;
  llvm::DenseMap<mlir::Type, uint32_t> type_indices_;
  // Attributes are uniqued by the context, so kernels that share one share
  // its entry in the file.
  llvm::DenseMap<mlir::Attribute, uint32_t> references_;
};

class AttributeDecoder {
 public:
  // `program` must outlive the decoder. Errors are emitted at `error_loc`.
  AttributeDecoder(const bef::SbfProgram* program, mlir::MLIRContext* context,
                   mlir::Location error_loc);

  // The type at a Types index, parsed once.
  mlir::FailureOr<mlir::Type> DecodeType(uint32_t index);

  // An array laid out as a failure policy (sluice/bef/failure_policy.h)
  // comes back as the `#tfrt_dist` attribute it stands for.
  mlir::FailureOr<mlir::Attribute> Decode(uint32_t reference);

 private:
  mlir::FailureOr<mlir::Attribute> DecodeDenseElements(
      const bef::SbfAttribute& attribute);

  const bef::SbfProgram* program_;
  mlir::MLIRContext* context_;
  mlir::Location error_loc_;
  std::vector<mlir::Type> types_;  // null until parsed
};

}  // namespace compiler_internal
}  // namespace sluice

#endif  // SLUICE_LIB_COMPILER_ATTRIBUTE_CODEC_H_
