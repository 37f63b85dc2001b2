#include "sluice/tensor/reductions.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensor_test_util.h"

namespace sluice {
namespace {

using tensor_testing::MakeTensor;
using tensor_testing::ValuesOf;
using ::testing::ElementsAre;

class ReductionsTest : public tensor_testing::TensorTest {
 protected:
  // [[1, 2, 3],
  //  [4, 5, 6]]
  DenseHostTensor Matrix() {
    return MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}, &allocator_);
  }
};

TEST_F(ReductionsTest, SumOverEachAxis) {
  absl::StatusOr<DenseHostTensor> columns = ReduceSum(Matrix(), 0, &allocator_);
  ASSERT_TRUE(columns.ok()) << columns.status();
  EXPECT_EQ(columns->shape(), TensorShape({3}));
  EXPECT_THAT(ValuesOf<float>(*columns), ElementsAre(5, 7, 9));
  absl::StatusOr<DenseHostTensor> rows = ReduceSum(Matrix(), 1, &allocator_);
  EXPECT_EQ(rows->shape(), TensorShape({2}));
  EXPECT_THAT(ValuesOf<float>(*rows), ElementsAre(6, 15));
  // -1 is the last axis.
  EXPECT_THAT(ValuesOf<float>(*ReduceSum(Matrix(), -1, &allocator_)),
              ElementsAre(6, 15));
  EXPECT_THAT(ValuesOf<float>(*ReduceSum(Matrix(), -2, &allocator_)),
              ElementsAre(5, 7, 9));
}

TEST_F(ReductionsTest, MiddleAxisOfARank3Tensor) {
  // x[i][j][k] = 100 i + 10 j + k over [2, 3, 2]; summing j gives
  // 300 i + 30 + 3 k.
  std::vector<int64_t> values;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k) values.push_back(100 * i + 10 * j + k);
  DenseHostTensor x = MakeTensor<int64_t>({2, 3, 2}, values, &allocator_);
  absl::StatusOr<DenseHostTensor> sum = ReduceSum(x, 1, &allocator_);
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(sum->shape(), TensorShape({2, 2}));
  EXPECT_THAT(ValuesOf<int64_t>(*sum), ElementsAre(30, 33, 330, 333));
  EXPECT_THAT(ValuesOf<int64_t>(*ReduceMax(x, 1, &allocator_)),
              ElementsAre(20, 21, 120, 121));
  EXPECT_THAT(ValuesOf<int64_t>(*ArgMax(x, 0, &allocator_)),
              ElementsAre(1, 1, 1, 1, 1, 1));
}

TEST_F(ReductionsTest, MeanAndMax) {
  EXPECT_THAT(ValuesOf<float>(*ReduceMean(Matrix(), 0, &allocator_)),
              ElementsAre(2.5, 3.5, 4.5));
  EXPECT_THAT(ValuesOf<float>(*ReduceMean(Matrix(), 1, &allocator_)),
              ElementsAre(2, 5));
  EXPECT_THAT(ValuesOf<float>(*ReduceMax(Matrix(), 0, &allocator_)),
              ElementsAre(4, 5, 6));
  DenseHostTensor negative =
      MakeTensor<int32_t>({2, 2}, {-5, -3, -9, -7}, &allocator_);
  EXPECT_THAT(ValuesOf<int32_t>(*ReduceMax(negative, 1, &allocator_)),
              ElementsAre(-3, -7));
}

TEST_F(ReductionsTest, OverEveryElement) {
  absl::StatusOr<DenseHostTensor> sum = ReduceSumAll(Matrix(), &allocator_);
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(sum->shape(), TensorShape{});
  EXPECT_THAT(ValuesOf<float>(*sum), ElementsAre(21));
  EXPECT_THAT(ValuesOf<float>(*ReduceMeanAll(Matrix(), &allocator_)),
              ElementsAre(3.5));
  EXPECT_THAT(ValuesOf<float>(*ReduceMaxAll(Matrix(), &allocator_)),
              ElementsAre(6));
  DenseHostTensor scalar = MakeTensor<double>({}, {-2.5}, &allocator_);
  EXPECT_THAT(ValuesOf<double>(*ReduceMaxAll(scalar, &allocator_)),
              ElementsAre(-2.5));
}

// Floating-point sums run in blocks of rows and columns (pairwise, in f64):
// a shape whose reduced axis spans several blocks of rows and whose inner
// dimensions span several blocks of columns, against a plain loop. The
// values are small integers, so every order of adding them is exact.
TEST_F(ReductionsTest, FloatSumsOverEveryAxisOfALargerTensor) {
  const int64_t d0 = 3, d1 = 41, d2 = 600;
  std::vector<double> values(d0 * d1 * d2);
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = static_cast<double>((i * 7919) % 13) - 6;
  }
  DenseHostTensor x = MakeTensor<double>({d0, d1, d2}, values, &allocator_);
  auto at = [&](int64_t i, int64_t j, int64_t k) {
    return values[(i * d1 + j) * d2 + k];
  };
  for (int axis = 0; axis < 3; ++axis) {
    SCOPED_TRACE(axis);
    absl::StatusOr<DenseHostTensor> sum = ReduceSum(x, axis, &allocator_);
    absl::StatusOr<DenseHostTensor> mean = ReduceMean(x, axis, &allocator_);
    ASSERT_TRUE(sum.ok()) << sum.status();
    ASSERT_TRUE(mean.ok()) << mean.status();
    const int64_t dims[3] = {d0, d1, d2};
    std::vector<double> expected;
    for (int64_t i = 0; i < (axis == 0 ? 1 : d0); ++i) {
      for (int64_t j = 0; j < (axis == 1 ? 1 : d1); ++j) {
        for (int64_t k = 0; k < (axis == 2 ? 1 : d2); ++k) {
          double total = 0;
          for (int64_t r = 0; r < dims[axis]; ++r) {
            total +=
                at(axis == 0 ? r : i, axis == 1 ? r : j, axis == 2 ? r : k);
          }
          expected.push_back(total);
        }
      }
    }
    std::vector<double> sums = ValuesOf<double>(*sum);
    std::vector<double> means = ValuesOf<double>(*mean);
    ASSERT_EQ(sums.size(), expected.size());
    for (size_t e = 0; e < expected.size(); ++e) {
      ASSERT_EQ(sums[e], expected[e]) << e;
      ASSERT_EQ(means[e], expected[e] / dims[axis]) << e;
    }
  }
}

TEST_F(ReductionsTest, IntegerSumsWrap) {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  DenseHostTensor x = MakeTensor<int32_t>({2}, {kMax, 2}, &allocator_);
  EXPECT_THAT(ValuesOf<int32_t>(*ReduceSumAll(x, &allocator_)),
              ElementsAre(std::numeric_limits<int32_t>::min() + 1));
}

TEST_F(ReductionsTest, NaNWinsMaxAndArgMax) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  DenseHostTensor x =
      MakeTensor<double>({2, 3}, {1, nan, 3, 4, 5, 6}, &allocator_);
  std::vector<double> max = ValuesOf<double>(*ReduceMax(x, 1, &allocator_));
  EXPECT_TRUE(std::isnan(max[0]));
  EXPECT_EQ(max[1], 6);
  EXPECT_TRUE(std::isnan(ValuesOf<double>(*ReduceMaxAll(x, &allocator_))[0]));
  EXPECT_THAT(ValuesOf<int64_t>(*ArgMax(x, 1, &allocator_)), ElementsAre(1, 2));
}

TEST_F(ReductionsTest, ArgMaxTakesTheFirstOfEqualMaxima) {
  DenseHostTensor x =
      MakeTensor<float>({2, 4}, {3, 7, 7, 1, 2, 2, 2, 2}, &allocator_);
  absl::StatusOr<DenseHostTensor> best = ArgMax(x, -1, &allocator_);
  ASSERT_TRUE(best.ok()) << best.status();
  EXPECT_EQ(best->dtype(), DType::kI64);
  EXPECT_EQ(best->shape(), TensorShape({2}));
  EXPECT_THAT(ValuesOf<int64_t>(*best), ElementsAre(1, 0));
  EXPECT_THAT(ValuesOf<int64_t>(*ArgMax(x, 0, &allocator_)),
              ElementsAre(0, 0, 0, 1));
}

TEST_F(ReductionsTest, EmptyAxes) {
  DenseHostTensor x = MakeTensor<float>({2, 0}, {}, &allocator_);
  EXPECT_THAT(ValuesOf<float>(*ReduceSum(x, 1, &allocator_)),
              ElementsAre(0, 0));
  EXPECT_EQ(ReduceSum(x, 0, &allocator_)->shape(), TensorShape({0}));
  EXPECT_EQ(ReduceMean(x, 1, &allocator_).status().message(),
            "mean: axis 1 of [2, 0] is empty");
  EXPECT_EQ(ReduceMaxAll(x, &allocator_).status().message(),
            "max: [2, 0] has no elements");
  EXPECT_EQ(ArgMax(x, -1, &allocator_).status().message(),
            "argmax: axis -1 of [2, 0] is empty");
}

TEST_F(ReductionsTest, RefusesBadAxesAndDTypes) {
  absl::StatusOr<DenseHostTensor> sum = ReduceSum(Matrix(), 2, &allocator_);
  EXPECT_EQ(sum.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(sum.status().message(),
            "sum: axis 2 is outside [-2, 2) for a tensor of shape [2, 3]");
  EXPECT_EQ(ArgMax(Matrix(), -3, &allocator_).status().message(),
            "argmax: axis -3 is outside [-2, 2) for a tensor of shape [2, 3]");
  DenseHostTensor scalar = MakeTensor<float>({}, {1}, &allocator_);
  EXPECT_EQ(ReduceMax(scalar, 0, &allocator_).status().message(),
            "max: axis 0 is outside [0, 0) for a tensor of shape []");
  DenseHostTensor ints = MakeTensor<int32_t>({2}, {1, 2}, &allocator_);
  EXPECT_EQ(ReduceMean(ints, 0, &allocator_).status().message(),
            "mean: i32 tensors are not supported; it takes f32 or f64");
}

}  // namespace
}  // namespace sluice
