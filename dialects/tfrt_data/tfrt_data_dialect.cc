#include "dialects/tfrt_data/tfrt_data_dialect.h"

#include <cmath>

#include "dialects/tfrt/inline_anywhere.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/IR/DialectImplementation.h"

// Generated definitions of the dialect class and its types.
#include "dialects/tfrt_data/tfrt_data_dialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/tfrt_data/tfrt_data_types.cpp.inc"

namespace sluice {
namespace tfrt_data {

void TfrtDataDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/tfrt_data/tfrt_data_types.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/tfrt_data/tfrt_data_ops.cpp.inc"
      >();
  // A per-worker dataset function may be inlined into its callers.
  addInterfaces<InlineAnywhereInterface>();
}

mlir::LogicalResult RangeDatasetOp::verify() {
  if (getElementType().isSignlessInteger(64)) return mlir::success();
  return emitOpError() << "element_type must be i64, got " << getElementType();
}

// The limits that need the other attributes (at most 2^40 examples, ...)
// are the kernel's to check.
mlir::LogicalResult GaussianClustersDatasetOp::verify() {
  if (static_cast<int64_t>(getNumExamples()) < 0) {
    return emitOpError() << "num_examples must not be negative, got "
                         << static_cast<int64_t>(getNumExamples());
  }
  if (static_cast<int64_t>(getFirstExample()) < 0) {
    return emitOpError() << "first_example must not be negative, got "
                         << static_cast<int64_t>(getFirstExample());
  }
  if (static_cast<int64_t>(getNumFeatures()) <= 0) {
    return emitOpError() << "num_features must be positive, got "
                         << static_cast<int64_t>(getNumFeatures());
  }
  if (static_cast<int64_t>(getNumClasses()) <= 0) {
    return emitOpError() << "num_classes must be positive, got "
                         << static_cast<int64_t>(getNumClasses());
  }
  const double stddev = getStddev().convertToDouble();
  if (!std::isfinite(stddev) || stddev < 0) {
    return emitOpError() << "stddev must be finite and not negative, got "
                         << stddev;
  }
  return mlir::success();
}

mlir::LogicalResult IteratorGetNextOp::verify() {
  if (!getComponents().empty()) return mlir::success();
  return emitOpError() << "must return at least one component";
}

}  // namespace tfrt_data
}  // namespace sluice

#define GET_OP_CLASSES
#include "dialects/tfrt_data/tfrt_data_ops.cpp.inc"
