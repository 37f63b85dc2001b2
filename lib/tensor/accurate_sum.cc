#include "lib/tensor/accurate_sum.h"

#include <algorithm>

namespace sluice {
namespace tensor_internal {
namespace {

// A leaf of PairwiseSum runs kLanes independent running sums, which the
// compiler turns into vector adds (IEEE order forbids it to reorder one
// running sum), over at most kLeafTerms terms: at most 15 roundings per
// lane, then 3 to add the lanes, within kMaxRoundingsBase.
constexpr int64_t kLanes = 8;
constexpr int64_t kLeafTerms = 16 * kLanes;
// A leaf of ColumnSums adds at most kLeafRows rows to the first: 15
// roundings.
constexpr int64_t kLeafRows = 16;
static_assert(kLeafTerms / kLanes - 1 + 3 <= kMaxRoundingsBase);
static_assert(kLeafRows - 1 <= kMaxRoundingsBase);

// How many leaves of `leaf` terms the first half of `n` terms gets: half of
// them, rounded down, so that every leaf but the last is full and the tree
// has ceil(log2(leaves)) levels.
int64_t FirstHalf(int64_t n, int64_t leaf) {
  const int64_t leaves = (n + leaf - 1) / leaf;
  return leaves / 2 * leaf;
}

int Levels(int64_t n, int64_t leaf) {
  const int64_t leaves = (n + leaf - 1) / leaf;
  int levels = 0;
  while ((int64_t{1} << levels) < leaves) ++levels;
  return levels;
}

template <typename T>
double LeafSum(const T* x, int64_t n) {
  double lane[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int64_t k = 0; k < kLanes; ++k) {
      lane[k] += static_cast<double>(x[i + k]);
    }
  }
  for (int64_t k = 0; i < n; ++i, ++k) lane[k] += static_cast<double>(x[i]);
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) +
         ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

// Writes the column sums of the rows into out[0, cols); `scratch` holds a
// row of kMaxColumns per level of the tree below this call.
template <typename T>
void SumRowsInto(const T* x, int64_t rows, int64_t cols, int64_t stride,
                 double* out, double* scratch) {
  if (rows <= kLeafRows) {
    if (rows == 0) {
      std::fill(out, out + cols, 0.0);
      return;
    }
    for (int64_t c = 0; c < cols; ++c) out[c] = static_cast<double>(x[c]);
    for (int64_t r = 1; r < rows; ++r) {
      const T* row = x + r * stride;
      for (int64_t c = 0; c < cols; ++c) out[c] += static_cast<double>(row[c]);
    }
    return;
  }
  const int64_t half = FirstHalf(rows, kLeafRows);
  double* const next = scratch + ColumnSums::kMaxColumns;
  SumRowsInto(x, half, cols, stride, out, next);
  SumRowsInto(x + half * stride, rows - half, cols, stride, scratch, next);
  for (int64_t c = 0; c < cols; ++c) out[c] += scratch[c];
}

}  // namespace

template <typename T>
double PairwiseSum(const T* x, int64_t n) {
  if (n <= kLeafTerms) return LeafSum(x, n);
  const int64_t half = FirstHalf(n, kLeafTerms);
  return PairwiseSum(x, half) + PairwiseSum(x + half, n - half);
}

template <typename T>
absl::Span<const double> ColumnSums::Sum(const T* x, int64_t rows, int64_t cols,
                                         int64_t stride) {
  const size_t needed =
      static_cast<size_t>(Levels(rows, kLeafRows) + 1) * kMaxColumns;
  if (partial_.size() < needed) partial_.resize(needed);
  SumRowsInto(x, rows, cols, stride, partial_.data(),
              partial_.data() + kMaxColumns);
  return absl::MakeConstSpan(partial_.data(), static_cast<size_t>(cols));
}

template double PairwiseSum<float>(const float*, int64_t);
template double PairwiseSum<double>(const double*, int64_t);
template absl::Span<const double> ColumnSums::Sum<float>(const float*, int64_t,
                                                         int64_t, int64_t);
template absl::Span<const double> ColumnSums::Sum<double>(const double*,
                                                          int64_t, int64_t,
                                                          int64_t);

}  // namespace tensor_internal
}  // namespace sluice
