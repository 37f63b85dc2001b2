#include "lib/distributed/value_codec.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/distributed/tensor_codec.h"
#include "sluice/distributed/cluster_spec.h"
#include "sluice/distributed/resource_ref.h"
#include "sluice/distributed/variable_handle.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/support/error_util.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice::dist {
namespace {

proto::FailureClass ToWire(FailureClass failure_class) {
  switch (failure_class) {
    case FailureClass::kRetryable:
      return proto::RETRYABLE;
    case FailureClass::kFatal:
      return proto::FATAL;
    case FailureClass::kCancelled:
      return proto::CANCELLED;
    case FailureClass::kStale:
      return proto::STALE;
  }
  return proto::FATAL;
}

// None for FAILURE_CLASS_UNSPECIFIED, or a class this build does not know:
// the receiver then derives the class from the code.
std::optional<FailureClass> FromWire(int failure_class) {
  switch (failure_class) {
    case proto::RETRYABLE:
      return FailureClass::kRetryable;
    case proto::FATAL:
      return FailureClass::kFatal;
    case proto::CANCELLED:
      return FailureClass::kCancelled;
    case proto::STALE:
      return FailureClass::kStale;
    default:
      return std::nullopt;
  }
}

void EncodeVariable(const VariableHandle& variable, proto::VariableRef* out) {
  out->set_task(variable.task);
  out->set_name(variable.name);
  out->set_dtype(static_cast<uint32_t>(variable.dtype));
  for (int64_t dim : variable.shape.dims()) out->add_dims(dim);
}

// A peer's variable reference, checked as a tensor message's dtype and
// shape are.
absl::StatusOr<VariableHandle> DecodeVariable(const proto::VariableRef& ref) {
  const std::string what = absl::StrCat("variable reference '", ref.name(),
                                        "' on task '", ref.task(), "'");
  if (ref.name().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " has an empty name"));
  }
  if (absl::Status task = ParseTaskName(ref.task()).status(); !task.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " names no task: ", task.message()));
  }
  std::optional<DType> dtype;
  if (ref.dtype() <= std::numeric_limits<uint8_t>::max()) {
    dtype = DTypeFromByte(static_cast<uint8_t>(ref.dtype()));
  }
  if (!dtype.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " has unknown dtype ", ref.dtype()));
  }
  absl::StatusOr<TensorShape> shape = TensorShape::Create(
      absl::MakeConstSpan(ref.dims().data(), ref.dims().size()));
  if (!shape.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " has an invalid shape: ", shape.status().message()));
  }
  VariableHandle variable;
  variable.task = ref.task();
  variable.name = ref.name();
  variable.dtype = *dtype;
  variable.shape = *std::move(shape);
  return variable;
}

}  // namespace

void EncodeError(const absl::Status& status, proto::Error* out) {
  out->set_code(static_cast<int32_t>(status.code()));
  out->set_message(std::string(status.message()));
  ErrorContext context = GetErrorContext(status);
  out->set_task(context.task);
  out->set_kernel(context.kernel);
  out->set_location(context.location);
  out->set_incarnation(context.incarnation);
  if (context.generation != kNoGeneration) {
    out->set_generation(context.generation);
  }
  // The class as judged here, where the error was made: on the other side
  // it names a task, which would change what its code alone says.
  out->set_failure_class(ToWire(Classify(status)));
}

absl::Status DecodeError(const proto::Error& error, std::string_view task) {
  absl::StatusCode code = static_cast<absl::StatusCode>(error.code());
  // An out-of-range or OK code from a peer must still read as a failure.
  if (code == absl::StatusCode::kOk || error.code() < 0 || error.code() > 16) {
    code = absl::StatusCode::kUnknown;
  }
  ErrorContext context;
  context.task = error.task().empty() ? std::string(task) : error.task();
  context.kernel = error.kernel();
  context.location = error.location();
  context.incarnation = error.incarnation();
  if (error.has_generation()) context.generation = error.generation();
  context.failure_class = FromWire(error.failure_class());
  return AddErrorContext(absl::Status(code, error.message()), context);
}

absl::Status EncodeValue(const AsyncValue& value, proto::Value* out) {
  if (value.IsError()) {
    EncodeError(value.GetError(), out->mutable_error());
  } else if (value.IsType<bool>()) {
    out->set_i1(value.get<bool>());
  } else if (value.IsType<int32_t>()) {
    out->set_i32(value.get<int32_t>());
  } else if (value.IsType<int64_t>()) {
    out->set_i64(value.get<int64_t>());
  } else if (value.IsType<float>()) {
    out->set_f32(value.get<float>());
  } else if (value.IsType<double>()) {
    out->set_f64(value.get<double>());
  } else if (value.IsType<std::string>()) {
    out->set_string(value.get<std::string>());
  } else if (value.IsType<Chain>()) {
    out->mutable_chain();
  } else if (value.IsType<DenseHostTensor>()) {
    return EncodeTensor(value.get<DenseHostTensor>(), out->mutable_tensor());
  } else if (value.IsType<VariableHandle>()) {
    EncodeVariable(value.get<VariableHandle>(), out->mutable_variable());
  } else if (value.IsType<ResourceRef>()) {
    out->mutable_resource()->set_id(value.get<ResourceRef>().id);
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot send a value of type '", value.TypeName(),
        "' to another task: only i1, i32, i64, f32, f64, !tfrt.string, "
        "!tfrt.chain, !t.tensor and !tfrt_dist.variable values travel, and "
        "references to values kept on the receiving task "
        "(dist::ResourceRef)"));
  }
  return absl::OkStatus();
}

RCReference<AsyncValue> DecodeValue(const proto::Value& value,
                                    std::string_view task,
                                    HostAllocator* allocator) {
  switch (value.kind_case()) {
    case proto::Value::kI1:
      return MakeAvailableAsyncValueRef<bool>(value.i1()).ReleaseRCRef();
    case proto::Value::kI32:
      return MakeAvailableAsyncValueRef<int32_t>(value.i32()).ReleaseRCRef();
    case proto::Value::kI64:
      return MakeAvailableAsyncValueRef<int64_t>(value.i64()).ReleaseRCRef();
    case proto::Value::kF32:
      return MakeAvailableAsyncValueRef<float>(value.f32()).ReleaseRCRef();
    case proto::Value::kF64:
      return MakeAvailableAsyncValueRef<double>(value.f64()).ReleaseRCRef();
    case proto::Value::kString:
      return MakeAvailableAsyncValueRef<std::string>(value.string())
          .ReleaseRCRef();
    case proto::Value::kChain:
      return MakeReadyChain().ReleaseRCRef();
    case proto::Value::kError:
      return MakeErrorAsyncValueRef(DecodeError(value.error(), task));
    case proto::Value::kTensor: {
      absl::StatusOr<DenseHostTensor> tensor =
          DecodeTensor(value.tensor(), allocator);
      if (!tensor.ok()) return MakeErrorAsyncValueRef(tensor.status());
      return MakeAvailableAsyncValueRef<DenseHostTensor>(*std::move(tensor))
          .ReleaseRCRef();
    }
    case proto::Value::kVariable: {
      absl::StatusOr<VariableHandle> variable =
          DecodeVariable(value.variable());
      if (!variable.ok()) return MakeErrorAsyncValueRef(variable.status());
      return MakeAvailableAsyncValueRef<VariableHandle>(*std::move(variable))
          .ReleaseRCRef();
    }
    case proto::Value::kResource:
      return MakeAvailableAsyncValueRef<ResourceRef>(
                 ResourceRef{value.resource().id()})
          .ReleaseRCRef();
    case proto::Value::KIND_NOT_SET:
      break;
  }
  return MakeErrorAsyncValueRef(
      absl::InvalidArgumentError("received a value with no payload"));
}

absl::Status CheckMessageSize(
    size_t message_bytes, int64_t limit, std::string_view message,
    const google::protobuf::RepeatedPtrField<proto::Value>& values,
    std::string_view what) {
  if (static_cast<uint64_t>(message_bytes) <= static_cast<uint64_t>(limit)) {
    return absl::OkStatus();
  }
  std::string error = absl::StrCat(std::string(message), " is ", message_bytes,
                                   " bytes, over the limit of ", limit,
                                   " bytes (max_message_bytes)");
  int largest = -1;
  size_t largest_bytes = 0;
  for (int i = 0; i < values.size(); ++i) {
    const size_t bytes = values.Get(i).ByteSizeLong();
    if (largest < 0 || bytes > largest_bytes) {
      largest = i;
      largest_bytes = bytes;
    }
  }
  if (largest >= 0) {
    const proto::Value& value = values.Get(largest);
    absl::StrAppend(&error, "; ", std::string(what), " ", largest, " takes ",
                    largest_bytes, ": a ", std::string(WireTypeName(value)));
    if (value.has_tensor()) {
      absl::StatusOr<WireTensor> tensor = CheckTensor(value.tensor());
      if (tensor.ok()) absl::StrAppend(&error, " ", tensor->Describe());
    }
  }
  return absl::ResourceExhaustedError(error);
}

std::string_view WireTypeName(const proto::Value& value) {
  switch (value.kind_case()) {
    case proto::Value::kI1:
      return "i1";
    case proto::Value::kI32:
      return "i32";
    case proto::Value::kI64:
      return "i64";
    case proto::Value::kF32:
      return "f32";
    case proto::Value::kF64:
      return "f64";
    case proto::Value::kString:
      return "!tfrt.string";
    case proto::Value::kChain:
      return "!tfrt.chain";
    case proto::Value::kTensor:
      return "!t.tensor";
    case proto::Value::kVariable:
      return "!tfrt_dist.variable";
    case proto::Value::kResource:
      return "resource";
    case proto::Value::kError:
      return "error";
    case proto::Value::KIND_NOT_SET:
      break;
  }
  return "empty";
}

}  // namespace sluice::dist
