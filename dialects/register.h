// One place that knows every dialect Sluice programs are written in, so the
// tools and the compiler accept the same programs.

#ifndef SLUICE_DIALECTS_REGISTER_H_
#define SLUICE_DIALECTS_REGISTER_H_

#include "mlir/IR/DialectRegistry.h"

namespace sluice {

// Adds the tfrt, tfrt_test, tfrt_dist, tfrt_dht, tfrt_math, t, ts and ht
// dialects, func (functions are func.func) and the inliner support calls
// into func bodies need.
void RegisterSluiceDialects(mlir::DialectRegistry& registry);

}  // namespace sluice

#endif  // SLUICE_DIALECTS_REGISTER_H_
