#include "lib/lighthouse/etcd_tls.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace sluice::lighthouse {
namespace {

constexpr char kHint[] =
    ": check that etcd serves TLS on that port, that its certificate and "
    "this process's are signed by the CA of --tls_ca and not expired, and "
    "that etcd's names the address dialed";

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
using Bio = std::unique_ptr<BIO, BioFree>;

Bio ReadOnlyBio(const std::string& pem) {
  return Bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

// OpenSSL's default would ask for an encrypted key's password on the
// terminal; a lighthouse has nobody to ask.
int NoPassword(char*, int, int, void*) { return 0; }

// Every certificate of a PEM text, in order; the caller frees the stack.
STACK_OF(X509) * ReadCertificates(const std::string& pem) {
  STACK_OF(X509)* certificates = sk_X509_new_null();
  Bio bio = ReadOnlyBio(pem);
  if (certificates == nullptr || bio == nullptr) return certificates;
  while (X509* certificate =
             PEM_read_bio_X509(bio.get(), nullptr, NoPassword, nullptr)) {
    // OpenSSL caches a certificate's extensions on first use: doing it now
    // leaves concurrent handshakes only reading them.
    X509_check_purpose(certificate, -1, 0);
    sk_X509_push(certificates, certificate);
  }
  // Reaching the end of the text is reported as an error.
  ERR_clear_error();
  return certificates;
}

// The first of this thread's OpenSSL errors that comes from TLS itself (an
// alert etcd sent, a reply that is not TLS), emptying the queue.
std::string TakeTlsError() {
  std::string first;
  while (const unsigned long code = ERR_get_error()) {
    if (!first.empty() || ERR_GET_LIB(code) != ERR_LIB_SSL) continue;
    const char* reason = ERR_reason_error_string(code);
    first = reason != nullptr ? reason : absl::StrCat("OpenSSL error ", code);
  }
  return first;
}

}  // namespace

void EtcdTls::Free::operator()(X509* certificate) const {
  X509_free(certificate);
}

void EtcdTls::Free::operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }

void EtcdTls::Free::operator()(STACK_OF(X509) * certificates) const {
  sk_X509_pop_free(certificates, X509_free);
}

absl::StatusOr<std::unique_ptr<EtcdTls>> EtcdTls::Load(
    const TlsCredentialFiles& files) {
  std::unique_ptr<EtcdTls> tls(new EtcdTls());
  tls->chain_.reset(ReadCertificates(files.cert));
  tls->ca_.reset(ReadCertificates(files.ca));
  if (tls->chain_ == nullptr || tls->ca_ == nullptr) {
    return absl::ResourceExhaustedError("out of memory reading TLS files");
  }
  if (sk_X509_num(tls->chain_.get()) == 0) {
    return absl::InvalidArgumentError(
        "--tls_cert holds no certificate OpenSSL can read");
  }
  if (sk_X509_num(tls->ca_.get()) == 0) {
    return absl::InvalidArgumentError(
        "--tls_ca holds no certificate OpenSSL can read");
  }
  // The first is this process's own; the rest lead to the CA.
  tls->certificate_.reset(sk_X509_shift(tls->chain_.get()));
  Bio key_bio = ReadOnlyBio(files.key);
  if (key_bio != nullptr) {
    tls->key_.reset(
        PEM_read_bio_PrivateKey(key_bio.get(), nullptr, NoPassword, nullptr));
  }
  ERR_clear_error();
  if (tls->key_ == nullptr) {
    return absl::InvalidArgumentError(
        "--tls_key holds no private key OpenSSL can read (an encrypted key "
        "is not supported)");
  }
  if (X509_check_private_key(tls->certificate_.get(), tls->key_.get()) != 1) {
    ERR_clear_error();
    return absl::InvalidArgumentError(
        "--tls_key is not the private key of --tls_cert's certificate");
  }
  return tls;
}

int EtcdTls::VerifyAgainstCa(X509_STORE_CTX* store, void* arg) {
  auto* check = static_cast<PeerCheck*>(arg);
  // In place of the context's store, which holds nothing of ours.
  X509_STORE_CTX_set0_trusted_stack(store, check->tls->ca_.get());
  if (X509_verify_cert(store) == 1) return 1;
  check->error = X509_STORE_CTX_get_error(store);
  return 0;
}

std::unique_ptr<httplib::SSLClient> EtcdTls::NewClient(const std::string& host,
                                                       int port,
                                                       PeerCheck* check) const {
  check->tls = this;
  check->error = X509_V_OK;
  auto client = std::make_unique<httplib::SSLClient>(
      host, port, certificate_.get(), key_.get());
  SSL_CTX* context = client->ssl_context();
  // Without a context the client is invalid and its requests fail to
  // connect: nothing goes out unprotected.
  if (context == nullptr) return client;
  for (int i = 0; i < sk_X509_num(chain_.get()); ++i) {
    SSL_CTX_add1_chain_cert(context, sk_X509_value(chain_.get(), i));
  }
  SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
  // httplib's check would trust the system's CAs too: OpenSSL checks
  // instead, failing the handshake, against the CA and the host alone.
  client->enable_server_certificate_verification(false);
  SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nullptr);
  SSL_CTX_set_cert_verify_callback(context, &EtcdTls::VerifyAgainstCa, check);
  X509_VERIFY_PARAM* param = SSL_CTX_get0_param(context);
  X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
  if (X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str()) != 1) {
    X509_VERIFY_PARAM_set1_host(param, host.c_str(), host.size());
  }
  ERR_clear_error();
  return client;
}

void EtcdTls::ClearErrors() { ERR_clear_error(); }

std::string EtcdTls::DescribeFailure(httplib::Error error,
                                     const PeerCheck& check,
                                     bool closed_at_once) {
  const std::string tls_error = TakeTlsError();
  if (check.error != X509_V_OK) {
    return absl::StrCat(
        "the TLS handshake failed: this process refused etcd's certificate (",
        X509_verify_cert_error_string(check.error), ")", kHint);
  }
  // After a handshake that went well on this side, etcd may still refuse
  // this process's certificate: its alert arrives with the reply. OpenSSL
  // names a received alert "... alert ...".
  if (!tls_error.empty()) {
    return absl::StrCat(
        "the TLS handshake failed (",
        absl::StrContains(tls_error, " alert ") ? "etcd sent " : "", tls_error,
        ")", kHint);
  }
  if (error == httplib::Error::SSLConnection ||
      error == httplib::Error::SSLServerVerification ||
      error == httplib::Error::SSLLoadingCerts) {
    return absl::StrCat("the TLS handshake failed (", httplib::to_string(error),
                        ")", kHint);
  }
  // TLS 1.3 ends the client's handshake before etcd has checked this
  // side's certificate. When etcd refuses it, the alert may be lost: the
  // request being written meets a closed connection instead.
  if (closed_at_once) {
    return absl::StrCat(
        "the TLS handshake failed: etcd closed the connection at once, most "
        "likely refusing this process's certificate",
        kHint);
  }
  return "";
}

}  // namespace sluice::lighthouse
