#include "test/util/checkpoint_tensors.h"

#include <stdlib.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/support/logging.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice {
namespace test_util {
namespace {

template <typename T>
DenseHostTensor Make(TensorShape shape, absl::Span<const T> values,
                     HostAllocator* allocator) {
  absl::StatusOr<DenseHostTensor> tensor =
      DenseHostTensor::FromValues<T>(std::move(shape), values, allocator);
  SLUICE_CHECK(tensor.ok()) << tensor.status();
  return *std::move(tensor);
}

// std::vector<bool> has no contiguous bools, so booleans come as a list.
template <typename T>
DenseHostTensor Make(TensorShape shape, std::initializer_list<T> values,
                     HostAllocator* allocator) {
  return Make<T>(std::move(shape), absl::Span<const T>(values), allocator);
}

template <typename T>
DenseHostTensor Make(TensorShape shape, const std::vector<T>& values,
                     HostAllocator* allocator) {
  return Make<T>(std::move(shape), absl::Span<const T>(values), allocator);
}

// Bits as a float or double, so NaN payloads survive (a cast would not
// promise that).
template <typename Float, typename Bits>
std::vector<Float> FromBits(const std::vector<Bits>& bits) {
  static_assert(sizeof(Float) == sizeof(Bits));
  std::vector<Float> values(bits.size());
  std::memcpy(values.data(), bits.data(), bits.size() * sizeof(Bits));
  return values;
}

template <typename Bits>
std::vector<Bits> RandomBits(std::mt19937_64& random, size_t count) {
  std::vector<Bits> bits(count);
  for (Bits& b : bits) b = static_cast<Bits>(random());
  return bits;
}

}  // namespace

TensorMap CheckpointTestTensors(uint32_t seed, HostAllocator* allocator) {
  std::mt19937_64 random(seed);
  const int32_t s32 = static_cast<int32_t>(seed);
  const int64_t s64 = static_cast<int64_t>(seed) << 33;
  TensorMap tensors;
  tensors["bool/matrix"] = Make<bool>(
      {2, 3}, {true, false, (seed & 1) != 0, true, true, false}, allocator);
  tensors["i32/extremes"] =
      Make<int32_t>({6},
                    {std::numeric_limits<int32_t>::min(), -1, 0, 1,
                     std::numeric_limits<int32_t>::max(), 0x12345678 ^ s32},
                    allocator);
  tensors["i64/extremes"] = Make<int64_t>(
      {2, 2},
      {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
       -1, 0x0102030405060708 ^ s64},
      allocator);
  tensors["f32/special"] =
      Make<float>({8},
                  FromBits<float, uint32_t>({
                      0x7fc12345u,         // quiet NaN with a payload
                      0x7f800001u,         // signalling NaN
                      0xffc00000u ^ seed,  // negative NaN
                      0x80000000u,         // -0
                      0x7f800000u,         // inf
                      0xff800000u,         // -inf
                      0x00000001u,         // smallest subnormal
                      0x3fc00000u,         // 1.5
                  }),
                  allocator);
  tensors["f64/special"] =
      Make<double>({2, 2, 2},
                   FromBits<double, uint64_t>({
                       0x7ff8000000000123ull,  // quiet NaN with a payload
                       0x7ff0000000000001ull,  // signalling NaN
                       0xfff0000000000001ull ^ seed,  // negative signalling NaN
                       0x8000000000000000ull,         // -0
                       0x7ff0000000000000ull,         // inf
                       0x0000000000000001ull,         // smallest subnormal
                       0x3ff8000000000000ull,         // 1.5
                       0xc00921fb54442d18ull,         // -pi
                   }),
                   allocator);
  tensors["scalar/i64"] = Make<int64_t>({}, {42 + s64}, allocator);
  tensors["scalar/f64_nan"] = Make<double>(
      {}, FromBits<double, uint64_t>({0x7ff8dead0000beefull}), allocator);
  tensors["scalar/bool"] = Make<bool>({}, {true}, allocator);
  tensors["empty/f32"] = Make<float>({0, 4}, {}, allocator);
  tensors["empty/bool"] = Make<bool>({0}, {}, allocator);
  tensors["empty/i64"] = Make<int64_t>({3, 0, 2}, {}, allocator);
  tensors["random/f32"] = Make<float>(
      {64, 33},
      FromBits<float, uint32_t>(RandomBits<uint32_t>(random, 64 * 33)),
      allocator);
  tensors["random/f64"] = Make<double>(
      {17, 5}, FromBits<double, uint64_t>(RandomBits<uint64_t>(random, 17 * 5)),
      allocator);
  return tensors;
}

::testing::AssertionResult BitIdentical(const TensorMap& expected,
                                        const TensorMap& actual) {
  if (expected.size() != actual.size()) {
    return ::testing::AssertionFailure() << "expected " << expected.size()
                                         << " tensors, got " << actual.size();
  }
  for (const auto& [name, want] : expected) {
    auto it = actual.find(name);
    if (it == actual.end()) {
      return ::testing::AssertionFailure() << "no tensor '" << name << "'";
    }
    const DenseHostTensor& got = it->second;
    if (got.dtype() != want.dtype() || got.shape() != want.shape()) {
      return ::testing::AssertionFailure()
             << "tensor '" << name << "' is " << DTypeName(got.dtype()) << " "
             << got.shape().ToString() << ", expected "
             << DTypeName(want.dtype()) << " " << want.shape().ToString();
    }
    if (got.num_bytes() != want.num_bytes() ||
        (want.num_bytes() != 0 &&
         std::memcmp(got.raw_data(), want.raw_data(), want.num_bytes()) != 0)) {
      return ::testing::AssertionFailure()
             << "tensor '" << name << "' differs: " << got.ToString()
             << ", expected " << want.ToString();
    }
  }
  return ::testing::AssertionSuccess();
}

std::string MakeTempDirectory() {
  std::string pattern = ::testing::TempDir() + "/ckpt.XXXXXX";
  SLUICE_CHECK(::mkdtemp(pattern.data()) != nullptr)
      << "cannot create a directory from " << pattern;
  return pattern;
}

}  // namespace test_util
}  // namespace sluice
