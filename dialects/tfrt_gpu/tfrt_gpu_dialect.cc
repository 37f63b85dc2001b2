#include "dialects/tfrt_gpu/tfrt_gpu_dialect.h"

#include <cstdint>

#include "llvm/ADT/TypeSwitch.h"
#include "mlir/IR/DialectImplementation.h"

// Generated definitions of the dialect class and its types.
#include "dialects/tfrt_gpu/tfrt_gpu_dialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/tfrt_gpu/tfrt_gpu_types.cpp.inc"

namespace sluice {
namespace tfrt_gpu {
namespace {

// An attribute no kernel reads is a typo (`ordnial`) that would otherwise
// be ignored. Names starting with '_' are compiler hints.
mlir::LogicalResult VerifyNoAttributesBut(mlir::Operation* op,
                                          llvm::StringRef allowed) {
  for (mlir::NamedAttribute attribute : op->getAttrs()) {
    llvm::StringRef name = attribute.getName().getValue();
    if (name.starts_with("_") || name == allowed) continue;
    if (allowed.empty()) {
      return op->emitOpError()
             << "has unknown attribute '" << name << "'; it takes none";
    }
    return op->emitOpError()
           << "has unknown attribute '" << name << "'; it takes " << allowed;
  }
  return mlir::success();
}

}  // namespace

void TfrtGpuDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/tfrt_gpu/tfrt_gpu_types.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/tfrt_gpu/tfrt_gpu_ops.cpp.inc"
      >();
}

mlir::LogicalResult DeviceGetOp::verify() {
  if (mlir::failed(VerifyNoAttributesBut(*this, getOrdinalAttrName()))) {
    return mlir::failure();
  }
  const int64_t ordinal = static_cast<int64_t>(getOrdinal());
  if (ordinal < 0 || ordinal > INT32_MAX) {
    return emitOpError() << "ordinal must be in [0, 2^31), got " << ordinal;
  }
  return mlir::success();
}

mlir::LogicalResult ToDeviceOp::verify() {
  return VerifyNoAttributesBut(*this, "");
}

mlir::LogicalResult ToHostOp::verify() {
  return VerifyNoAttributesBut(*this, "");
}

mlir::LogicalResult SynchronizeOp::verify() {
  return VerifyNoAttributesBut(*this, "");
}

}  // namespace tfrt_gpu
}  // namespace sluice

#define GET_OP_CLASSES
#include "dialects/tfrt_gpu/tfrt_gpu_ops.cpp.inc"
