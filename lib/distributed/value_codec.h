// The one place that turns AsyncValues into wire values and back. A new
// payload type is a new case here and a new field in worker_service.proto's
// Value.
#ifndef SLUICE_LIB_DISTRIBUTED_VALUE_CODEC_H_
#define SLUICE_LIB_DISTRIBUTED_VALUE_CODEC_H_

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"
#include "lib/distributed/worker_service.pb.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/support/ref_count.h"

namespace sluice::dist {

// Writes an available value: its payload, or its error with the error's
// context. InvalidArgument for a payload type the wire cannot carry.
absl::Status EncodeValue(const AsyncValue& value, proto::Value* out);

// A new available value holding what `value` carries (a dist::ResourceRef
// for a resource reference, which only the worker that keeps the value can
// resolve); an error value for proto::Value::kError (with its context,
// `task` filling in a missing task), InvalidArgument for an empty value, a
// malformed tensor (see CheckTensor) or a malformed variable reference (an
// empty name, a task name that does not parse, an unknown dtype, an invalid
// shape). A tensor's bytes go to a buffer from `allocator`.
RCReference<AsyncValue> DecodeValue(const proto::Value& value,
                                    std::string_view task,
                                    HostAllocator* allocator);

// The MLIR spelling of the type `value` carries ("i32", "!tfrt.chain",
// "!t.tensor", "!tfrt_dist.variable"), or "resource" (its type is the kept
// value's) / "error" / "empty".
std::string_view WireTypeName(const proto::Value& value);

// Ok when a message of `message_bytes` is within `limit`; otherwise
// ResourceExhausted naming both sizes and the largest of `values`, which
// the message carries ("the request is 300000131 bytes, over the limit of
// 268435456 bytes (max_message_bytes); argument 0 takes 300000006: a
// !t.tensor f32 [75000000]"). `message` names the message ("the request"),
// `what` one value of it ("argument").
absl::Status CheckMessageSize(
    size_t message_bytes, int64_t limit, std::string_view message,
    const google::protobuf::RepeatedPtrField<proto::Value>& values,
    std::string_view what);

// An error and its whole ErrorContext; the class sent is Classify's, as
// judged on this side.
void EncodeError(const absl::Status& status, proto::Error* out);
// The error `error` describes, with its context and class (none when the
// peer sent none: Classify then derives it), `task` filling in a missing
// task.
absl::Status DecodeError(const proto::Error& error, std::string_view task);

}  // namespace sluice::dist

#endif  // SLUICE_LIB_DISTRIBUTED_VALUE_CODEC_H_
