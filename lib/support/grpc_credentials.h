// The gRPC side of mutual TLS (sluice/support/tls.h): the credentials every
// channel and server uses, the check of where a plaintext server may
// listen, and how a failed handshake reads. Internal: not part of the
// public API.
#ifndef SLUICE_LIB_SUPPORT_GRPC_CREDENTIALS_H_
#define SLUICE_LIB_SUPPORT_GRPC_CREDENTIALS_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "grpcpp/grpcpp.h"

namespace sluice {

// TLS presenting this process's certificate and checking the server's
// against the CA, or plaintext, as the process is configured.
std::shared_ptr<grpc::ChannelCredentials> NewChannelCredentials();

// TLS requiring a client certificate signed by the CA, or plaintext, as the
// process is configured.
std::shared_ptr<grpc::ServerCredentials> NewServerCredentials();

// Whether `server` (e.g. "worker") may listen on `address` ("host:port"):
// with TLS anywhere; without, on loopback, or elsewhere when insecure
// listening was allowed, which it then says on stderr. The error says how
// to fix it.
absl::Status CheckListenAddress(const std::string& address,
                                std::string_view server);

// The names the client's certificate carries (its common name and its
// subjectAltNames, as gRPC reads them), or none when the client presented
// no certificate: a server in plaintext.
std::vector<std::string> PeerCertificateNames(
    const grpc::ServerContext& context);

// Whether a call failed in the TLS handshake: the peer's certificate was
// refused (another CA, expired, none) or one side speaks plaintext.
// Retrying will not help.
bool HandshakeFailed(const grpc::Status& status);

// Whether a connection was closed by the server, without a word, while it
// was being set up. A server that refuses this side's certificate, or that
// speaks TLS to a plaintext client, does so every time; a process dying
// mid-connection at most once, and then refuses connections: twice in a
// row is taken for a refused handshake.
bool ClosedAtConnect(const grpc::Status& status);

// What HandshakeFailed's error says, for the user: what failed and what to
// check.
std::string HandshakeReason(const grpc::Status& status);

}  // namespace sluice

#endif  // SLUICE_LIB_SUPPORT_GRPC_CREDENTIALS_H_
