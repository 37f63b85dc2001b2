#include "lib/distributed/value_codec.h"

#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/distributed/tensor_codec.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/support/error_util.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice::dist {
namespace {

using ::testing::HasSubstr;

HostAllocator* Allocator() {
  static HostAllocator* const allocator = CreateMallocAllocator().release();
  return allocator;
}

template <typename T>
T RoundTrip(T payload, std::string_view expected_type) {
  AsyncValueRef<T> value = MakeAvailableAsyncValueRef<T>(payload);
  proto::Value wire;
  absl::Status encoded = EncodeValue(*value.GetAsyncValue(), &wire);
  EXPECT_TRUE(encoded.ok()) << encoded;
  EXPECT_EQ(WireTypeName(wire), expected_type);
  RCReference<AsyncValue> decoded =
      DecodeValue(wire, "/job:w/task:0", Allocator());
  EXPECT_TRUE(decoded->IsType<T>());
  return decoded->get<T>();
}

TEST(ValueCodecTest, EveryPayloadTypeRoundTrips) {
  EXPECT_EQ(RoundTrip<bool>(true, "i1"), true);
  EXPECT_EQ(RoundTrip<int32_t>(-7, "i32"), -7);
  EXPECT_EQ(RoundTrip<int64_t>(int64_t{1} << 40, "i64"), int64_t{1} << 40);
  EXPECT_EQ(RoundTrip<float>(1.5f, "f32"), 1.5f);
  EXPECT_EQ(RoundTrip<double>(-2.25, "f64"), -2.25);
  EXPECT_EQ(RoundTrip<std::string>(std::string("a\0b", 3), "!tfrt.string"),
            std::string("a\0b", 3));
  RoundTrip<Chain>(Chain(), "!tfrt.chain");
}

TEST(ValueCodecTest, ErrorsKeepCodeMessageAndContext) {
  ErrorContext context;
  context.kernel = "tfrt_test.fail";
  context.location = "remote.mlir:3:8";
  absl::Status error = AddErrorContext(
      absl::InvalidArgumentError("something bad happened"), context);
  proto::Value wire;
  ASSERT_TRUE(EncodeValue(*MakeErrorAsyncValueRef(error), &wire).ok());
  EXPECT_EQ(WireTypeName(wire), "error");

  RCReference<AsyncValue> decoded =
      DecodeValue(wire, "/job:w/task:1", Allocator());
  ASSERT_TRUE(decoded->IsError());
  const absl::Status& status = decoded->GetError();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "something bad happened");
  ErrorContext received = GetErrorContext(status);
  EXPECT_EQ(received.task, "/job:w/task:1");
  EXPECT_EQ(received.kernel, "tfrt_test.fail");
  EXPECT_EQ(received.location, "remote.mlir:3:8");
}

TEST(ValueCodecTest, ErrorsKeepIncarnationGenerationAndClass) {
  ErrorContext context;
  context.task = "/job:ps/task:0";
  context.incarnation = 0x8000000000000001u;
  context.generation = 0;
  absl::Status error = MarkRetryable(
      AddErrorContext(absl::InternalError("lost"), context), "/job:ps/task:0");
  proto::Error wire;
  EncodeError(error, &wire);
  absl::Status decoded = DecodeError(wire, "/job:w/task:1");
  ErrorContext received = GetErrorContext(decoded);
  EXPECT_EQ(received.task, "/job:ps/task:0");
  EXPECT_EQ(received.incarnation, 0x8000000000000001u);
  EXPECT_EQ(received.generation, 0);
  EXPECT_EQ(Classify(decoded), FailureClass::kRetryable);
  EXPECT_EQ(decoded.code(), absl::StatusCode::kInternal);
}

TEST(ValueCodecTest, TheClassSentIsTheOneJudgedWhereTheErrorWasMade) {
  // A deadline of the worker's own request is a cancellation there; named
  // with the worker's task on this side, its code alone would read as a
  // peer that did not answer.
  proto::Error wire;
  EncodeError(absl::DeadlineExceededError("deadline exceeded"), &wire);
  EXPECT_EQ(wire.failure_class(), proto::CANCELLED);
  EXPECT_FALSE(wire.has_generation());
  absl::Status decoded = DecodeError(wire, "/job:w/task:1");
  EXPECT_EQ(GetErrorContext(decoded).task, "/job:w/task:1");
  EXPECT_EQ(GetErrorContext(decoded).generation, kNoGeneration);
  EXPECT_EQ(Classify(decoded), FailureClass::kCancelled);
}

TEST(ValueCodecTest, AnErrorWithoutAClassIsClassifiedByItsCode) {
  proto::Error wire;
  wire.set_code(static_cast<int>(absl::StatusCode::kDeadlineExceeded));
  wire.set_message("slow");
  EXPECT_EQ(Classify(DecodeError(wire, "/job:w/task:1")),
            FailureClass::kRetryable);
  // So is one with a class this build does not know.
  wire.set_failure_class(static_cast<proto::FailureClass>(42));
  absl::Status decoded = DecodeError(wire, "/job:w/task:1");
  EXPECT_FALSE(GetErrorContext(decoded).failure_class.has_value());
  EXPECT_EQ(Classify(decoded), FailureClass::kRetryable);
  wire.set_failure_class(proto::STALE);
  EXPECT_EQ(Classify(DecodeError(wire, "/job:w/task:1")), FailureClass::kStale);
}

TEST(ValueCodecTest, ABadCodeFromAPeerIsStillAnError) {
  proto::Value wire;
  wire.mutable_error()->set_code(0);
  wire.mutable_error()->set_message("odd");
  EXPECT_EQ(DecodeValue(wire, "t", Allocator())->GetError().code(),
            absl::StatusCode::kUnknown);
  wire.mutable_error()->set_code(99);
  EXPECT_EQ(DecodeValue(wire, "t", Allocator())->GetError().code(),
            absl::StatusCode::kUnknown);
}

TEST(ValueCodecTest, UnsupportedTypesAndEmptyValuesAreErrors) {
  struct Opaque {};
  proto::Value wire;
  absl::Status encoded =
      EncodeValue(*MakeAvailableAsyncValueRef<Opaque>().GetAsyncValue(), &wire);
  EXPECT_EQ(encoded.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(encoded.message(), HasSubstr("cannot send a value"));

  RCReference<AsyncValue> decoded =
      DecodeValue(proto::Value(), "t", Allocator());
  ASSERT_TRUE(decoded->IsError());
  EXPECT_THAT(decoded->GetError().message(), HasSubstr("no payload"));
}

TEST(ValueCodecTest, IndirectValuesEncodeTheirTarget) {
  RCReference<IndirectAsyncValue> indirect = MakeIndirectAsyncValue();
  indirect->ForwardTo(MakeAvailableAsyncValueRef<int32_t>(5).ReleaseRCRef());
  proto::Value wire;
  ASSERT_TRUE(EncodeValue(*indirect, &wire).ok());
  EXPECT_EQ(wire.i32(), 5);
}

TEST(ValueCodecTest, TensorsRoundTripAsTTensor) {
  const std::vector<float> values = {1.5f, -0.0f, 3.25e-30f, 7.0f, 8.0f, 9.0f};
  DenseHostTensor tensor = *DenseHostTensor::FromValues<float>(
      TensorShape({2, 3}), values, Allocator());
  AsyncValueRef<DenseHostTensor> value =
      MakeAvailableAsyncValueRef<DenseHostTensor>(tensor);
  proto::Value wire;
  ASSERT_TRUE(EncodeValue(*value.GetAsyncValue(), &wire).ok());
  EXPECT_EQ(WireTypeName(wire), "!t.tensor");
  EXPECT_EQ(wire.tensor().data().size(), values.size() * sizeof(float));

  RCReference<AsyncValue> decoded = DecodeValue(wire, "t", Allocator());
  ASSERT_TRUE(decoded->IsType<DenseHostTensor>());
  const DenseHostTensor& received = decoded->get<DenseHostTensor>();
  EXPECT_TRUE(TensorsEqual(received, tensor));
  // Its own bytes, not the message's.
  EXPECT_NE(received.raw_data(), tensor.raw_data());
}

TEST(ValueCodecTest, AMalformedTensorDecodesToAnError) {
  proto::Value wire;
  wire.mutable_tensor()->set_dtype(42);
  RCReference<AsyncValue> decoded = DecodeValue(wire, "t", Allocator());
  ASSERT_TRUE(decoded->IsError());
  EXPECT_EQ(decoded->GetError().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(decoded->GetError().message(), HasSubstr("unknown dtype 42"));
}

TEST(ValueCodecTest, AMessageOverItsLimitNamesSizesAndTheLargestValue) {
  google::protobuf::RepeatedPtrField<proto::Value> values;
  values.Add()->set_i32(1);
  DenseHostTensor tensor =
      *DenseHostTensor::Create(DType::kF32, TensorShape({256, 4}), Allocator());
  ASSERT_TRUE(EncodeTensor(tensor, values.Add()->mutable_tensor()).ok());

  EXPECT_TRUE(
      CheckMessageSize(4200, 4200, "the request", values, "argument").ok());
  absl::Status refused =
      CheckMessageSize(4200, 4096, "the request", values, "argument");
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.message(),
              HasSubstr("the request is 4200 bytes, over the limit of 4096 "
                        "bytes (max_message_bytes); argument 1 takes"));
  EXPECT_THAT(refused.message(), HasSubstr("a !t.tensor f32 [256, 4]"));
}

}  // namespace
}  // namespace sluice::dist
