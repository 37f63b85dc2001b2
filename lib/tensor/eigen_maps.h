// Eigen views of a tensor's bytes, so the math runs in place on them. The
// maps assume no alignment: a tensor made by SliceRows starts inside its
// parent's buffer, aligned only to its element size. Eigen's GEMM packs its
// operands anyway, and unaligned vector loads cost the same on current CPUs.
#ifndef SLUICE_LIB_TENSOR_EIGEN_MAPS_H_
#define SLUICE_LIB_TENSOR_EIGEN_MAPS_H_

#include <cstdint>

#include "Eigen/Core"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice {
namespace tensor_internal {

template <typename T>
using RowMajorMatrix =
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using RowMajorArray =
    Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using FlatArray = Eigen::Array<T, Eigen::Dynamic, 1>;

// The tensor's elements as a matrix of `rows` x `cols`, row-major; the
// caller has checked that rows * cols is its element count.
template <typename T>
Eigen::Map<const RowMajorMatrix<T>> ConstMatrixOf(const DenseHostTensor& t,
                                                  int64_t rows, int64_t cols) {
  return Eigen::Map<const RowMajorMatrix<T>>(t.values<T>().data(), rows, cols);
}
template <typename T>
Eigen::Map<RowMajorMatrix<T>> MatrixOf(DenseHostTensor& t, int64_t rows,
                                       int64_t cols) {
  return Eigen::Map<RowMajorMatrix<T>>(t.mutable_values<T>().data(), rows,
                                       cols);
}

// The same, as an array for coefficient-wise math.
template <typename T>
Eigen::Map<const RowMajorArray<T>> ConstArrayOf(const DenseHostTensor& t,
                                                int64_t rows, int64_t cols) {
  return Eigen::Map<const RowMajorArray<T>>(t.values<T>().data(), rows, cols);
}
template <typename T>
Eigen::Map<RowMajorArray<T>> ArrayOf(DenseHostTensor& t, int64_t rows,
                                     int64_t cols) {
  return Eigen::Map<RowMajorArray<T>>(t.mutable_values<T>().data(), rows, cols);
}

// Every element, in row-major order.
template <typename T>
Eigen::Map<const FlatArray<T>> ConstFlatOf(const DenseHostTensor& t) {
  return Eigen::Map<const FlatArray<T>>(t.values<T>().data(), t.num_elements());
}
template <typename T>
Eigen::Map<FlatArray<T>> FlatOf(DenseHostTensor& t) {
  return Eigen::Map<FlatArray<T>>(t.mutable_values<T>().data(),
                                  t.num_elements());
}

}  // namespace tensor_internal
}  // namespace sluice

#endif  // SLUICE_LIB_TENSOR_EIGEN_MAPS_H_
