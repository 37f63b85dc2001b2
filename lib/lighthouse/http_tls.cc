#include "lib/lighthouse/http_tls.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace sluice::lighthouse {
namespace {

// OpenSSL's queued errors as text, the queue emptied, so that the next
// failure does not report this one's.
std::string TakeOpensslErrors() {
  std::string text;
  while (const unsigned long code = ERR_get_error()) {
    char line[256];
    ERR_error_string_n(code, line, sizeof(line));
    absl::StrAppend(&text, text.empty() ? "" : "; ", line);
  }
  return text.empty() ? "no detail from OpenSSL" : text;
}

std::vector<X509*> ReadCertificates(const std::string& pem) {
  std::vector<X509*> certificates;
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  if (bio == nullptr) return certificates;
  while (X509* certificate =
             PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
    certificates.push_back(certificate);
  }
  // Reading past the last one queues an end-of-file error that is no error.
  ERR_clear_error();
  BIO_free(bio);
  return certificates;
}

EVP_PKEY* ReadKey(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  if (bio == nullptr) return nullptr;
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  return key;
}

// Lets every handshake through whatever the client's certificate: whether
// it verified is read afterwards (IdentityOf), so that a client without a
// good one can still read the page and be told why it may not act.
int AcceptAnyCertificate(int, X509_STORE_CTX*) { return 1; }

absl::Status Configure(SSL_CTX* context, const HttpTlsFiles& files) {
  std::vector<X509*> chain = ReadCertificates(files.cert);
  if (chain.empty()) {
    return absl::InvalidArgumentError(
        "https: the certificate holds no PEM certificate");
  }
  bool used = SSL_CTX_use_certificate(context, chain[0]) == 1;
  X509_free(chain[0]);
  for (size_t i = 1; i < chain.size(); ++i) {
    // Owned by the context once added.
    if (!used || SSL_CTX_add_extra_chain_cert(context, chain[i]) != 1) {
      X509_free(chain[i]);
      used = false;
    }
  }
  if (!used) {
    return absl::InvalidArgumentError(absl::StrCat(
        "https: cannot use the certificate: ", TakeOpensslErrors()));
  }
  EVP_PKEY* key = ReadKey(files.key);
  if (key == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "https: the key is no PEM private key: ", TakeOpensslErrors()));
  }
  used = SSL_CTX_use_PrivateKey(context, key) == 1 &&
         SSL_CTX_check_private_key(context) == 1;
  EVP_PKEY_free(key);
  if (!used) {
    return absl::InvalidArgumentError(
        absl::StrCat("https: the key does not match the certificate: ",
                     TakeOpensslErrors()));
  }
  std::vector<X509*> authorities = ReadCertificates(files.ca);
  if (authorities.empty()) {
    return absl::InvalidArgumentError(
        "https: the CA file holds no PEM certificate");
  }
  X509_STORE* store = SSL_CTX_get_cert_store(context);
  for (X509* authority : authorities) {
    // Named in the certificate request, so that a client holding several
    // certificates (curl, a browser) picks one of this CA.
    X509_STORE_add_cert(store, authority);
    SSL_CTX_add_client_CA(context, authority);
    X509_free(authority);
  }
  ERR_clear_error();
  SSL_CTX_set_verify(context, SSL_VERIFY_PEER, AcceptAnyCertificate);
  SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
  // The loop retries a write with the rest of a buffer it may have grown.
  SSL_CTX_set_mode(context, SSL_MODE_ENABLE_PARTIAL_WRITE |
                                SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  // Session tickets would be sent after the handshake, as writes the loop
  // does not expect before an answer; resumption buys a status page nothing.
  SSL_CTX_set_num_tickets(context, 0);
  SSL_CTX_set_session_cache_mode(context, SSL_SESS_CACHE_OFF);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<HttpTls>> HttpTls::Create(
    const HttpTlsFiles& files) {
  SSL_CTX* context = SSL_CTX_new(TLS_server_method());
  if (context == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "https: cannot make an OpenSSL context: ", TakeOpensslErrors()));
  }
  if (absl::Status configured = Configure(context, files); !configured.ok()) {
    SSL_CTX_free(context);
    return configured;
  }
  return std::unique_ptr<HttpTls>(new HttpTls(context));
}

HttpTls::~HttpTls() { SSL_CTX_free(context_); }

SSL* HttpTls::NewSession(int fd) const {
  SSL* session = SSL_new(context_);
  if (session == nullptr) return nullptr;
  if (SSL_set_fd(session, fd) != 1) {
    SSL_free(session);
    return nullptr;
  }
  SSL_set_accept_state(session);
  return session;
}

ClientIdentity IdentityOf(SSL* session) {
  ClientIdentity identity;
  X509* certificate = SSL_get1_peer_certificate(session);
  if (certificate == nullptr) return identity;
  if (SSL_get_verify_result(session) == X509_V_OK) {
    identity.verified = true;
    char name[256] = "";
    X509_NAME_get_text_by_NID(X509_get_subject_name(certificate),
                              NID_commonName, name, sizeof(name));
    identity.common_name = name;
  }
  X509_free(certificate);
  return identity;
}

}  // namespace sluice::lighthouse
