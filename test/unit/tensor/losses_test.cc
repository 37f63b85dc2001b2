#include "sluice/tensor/losses.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensor_test_util.h"

namespace sluice {
namespace {

using tensor_testing::MakeTensor;
using tensor_testing::ValuesOf;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class LossesTest : public tensor_testing::TensorTest {};

TEST_F(LossesTest, ByHand) {
  // Row 0: equal logits over 2 classes, label 0: softmax [1/2, 1/2],
  //   loss ln 2, gradient [1/2 - 1, 1/2] / batch.
  // Row 1: logits [ln 3, 0], label 1: softmax [3/4, 1/4], loss ln 4,
  //   gradient [3/4, 1/4 - 1] / batch.
  DenseHostTensor logits =
      MakeTensor<double>({2, 2}, {0.0, 0.0, std::log(3.0), 0.0}, &allocator_);
  DenseHostTensor labels = MakeTensor<int32_t>({2}, {0, 1}, &allocator_);
  absl::StatusOr<LossAndGradient> result =
      SoftmaxCrossEntropyWithLogits(logits, labels, &allocator_);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->loss.shape(), TensorShape{});
  EXPECT_EQ(result->loss.dtype(), DType::kF64);
  EXPECT_NEAR(result->loss.values<double>()[0],
              (std::log(2.0) + std::log(4.0)) / 2, 1e-15);
  EXPECT_EQ(result->gradient.shape(), TensorShape({2, 2}));
  EXPECT_THAT(ValuesOf<double>(result->gradient),
              ElementsAre(DoubleNear(-0.25, 1e-15), DoubleNear(0.25, 1e-15),
                          DoubleNear(0.375, 1e-15), DoubleNear(-0.375, 1e-15)));
}

TEST_F(LossesTest, LargeLogitsStayFinite) {
  // exp(1000) overflows; shifted by the row's maximum it never appears.
  DenseHostTensor logits =
      MakeTensor<float>({2, 2}, {1000.0f, 0.0f, 1000.0f, 0.0f}, &allocator_);
  DenseHostTensor labels = MakeTensor<int64_t>({2}, {0, 1}, &allocator_);
  absl::StatusOr<LossAndGradient> result =
      SoftmaxCrossEntropyWithLogits(logits, labels, &allocator_);
  ASSERT_TRUE(result.ok()) << result.status();
  // Row 0 costs ~0, row 1 costs 1000.
  EXPECT_FLOAT_EQ(result->loss.values<float>()[0], 500.0f);
  EXPECT_THAT(ValuesOf<float>(result->gradient),
              ElementsAre(0.0f, 0.0f, 0.5f, -0.5f));
}

// The gradient against central finite differences of the loss itself.
TEST_F(LossesTest, GradientMatchesFiniteDifferences) {
  const int64_t batch = 3, classes = 4;
  std::vector<double> z(batch * classes);
  for (size_t i = 0; i < z.size(); ++i) z[i] = std::sin(1.7 * i) * 2;
  DenseHostTensor labels = MakeTensor<int64_t>({batch}, {3, 0, 2}, &allocator_);
  auto loss_at = [&](const std::vector<double>& values) {
    DenseHostTensor logits =
        MakeTensor<double>({batch, classes}, values, &allocator_);
    return SoftmaxCrossEntropyWithLogits(logits, labels, &allocator_)
        ->loss.values<double>()[0];
  };
  DenseHostTensor logits = MakeTensor<double>({batch, classes}, z, &allocator_);
  std::vector<double> analytic = ValuesOf<double>(
      SoftmaxCrossEntropyWithLogits(logits, labels, &allocator_)->gradient);
  const double h = 1e-6;
  for (size_t i = 0; i < z.size(); ++i) {
    std::vector<double> up = z, down = z;
    up[i] += h;
    down[i] -= h;
    EXPECT_NEAR(analytic[i], (loss_at(up) - loss_at(down)) / (2 * h), 1e-8)
        << "logit " << i;
  }
  // And the loss against its definition, without the shift.
  double expected = 0;
  const int64_t label_of[] = {3, 0, 2};
  for (int64_t b = 0; b < batch; ++b) {
    double sum = 0;
    for (int64_t c = 0; c < classes; ++c) sum += std::exp(z[b * classes + c]);
    expected += std::log(sum) - z[b * classes + label_of[b]];
  }
  EXPECT_NEAR(loss_at(z), expected / batch, 1e-14);
}

TEST_F(LossesTest, RefusesBadLabels) {
  DenseHostTensor logits =
      MakeTensor<float>({2, 3}, std::vector<float>(6), &allocator_);
  DenseHostTensor out_of_range = MakeTensor<int32_t>({2}, {0, 3}, &allocator_);
  absl::StatusOr<LossAndGradient> result =
      SoftmaxCrossEntropyWithLogits(logits, out_of_range, &allocator_);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(result.status().message(),
            "softmax_cross_entropy: label 3 of row 1 is outside [0, 3)");
  DenseHostTensor negative = MakeTensor<int64_t>({2}, {-1, 0}, &allocator_);
  EXPECT_EQ(SoftmaxCrossEntropyWithLogits(logits, negative, &allocator_)
                .status()
                .message(),
            "softmax_cross_entropy: label -1 of row 0 is outside [0, 3)");
  DenseHostTensor too_many = MakeTensor<int32_t>({3}, {0, 0, 0}, &allocator_);
  EXPECT_EQ(SoftmaxCrossEntropyWithLogits(logits, too_many, &allocator_)
                .status()
                .message(),
            "softmax_cross_entropy: labels of shape [3] do not fit a batch "
            "of 2; they must have shape [2]");
  DenseHostTensor float_labels = MakeTensor<float>({2}, {0, 1}, &allocator_);
  EXPECT_EQ(SoftmaxCrossEntropyWithLogits(logits, float_labels, &allocator_)
                .status()
                .message(),
            "softmax_cross_entropy: labels are f32; they must be i32 or i64");
}

TEST_F(LossesTest, RefusesBadLogits) {
  DenseHostTensor labels = MakeTensor<int32_t>({2}, {0, 1}, &allocator_);
  DenseHostTensor vector = MakeTensor<float>({2}, {0, 1}, &allocator_);
  EXPECT_EQ(SoftmaxCrossEntropyWithLogits(vector, labels, &allocator_)
                .status()
                .message(),
            "softmax_cross_entropy: logits must have rank 2, got [2]");
  DenseHostTensor ints = MakeTensor<int32_t>({2, 2}, {0, 1, 2, 3}, &allocator_);
  EXPECT_EQ(
      SoftmaxCrossEntropyWithLogits(ints, labels, &allocator_)
          .status()
          .message(),
      "softmax_cross_entropy: i32 tensors are not supported; it takes f32 "
      "or f64");
  DenseHostTensor empty = MakeTensor<float>({0, 2}, {}, &allocator_);
  DenseHostTensor no_labels = MakeTensor<int32_t>({0}, {}, &allocator_);
  EXPECT_THAT(SoftmaxCrossEntropyWithLogits(empty, no_labels, &allocator_)
                  .status()
                  .message(),
              HasSubstr("the mean of an empty batch is undefined"));
}

}  // namespace
}  // namespace sluice
