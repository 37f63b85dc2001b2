// Certificates for the TLS tests, made by the openssl tool (Debian's
// `openssl`) in a folder of the test's: a CA, a certificate it signs for
// 127.0.0.1 and localhost (client and server use), one it signs that has
// expired, and a second CA with a certificate of its own.
#ifndef SLUICE_TEST_UTIL_TEST_CERTIFICATES_H_
#define SLUICE_TEST_UTIL_TEST_CERTIFICATES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sluice/support/tls.h"

namespace sluice::testing {

struct TestCertificates {
  TlsConfig good;          // signed by the CA, valid for 30 days
  TlsConfig expired;       // signed by the CA, expired yesterday
  TlsConfig other_ca;      // another CA's certificate, trusting that CA
  TlsConfig trusts_other;  // the good certificate, trusting the other CA
  std::string ca_file;     // the CA every `good` peer trusts

  // The flags that give a tool `config`.
  static std::vector<std::string> Flags(const TlsConfig& config);
};

// Makes them in `dir` (created if missing). An error carries openssl's
// output.
absl::StatusOr<TestCertificates> MakeTestCertificates(const std::string& dir);

// The folder of the test's certificates: <TEST_TMPDIR>/certificates (under
// /tmp outside Bazel).
std::string TestCertificateDir();

// A certificate signed by the CA of MakeTestCertificates(dir), made before,
// whose common name is `name` and whose subjectAltNames are 127.0.0.1,
// localhost and `name`: a member that is who `name` says (a replica id).
absl::StatusOr<TlsConfig> MakeNamedCertificate(const std::string& dir,
                                               const std::string& name);

}  // namespace sluice::testing

#endif  // SLUICE_TEST_UTIL_TEST_CERTIFICATES_H_
