#include "sluice/tensor/random.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensor_test_util.h"

namespace sluice {
namespace {

using tensor_testing::ValuesOf;
using ::testing::HasSubstr;

class RandomTest : public tensor_testing::TensorTest {
 protected:
  DenseHostTensor Uniform(DType dtype, TensorShape shape, double low,
                          double high, uint64_t seed) {
    absl::StatusOr<DenseHostTensor> t =
        RandomUniform(dtype, std::move(shape), low, high, seed, &allocator_);
    EXPECT_TRUE(t.ok()) << t.status();
    return t.ok() ? *std::move(t) : DenseHostTensor();
  }
  DenseHostTensor Normal(DType dtype, TensorShape shape, double mean,
                         double stddev, uint64_t seed) {
    absl::StatusOr<DenseHostTensor> t =
        RandomNormal(dtype, std::move(shape), mean, stddev, seed, &allocator_);
    EXPECT_TRUE(t.ok()) << t.status();
    return t.ok() ? *std::move(t) : DenseHostTensor();
  }
};

bool SameBits(const DenseHostTensor& a, const DenseHostTensor& b) {
  return a.num_bytes() == b.num_bytes() &&
         std::memcmp(a.raw_data(), b.raw_data(), a.num_bytes()) == 0;
}

// Seed 0's block 0 is Philox4x32-10 of counter 0 and key 0, whose output
// Random123 publishes: 0x6627e8d5 0xe169c58d 0xbc57ac4c 0x9b00dbd8.
constexpr uint32_t kZeroBlock[4] = {0x6627e8d5, 0xe169c58d, 0xbc57ac4c,
                                    0x9b00dbd8};

TEST_F(RandomTest, UniformF32FollowsTheDocumentedAlgorithm) {
  DenseHostTensor t = Uniform(DType::kF32, {4}, -1, 3, 0);
  std::vector<float> values = ValuesOf<float>(t);
  for (int i = 0; i < 4; ++i) {
    const double fraction = (kZeroBlock[i] >> 8) / 16777216.0;
    EXPECT_EQ(values[i], static_cast<float>(-1 + 4 * fraction)) << i;
  }
}

TEST_F(RandomTest, UniformF64FollowsTheDocumentedAlgorithm) {
  std::vector<double> values =
      ValuesOf<double>(Uniform(DType::kF64, {2}, 0, 1, 0));
  for (int i = 0; i < 2; ++i) {
    const uint64_t bits =
        ((uint64_t{kZeroBlock[2 * i]} << 32) | kZeroBlock[2 * i + 1]) >> 11;
    EXPECT_EQ(values[i], std::ldexp(static_cast<double>(bits), -53)) << i;
  }
}

TEST_F(RandomTest, NormalFollowsTheDocumentedAlgorithm) {
  std::vector<double> values =
      ValuesOf<double>(Normal(DType::kF64, {2}, 1, 2, 0));
  const double u1 = std::ldexp(
      static_cast<double>(
          (((uint64_t{kZeroBlock[0]} << 32) | kZeroBlock[1]) >> 11) + 1),
      -53);
  const double t =
      std::ldexp(static_cast<double>(
                     ((uint64_t{kZeroBlock[2]} << 32) | kZeroBlock[3]) >> 11),
                 -53);
  const double r = std::sqrt(-2 * std::log(u1));
  const double two_pi = 2 * std::acos(-1.0);
  EXPECT_NEAR(values[0], 1 + 2 * r * std::cos(two_pi * t), 1e-14);
  EXPECT_NEAR(values[1], 1 + 2 * r * std::sin(two_pi * t), 1e-14);
}

TEST_F(RandomTest, SameSeedSameBitsOtherSeedOtherBits) {
  for (DType dtype : {DType::kF32, DType::kF64}) {
    SCOPED_TRACE(DTypeName(dtype));
    DenseHostTensor a = Uniform(dtype, {64, 33}, -2, 5, 42);
    DenseHostTensor b = Uniform(dtype, {64, 33}, -2, 5, 42);
    DenseHostTensor c = Uniform(dtype, {64, 33}, -2, 5, 43);
    EXPECT_TRUE(SameBits(a, b));
    EXPECT_FALSE(SameBits(a, c));
    DenseHostTensor n = Normal(dtype, {101}, 0, 1, 7);
    DenseHostTensor m = Normal(dtype, {101}, 0, 1, 7);
    DenseHostTensor o = Normal(dtype, {101}, 0, 1, 1u << 31);
    EXPECT_TRUE(SameBits(n, m));
    EXPECT_FALSE(SameBits(n, o));
  }
}

TEST_F(RandomTest, SmallerTensorsArePrefixesOfLargerOnes) {
  for (DType dtype : {DType::kF32, DType::kF64}) {
    SCOPED_TRACE(DTypeName(dtype));
    // 7 and 5 use part of their last block.
    DenseHostTensor small = Uniform(dtype, {7}, 0, 1, 9);
    DenseHostTensor large = Uniform(dtype, {3, 5}, 0, 1, 9);
    EXPECT_EQ(
        std::memcmp(small.raw_data(), large.raw_data(), small.num_bytes()), 0);
    DenseHostTensor odd = Normal(dtype, {5}, 0, 1, 9);
    DenseHostTensor even = Normal(dtype, {8}, 0, 1, 9);
    EXPECT_EQ(std::memcmp(odd.raw_data(), even.raw_data(), odd.num_bytes()), 0);
  }
}

TEST_F(RandomTest, NormalF32IsTheRoundedF64) {
  std::vector<float> f32 =
      ValuesOf<float>(Normal(DType::kF32, {9}, 0.5, 3, 1234));
  std::vector<double> f64 =
      ValuesOf<double>(Normal(DType::kF64, {9}, 0.5, 3, 1234));
  for (int i = 0; i < 9; ++i) EXPECT_EQ(f32[i], static_cast<float>(f64[i]));
}

TEST_F(RandomTest, UniformStaysInRangeWithTheRightMoments) {
  const int n = 200000;
  std::vector<float> values =
      ValuesOf<float>(Uniform(DType::kF32, {n}, 2, 6, 99));
  double sum = 0, sum_squares = 0;
  for (float v : values) {
    ASSERT_GE(v, 2.0f);
    ASSERT_LT(v, 6.0f);
    sum += v;
    sum_squares += static_cast<double>(v) * v;
  }
  const double mean = sum / n;
  const double variance = sum_squares / n - mean * mean;
  // Mean 4, variance 16/12; the standard error of the mean is ~0.0026.
  EXPECT_NEAR(mean, 4.0, 0.015);
  EXPECT_NEAR(variance, 16.0 / 12, 0.02);
}

TEST_F(RandomTest, UniformNeverReachesHighEvenWhenRoundingWould) {
  // [1, nextafter(1)) holds one f32: every sample rounds to 1 or to high.
  const float high = std::nextafter(1.0f, 2.0f);
  for (float v : ValuesOf<float>(Uniform(DType::kF32, {1000}, 1, high, 5))) {
    ASSERT_EQ(v, 1.0f);
  }
}

TEST_F(RandomTest, NormalHasTheRightMoments) {
  const int n = 200000;
  std::vector<double> values =
      ValuesOf<double>(Normal(DType::kF64, {n}, -3, 2, 2024));
  double sum = 0, sum_squares = 0, within_one_sigma = 0;
  for (double v : values) {
    sum += v;
    sum_squares += v * v;
    if (std::abs(v + 3) < 2) ++within_one_sigma;
  }
  const double mean = sum / n;
  const double variance = sum_squares / n - mean * mean;
  // Standard errors: mean 0.0045, variance ~0.013, fraction ~0.001.
  EXPECT_NEAR(mean, -3.0, 0.025);
  EXPECT_NEAR(variance, 4.0, 0.07);
  EXPECT_NEAR(within_one_sigma / n, 0.6827, 0.005);
}

TEST_F(RandomTest, RefusesBadParameters) {
  EXPECT_EQ(
      RandomUniform(DType::kF32, {2}, 1, 1, 0, &allocator_).status().message(),
      "random_uniform: [1, 1) is not a finite, non-empty f32 range");
  EXPECT_EQ(RandomUniform(DType::kF64, {2}, -1e308, 1e308, 0, &allocator_)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      RandomUniform(DType::kI32, {2}, 0, 1, 0, &allocator_).status().message(),
      "random_uniform: i32 tensors are not supported; it takes f32 or "
      "f64");
  EXPECT_EQ(
      RandomNormal(DType::kF32, {2}, 0, -1, 0, &allocator_).status().message(),
      "random_normal: mean 0 and stddev -1 must be finite, and stddev "
      "not negative");
  EXPECT_THAT(
      RandomNormal(DType::kF64, {2}, NAN, 1, 0, &allocator_).status().message(),
      HasSubstr("must be finite"));
}

}  // namespace
}  // namespace sluice
