// EtcdTls: the process's mutual TLS files (sluice/support/tls.h) as OpenSSL
// objects, for the https:// endpoints of the etcd client. A connection
// presents the certificate (and its chain) and accepts only an etcd
// certificate that the CA signed and that names the host dialed.
//
// Only the CA is trusted, not the system's CAs: cpp-httplib's own check
// would load those into the store, so it is turned off and OpenSSL checks
// etcd's certificate against the CA's certificates alone.
#ifndef SLUICE_LIB_LIGHTHOUSE_ETCD_TLS_H_
#define SLUICE_LIB_LIGHTHOUSE_ETCD_TLS_H_

#include <httplib.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "sluice/support/tls.h"

namespace sluice::lighthouse {

class EtcdTls {
 public:
  // INVALID_ARGUMENT naming the file that cannot be used (no certificate,
  // no key, a key that is not the certificate's, no CA).
  static absl::StatusOr<std::unique_ptr<EtcdTls>> Load(
      const TlsCredentialFiles& files);

  // What the handshake of one connection found wrong with etcd's
  // certificate; filled in during the request.
  struct PeerCheck {
    const EtcdTls* tls = nullptr;
    int error = 0;  // X509_V_OK, or OpenSSL's reason for refusing it
  };

  // A client of https://host:port. `check` must outlive it.
  std::unique_ptr<httplib::SSLClient> NewClient(const std::string& host,
                                                int port,
                                                PeerCheck* check) const;

  // Empties this thread's OpenSSL error queue: call it before a request so
  // that DescribeFailure reads only that request's errors.
  static void ClearErrors();

  // Why a failed request of a NewClient client failed in TLS, or "" when
  // nothing says TLS was the cause (the host could not be reached, it went
  // silent). `closed_at_once`: etcd closed the connection before any
  // timeout. Consumes this thread's OpenSSL errors.
  static std::string DescribeFailure(httplib::Error error,
                                     const PeerCheck& check,
                                     bool closed_at_once);

 private:
  struct Free {
    void operator()(X509* certificate) const;
    void operator()(EVP_PKEY* key) const;
    void operator()(STACK_OF(X509) * certificates) const;
  };

  EtcdTls() = default;
  static int VerifyAgainstCa(X509_STORE_CTX* store, void* arg);

  std::unique_ptr<X509, Free> certificate_;
  std::unique_ptr<STACK_OF(X509), Free> chain_;  // intermediates, may be empty
  std::unique_ptr<EVP_PKEY, Free> key_;
  std::unique_ptr<STACK_OF(X509), Free> ca_;
};

}  // namespace sluice::lighthouse

#endif  // SLUICE_LIB_LIGHTHOUSE_ETCD_TLS_H_
