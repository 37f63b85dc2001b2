// Tensors from literal values, and their values back, for the tensor tests.
#ifndef SLUICE_TEST_UNIT_TENSOR_TENSOR_TEST_UTIL_H_
#define SLUICE_TEST_UNIT_TENSOR_TENSOR_TEST_UTIL_H_

#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice {
namespace tensor_testing {

// A tensor of `shape` holding `values`, row-major; fails the test if the
// count is wrong.
template <typename T>
DenseHostTensor MakeTensor(TensorShape shape, const std::vector<T>& values,
                           HostAllocator* allocator) {
  absl::StatusOr<DenseHostTensor> tensor =
      DenseHostTensor::FromValues<T>(std::move(shape), values, allocator);
  EXPECT_TRUE(tensor.ok()) << tensor.status();
  return tensor.ok() ? *std::move(tensor) : DenseHostTensor();
}

template <typename T>
std::vector<T> ValuesOf(const DenseHostTensor& tensor) {
  absl::Span<const T> values = tensor.values<T>();
  return std::vector<T>(values.begin(), values.end());
}

// Fixture for tests whose tensors must all be freed by the end.
class TensorTest : public ::testing::Test {
 protected:
  void TearDown() override { EXPECT_EQ(allocator_.LeakReport(), ""); }
  LeakCheckAllocator allocator_{CreateMallocAllocator()};
};

}  // namespace tensor_testing
}  // namespace sluice

#endif  // SLUICE_TEST_UNIT_TENSOR_TENSOR_TEST_UTIL_H_
