// absl::Status -> grpc::Status. The codes are the same numbers in both.
#ifndef SLUICE_LIB_DISTRIBUTED_GRPC_STATUS_H_
#define SLUICE_LIB_DISTRIBUTED_GRPC_STATUS_H_

#include <string>

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace sluice::dist {

inline grpc::Status ToGrpcStatus(const absl::Status& status) {
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()));
}

}  // namespace sluice::dist

#endif  // SLUICE_LIB_DISTRIBUTED_GRPC_STATUS_H_
