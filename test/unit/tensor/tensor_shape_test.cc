#include "sluice/tensor/tensor_shape.h"

#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "sluice/tensor/dtype.h"

namespace sluice {
namespace {

TEST(TensorShapeTest, CountsElementsAndPrints) {
  TensorShape shape{2, 3, 4};
  EXPECT_EQ(shape.rank(), 3);
  EXPECT_EQ(shape.dim(1), 3);
  EXPECT_EQ(shape.num_elements(), 24);
  EXPECT_EQ(shape.ToString(), "[2, 3, 4]");
  EXPECT_EQ(TensorShape().num_elements(), 1);
  EXPECT_EQ(TensorShape().ToString(), "[]");
  EXPECT_EQ(TensorShape({5, 0}).num_elements(), 0);
}

TEST(TensorShapeTest, RefusesNegativeDimensions) {
  std::vector<int64_t> dims = {2, -1};
  absl::StatusOr<TensorShape> shape = TensorShape::Create(dims);
  ASSERT_FALSE(shape.ok());
  EXPECT_EQ(shape.status().message(), "shape [2, -1] has a negative dimension");
}

TEST(TensorShapeTest, RefusesElementCountOverflow) {
  int64_t big = std::numeric_limits<int64_t>::max() / 2;
  std::vector<int64_t> dims = {big, 3};
  EXPECT_EQ(TensorShape::Create(dims).status().code(),
            absl::StatusCode::kInvalidArgument);
  // A zero dimension makes any other dimension harmless.
  std::vector<int64_t> empty = {0, big, big};
  ASSERT_TRUE(TensorShape::Create(empty).ok());
  EXPECT_EQ(TensorShape::Create(empty)->num_elements(), 0);
}

TEST(TensorShapeTest, RefusesRankOverLimit) {
  std::vector<int64_t> dims(TensorShape::kMaxRank + 1, 1);
  EXPECT_EQ(TensorShape::Create(dims).status().code(),
            absl::StatusCode::kInvalidArgument);
  dims.pop_back();
  EXPECT_TRUE(TensorShape::Create(dims).ok());
}

TEST(DTypeTest, NamesRoundTrip) {
  for (int i = 0; i < kNumDTypes; ++i) {
    DType dtype = static_cast<DType>(i);
    EXPECT_EQ(ParseDType(DTypeName(dtype)), dtype);
    EXPECT_EQ(DTypeFromByte(static_cast<uint8_t>(i)), dtype);
  }
  EXPECT_EQ(ParseDType("bool"), DType::kI1);
  EXPECT_EQ(ParseDType("f16"), std::nullopt);
  EXPECT_EQ(DTypeFromByte(kNumDTypes), std::nullopt);
  EXPECT_EQ(DTypeSize(DType::kI1), 1u);
  EXPECT_EQ(DTypeSize(DType::kI64), 8u);
  EXPECT_EQ(DTypeSize(DType::kF32), 4u);
}

}  // namespace
}  // namespace sluice
