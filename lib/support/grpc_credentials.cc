#include "lib/support/grpc_credentials.h"

#include <grpc/grpc_security_constants.h>

#include <cstdio>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "sluice/support/host_port.h"
#include "sluice/support/tls.h"

namespace sluice {
namespace {

bool IsLoopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host == "[::1]" ||
         absl::StartsWith(host, "127.");
}

}  // namespace

std::shared_ptr<grpc::ChannelCredentials> NewChannelCredentials() {
  const ProcessTls tls = CurrentTls();
  if (!tls.enabled) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = tls.files.ca;
  options.pem_private_key = tls.files.key;
  options.pem_cert_chain = tls.files.cert;
  return grpc::SslCredentials(options);
}

std::shared_ptr<grpc::ServerCredentials> NewServerCredentials() {
  const ProcessTls tls = CurrentTls();
  if (!tls.enabled) return grpc::InsecureServerCredentials();
  grpc::SslServerCredentialsOptions options(
      GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  options.pem_root_certs = tls.files.ca;
  options.pem_key_cert_pairs.push_back({tls.files.key, tls.files.cert});
  return grpc::SslServerCredentials(options);
}

absl::Status CheckListenAddress(const std::string& address,
                                std::string_view server) {
  if (CurrentTls().enabled) return absl::OkStatus();
  absl::StatusOr<HostPort> parsed = ParseHostPort(address);
  // A bad address is the server's own error to report.
  if (!parsed.ok() || IsLoopback(parsed->host)) return absl::OkStatus();
  if (InsecureListeningAllowed()) {
    std::fprintf(stderr,
                 "warning: %s listens on %s without TLS (--insecure): anyone "
                 "who reaches the port is served\n",
                 std::string(server).c_str(), address.c_str());
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrCat(
      std::string(server), ": refusing to listen on ", address,
      " without TLS: anyone who reaches the port would be served; give "
      "--tls_cert, --tls_key and --tls_ca (docs/security.md), listen on "
      "127.0.0.1, or accept the risk with --insecure"));
}

bool HandshakeFailed(const grpc::Status& status) {
  if (status.error_code() != grpc::StatusCode::UNAVAILABLE) return false;
  const std::string& message = status.error_message();
  return absl::StrContains(message, "andshake") ||
         absl::StrContains(message, "SSL_ERROR") ||
         absl::StrContains(message, "certificate");
}

bool ClosedAtConnect(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::UNAVAILABLE &&
         absl::StrContains(status.error_message(), "failed to connect") &&
         absl::StrContains(status.error_message(), "Socket closed");
}

std::vector<std::string> PeerCertificateNames(
    const grpc::ServerContext& context) {
  std::vector<std::string> names;
  const std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  if (auth == nullptr || !auth->IsPeerAuthenticated()) return names;
  for (const char* property :
       {GRPC_X509_CN_PROPERTY_NAME, GRPC_X509_SAN_PROPERTY_NAME}) {
    for (const grpc::string_ref& name : auth->FindPropertyValues(property)) {
      names.emplace_back(name.data(), name.size());
    }
  }
  return names;
}

std::string HandshakeReason(const grpc::Status& status) {
  return absl::StrCat(
      "the TLS handshake failed (", status.error_message(),
      "): check that both sides use TLS, with certificates signed by the "
      "same CA, not expired, and naming the address dialed");
}

}  // namespace sluice
