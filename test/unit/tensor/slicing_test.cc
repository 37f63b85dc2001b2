#include "sluice/tensor/slicing.h"

#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensor_test_util.h"

namespace sluice {
namespace {

using tensor_testing::MakeTensor;
using tensor_testing::ValuesOf;
using ::testing::ElementsAre;

class SlicingTest : public tensor_testing::TensorTest {};

TEST_F(SlicingTest, SharesTheRowsBytes) {
  DenseHostTensor x = MakeTensor<int32_t>(
      {4, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, &allocator_);
  absl::StatusOr<DenseHostTensor> rows = SliceRows(x, 1, 2);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(rows->shape(), TensorShape({2, 3}));
  EXPECT_EQ(rows->dtype(), DType::kI32);
  EXPECT_THAT(ValuesOf<int32_t>(*rows), ElementsAre(3, 4, 5, 6, 7, 8));
  // The same bytes, not a copy: one allocation, and writes show through.
  EXPECT_EQ(rows->raw_data(), static_cast<char*>(x.raw_data()) + 12);
  EXPECT_EQ(allocator_.num_alive_allocations(), 1);
  x.mutable_values<int32_t>()[3] = 30;
  EXPECT_EQ(rows->values<int32_t>()[0], 30);
}

TEST_F(SlicingTest, KeepsTheParentAlive) {
  absl::StatusOr<DenseHostTensor> rows;
  {
    DenseHostTensor x = MakeTensor<double>({3}, {1.5, 2.5, 3.5}, &allocator_);
    rows = SliceRows(x, 2, 1);
  }
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(allocator_.num_alive_allocations(), 1);
  EXPECT_THAT(ValuesOf<double>(*rows), ElementsAre(3.5));
  rows = absl::StatusOr<DenseHostTensor>();
  EXPECT_EQ(allocator_.num_alive_allocations(), 0);
}

TEST_F(SlicingTest, EmptyAndWholeSlices) {
  DenseHostTensor x = MakeTensor<float>({2, 2}, {1, 2, 3, 4}, &allocator_);
  EXPECT_EQ(SliceRows(x, 2, 0)->shape(), TensorShape({0, 2}));
  EXPECT_THAT(ValuesOf<float>(*SliceRows(x, 0, 2)), ElementsAre(1, 2, 3, 4));
  DenseHostTensor no_columns = MakeTensor<float>({5, 0}, {}, &allocator_);
  EXPECT_EQ(SliceRows(no_columns, 1, 3)->shape(), TensorShape({3, 0}));
}

TEST_F(SlicingTest, RefusesRowsOutsideTheTensor) {
  DenseHostTensor x =
      MakeTensor<float>({10, 3}, std::vector<float>(30), &allocator_);
  absl::StatusOr<DenseHostTensor> past = SliceRows(x, 8, 4);
  EXPECT_EQ(past.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(past.status().message(),
            "slice_rows: 4 rows from row 8 are past the end of [10, 3], which "
            "has 10");
  EXPECT_EQ(SliceRows(x, 11, 0).status().code(),
            absl::StatusCode::kInvalidArgument);
  // A size that would overflow begin + size.
  EXPECT_EQ(SliceRows(x, 5, INT64_MAX).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SliceRows(x, -1, 2).status().message(),
            "slice_rows: begin -1 and size 2 must not be negative");
  DenseHostTensor scalar = MakeTensor<float>({}, {1}, &allocator_);
  EXPECT_EQ(SliceRows(scalar, 0, 1).status().message(),
            "slice_rows: a scalar has no rows");
}

}  // namespace
}  // namespace sluice
