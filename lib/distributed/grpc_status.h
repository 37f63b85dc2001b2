// absl::Status <-> grpc::Status. The codes are the same numbers in both. A
// status a worker answers with carries its proto::Error (the error's
// context and class) as the gRPC status details, which tells it from a
// status that the transport made.
#ifndef SLUICE_LIB_DISTRIBUTED_GRPC_STATUS_H_
#define SLUICE_LIB_DISTRIBUTED_GRPC_STATUS_H_

#include <optional>

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace sluice::dist {

// Trailing metadata on an Execute answer refused because the worker evicted
// the program (to stay within its limits): the client registers the program
// again and repeats the call, which never started.
inline constexpr char kEvictedProgramKey[] = "sluice-evicted-program";

// `status` with its context and class in the details.
grpc::Status ToGrpcStatus(const absl::Status& status);

// The error a peer answered with, when `status` has one in its details;
// none for OK or for an error the transport made (a peer that is down,
// stopped or slow; a message too large).
std::optional<absl::Status> PeerError(const grpc::Status& status);

}  // namespace sluice::dist

#endif  // SLUICE_LIB_DISTRIBUTED_GRPC_STATUS_H_
