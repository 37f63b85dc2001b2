// HttpTls: the server side of TLS for BoundedHttpServer, over OpenSSL.
//
// It asks every client for a certificate but lets one without any (a
// browser) through: what a connection may do is the routes' decision, made
// from its ClientIdentity. A certificate that does not verify against the
// CA does not fail the handshake either; it only leaves the client
// unverified, so that the client is told why in HTTP rather than by a reset.
#ifndef SLUICE_LIB_LIGHTHOUSE_HTTP_TLS_H_
#define SLUICE_LIB_LIGHTHOUSE_HTTP_TLS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"

typedef struct ssl_st SSL;
typedef struct ssl_ctx_st SSL_CTX;

namespace sluice::lighthouse {

// PEM contents, not paths.
struct HttpTlsFiles {
  std::string cert;  // the server's certificate chain
  std::string key;   // its private key
  std::string ca;    // what client certificates must be signed by
};

// Who the client of a connection proved to be.
struct ClientIdentity {
  // It presented a certificate that verified against the CA.
  bool verified = false;
  // The certificate's subject common name; "" without a verified one.
  std::string common_name;
};

class HttpTls {
 public:
  // INVALID_ARGUMENT naming what OpenSSL refused (a malformed PEM, a key
  // that does not match the certificate).
  static absl::StatusOr<std::unique_ptr<HttpTls>> Create(
      const HttpTlsFiles& files);
  ~HttpTls();
  HttpTls(const HttpTls&) = delete;
  HttpTls& operator=(const HttpTls&) = delete;

  // A server session on the non-blocking socket `fd`; null when OpenSSL is
  // out of memory. The caller frees it with SSL_free.
  SSL* NewSession(int fd) const;

 private:
  explicit HttpTls(SSL_CTX* context) : context_(context) {}
  SSL_CTX* const context_;
};

// The client of `session`, once its handshake is done.
ClientIdentity IdentityOf(SSL* session);

}  // namespace sluice::lighthouse

#endif  // SLUICE_LIB_LIGHTHOUSE_HTTP_TLS_H_
