#include "sluice/support/failure.h"

#include <cstring>

#include "absl/strings/cord.h"

namespace sluice {
namespace {

// The payload's type URL. Its bytes are fields, each a tag byte, a 4-byte
// length and that many bytes; a reader skips tags it does not know and stops
// at the first field that does not fit. The payload never leaves the
// process (the wire has proto::Error), so the layout may change freely.
constexpr char kPayloadUrl[] = "type.sluice.dev/sluice.ErrorContext";

enum Tag : uint8_t {
  kKernel = 1,
  kLocation = 2,
  kTask = 3,
  kIncarnation = 4,
  kGeneration = 5,
  kClass = 6,
  kCause = 7,
};

void PutField(std::string& out, Tag tag, std::string_view bytes) {
  out.push_back(static_cast<char>(tag));
  const uint32_t size = static_cast<uint32_t>(bytes.size());
  out.append(reinterpret_cast<const char*>(&size), sizeof(size));
  out.append(bytes.data(), bytes.size());
}

template <typename Int>
void PutInt(std::string& out, Tag tag, Int value) {
  char bytes[sizeof(Int)];
  std::memcpy(bytes, &value, sizeof(Int));
  PutField(out, tag, std::string_view(bytes, sizeof(Int)));
}

template <typename Int>
Int GetInt(std::string_view bytes, Int fallback) {
  if (bytes.size() != sizeof(Int)) return fallback;
  Int value;
  std::memcpy(&value, bytes.data(), sizeof(Int));
  return value;
}

std::string Encode(const ErrorContext& context) {
  std::string out;
  if (!context.kernel.empty()) PutField(out, kKernel, context.kernel);
  if (!context.location.empty()) PutField(out, kLocation, context.location);
  if (!context.task.empty()) PutField(out, kTask, context.task);
  if (context.incarnation != 0) {
    PutInt(out, kIncarnation, context.incarnation);
  }
  if (context.generation != kNoGeneration) {
    PutInt(out, kGeneration, context.generation);
  }
  if (context.failure_class) {
    PutInt(out, kClass, static_cast<uint8_t>(*context.failure_class));
  }
  if (!context.cause.empty()) PutField(out, kCause, context.cause);
  return out;
}

ErrorContext Decode(std::string_view in) {
  ErrorContext context;
  uint32_t size;
  while (in.size() >= 1 + sizeof(size)) {
    const uint8_t tag = static_cast<uint8_t>(in[0]);
    std::memcpy(&size, in.data() + 1, sizeof(size));
    in.remove_prefix(1 + sizeof(size));
    if (in.size() < size) break;
    const std::string_view bytes = in.substr(0, size);
    in.remove_prefix(size);
    switch (tag) {
      case kKernel:
        context.kernel = std::string(bytes);
        break;
      case kLocation:
        context.location = std::string(bytes);
        break;
      case kTask:
        context.task = std::string(bytes);
        break;
      case kIncarnation:
        context.incarnation = GetInt<uint64_t>(bytes, 0);
        break;
      case kGeneration:
        context.generation = GetInt<int64_t>(bytes, kNoGeneration);
        break;
      case kClass: {
        const uint8_t value = GetInt<uint8_t>(bytes, 0);
        if (value >= static_cast<uint8_t>(FailureClass::kRetryable) &&
            value <= static_cast<uint8_t>(FailureClass::kStale)) {
          context.failure_class = static_cast<FailureClass>(value);
        }
        break;
      }
      case kCause:
        context.cause = std::string(bytes);
        break;
      default:
        break;
    }
  }
  return context;
}

void SetContext(absl::Status& status, const ErrorContext& context) {
  status.SetPayload(kPayloadUrl, absl::Cord(Encode(context)));
}

}  // namespace

std::string_view FailureClassName(FailureClass failure_class) {
  switch (failure_class) {
    case FailureClass::kRetryable:
      return "retryable";
    case FailureClass::kFatal:
      return "fatal";
    case FailureClass::kCancelled:
      return "cancelled";
    case FailureClass::kStale:
      return "stale";
  }
  return "fatal";
}

std::optional<FailureClass> ParseFailureClass(std::string_view name) {
  for (FailureClass failure_class :
       {FailureClass::kRetryable, FailureClass::kFatal,
        FailureClass::kCancelled, FailureClass::kStale}) {
    if (FailureClassName(failure_class) == name) return failure_class;
  }
  return std::nullopt;
}

absl::Status AddErrorContext(absl::Status status, const ErrorContext& context) {
  if (status.ok()) return status;
  ErrorContext merged = GetErrorContext(status);
  if (merged.kernel.empty()) merged.kernel = context.kernel;
  if (merged.location.empty()) merged.location = context.location;
  if (merged.task.empty()) merged.task = context.task;
  if (merged.incarnation == 0) merged.incarnation = context.incarnation;
  if (merged.generation == kNoGeneration) {
    merged.generation = context.generation;
  }
  if (!merged.failure_class) merged.failure_class = context.failure_class;
  if (merged.cause.empty()) merged.cause = context.cause;
  SetContext(status, merged);
  return status;
}

ErrorContext GetErrorContext(const absl::Status& status) {
  auto payload = status.GetPayload(kPayloadUrl);
  if (!payload) return ErrorContext();
  return Decode(std::string(*payload));
}

FailureClass ClassOfCode(absl::StatusCode code, bool from_peer,
                         bool has_generation) {
  switch (code) {
    case absl::StatusCode::kCancelled:
      return FailureClass::kCancelled;
    case absl::StatusCode::kUnavailable:
      return FailureClass::kRetryable;
    case absl::StatusCode::kDeadlineExceeded:
      return from_peer ? FailureClass::kRetryable : FailureClass::kCancelled;
    case absl::StatusCode::kAborted:
      return has_generation ? FailureClass::kStale : FailureClass::kFatal;
    default:
      return FailureClass::kFatal;
  }
}

FailureClass Classify(const absl::Status& status) {
  if (status.ok()) return FailureClass::kFatal;
  const ErrorContext context = GetErrorContext(status);
  if (context.failure_class) return *context.failure_class;
  return ClassOfCode(status.code(), /*from_peer=*/!context.task.empty(),
                     context.generation != kNoGeneration);
}

absl::Status MarkFailureClass(absl::Status status, FailureClass failure_class) {
  if (status.ok()) return status;
  ErrorContext context = GetErrorContext(status);
  context.failure_class = failure_class;
  SetContext(status, context);
  return status;
}

absl::Status MarkRetryable(absl::Status status, std::string_view task,
                           uint64_t incarnation) {
  ErrorContext origin;
  origin.task = std::string(task);
  origin.incarnation = incarnation;
  return MarkFailureClass(AddErrorContext(std::move(status), origin),
                          FailureClass::kRetryable);
}

absl::Status MarkStale(absl::Status status, int64_t generation) {
  ErrorContext origin;
  origin.generation = generation;
  return MarkFailureClass(AddErrorContext(std::move(status), origin),
                          FailureClass::kStale);
}

}  // namespace sluice
