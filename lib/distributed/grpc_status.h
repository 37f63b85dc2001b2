// absl::Status -> grpc::Status. The codes are the same numbers in both.
#ifndef SLUICE_LIB_DISTRIBUTED_GRPC_STATUS_H_
#define SLUICE_LIB_DISTRIBUTED_GRPC_STATUS_H_

#include <string>

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace sluice::dist {

// Trailing metadata on an Execute answer refused because the worker evicted
// the program (to stay within its limits): the client registers the program
// again and repeats the call, which never started.
inline constexpr char kEvictedProgramKey[] = "sluice-evicted-program";

inline grpc::Status ToGrpcStatus(const absl::Status& status) {
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()));
}

}  // namespace sluice::dist

#endif  // SLUICE_LIB_DISTRIBUTED_GRPC_STATUS_H_
