// The arithmetic of variable updates on a parameter server: a variable's
// elements updated in place from elements that arrived in a message, which
// need not be aligned for their type. Callers have checked the dtypes and
// the element counts; these only compute, except CheckAdamState, which
// checks a restored state's numbers before they reach the arithmetic.
#ifndef SLUICE_LIB_COORDINATOR_VARIABLE_MATH_H_
#define SLUICE_LIB_COORDINATOR_VARIABLE_MATH_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "sluice/tensor/dtype.h"

namespace sluice::dist {

// var[i] += delta[i], for i32, i64, f32 and f64. Integers wrap around.
void AddInto(DType dtype, void* var, const char* delta, size_t n);

// var[i] -= learning_rate * gradient[i], for f32 and f64.
void SgdInto(DType dtype, void* var, const char* gradient, size_t n,
             double learning_rate);

// One Adam step's constants. `step_size` is the learning rate corrected for
// the step's bias: lr * sqrt(1 - beta2^t) / (1 - beta1^t).
struct AdamStep {
  double step_size = 0;
  double beta1 = 0;
  double beta2 = 0;
  double epsilon = 0;
};

// The step size of Adam's step `t` (1 for the first).
double AdamStepSize(double learning_rate, double beta1, double beta2,
                    int64_t t);

// One Adam step, for f32 and f64:
//   m = m + (1 - beta1) * (g - m)
//   v = v + (1 - beta2) * (g * g - v)
//   var = var - step_size * m / (sqrt(v) + epsilon)
void AdamInto(DType dtype, void* var, void* m, void* v, const char* gradient,
              size_t n, const AdamStep& step);

// Whether a restored Adam state can continue a run: `step` in
// [1, kMaxAdamStep], every element of the first moment `m` finite, every
// element of the second moment `v` finite and at least 0 (Adam takes its
// square root), `n` elements each of `dtype` (f32 or f64). Otherwise
// InvalidArgument saying what is wrong ("the second moment's element 3 is
// -1, not finite and at least 0"), for the caller to prefix.
absl::Status CheckAdamState(int64_t step, DType dtype, const char* m,
                            const char* v, size_t n);

}  // namespace sluice::dist

#endif  // SLUICE_LIB_COORDINATOR_VARIABLE_MATH_H_
