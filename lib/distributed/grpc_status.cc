#include "lib/distributed/grpc_status.h"

#include <string>

#include "lib/distributed/value_codec.h"
#include "lib/distributed/worker_service.pb.h"

namespace sluice::dist {

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  proto::Error error;
  EncodeError(status, &error);
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()), error.SerializeAsString());
}

std::optional<absl::Status> PeerError(const grpc::Status& status) {
  if (status.ok() || status.error_details().empty()) return std::nullopt;
  proto::Error error;
  if (!error.ParseFromString(status.error_details())) return std::nullopt;
  return DecodeError(error, /*task=*/"");
}

}  // namespace sluice::dist
