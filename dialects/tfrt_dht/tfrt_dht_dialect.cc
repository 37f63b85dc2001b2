#include "dialects/tfrt_dht/tfrt_dht_dialect.h"

#include "dialects/tfrt/inline_anywhere.h"

// Generated definition of the dialect class.
#include "dialects/tfrt_dht/tfrt_dht_dialect.cpp.inc"

namespace sluice {
namespace tfrt_dht {
namespace {

// create_uninitialized_tensor.<dtype>.<rank>: the rank in the name and the
// dimensions in `shape` must agree, and no dimension may be negative.
mlir::LogicalResult VerifyShapeOfRank(mlir::Operation* op,
                                      mlir::ArrayAttr shape, int64_t rank) {
  if (static_cast<int64_t>(shape.size()) != rank) {
    return op->emitOpError()
           << "creates a tensor of rank " << rank << " but 'shape' has "
           << shape.size() << " dimensions";
  }
  return ts::VerifyDimensions(op, shape, "shape");
}

}  // namespace

void TfrtDhtDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/tfrt_dht/tfrt_dht_ops.cpp.inc"
      >();
  addInterfaces<InlineAnywhereInterface>();
}

}  // namespace tfrt_dht
}  // namespace sluice

#define GET_OP_CLASSES
#include "dialects/tfrt_dht/tfrt_dht_ops.cpp.inc"
