// The gRPC side of liveness (sluice/support/liveness.h): HTTP/2 keepalive
// pings on channels and servers. Internal: not part of the public API.
#ifndef SLUICE_LIB_SUPPORT_GRPC_LIVENESS_H_
#define SLUICE_LIB_SUPPORT_GRPC_LIVENESS_H_

#include <memory>
#include <string>

#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "sluice/support/liveness.h"

namespace sluice {

// A channel pings its server after `timeout` without a ping answered, with
// calls or without, and closes the connection when a ping goes unanswered
// for kLivenessPingTimeout: its calls fail with UNAVAILABLE.
void AddLivenessArguments(grpc::ChannelArguments* arguments,
                          absl::Duration timeout = LivenessTimeout(),
                          absl::Duration ping_timeout = kLivenessPingTimeout);

// A server accepts the pings of clients that use `timeout` (gRPC otherwise
// closes a connection that pings more often than every five minutes), and
// pings its clients the same way, so that the calls of a client that went
// silent end too.
void AddLivenessArguments(grpc::ServerBuilder* builder,
                          absl::Duration timeout = LivenessTimeout());

// A channel to `address` with liveness and no other arguments.
std::shared_ptr<grpc::Channel> NewLivenessChannel(const std::string& address);

// Whether a call failed because its connection went silent: no ping
// answered within the liveness bound.
bool WentSilent(const grpc::Status& status);

// Why a call that WentSilent failed, for its error: the user must tell a
// lost peer from a slow one (deadline exceeded).
std::string SilenceReason();

}  // namespace sluice

#endif  // SLUICE_LIB_SUPPORT_GRPC_LIVENESS_H_
