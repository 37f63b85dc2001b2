#include "sluice/tensor/elementwise.h"

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
using ::testing::HasSubstr;

class ElementwiseTest : public tensor_testing::TensorTest {};

TEST_F(ElementwiseTest, SameShapeFloat) {
  DenseHostTensor a = MakeTensor<float>({2, 2}, {1, 2, 3, 4}, &allocator_);
  DenseHostTensor b = MakeTensor<float>({2, 2}, {8, 4, 2, 1}, &allocator_);
  EXPECT_THAT(ValuesOf<float>(*Add(a, b, &allocator_)),
              ElementsAre(9, 6, 5, 5));
  EXPECT_THAT(ValuesOf<float>(*Sub(a, b, &allocator_)),
              ElementsAre(-7, -2, 1, 3));
  EXPECT_THAT(ValuesOf<float>(*Mul(a, b, &allocator_)),
              ElementsAre(8, 8, 6, 4));
  EXPECT_THAT(ValuesOf<float>(*Div(a, b, &allocator_)),
              ElementsAre(0.125, 0.5, 1.5, 4));
  EXPECT_EQ(Add(a, b, &allocator_)->shape(), TensorShape({2, 2}));
}

TEST_F(ElementwiseTest, FloatDivisionByZeroIsIeee) {
  DenseHostTensor a = MakeTensor<double>({3}, {1, -1, 0}, &allocator_);
  DenseHostTensor zero = MakeTensor<double>({}, {0}, &allocator_);
  std::vector<double> q = ValuesOf<double>(*Div(a, zero, &allocator_));
  EXPECT_EQ(q[0], std::numeric_limits<double>::infinity());
  EXPECT_EQ(q[1], -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(q[2]));
}

TEST_F(ElementwiseTest, IntegersWrapAndTruncate) {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  DenseHostTensor a = MakeTensor<int32_t>({3}, {kMax, kMin, -7}, &allocator_);
  DenseHostTensor b = MakeTensor<int32_t>({3}, {1, -1, 2}, &allocator_);
  EXPECT_THAT(ValuesOf<int32_t>(*Add(a, b, &allocator_)),
              ElementsAre(kMin, kMax, -5));
  EXPECT_THAT(ValuesOf<int32_t>(*Sub(a, b, &allocator_)),
              ElementsAre(kMax - 1, kMin + 1, -9));
  EXPECT_THAT(ValuesOf<int32_t>(*Mul(a, b, &allocator_)),
              ElementsAre(kMax, kMin, -14));
  // min / -1 wraps to min; -7 / 2 truncates toward zero.
  EXPECT_THAT(ValuesOf<int32_t>(*Div(a, b, &allocator_)),
              ElementsAre(kMax, kMin, -3));
  DenseHostTensor big = MakeTensor<int64_t>(
      {}, {std::numeric_limits<int64_t>::max()}, &allocator_);
  EXPECT_THAT(ValuesOf<int64_t>(*Mul(big, big, &allocator_)), ElementsAre(1));
}

TEST_F(ElementwiseTest, IntegerDivisionByZeroIsAnError) {
  DenseHostTensor a = MakeTensor<int64_t>({2, 2}, {1, 2, 3, 4}, &allocator_);
  DenseHostTensor b = MakeTensor<int64_t>({2}, {5, 0}, &allocator_);
  absl::StatusOr<DenseHostTensor> q = Div(a, b, &allocator_);
  EXPECT_EQ(q.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(q.status().message(),
            "div: division by zero: element 1 of the divisor [2] is 0");
}

TEST_F(ElementwiseTest, BroadcastsAScalar) {
  DenseHostTensor a =
      MakeTensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6}, &allocator_);
  DenseHostTensor ten = MakeTensor<int32_t>({}, {10}, &allocator_);
  absl::StatusOr<DenseHostTensor> sum = Add(a, ten, &allocator_);
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(sum->shape(), TensorShape({2, 3}));
  EXPECT_THAT(ValuesOf<int32_t>(*sum), ElementsAre(11, 12, 13, 14, 15, 16));
  EXPECT_THAT(ValuesOf<int32_t>(*Sub(a, ten, &allocator_)),
              ElementsAre(-9, -8, -7, -6, -5, -4));
}

TEST_F(ElementwiseTest, BroadcastsARowOverEveryLeadingDimension) {
  // A bias [3] added to each row of a batch [2, 2, 3].
  DenseHostTensor a = MakeTensor<float>(
      {2, 2, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, &allocator_);
  DenseHostTensor bias = MakeTensor<float>({3}, {100, 200, 300}, &allocator_);
  absl::StatusOr<DenseHostTensor> sum = Add(a, bias, &allocator_);
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(sum->shape(), TensorShape({2, 2, 3}));
  EXPECT_THAT(ValuesOf<float>(*sum), ElementsAre(100, 201, 302, 103, 204, 305,
                                                 106, 207, 308, 109, 210, 311));
  DenseHostTensor scale = MakeTensor<float>({3}, {1, 2, 0.5}, &allocator_);
  EXPECT_THAT(ValuesOf<float>(*Div(a, scale, &allocator_)),
              ElementsAre(0, 0.5, 4, 3, 2, 10, 6, 3.5, 16, 9, 5, 22));
}

TEST_F(ElementwiseTest, EmptyTensorsGiveEmptyResults) {
  DenseHostTensor a = MakeTensor<float>({0, 3}, {}, &allocator_);
  DenseHostTensor row = MakeTensor<float>({3}, {1, 2, 3}, &allocator_);
  absl::StatusOr<DenseHostTensor> sum = Add(a, row, &allocator_);
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(sum->shape(), TensorShape({0, 3}));
  DenseHostTensor no_columns = MakeTensor<float>({2, 0}, {}, &allocator_);
  DenseHostTensor empty_row = MakeTensor<float>({0}, {}, &allocator_);
  EXPECT_EQ(Mul(no_columns, empty_row, &allocator_)->shape(),
            TensorShape({2, 0}));
}

TEST_F(ElementwiseTest, RefusesShapesThatDoNotBroadcast) {
  DenseHostTensor a =
      MakeTensor<float>({2, 4}, std::vector<float>(8), &allocator_);
  DenseHostTensor b = MakeTensor<float>({3}, {1, 2, 3}, &allocator_);
  absl::StatusOr<DenseHostTensor> sum = Add(a, b, &allocator_);
  EXPECT_EQ(sum.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(sum.status().message(),
            "add: cannot broadcast [3] onto [2, 4]: the right operand must "
            "have shape [2, 4], [] (a scalar), or [4] (a row)");
  // The left operand is never broadcast.
  DenseHostTensor row = MakeTensor<float>({4}, {1, 2, 3, 4}, &allocator_);
  EXPECT_EQ(Sub(row, a, &allocator_).status().message(),
            "sub: cannot broadcast [2, 4] onto [4]: the right operand must "
            "have shape [4], [] (a scalar)");
}

TEST_F(ElementwiseTest, RefusesMixedAndUnsupportedDTypes) {
  DenseHostTensor f = MakeTensor<float>({2}, {1, 2}, &allocator_);
  DenseHostTensor i = MakeTensor<int32_t>({2}, {1, 2}, &allocator_);
  EXPECT_EQ(Mul(f, i, &allocator_).status().message(),
            "mul: operands are f32 and i32; they must have the same dtype");
  DenseHostTensor bools =
      *DenseHostTensor::Create(DType::kI1, TensorShape{2}, &allocator_);
  EXPECT_EQ(Add(bools, bools, &allocator_).status().message(),
            "add: i1 tensors are not supported; it takes i32, i64, f32 or "
            "f64");
  EXPECT_THAT(Add(f, DenseHostTensor(), &allocator_).status().message(),
              HasSubstr("add: operand #1 is an empty tensor with no buffer"));
}

TEST_F(ElementwiseTest, ScalesFloats) {
  DenseHostTensor x = MakeTensor<double>({3}, {1, -2, 0.5}, &allocator_);
  EXPECT_THAT(ValuesOf<double>(*Scale(x, -0.25, &allocator_)),
              ElementsAre(-0.25, 0.5, -0.125));
  DenseHostTensor i = MakeTensor<int64_t>({1}, {3}, &allocator_);
  EXPECT_EQ(Scale(i, 2, &allocator_).status().message(),
            "scale: i64 tensors are not supported; it takes f32 or f64");
}

}  // namespace
}  // namespace sluice
