#include "test/util/test_certificates.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "absl/strings/str_cat.h"

namespace sluice::testing {
namespace {

// Runs `script` with /bin/sh in `dir`; its output goes into the error.
absl::Status RunShell(const std::string& dir, const std::string& script) {
  const std::string log = dir + "/openssl.log";
  const std::string command =
      absl::StrCat("cd '", dir, "' && (", script, ") >'", log, "' 2>&1");
  if (std::system(command.c_str()) == 0) return absl::OkStatus();
  std::string output;
  if (FILE* file = std::fopen(log.c_str(), "r")) {
    char buffer[4096];
    size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0) {
      output.append(buffer, n);
    }
    std::fclose(file);
  }
  return absl::InternalError(
      absl::StrCat("making test certificates failed: ", output));
}

// A P-256 key and a certificate with the extensions in `extensions`
// (leaf.ext: for 127.0.0.1 and localhost, client and server use), signed by
// `ca` for `days` (negative: already expired).
std::string Leaf(const std::string& name, const std::string& ca, int days,
                 const std::string& extensions = "leaf.ext") {
  return absl::StrCat(
      "openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
      "-keyout ",
      name, ".key -out ", name, ".csr -subj /CN=", name,
      " && openssl x509 -req -in ", name, ".csr -CA ", ca, ".pem -CAkey ", ca,
      ".key -CAcreateserial -out ", name, ".pem -days ", days,
      " -extfile ", extensions);
}

std::string Authority(const std::string& name) {
  return absl::StrCat(
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 "
      "-nodes -keyout ",
      name, ".key -out ", name, ".pem -days 30 -subj /CN=", name);
}

}  // namespace

std::vector<std::string> TestCertificates::Flags(const TlsConfig& config) {
  return {"--tls_cert=" + config.cert_file, "--tls_key=" + config.key_file,
          "--tls_ca=" + config.ca_file};
}

std::string TestCertificateDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir != nullptr ? dir : "/tmp", "/certificates");
}

absl::StatusOr<TestCertificates> MakeTestCertificates(const std::string& dir) {
  mkdir(dir.c_str(), 0700);
  absl::Status made = RunShell(
      dir,
      absl::StrCat("printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\n"
                   "extendedKeyUsage=serverAuth,clientAuth\\n' > leaf.ext && ",
                   Authority("ca"), " && ", Authority("other_ca"), " && ",
                   Leaf("good", "ca", 30), " && ", Leaf("expired", "ca", -1),
                   " && ", Leaf("stranger", "other_ca", 30)));
  if (!made.ok()) return made;
  auto in = [&](const std::string& file) { return dir + "/" + file; };
  TestCertificates certificates;
  certificates.ca_file = in("ca.pem");
  certificates.good = {in("good.pem"), in("good.key"), in("ca.pem")};
  certificates.expired = {in("expired.pem"), in("expired.key"), in("ca.pem")};
  certificates.other_ca = {in("stranger.pem"), in("stranger.key"),
                           in("other_ca.pem")};
  certificates.trusts_other = {in("good.pem"), in("good.key"),
                               in("other_ca.pem")};
  return certificates;
}

absl::StatusOr<TlsConfig> MakeNamedCertificate(const std::string& dir,
                                               const std::string& name) {
  absl::Status made = RunShell(
      dir, absl::StrCat("printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,"
                        "DNS:",
                        name,
                        "\\nextendedKeyUsage=serverAuth,clientAuth\\n' > ",
                        name, ".ext && ", Leaf(name, "ca", 30, name + ".ext")));
  if (!made.ok()) return made;
  return TlsConfig{dir + "/" + name + ".pem", dir + "/" + name + ".key",
                   dir + "/ca.pem"};
}

}  // namespace sluice::testing
