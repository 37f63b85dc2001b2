// Sums and means at lengths where a running f32 sum is wrong: past 2^24 it
// stops growing (2^24 + 1 rounds to 2^24), so the sum of 2^25 ones came out
// as 2^24 and their mean as 0.5. Each result is checked against an exact
// reference, or against the bound docs/tensor_math.md states, over every
// element and along an axis. The tensors are up to 2^26 f32 (256 MiB).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/tensor/losses.h"
#include "sluice/tensor/matmul.h"
#include "sluice/tensor/reductions.h"
#include "tensor_test_util.h"

namespace sluice {
namespace {

using tensor_testing::ValuesOf;
using ::testing::Each;
using ::testing::ElementsAre;

class AccurateReductionsTest : public tensor_testing::TensorTest {
 protected:
  // A tensor of `n` elements, each value(i).
  template <typename T, typename Value>
  DenseHostTensor Filled(int64_t n, Value value) {
    absl::StatusOr<DenseHostTensor> tensor =
        DenseHostTensor::Create(DTypeOf<T>(), TensorShape{n}, &allocator_);
    EXPECT_TRUE(tensor.ok()) << tensor.status();
    absl::Span<T> values = tensor->mutable_values<T>();
    for (int64_t i = 0; i < n; ++i) values[i] = value(i);
    return *std::move(tensor);
  }

  // The first elements of `x`'s buffer, as a tensor of `shape`.
  static DenseHostTensor View(const DenseHostTensor& x, TensorShape shape) {
    absl::StatusOr<DenseHostTensor> view = DenseHostTensor::Create(
        x.dtype(), std::move(shape), x.buffer().CopyRef());
    EXPECT_TRUE(view.ok()) << view.status();
    return *std::move(view);
  }

  template <typename T>
  std::vector<T> Sum(const DenseHostTensor& x, int64_t axis) {
    absl::StatusOr<DenseHostTensor> sum = ReduceSum(x, axis, &allocator_);
    EXPECT_TRUE(sum.ok()) << sum.status();
    return sum.ok() ? ValuesOf<T>(*sum) : std::vector<T>();
  }
  template <typename T>
  std::vector<T> Mean(const DenseHostTensor& x, int64_t axis) {
    absl::StatusOr<DenseHostTensor> mean = ReduceMean(x, axis, &allocator_);
    EXPECT_TRUE(mean.ok()) << mean.status();
    return mean.ok() ? ValuesOf<T>(*mean) : std::vector<T>();
  }
  template <typename T>
  T SumAll(const DenseHostTensor& x) {
    absl::StatusOr<DenseHostTensor> sum = ReduceSumAll(x, &allocator_);
    EXPECT_TRUE(sum.ok()) << sum.status();
    return sum.ok() ? sum->values<T>()[0] : T{0};
  }
  template <typename T>
  T MeanAll(const DenseHostTensor& x) {
    absl::StatusOr<DenseHostTensor> mean = ReduceMeanAll(x, &allocator_);
    EXPECT_TRUE(mean.ok()) << mean.status();
    return mean.ok() ? mean->values<T>()[0] : T{0};
  }
};

// Every partial sum of ones is an integer below 2^53, so an f64 accumulator
// is exact and so is the one rounding to f32 (a power of two).
TEST_F(AccurateReductionsTest, F32SumsAndMeansOfOnesAreExactPast2To24) {
  const DenseHostTensor ones =
      Filled<float>(int64_t{1} << 26, [](int64_t) { return 1.0f; });
  for (int log2 : {24, 25, 26}) {
    SCOPED_TRACE(log2);
    const int64_t n = int64_t{1} << log2;
    const float count = static_cast<float>(n);
    const DenseHostTensor flat = View(ones, TensorShape{n});
    EXPECT_EQ(SumAll<float>(flat), count);
    EXPECT_EQ(MeanAll<float>(flat), 1.0f);
    // Along the last axis (contiguous rows) and the first (columns).
    const DenseHostTensor rows = View(ones, TensorShape{2, n / 2});
    EXPECT_THAT(Sum<float>(rows, 1), ElementsAre(count / 2, count / 2));
    EXPECT_THAT(Mean<float>(rows, 1), ElementsAre(1.0f, 1.0f));
    const DenseHostTensor columns = View(ones, TensorShape{n / 2, 2});
    EXPECT_THAT(Sum<float>(columns, 0), ElementsAre(count / 2, count / 2));
    EXPECT_THAT(Mean<float>(columns, 0), ElementsAre(1.0f, 1.0f));
  }
  // A middle axis, with several outer and inner indices.
  const DenseHostTensor middle =
      View(ones, TensorShape{2, int64_t{1} << 23, 4});
  EXPECT_THAT(Sum<float>(middle, 1), Each(static_cast<float>(1 << 23)));
}

TEST_F(AccurateReductionsTest, F32MeanOfAlternatingZerosAndOnesIsAHalf) {
  const int64_t n = int64_t{1} << 26;
  const DenseHostTensor bits =
      Filled<float>(n, [](int64_t i) { return static_cast<float>(i % 2); });
  EXPECT_EQ(MeanAll<float>(bits), 0.5f);
  EXPECT_EQ(SumAll<float>(bits), static_cast<float>(n / 2));
  // Each column of [n/2, 2] is all zeros or all ones.
  EXPECT_THAT(Mean<float>(View(bits, TensorShape{n / 2, 2}), 0),
              ElementsAre(0.0f, 1.0f));
  EXPECT_THAT(Mean<float>(View(bits, TensorShape{2, n / 2}), 1),
              ElementsAre(0.5f, 0.5f));
}

// The sum of an outer product a b^T is sum(a) * sum(b); the elements are
// small integers, so f64 partial sums are exact and so is that reference.
TEST_F(AccurateReductionsTest, F32SumOfAnOuterProductIsExact) {
  const int64_t m = int64_t{1} << 13;
  const int64_t n = int64_t{1} << 12;
  auto a_at = [](int64_t i) { return static_cast<float>(i % 7 + 1); };
  auto b_at = [](int64_t j) { return static_cast<float>(j % 5 + 1); };
  const DenseHostTensor a = View(Filled<float>(m, a_at), TensorShape{m, 1});
  const DenseHostTensor b = View(Filled<float>(n, b_at), TensorShape{1, n});
  absl::StatusOr<DenseHostTensor> product =
      MatMul(a, b, false, false, &allocator_);
  ASSERT_TRUE(product.ok()) << product.status();
  int64_t sum_a = 0;
  int64_t sum_b = 0;
  for (int64_t i = 0; i < m; ++i) sum_a += static_cast<int64_t>(a_at(i));
  for (int64_t j = 0; j < n; ++j) sum_b += static_cast<int64_t>(b_at(j));
  const double exact = static_cast<double>(sum_a * sum_b);

  EXPECT_EQ(SumAll<float>(*product), static_cast<float>(exact));
  EXPECT_EQ(MeanAll<float>(*product),
            static_cast<float>(exact / static_cast<double>(m * n)));
  const std::vector<float> columns = Sum<float>(*product, 0);
  ASSERT_EQ(columns.size(), static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) {
    ASSERT_EQ(columns[j], static_cast<float>(double{b_at(j)} * sum_a)) << j;
  }
  const std::vector<float> rows = Sum<float>(*product, 1);
  ASSERT_EQ(rows.size(), static_cast<size_t>(m));
  for (int64_t i = 0; i < m; ++i) {
    ASSERT_EQ(rows[i], static_cast<float>(double{a_at(i)} * sum_b)) << i;
  }
}

// f64 terms have no wider type to go to; pairwise summation keeps the error
// within (18 + ceil(log2 n)) * 2^-53 * sum(|x|), the documented bound.
// 2^24 copies of 0.1 sum to exactly 2^24 * 0.1 (a power of two times a
// double); a running sum is off by about 1e-9 relative.
TEST_F(AccurateReductionsTest, F64SumsStayWithinTheDocumentedBound) {
  const int log2 = 24;
  const int64_t n = int64_t{1} << log2;
  const DenseHostTensor tenths = Filled<double>(n, [](int64_t) { return 0.1; });
  auto bound = [](int log2_terms, double magnitude) {
    return (18 + log2_terms) * std::ldexp(magnitude, -53);
  };
  const double exact = std::ldexp(0.1, log2);
  EXPECT_NEAR(SumAll<double>(tenths), exact, bound(log2, exact));
  EXPECT_NEAR(MeanAll<double>(tenths), 0.1, bound(log2, 0.1) + 0x1p-56);
  for (double column : Sum<double>(View(tenths, TensorShape{n / 2, 2}), 0)) {
    EXPECT_NEAR(column, exact / 2, bound(log2 - 1, exact / 2));
  }
  for (double row : Sum<double>(View(tenths, TensorShape{2, n / 2}), 1)) {
    EXPECT_NEAR(row, exact / 2, bound(log2 - 1, exact / 2));
  }
}

// The loss's normalizer sum_c exp(z_c - max) over 2^25 classes: one logit
// of c = ln(10/3) (the label) and the rest 0, so every other term is 0.3.
// An f32 sum of that many 0.3s drifts by percents; summed in f64 the loss
// is log(1 + (n - 1) * 0.3) to the accuracy of f32's exp.
TEST_F(AccurateReductionsTest, SoftmaxCrossEntropyOverManyClasses) {
  const int64_t classes = int64_t{1} << 25;
  const float c = static_cast<float>(std::log(10.0 / 3.0));
  const DenseHostTensor logits =
      View(Filled<float>(classes, [&](int64_t i) { return i == 0 ? c : 0.0f; }),
           TensorShape{1, classes});
  const DenseHostTensor labels =
      tensor_testing::MakeTensor<int32_t>({1}, {0}, &allocator_);
  absl::StatusOr<LossAndGradient> result =
      SoftmaxCrossEntropyWithLogits(logits, labels, &allocator_);
  ASSERT_TRUE(result.ok()) << result.status();
  const double other = std::exp(-static_cast<double>(c));
  const double normalizer = 1 + static_cast<double>(classes - 1) * other;
  EXPECT_NEAR(result->loss.values<float>()[0], std::log(normalizer), 1e-5);
  // The gradient of a logit other than the label's is its softmax.
  EXPECT_NEAR(result->gradient.values<float>()[1], other / normalizer,
              1e-6 * other / normalizer);
}

}  // namespace
}  // namespace sluice
