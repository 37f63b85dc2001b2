// Floating-point sums whose error does not grow with the number of terms
// the way a running sum's does. A running f32 sum stops growing at 2^24
// (adding 1 to 16777216 rounds back to 16777216), so the sum of 2^25 ones
// would be 2^24. These add every term in f64, pairwise: n terms meet in a
// tree of depth about log2(n), so each term goes through at most
// kMaxRoundingsBase + ceil(log2 n) f64 roundings and the result is within
// (kMaxRoundingsBase + ceil(log2 n)) * 2^-53 * sum(|x|) of the exact sum
// (to first order). docs/tensor_math.md states the bound for users.
#ifndef SLUICE_LIB_TENSOR_ACCURATE_SUM_H_
#define SLUICE_LIB_TENSOR_ACCURATE_SUM_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace sluice {
namespace tensor_internal {

// The roundings a term may go through besides one per level of the
// pairwise tree, in either function below.
inline constexpr int kMaxRoundingsBase = 18;

// The sum of x[0], ..., x[n - 1], in f64. T is float or double.
template <typename T>
double PairwiseSum(const T* x, int64_t n);

// Sums the columns of a row-major block of `rows` rows of `cols` elements,
// row r starting at x + r * stride: the sums of a tensor of shape [rows,
// stride] over axis 0, `cols` columns at a time. Holds the f64 partial sums
// between calls, so a reduction reuses its memory for every block.
class ColumnSums {
 public:
  // The widest block Sum takes: enough to run the adds as vector
  // instructions, few enough that the partial sums stay in cache.
  static constexpr int64_t kMaxColumns = 256;

  // The f64 sums of the block's cols (at most kMaxColumns) columns, valid
  // until the next call. T is float or double.
  template <typename T>
  absl::Span<const double> Sum(const T* x, int64_t rows, int64_t cols,
                               int64_t stride);

 private:
  // One row of kMaxColumns per level of the pairwise tree, the result
  // first.
  std::vector<double> partial_;
};

}  // namespace tensor_internal
}  // namespace sluice

#endif  // SLUICE_LIB_TENSOR_ACCURATE_SUM_H_
