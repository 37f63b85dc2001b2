// Failure policies (`#tfrt_dist.retry`, `#tfrt_dist.fallback`) to and from
// the plain attributes the SBF format holds
// (include/sluice/bef/failure_policy.h). Not part of the public API: the
// attribute codec and the emitter share it.
#ifndef SLUICE_LIB_COMPILER_FAILURE_POLICY_CODEC_H_
#define SLUICE_LIB_COMPILER_FAILURE_POLICY_CODEC_H_

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace sluice {
namespace compiler_internal {

// The array of builtin attributes that stands for `attribute` in a program,
// or null when `attribute` is no failure policy or names a class that has
// no code (a module the verifier has not passed).
mlir::ArrayAttr LowerFailurePolicy(mlir::Attribute attribute);

// The failure policy `array` stands for, or null when it does not have
// that layout exactly (then it is an array like any other).
mlir::Attribute RaiseFailurePolicy(mlir::ArrayAttr array);

}  // namespace compiler_internal
}  // namespace sluice

#endif  // SLUICE_LIB_COMPILER_FAILURE_POLICY_CODEC_H_
