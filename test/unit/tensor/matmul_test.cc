#include "sluice/tensor/matmul.h"

#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/tensor/slicing.h"
#include "tensor_test_util.h"

namespace sluice {
namespace {

using tensor_testing::MakeTensor;
using tensor_testing::ValuesOf;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

class MatMulTest : public tensor_testing::TensorTest {};

// The product by the definition, element by element, of row-major
// matrices: [m, k] x [k, n].
std::vector<double> NaiveProduct(const std::vector<double>& a,
                                 const std::vector<double>& b, int m, int k,
                                 int n) {
  std::vector<double> c(m * n, 0.0);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      for (int p = 0; p < k; ++p) c[i * n + j] += a[i * k + p] * b[p * n + j];
    }
  }
  return c;
}

std::vector<double> Transposed(const std::vector<double>& a, int rows,
                               int cols) {
  std::vector<double> t(a.size());
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) t[j * rows + i] = a[i * cols + j];
  }
  return t;
}

TEST_F(MatMulTest, MultipliesByHand) {
  // [1 2 3]   [7  8]   [1*7+2*9+3*11  1*8+2*10+3*12]   [ 58  64]
  // [4 5 6] x [9 10] = [4*7+5*9+6*11  4*8+5*10+6*12] = [139 154]
  //           [11 12]
  DenseHostTensor a =
      MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}, &allocator_);
  DenseHostTensor b =
      MakeTensor<float>({3, 2}, {7, 8, 9, 10, 11, 12}, &allocator_);
  absl::StatusOr<DenseHostTensor> c = MatMul(a, b, false, false, &allocator_);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->dtype(), DType::kF32);
  EXPECT_EQ(c->shape(), TensorShape({2, 2}));
  EXPECT_THAT(ValuesOf<float>(*c), ElementsAre(58, 64, 139, 154));
}

TEST_F(MatMulTest, EveryTransposeMatchesTheDefinition) {
  const int m = 3, k = 4, n = 5;
  std::vector<double> a(m * k), b(k * n);
  for (int i = 0; i < m * k; ++i) a[i] = 0.5 * i - 2;
  for (int i = 0; i < k * n; ++i) b[i] = 1.0 / (i + 1);
  const std::vector<double> expected = NaiveProduct(a, b, m, k, n);
  for (bool transpose_a : {false, true}) {
    for (bool transpose_b : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "transpose_a=" << transpose_a
                                        << " transpose_b=" << transpose_b);
      DenseHostTensor x =
          transpose_a
              ? MakeTensor<double>({k, m}, Transposed(a, m, k), &allocator_)
              : MakeTensor<double>({m, k}, a, &allocator_);
      DenseHostTensor y =
          transpose_b
              ? MakeTensor<double>({n, k}, Transposed(b, k, n), &allocator_)
              : MakeTensor<double>({k, n}, b, &allocator_);
      absl::StatusOr<DenseHostTensor> c =
          MatMul(x, y, transpose_a, transpose_b, &allocator_);
      ASSERT_TRUE(c.ok()) << c.status();
      EXPECT_EQ(c->shape(), TensorShape({m, n}));
      std::vector<double> got = ValuesOf<double>(*c);
      for (int i = 0; i < m * n; ++i) EXPECT_NEAR(got[i], expected[i], 1e-12);
    }
  }
}

TEST_F(MatMulTest, EmptyInnerDimensionGivesZeros) {
  DenseHostTensor a = MakeTensor<float>({2, 0}, {}, &allocator_);
  DenseHostTensor b = MakeTensor<float>({0, 3}, {}, &allocator_);
  absl::StatusOr<DenseHostTensor> c = MatMul(a, b, false, false, &allocator_);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->shape(), TensorShape({2, 3}));
  EXPECT_THAT(ValuesOf<float>(*c), ElementsAre(0, 0, 0, 0, 0, 0));
}

TEST_F(MatMulTest, WorksOnUnalignedRowSlices) {
  // Row 1 onward of a [4, 3] f64 tensor starts 24 bytes into the buffer.
  std::vector<double> values(12);
  for (int i = 0; i < 12; ++i) values[i] = i;
  DenseHostTensor whole = MakeTensor<double>({4, 3}, values, &allocator_);
  absl::StatusOr<DenseHostTensor> rows = SliceRows(whole, 1, 3);
  ASSERT_TRUE(rows.ok()) << rows.status();
  DenseHostTensor identity =
      MakeTensor<double>({3, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1}, &allocator_);
  absl::StatusOr<DenseHostTensor> c =
      MatMul(*rows, identity, false, false, &allocator_);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(ValuesOf<double>(*c), ElementsAreArray(std::vector<double>(
                                        values.begin() + 3, values.end())));
}

TEST_F(MatMulTest, RefusesMismatchedInnerDimensions) {
  DenseHostTensor a =
      MakeTensor<float>({32, 10}, std::vector<float>(320), &allocator_);
  DenseHostTensor b =
      MakeTensor<float>({20, 5}, std::vector<float>(100), &allocator_);
  absl::StatusOr<DenseHostTensor> c = MatMul(a, b, false, false, &allocator_);
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(c.status().message(),
            "matmul: [32, 10] x [20, 5]: inner dimensions differ");
  // Transposed, a's inner dimension is 32.
  EXPECT_EQ(MatMul(a, b, true, true, &allocator_).status().message(),
            "matmul: [32, 10]^T x [20, 5]^T: inner dimensions differ");
}

TEST_F(MatMulTest, RefusesWhatIsNotAFloatMatrix) {
  DenseHostTensor matrix = MakeTensor<float>({2, 2}, {1, 2, 3, 4}, &allocator_);
  DenseHostTensor vector = MakeTensor<float>({2}, {1, 2}, &allocator_);
  EXPECT_EQ(
      MatMul(matrix, vector, false, false, &allocator_).status().message(),
      "matmul: [2, 2] x [2]: both operands must be matrices (rank 2)");
  DenseHostTensor doubles =
      MakeTensor<double>({2, 2}, {1, 2, 3, 4}, &allocator_);
  EXPECT_EQ(
      MatMul(matrix, doubles, false, false, &allocator_).status().message(),
      "matmul: operands are f32 and f64; they must have the same dtype");
  DenseHostTensor ints = MakeTensor<int32_t>({2, 2}, {1, 2, 3, 4}, &allocator_);
  EXPECT_EQ(MatMul(ints, ints, false, false, &allocator_).status().message(),
            "matmul: i32 tensors are not supported; it takes f32 or f64");
  EXPECT_THAT(
      MatMul(DenseHostTensor(), matrix, false, false, &allocator_)
          .status()
          .message(),
      HasSubstr("matmul: operand #0 is an empty tensor with no buffer"));
}

TEST_F(MatMulTest, ResultTooLargeIsAnErrorNotACrash) {
  // [2^32, 0] x [0, 2^32] has 2^64 elements: more than int64 counts.
  DenseHostTensor a = MakeTensor<float>({int64_t{1} << 32, 0}, {}, &allocator_);
  DenseHostTensor b = MakeTensor<float>({0, int64_t{1} << 32}, {}, &allocator_);
  absl::StatusOr<DenseHostTensor> c = MatMul(a, b, false, false, &allocator_);
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(c.status().message(),
              HasSubstr("matmul: result shape [4294967296, 4294967296] has "
                        "more elements than int64 counts"));
}

TEST_F(MatMulTest, AllocatorRefusalIsResourceExhausted) {
  FixedBudgetAllocator small(64);
  DenseHostTensor a =
      MakeTensor<float>({8, 1}, std::vector<float>(8, 1), &allocator_);
  DenseHostTensor b =
      MakeTensor<float>({1, 8}, std::vector<float>(8, 1), &allocator_);
  absl::StatusOr<DenseHostTensor> c = MatMul(a, b, false, false, &small);
  EXPECT_EQ(c.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(c.status().message(), HasSubstr("matmul: cannot allocate"));
}

}  // namespace
}  // namespace sluice
