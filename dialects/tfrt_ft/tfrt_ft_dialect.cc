#include "dialects/tfrt_ft/tfrt_ft_dialect.h"

#include <cstdint>
#include <optional>
#include <set>

#include "dialects/tfrt/inline_anywhere.h"
#include "llvm/ADT/StringRef.h"

// Generated definition of the dialect class.
#include "dialects/tfrt_ft/tfrt_ft_dialect.cpp.inc"

namespace sluice {
namespace tfrt_ft {
namespace {

// The longest tensor name a checkpoint holds
// (sluice/checkpoint/checkpoint.h), checked here so that a long name fails
// at compile time rather than when the program first saves.
constexpr size_t kMaxTensorNameBytes = 1024;

// `names` has one entry per tensor, each a non-empty name of at most
// kMaxTensorNameBytes, none twice; `directory` is not empty.
mlir::LogicalResult VerifyNames(mlir::Operation* op, llvm::StringRef directory,
                                mlir::ArrayAttr names, size_t num_tensors) {
  if (directory.empty()) return op->emitOpError() << "has an empty directory";
  if (names.size() != num_tensors) {
    return op->emitOpError() << "has " << names.size() << " names for "
                             << num_tensors << " tensors";
  }
  std::set<llvm::StringRef> seen;
  for (mlir::Attribute attribute : names) {
    llvm::StringRef name = llvm::cast<mlir::StringAttr>(attribute).getValue();
    if (name.empty() || name.size() > kMaxTensorNameBytes) {
      return op->emitOpError()
             << "has a tensor name of " << name.size() << " bytes (1 to "
             << kMaxTensorNameBytes << " allowed)";
    }
    if (!seen.insert(name).second) {
      return op->emitOpError() << "names tensor '" << name << "' twice";
    }
  }
  return mlir::success();
}

}  // namespace

void TfrtFtDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/tfrt_ft/tfrt_ft_ops.cpp.inc"
      >();
  addInterfaces<InlineAnywhereInterface>();
}

mlir::LogicalResult SaveCheckpointOp::verify() {
  if (getKeepLast() < 1) {
    return emitOpError() << "keep_last must be at least 1, got "
                         << getKeepLast();
  }
  return VerifyNames(*this, getDirectory(), getNames(), getTensors().size());
}

mlir::LogicalResult RestoreCheckpointOp::verify() {
  return VerifyNames(*this, getDirectory(), getNames(), getTensors().size());
}

mlir::LogicalResult StartQuorumOp::inferReturnTypes(
    mlir::MLIRContext* context, std::optional<mlir::Location>,
    mlir::ValueRange operands, mlir::DictionaryAttr, mlir::OpaqueProperties,
    mlir::RegionRange, llvm::SmallVectorImpl<mlir::Type>& types) {
  mlir::Builder builder(context);
  types.push_back(tfrt_ccl::GroupType::get(context));
  types.push_back(builder.getI64Type());
  types.push_back(builder.getI64Type());
  // The tensors come back as they went in: operands after the step.
  for (mlir::Value tensor : operands.drop_front()) {
    types.push_back(tensor.getType());
  }
  return mlir::success();
}

}  // namespace tfrt_ft
}  // namespace sluice

#define GET_OP_CLASSES
#include "dialects/tfrt_ft/tfrt_ft_ops.cpp.inc"
