#include "dialects/tfrt_ccl/tfrt_ccl_dialect.h"

#include <cstdint>
#include <limits>
#include <optional>

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/IR/DialectImplementation.h"

// Generated definitions of the dialect class and its types.
#include "dialects/tfrt_ccl/tfrt_ccl_dialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/tfrt_ccl/tfrt_ccl_types.cpp.inc"

namespace sluice {
namespace tfrt_ccl {
namespace {

// An attribute no kernel reads is a typo (`timout_ms`) that would silently
// leave the default in place. Names starting with '_' are compiler hints.
mlir::LogicalResult VerifyOnlyAttributes(
    mlir::Operation* op, llvm::ArrayRef<llvm::StringRef> allowed) {
  for (mlir::NamedAttribute attribute : op->getAttrs()) {
    llvm::StringRef name = attribute.getName().getValue();
    if (name.starts_with("_") || llvm::is_contained(allowed, name)) continue;
    mlir::InFlightDiagnostic error = op->emitOpError()
                                     << "has unknown attribute '" << name
                                     << "'; it takes ";
    llvm::interleave(allowed, error, ", ");
    return error;
  }
  return mlir::success();
}

mlir::LogicalResult VerifyPositive(mlir::Operation* op, llvm::StringRef name,
                                   std::optional<uint64_t> value) {
  if (!value || static_cast<int64_t>(*value) > 0) return mlir::success();
  return op->emitOpError() << name << " must be positive, got "
                           << static_cast<int64_t>(*value);
}

mlir::LogicalResult VerifyReduction(mlir::Operation* op,
                                    llvm::StringRef reduction) {
  if (llvm::is_contained({"sum", "avg", "min", "max"}, reduction)) {
    return mlir::success();
  }
  return op->emitOpError() << "reduction '" << reduction
                           << "' is not one of sum, avg, min, max";
}

mlir::LogicalResult VerifyRank(mlir::Operation* op, llvm::StringRef name,
                               uint64_t value) {
  if (static_cast<int64_t>(value) >= 0) return mlir::success();
  return op->emitOpError() << name << " must not be negative, got "
                           << static_cast<int64_t>(value);
}

// A collective's on_failure: a fallback only, since the first failure
// breaks a group for good and the collective cannot run on it again.
mlir::LogicalResult VerifyOnFailure(mlir::Operation* op,
                                    mlir::Attribute policy) {
  if (!policy) return mlir::success();
  if (!llvm::isa<tfrt_dist::RetryAttr, tfrt_dist::FallbackAttr>(policy)) {
    return op->emitOpError()
           << "on_failure must be a #tfrt_dist.fallback, got " << policy;
  }
  return tfrt_dist::VerifyFailurePolicy(
      op, policy, /*may_retry=*/false,
      "a collective group is broken for good by its first failure");
}

// The fallback takes the op's operands and returns its results.
mlir::LogicalResult VerifyFallback(mlir::Operation* op, mlir::Attribute policy,
                                   mlir::SymbolTableCollection& symbol_table) {
  return tfrt_dist::VerifyFailurePolicyFallback(
      op, policy, op->getOperandTypes(), op->getResultTypes(), symbol_table);
}

}  // namespace

void TfrtCclDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/tfrt_ccl/tfrt_ccl_types.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/tfrt_ccl/tfrt_ccl_ops.cpp.inc"
      >();
}

mlir::LogicalResult CreateGroupOp::verify() {
  if (mlir::failed(VerifyOnlyAttributes(
          *this, {getStoreAttrName(), getConnectTimeoutMsAttrName(),
                  getTimeoutMsAttrName()})) ||
      mlir::failed(
          VerifyPositive(*this, "connect_timeout_ms", getConnectTimeoutMs())) ||
      mlir::failed(VerifyPositive(*this, "timeout_ms", getTimeoutMs()))) {
    return mlir::failure();
  }
  if (getStore().empty()) {
    return emitOpError() << "store must be the host:port of a rendezvous "
                            "store, got an empty string";
  }
  return mlir::success();
}

mlir::LogicalResult AllReduceOp::verify() {
  if (mlir::failed(VerifyOnlyAttributes(
          *this, {getReductionAttrName(), getTimeoutMsAttrName(),
                  getOnFailureAttrName()})) ||
      mlir::failed(VerifyPositive(*this, "timeout_ms", getTimeoutMs())) ||
      mlir::failed(VerifyOnFailure(*this, getOnFailureAttr()))) {
    return mlir::failure();
  }
  return VerifyReduction(*this, getReduction());
}

mlir::LogicalResult AllReduceOp::verifySymbolUses(
    mlir::SymbolTableCollection& symbol_table) {
  return VerifyFallback(*this, getOnFailureAttr(), symbol_table);
}

mlir::LogicalResult ReduceScatterOp::verify() {
  if (mlir::failed(VerifyOnlyAttributes(
          *this, {getReductionAttrName(), getTimeoutMsAttrName(),
                  getOnFailureAttrName()})) ||
      mlir::failed(VerifyPositive(*this, "timeout_ms", getTimeoutMs())) ||
      mlir::failed(VerifyOnFailure(*this, getOnFailureAttr()))) {
    return mlir::failure();
  }
  return VerifyReduction(*this, getReduction());
}

mlir::LogicalResult ReduceScatterOp::verifySymbolUses(
    mlir::SymbolTableCollection& symbol_table) {
  return VerifyFallback(*this, getOnFailureAttr(), symbol_table);
}

mlir::LogicalResult AllGatherOp::verify() {
  if (mlir::failed(VerifyOnlyAttributes(
          *this, {getTimeoutMsAttrName(), getOnFailureAttrName()})) ||
      mlir::failed(VerifyOnFailure(*this, getOnFailureAttr()))) {
    return mlir::failure();
  }
  return VerifyPositive(*this, "timeout_ms", getTimeoutMs());
}

mlir::LogicalResult AllGatherOp::verifySymbolUses(
    mlir::SymbolTableCollection& symbol_table) {
  return VerifyFallback(*this, getOnFailureAttr(), symbol_table);
}

mlir::LogicalResult AllReducePartialOp::verify() {
  if (mlir::failed(VerifyOnlyAttributes(
          *this, {getReductionAttrName(), getTimeoutMsAttrName(),
                  getAgreementMsAttrName()})) ||
      mlir::failed(VerifyPositive(*this, "timeout_ms", getTimeoutMs())) ||
      mlir::failed(VerifyPositive(*this, "agreement_ms", getAgreementMs()))) {
    return mlir::failure();
  }
  return VerifyReduction(*this, getReduction());
}

mlir::LogicalResult AllGatherPartialOp::verify() {
  if (mlir::failed(VerifyOnlyAttributes(
          *this, {getTimeoutMsAttrName(), getAgreementMsAttrName()})) ||
      mlir::failed(VerifyPositive(*this, "timeout_ms", getTimeoutMs()))) {
    return mlir::failure();
  }
  return VerifyPositive(*this, "agreement_ms", getAgreementMs());
}

mlir::LogicalResult BroadcastOp::verify() {
  if (mlir::failed(VerifyOnlyAttributes(
          *this, {getRootAttrName(), getTimeoutMsAttrName(),
                  getOnFailureAttrName()})) ||
      mlir::failed(VerifyPositive(*this, "timeout_ms", getTimeoutMs())) ||
      mlir::failed(VerifyOnFailure(*this, getOnFailureAttr()))) {
    return mlir::failure();
  }
  return VerifyRank(*this, "root", getRoot());
}

mlir::LogicalResult BroadcastOp::verifySymbolUses(
    mlir::SymbolTableCollection& symbol_table) {
  return VerifyFallback(*this, getOnFailureAttr(), symbol_table);
}

mlir::LogicalResult BarrierOp::verify() {
  if (mlir::failed(VerifyOnlyAttributes(*this, {getTimeoutMsAttrName()}))) {
    return mlir::failure();
  }
  return VerifyPositive(*this, "timeout_ms", getTimeoutMs());
}

namespace {

mlir::LogicalResult VerifyDtypeAndShape(mlir::Operation* op,
                                        llvm::StringRef dtype,
                                        mlir::ArrayAttr shape) {
  if (!llvm::is_contained({"i1", "i32", "i64", "f32", "f64"}, dtype)) {
    return op->emitOpError()
           << "dtype '" << dtype << "' is not one of i1, i32, i64, f32, f64";
  }
  for (mlir::Attribute dim : shape) {
    int64_t value = llvm::cast<mlir::IntegerAttr>(dim).getInt();
    if (value < 0) {
      return op->emitOpError() << "shape has a negative dimension " << value;
    }
  }
  return mlir::success();
}

mlir::LogicalResult VerifyPeerAndTag(mlir::Operation* op, uint64_t peer,
                                     uint64_t tag) {
  if (mlir::failed(VerifyRank(op, "peer", peer))) return mlir::failure();
  if (tag <= std::numeric_limits<uint32_t>::max()) return mlir::success();
  return op->emitOpError() << "tag must be in [0, 2^32), got "
                           << static_cast<int64_t>(tag);
}

}  // namespace

mlir::LogicalResult SendOp::verify() {
  if (mlir::failed(VerifyOnlyAttributes(
          *this,
          {getPeerAttrName(), getTagAttrName(), getTimeoutMsAttrName()})) ||
      mlir::failed(VerifyPositive(*this, "timeout_ms", getTimeoutMs()))) {
    return mlir::failure();
  }
  return VerifyPeerAndTag(*this, getPeer(), getTag());
}

mlir::LogicalResult RecvOp::verify() {
  if (mlir::failed(VerifyOnlyAttributes(
          *this, {getPeerAttrName(), getTagAttrName(), getDtypeAttrName(),
                  getShapeAttrName(), getTimeoutMsAttrName()})) ||
      mlir::failed(VerifyPositive(*this, "timeout_ms", getTimeoutMs())) ||
      mlir::failed(VerifyPeerAndTag(*this, getPeer(), getTag()))) {
    return mlir::failure();
  }
  return VerifyDtypeAndShape(*this, getDtype(), getShape());
}

namespace {

// The device collectives that reduce: reduction and timeout_ms.
template <typename Op>
mlir::LogicalResult VerifyDeviceReduce(Op op) {
  if (mlir::failed(VerifyOnlyAttributes(
          op, {op.getReductionAttrName(), op.getTimeoutMsAttrName()})) ||
      mlir::failed(VerifyPositive(op, "timeout_ms", op.getTimeoutMs()))) {
    return mlir::failure();
  }
  return VerifyReduction(op, op.getReduction());
}

// The device collectives with timeout_ms alone.
template <typename Op>
mlir::LogicalResult VerifyDeviceTimeout(Op op) {
  if (mlir::failed(VerifyOnlyAttributes(op, {op.getTimeoutMsAttrName()}))) {
    return mlir::failure();
  }
  return VerifyPositive(op, "timeout_ms", op.getTimeoutMs());
}

}  // namespace

mlir::LogicalResult DeviceAllReduceOp::verify() {
  return VerifyDeviceReduce(*this);
}

mlir::LogicalResult DeviceReduceScatterOp::verify() {
  return VerifyDeviceReduce(*this);
}

mlir::LogicalResult DeviceAllGatherOp::verify() {
  return VerifyDeviceTimeout(*this);
}

mlir::LogicalResult DeviceAllToAllOp::verify() {
  return VerifyDeviceTimeout(*this);
}

mlir::LogicalResult DeviceBroadcastOp::verify() {
  if (mlir::failed(VerifyOnlyAttributes(
          *this, {getRootAttrName(), getTimeoutMsAttrName()})) ||
      mlir::failed(VerifyPositive(*this, "timeout_ms", getTimeoutMs()))) {
    return mlir::failure();
  }
  return VerifyRank(*this, "root", getRoot());
}

mlir::LogicalResult DeviceSendOp::verify() {
  if (mlir::failed(VerifyOnlyAttributes(
          *this, {getPeerAttrName(), getTimeoutMsAttrName()})) ||
      mlir::failed(VerifyPositive(*this, "timeout_ms", getTimeoutMs()))) {
    return mlir::failure();
  }
  return VerifyRank(*this, "peer", getPeer());
}

mlir::LogicalResult DeviceRecvOp::verify() {
  if (mlir::failed(VerifyOnlyAttributes(
          *this, {getPeerAttrName(), getDtypeAttrName(), getShapeAttrName(),
                  getTimeoutMsAttrName()})) ||
      mlir::failed(VerifyPositive(*this, "timeout_ms", getTimeoutMs())) ||
      mlir::failed(VerifyRank(*this, "peer", getPeer()))) {
    return mlir::failure();
  }
  return VerifyDtypeAndShape(*this, getDtype(), getShape());
}

}  // namespace tfrt_ccl
}  // namespace sluice

#define GET_OP_CLASSES
#include "dialects/tfrt_ccl/tfrt_ccl_ops.cpp.inc"
