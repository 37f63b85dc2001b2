#include "sluice/tensor/metrics.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "tensor_test_util.h"

namespace sluice {
namespace {

using tensor_testing::MakeTensor;

class MetricsTest : public tensor_testing::TensorTest {};

TEST_F(MetricsTest, CountsRowsWhoseArgMaxIsTheLabel) {
  // Row argmaxes: 2, 0, 1, 1 (its first maximum); labels 2, 1, 1, 2: rows
  // 0 and 2 are right.
  DenseHostTensor predictions = MakeTensor<float>(
      {4, 3}, {0.1f, 0.2f, 0.7f, 5, 1, 1, -1, 3, 2, 0, 4, 4}, &allocator_);
  DenseHostTensor labels = MakeTensor<int32_t>({4}, {2, 1, 1, 2}, &allocator_);
  absl::StatusOr<DenseHostTensor> accuracy =
      Accuracy(predictions, labels, &allocator_);
  ASSERT_TRUE(accuracy.ok()) << accuracy.status();
  EXPECT_EQ(accuracy->dtype(), DType::kF32);
  EXPECT_EQ(accuracy->shape(), TensorShape{});
  EXPECT_EQ(accuracy->values<float>()[0], 0.5f);
}

TEST_F(MetricsTest, ThirdsInDouble) {
  DenseHostTensor predictions =
      MakeTensor<double>({3, 2}, {1, 0, 1, 0, 0, 1}, &allocator_);
  DenseHostTensor labels = MakeTensor<int64_t>({3}, {0, 1, 0}, &allocator_);
  EXPECT_EQ(Accuracy(predictions, labels, &allocator_)->values<double>()[0],
            1.0 / 3);
}

TEST_F(MetricsTest, RefusesBadOperands) {
  DenseHostTensor predictions =
      MakeTensor<double>({2, 2}, {1, 0, 0, 1}, &allocator_);
  DenseHostTensor labels = MakeTensor<int32_t>({2}, {0, 2}, &allocator_);
  EXPECT_EQ(Accuracy(predictions, labels, &allocator_).status().message(),
            "accuracy: label 2 of row 1 is outside [0, 2)");
  DenseHostTensor empty = MakeTensor<double>({0, 2}, {}, &allocator_);
  DenseHostTensor no_labels = MakeTensor<int32_t>({0}, {}, &allocator_);
  EXPECT_EQ(Accuracy(empty, no_labels, &allocator_).status().message(),
            "accuracy: predictions of shape [0, 2] have no rows");
  DenseHostTensor ints = MakeTensor<int32_t>({2, 2}, {1, 0, 0, 1}, &allocator_);
  DenseHostTensor good_labels = MakeTensor<int32_t>({2}, {0, 1}, &allocator_);
  EXPECT_EQ(Accuracy(ints, good_labels, &allocator_).status().message(),
            "accuracy: i32 tensors are not supported; it takes f32 or f64");
}

}  // namespace
}  // namespace sluice
