// A refused TLS handshake told apart from a server that is down, for the
// clients that make plain calls (the worker's client has its own watch,
// lib/distributed/handshake_watch.h). A handshake this side refused says so
// in the call's status (HandshakeFailed). One the server refused reads as a
// connection closed at connect (ClosedAtConnect), which is also what a
// server dying mid-connection gives, so a second connection is needed to
// tell them apart. And a call that waits for its server (wait_for_ready)
// learns nothing: it waits out its deadline. Internal: not part of the
// public API.
#ifndef SLUICE_LIB_SUPPORT_GRPC_HANDSHAKE_H_
#define SLUICE_LIB_SUPPORT_GRPC_HANDSHAKE_H_

#include <memory>
#include <string>

#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"

namespace sluice {

// `status`, of a call to `address` that failed, as a failed handshake
// (HandshakeFailed says so) when it was one. When the server closed the
// connection at connect, a connection of its own is made to `address` at
// once: closed too, the server refuses this side's handshake. Any other
// status comes back unchanged.
grpc::Status CheckHandshake(const std::string& address,
                            const grpc::Status& status);

// One call of a method no server has on `channel`, waited for until
// `deadline`: a server that completed the handshake answers UNIMPLEMENTED,
// and a failure to connect says why. Nothing of the call is left on a
// gRPC thread when it returns.
grpc::Status CallNoService(const std::shared_ptr<grpc::Channel>& channel,
                           absl::Time deadline);

// Waits until the server at `address` answers a call on a connection of
// its own, until its handshake is refused, or until `deadline`: OK, the
// failed handshake (HandshakeFailed says so), or DEADLINE_EXCEEDED saying
// why the last attempt failed. Call it before a call that waits for its
// server, with the same deadline.
grpc::Status WaitForServer(const std::string& address, absl::Time deadline);

}  // namespace sluice

#endif  // SLUICE_LIB_SUPPORT_GRPC_HANDSHAKE_H_
