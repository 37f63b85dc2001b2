// The tensor message: every dtype round trips bit for bit, and every way a
// peer can get a tensor message wrong is refused with an error that says
// what is wrong, before anything reads the elements.
#include "lib/distributed/tensor_codec.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "sluice/tensor/host_buffer.h"
#include "sluice/tensor/i1_bytes.h"

namespace sluice::dist {
namespace {

using ::testing::HasSubstr;

class TensorCodecTest : public ::testing::Test {
 protected:
  // An initializer list, not a vector: std::vector<bool> has no span.
  template <typename T>
  DenseHostTensor Make(TensorShape shape, std::initializer_list<T> values) {
    absl::StatusOr<DenseHostTensor> tensor = DenseHostTensor::FromValues<T>(
        std::move(shape), absl::Span<const T>(values.begin(), values.size()),
        &allocator_);
    EXPECT_TRUE(tensor.ok()) << tensor.status();
    return *std::move(tensor);
  }

  DenseHostTensor RoundTrip(const DenseHostTensor& tensor) {
    proto::Tensor wire;
    absl::Status encoded = EncodeTensor(tensor, &wire);
    EXPECT_TRUE(encoded.ok()) << encoded;
    absl::StatusOr<DenseHostTensor> decoded = DecodeTensor(wire, &allocator_);
    EXPECT_TRUE(decoded.ok()) << decoded.status();
    return *std::move(decoded);
  }

  // The message for a dtype number, dims and bytes, as a peer may send.
  static proto::Tensor Wire(uint32_t dtype, std::vector<int64_t> dims,
                            std::string data) {
    proto::Tensor wire;
    wire.set_dtype(dtype);
    for (int64_t dim : dims) wire.add_dims(dim);
    wire.set_data(std::move(data));
    return wire;
  }

  absl::Status DecodeError(const proto::Tensor& wire) {
    absl::StatusOr<DenseHostTensor> decoded = DecodeTensor(wire, &allocator_);
    EXPECT_FALSE(decoded.ok());
    return decoded.ok() ? absl::OkStatus() : decoded.status();
  }

  LeakCheckAllocator allocator_{CreateMallocAllocator()};
};

TEST_F(TensorCodecTest, EveryDTypeRoundTripsBitForBit) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  DenseHostTensor f32 =
      Make<float>({2, 2}, {-0.0f, nan, std::numeric_limits<float>::denorm_min(),
                           std::numeric_limits<float>::infinity()});
  DenseHostTensor decoded = RoundTrip(f32);
  ASSERT_EQ(decoded.dtype(), DType::kF32);
  EXPECT_EQ(decoded.shape(), TensorShape({2, 2}));
  // NaN and -0 compare oddly: compare the bits.
  EXPECT_EQ(std::memcmp(decoded.raw_data(), f32.raw_data(), f32.num_bytes()),
            0);

  for (const DenseHostTensor& tensor :
       {Make<bool>({3}, {true, false, true}),
        Make<int32_t>({2, 1}, {std::numeric_limits<int32_t>::min(), 7}),
        Make<int64_t>({}, {int64_t{1} << 60}),
        Make<double>({1, 2}, {-1e300, 3.5}), Make<float>({0, 4}, {})}) {
    DenseHostTensor back = RoundTrip(tensor);
    EXPECT_TRUE(TensorsEqual(back, tensor)) << back.ToString();
  }
}

TEST_F(TensorCodecTest, DecodedBytesAreTheirOwnAndAligned) {
  DenseHostTensor tensor = Make<int32_t>({3}, {1, 2, 3});
  proto::Tensor wire;
  ASSERT_TRUE(EncodeTensor(tensor, &wire).ok());
  // Off the message's alignment on purpose.
  std::string shifted = "x" + wire.data();
  wire.set_data(shifted.substr(1));
  absl::StatusOr<DenseHostTensor> decoded = DecodeTensor(wire, &allocator_);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(
      reinterpret_cast<uintptr_t>(decoded->raw_data()) % HostBuffer::kAlignment,
      0u);
  wire.mutable_data()->assign(12, '\0');
  EXPECT_THAT(decoded->values<int32_t>(), ::testing::ElementsAre(1, 2, 3));
  EXPECT_EQ(allocator_.num_alive_allocations(), 2);  // tensor and decoded
}

TEST_F(TensorCodecTest, UnknownDTypesAreRefused) {
  for (uint32_t dtype : {5u, 255u, 256u, 4294967295u}) {
    absl::Status error = DecodeError(Wire(dtype, {1}, "abcd"));
    EXPECT_EQ(error.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(error.message(),
                HasSubstr("unknown dtype " + std::to_string(dtype)));
  }
}

TEST_F(TensorCodecTest, BadShapesAreRefused) {
  absl::Status negative = DecodeError(Wire(1, {2, -3}, ""));
  EXPECT_EQ(negative.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(negative.message(), HasSubstr("invalid shape"));
  EXPECT_THAT(negative.message(), HasSubstr("negative dimension"));

  absl::Status overflow =
      DecodeError(Wire(3, {int64_t{1} << 32, int64_t{1} << 32}, ""));
  EXPECT_THAT(overflow.message(), HasSubstr("more elements than int64"));

  absl::Status rank =
      DecodeError(Wire(3, std::vector<int64_t>(TensorShape::kMaxRank + 1, 1),
                       std::string(4, '\0')));
  EXPECT_THAT(rank.message(), HasSubstr("rank 33"));
}

TEST_F(TensorCodecTest, ByteCountsOtherThanTheShapesAreRefused) {
  absl::Status short_data = DecodeError(Wire(3, {2, 3}, std::string(20, 'a')));
  EXPECT_EQ(short_data.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(short_data.message(),
              HasSubstr("(f32 [2, 3]) carries 20 bytes, but its 6 element(s) "
                        "of 4 byte(s) need 24"));

  EXPECT_THAT(DecodeError(Wire(2, {1}, std::string(9, 'a'))).message(),
              HasSubstr("carries 9 bytes"));
  // Elements whose bytes would not fit in 64 bits.
  EXPECT_THAT(DecodeError(Wire(4, {int64_t{1} << 62}, "")).message(),
              HasSubstr("need more than 2^64"));
  // A huge shape with few bytes never reaches the allocator.
  EXPECT_THAT(DecodeError(Wire(4, {int64_t{1} << 40}, "12345678")).message(),
              HasSubstr("carries 8 bytes"));
  EXPECT_EQ(allocator_.num_alive_allocations(), 0);
}

// The wire refuses byte 2 with the message of the rule every local path
// that makes an i1 tensor from bytes applies (tfrt_dht.make_tensor's test
// expects the same words).
TEST_F(TensorCodecTest, I1BytesOtherThanZeroAndOneAreRefused) {
  const std::string bytes("\1\0\2\1", 4);
  constexpr char kRule[] = "i1 element 2 holds byte 2: an i1 element is 0 or 1";
  EXPECT_EQ(CheckI1Bytes(absl::MakeConstSpan(
                             reinterpret_cast<const uint8_t*>(bytes.data()),
                             bytes.size()))
                .message(),
            kRule);
  absl::Status error = DecodeError(Wire(0, {4}, bytes));
  EXPECT_EQ(error.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(error.message(), absl::StrCat("tensor message (i1 [4]): ", kRule));
}

// Bytes written through another view after the i1 tensor was made: the
// sender refuses them rather than leave it to the peer.
TEST_F(TensorCodecTest, I1BytesOtherThanZeroAndOneAreNotSent) {
  RCReference<HostBuffer> buffer = HostBuffer::Allocate(4, &allocator_);
  std::memcpy(buffer->data(), "\1\0\2\1", 4);
  absl::StatusOr<DenseHostTensor> flags =
      DenseHostTensor::Create(DType::kI1, TensorShape{4}, std::move(buffer));
  ASSERT_TRUE(flags.ok()) << flags.status();
  proto::Tensor wire;
  absl::Status error = EncodeTensor(*flags, &wire);
  EXPECT_EQ(error.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(error.message(),
            "cannot send a tensor (i1 [4]): i1 element 2 holds byte 2: an i1 "
            "element is 0 or 1");
}

TEST_F(TensorCodecTest, CheckTensorLeavesTheBytesInTheMessage) {
  proto::Tensor wire = Wire(1, {2}, std::string(8, '\x01'));
  absl::StatusOr<WireTensor> checked = CheckTensor(wire);
  ASSERT_TRUE(checked.ok()) << checked.status();
  EXPECT_EQ(checked->data, wire.data().data());
  EXPECT_EQ(checked->size, 8u);
  EXPECT_EQ(checked->Describe(), "i32 [2]");
}

TEST_F(TensorCodecTest, ATensorWithoutABufferIsNotSent) {
  proto::Tensor wire;
  absl::Status refused = EncodeTensor(DenseHostTensor(), &wire);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(), HasSubstr("holds no elements yet"));
}

TEST_F(TensorCodecTest, AnAllocatorThatRefusesIsResourceExhausted) {
  FixedBudgetAllocator small(64);
  absl::StatusOr<DenseHostTensor> decoded =
      DecodeTensor(Wire(4, {100}, std::string(800, '\0')), &small);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), absl::StatusCode::kResourceExhausted);
}

TEST_F(TensorCodecTest, RandomMessagesNeverCrash) {
  std::mt19937_64 random(7);
  int accepted = 0;
  for (int i = 0; i < 2000; ++i) {
    std::vector<int64_t> dims(random() % 4);
    for (int64_t& dim : dims) dim = static_cast<int64_t>(random() % 7) - 1;
    std::string data(random() % 64, '\0');
    for (char& byte : data) byte = static_cast<char>(random() % 3);
    proto::Tensor wire = Wire(random() % 7, dims, data);
    absl::StatusOr<DenseHostTensor> decoded = DecodeTensor(wire, &allocator_);
    if (!decoded.ok()) continue;
    ++accepted;
    EXPECT_EQ(decoded->num_bytes(), data.size());
    EXPECT_EQ(std::memcmp(decoded->raw_data(), data.data(), data.size()), 0);
  }
  // Some of each: the loop exercises both paths.
  EXPECT_GT(accepted, 10);
  EXPECT_LT(accepted, 1990);
}

}  // namespace
}  // namespace sluice::dist
