#include "dialects/tfrt_math/tfrt_math_dialect.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "dialects/tfrt/inline_anywhere.h"

// Generated definition of the dialect class.
#include "dialects/tfrt_math/tfrt_math_dialect.cpp.inc"

namespace sluice {
namespace tfrt_math {
namespace {

// "0.5", "-1", "1e+300": shortest readable form for diagnostics.
std::string Format(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

mlir::LogicalResult VerifyShape(mlir::Operation* op,
                                llvm::ArrayRef<int64_t> shape) {
  for (auto [index, dim] : llvm::enumerate(shape)) {
    if (dim < 0) {
      return op->emitOpError()
             << "shape dimension #" << index << " is negative (" << dim << ")";
    }
  }
  return mlir::success();
}

mlir::LogicalResult VerifyUniformRange(mlir::Operation* op, mlir::FloatAttr low,
                                       mlir::FloatAttr high) {
  const double lower = low.getValueAsDouble();
  const double upper = high.getValueAsDouble();
  if (std::isfinite(lower) && std::isfinite(upper) && lower < upper &&
      std::isfinite(upper - lower)) {
    return mlir::success();
  }
  return op->emitOpError() << "range [" << Format(lower) << ", "
                           << Format(upper) << ") is not finite and non-empty";
}

mlir::LogicalResult VerifyNormalParameters(mlir::Operation* op,
                                           mlir::FloatAttr mean,
                                           mlir::FloatAttr stddev) {
  const double center = mean.getValueAsDouble();
  const double spread = stddev.getValueAsDouble();
  if (std::isfinite(center) && std::isfinite(spread) && spread >= 0) {
    return mlir::success();
  }
  return op->emitOpError() << "mean " << Format(center) << " and stddev "
                           << Format(spread)
                           << " must be finite, and stddev not negative";
}

}  // namespace

void TfrtMathDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/tfrt_math/tfrt_math_ops.cpp.inc"
      >();
  // Functions doing math may be inlined into their callers like any other.
  addInterfaces<InlineAnywhereInterface>();
}

}  // namespace tfrt_math
}  // namespace sluice

#define GET_OP_CLASSES
#include "dialects/tfrt_math/tfrt_math_ops.cpp.inc"
