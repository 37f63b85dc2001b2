// Fuzz target for the value codec (lib/distributed/value_codec.h and
// tensor_codec.h): a proto::Value from a peer, whose every field the peer
// chooses, decoded into an AsyncValue as a worker decodes arguments and a
// client results. The bytes are a serialized proto::Value; protobuf's own
// parsing is not the target, what the codec does with the fields is.
//
// Any value decodes to an available value or an error value, never a
// crash: a malformed tensor or variable reference is an InvalidArgument
// (or ResourceExhausted when the allocator refuses). A decoded payload
// encodes back to the message it came from; a decoded error encodes to an
// error that decodes to the same code, message, context and class. The
// message-size check describes the value without failing.
//
// In the test suite, seeded_fuzz_driver.cc runs this target on values
// EncodeValue writes and deterministic mutations of them; to fuzz it for
// real with libFuzzer, see build_libfuzzer_target.sh.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "google/protobuf/stubs/logging.h"
#include "lib/distributed/tensor_codec.h"
#include "lib/distributed/value_codec.h"
#include "lib/distributed/worker_service.pb.h"
#include "sluice/distributed/resource_ref.h"
#include "sluice/distributed/variable_handle.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/support/failure.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "sluice/tensor/tensor_shape.h"
#include "test/fuzz/fuzz_target.h"

namespace sluice {
namespace dist {
namespace {

using fuzz::Require;

constexpr std::string_view kPeer = "/job:worker/task:1";

HostAllocator* Allocator() {
  static HostAllocator* const allocator = CreateMallocAllocator().release();
  return allocator;
}

bool SameContext(const ErrorContext& a, const ErrorContext& b) {
  return a.kernel == b.kernel && a.location == b.location && a.task == b.task &&
         a.incarnation == b.incarnation && a.generation == b.generation &&
         a.failure_class == b.failure_class;
}

// What DecodeError must make of `wire`: its fields as they are, the peer
// standing in for a missing task, an unknown class as none.
ErrorContext ExpectedContext(const proto::Error& wire) {
  ErrorContext context;
  context.kernel = wire.kernel();
  context.location = wire.location();
  context.task = wire.task().empty() ? std::string(kPeer) : wire.task();
  context.incarnation = wire.incarnation();
  if (wire.has_generation()) context.generation = wire.generation();
  if (wire.failure_class() >= proto::RETRYABLE &&
      wire.failure_class() <= proto::STALE) {
    context.failure_class = static_cast<FailureClass>(wire.failure_class());
  }
  return context;
}

// `status`, decoded from `wire`, carries what `wire` says, and goes back
// over the wire unchanged.
void CheckError(const absl::Status& status, const proto::Error& wire) {
  const bool known_code = wire.code() > 0 && wire.code() <= 16;
  Require(
      status.code() == (known_code ? static_cast<absl::StatusCode>(wire.code())
                                   : absl::StatusCode::kUnknown),
      "a peer's error keeps its code, or is UNKNOWN for one that is no "
      "failure");
  Require(status.message() == wire.message(),
          "a peer's error keeps its message");
  Require(SameContext(GetErrorContext(status), ExpectedContext(wire)),
          "a peer's error keeps its context");

  proto::Error encoded;
  EncodeError(status, &encoded);
  const absl::Status again = DecodeError(encoded, "/job:other/task:9");
  Require(again.code() == status.code() && again.message() == status.message(),
          "an error encodes and decodes to the same code and message");
  ErrorContext expected = GetErrorContext(status);
  // The sender writes the class it judged, which the receiver keeps.
  expected.failure_class = Classify(status);
  Require(SameContext(GetErrorContext(again), expected),
          "an error encodes and decodes to the same context and class");
}

void CheckOneInput(std::string_view bytes) {
  // Mutations make strings that are not UTF-8 all the time; protobuf would
  // log each.
  static const bool quiet = [] {
    google::protobuf::SetLogHandler(nullptr);
    return true;
  }();
  (void)quiet;
  proto::Value value;
  if (!value.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return;
  }
  value.DiscardUnknownFields();
  RCReference<AsyncValue> decoded = DecodeValue(value, kPeer, Allocator());
  Require(decoded && decoded->IsAvailable(), "a decoded value is available");

  if (decoded->IsError()) {
    const absl::Status& error = decoded->GetError();
    if (value.kind_case() == proto::Value::kError) {
      CheckError(error, value.error());
    } else {
      Require(
          absl::IsInvalidArgument(error) || absl::IsResourceExhausted(error),
          "a payload that does not decode is InvalidArgument, or "
          "ResourceExhausted from the allocator");
    }
  } else {
    Require(value.kind_case() != proto::Value::kError &&
                value.kind_case() != proto::Value::KIND_NOT_SET,
            "only a payload decodes to a value");
    proto::Value encoded;
    Require(EncodeValue(*decoded, &encoded).ok(), "a decoded value encodes");
    Require(encoded.SerializeAsString() == value.SerializeAsString(),
            "a decoded value encodes back to the message it came from");
    if (decoded->IsType<DenseHostTensor>()) {
      const DenseHostTensor& tensor = decoded->get<DenseHostTensor>();
      Require(tensor.num_bytes() == value.tensor().data().size(),
              "a decoded tensor holds the message's bytes");
    }
  }

  google::protobuf::RepeatedPtrField<proto::Value> values;
  *values.Add() = value;
  const absl::Status size = CheckMessageSize(
      value.ByteSizeLong() + 1, 0, "the fuzzed message", values, "value");
  Require(absl::IsResourceExhausted(size), "an oversized message is refused");
  Require(!WireTypeName(value).empty(), "every value has a wire type name");
}

// The encoded form of `value`, as a seed.
std::string Encode(const AsyncValue& value) {
  proto::Value wire;
  Require(EncodeValue(value, &wire).ok(), "a seed encodes");
  return wire.SerializeAsString();
}

template <typename T>
std::string EncodeAvailable(T payload) {
  return Encode(
      *MakeAvailableAsyncValueRef<T>(std::move(payload)).ReleaseRCRef());
}

std::string EncodeTensorSeed(DType dtype, std::vector<int64_t> dims) {
  absl::StatusOr<TensorShape> shape = TensorShape::Create(dims);
  Require(shape.ok(), "a seed's shape is valid");
  absl::StatusOr<DenseHostTensor> tensor =
      DenseHostTensor::Create(dtype, *shape, Allocator());
  Require(tensor.ok(), "a seed's tensor is made");
  auto* data = static_cast<uint8_t*>(tensor->raw_data());
  for (size_t i = 0; i < tensor->num_bytes(); ++i) {
    data[i] = dtype == DType::kI1 ? i % 2 : static_cast<uint8_t>(i * 13 + 5);
  }
  return EncodeAvailable(*std::move(tensor));
}

}  // namespace
}  // namespace dist

namespace fuzz {

TargetSeeds FuzzTargetSeeds() {
  using dist::EncodeAvailable;
  using dist::EncodeTensorSeed;
  TargetSeeds target;
  target.seeds = {
      EncodeAvailable<bool>(true),
      EncodeAvailable<int32_t>(-7),
      EncodeAvailable<int64_t>(1LL << 40),
      EncodeAvailable<float>(0.5f),
      EncodeAvailable<double>(-2.25),
      EncodeAvailable<std::string>("a string"),
      dist::Encode(*MakeReadyChain().ReleaseRCRef()),
      EncodeTensorSeed(DType::kF32, {2, 3}),
      EncodeTensorSeed(DType::kI1, {4}),
      EncodeTensorSeed(DType::kI64, {}),
      EncodeTensorSeed(DType::kF64, {0, 3}),
      EncodeTensorSeed(DType::kI32, {1, 1, 2, 1}),
      EncodeAvailable(dist::ResourceRef{42}),
  };
  dist::VariableHandle variable;
  variable.task = "/job:ps/task:0";
  variable.name = "dense/kernel";
  variable.dtype = DType::kF32;
  variable.shape = *TensorShape::Create({4, 2});
  target.seeds.push_back(EncodeAvailable(variable));
  ErrorContext context;
  context.kernel = "tfrt.div.i32";
  context.location = "prog.mlir:3:8";
  context.task = "/job:worker/task:0";
  context.incarnation = 99;
  context.generation = 3;
  context.failure_class = FailureClass::kStale;
  target.seeds.push_back(dist::Encode(*MakeErrorAsyncValueRef(AddErrorContext(
      absl::AbortedError("produced under generation 3"), context))));
  target.seeds.push_back(dist::Encode(
      *MakeErrorAsyncValueRef(absl::DeadlineExceededError("no answer"))));
  return target;
}

}  // namespace fuzz
}  // namespace sluice

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sluice::dist::CheckOneInput(sluice::fuzz::AsText(data, size));
  return 0;
}
