// InlineAnywhereInterface: lets MLIR's inliner move a dialect's ops into any
// function. Sluice's region ops are isolated from above, so moving them
// cannot change what they capture; both Sluice dialects use this.
#ifndef SLUICE_DIALECTS_TFRT_INLINE_ANYWHERE_H_
#define SLUICE_DIALECTS_TFRT_INLINE_ANYWHERE_H_

#include "mlir/Transforms/InliningUtils.h"

namespace sluice {

class InlineAnywhereInterface : public mlir::DialectInlinerInterface {
 public:
  using DialectInlinerInterface::DialectInlinerInterface;

  bool isLegalToInline(mlir::Operation* call, mlir::Operation* callable,
                       bool would_be_cloned) const override {
    return true;
  }
  bool isLegalToInline(mlir::Region* dest, mlir::Region* src,
                       bool would_be_cloned,
                       mlir::IRMapping& value_mapping) const override {
    return true;
  }
  bool isLegalToInline(mlir::Operation* op, mlir::Region* dest,
                       bool would_be_cloned,
                       mlir::IRMapping& value_mapping) const override {
    return true;
  }
};

}  // namespace sluice

#endif  // SLUICE_DIALECTS_TFRT_INLINE_ANYWHERE_H_
