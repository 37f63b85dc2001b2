#include "test/integration/tls_fixture.h"

#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "lib/support/grpc_handshake.h"
#include "sluice/support/failure.h"

namespace sluice::testing {
namespace {

using ::testing::HasSubstr;

// Made once: openssl takes a while, and no test changes them.
std::optional<TestCertificates>& Made() {
  static std::optional<TestCertificates> made;
  return made;
}

std::string Name(Refusal refusal) {
  switch (refusal) {
    case Refusal::kPlaintextClient:
      return "PlaintextClient";
    case Refusal::kClientOfAnotherCa:
      return "ClientOfAnotherCa";
    case Refusal::kExpiredClient:
      return "ExpiredClient";
    case Refusal::kUntrustedServer:
      return "UntrustedServer";
    case Refusal::kPlaintextServer:
      return "PlaintextServer";
  }
  return "Unknown";
}

}  // namespace

std::vector<Refusal> AllRefusals() {
  return {Refusal::kPlaintextClient, Refusal::kClientOfAnotherCa,
          Refusal::kExpiredClient, Refusal::kUntrustedServer,
          Refusal::kPlaintextServer};
}

std::string RefusalName(const ::testing::TestParamInfo<Refusal>& info) {
  return Name(info.param);
}

void PrintTo(Refusal refusal, std::ostream* out) { *out << Name(refusal); }

void TlsFixture::SetUpTestSuite() {
  if (Made().has_value()) return;
  absl::StatusOr<TestCertificates> made =
      MakeTestCertificates(TestCertificateDir());
  ASSERT_TRUE(made.ok()) << made.status();
  Made() = *std::move(made);
}

void TlsFixture::SetUp() {
  ASSERT_TRUE(Made().has_value()) << "the test certificates were not made";
}

void TlsFixture::TearDown() { EXPECT_TRUE(SetTlsConfig(TlsConfig()).ok()); }

const TestCertificates& TlsFixture::certificates() { return *Made(); }

TlsConfig TlsFixture::ServerTls(Refusal refusal) {
  return refusal == Refusal::kPlaintextServer ? TlsConfig()
                                              : certificates().good;
}

TlsConfig TlsFixture::ClientTls(Refusal refusal) {
  switch (refusal) {
    case Refusal::kPlaintextClient:
      return TlsConfig();
    case Refusal::kClientOfAnotherCa:
      return certificates().other_ca;
    case Refusal::kExpiredClient:
      return certificates().expired;
    case Refusal::kUntrustedServer:
      return certificates().trusts_other;
    case Refusal::kPlaintextServer:
      return certificates().good;
  }
  return TlsConfig();
}

void TlsFixture::ExpectRefused(const absl::Status& status, absl::Duration took,
                               const std::string& names) {
  ASSERT_FALSE(status.ok());
  EXPECT_LT(took, kRefusedWithin) << status;
  EXPECT_THAT(std::string(status.message()),
              HasSubstr(names + "the TLS handshake failed ("));
  EXPECT_EQ(FailureClassName(Classify(status)), "fatal") << status;
}

grpc::StatusCode TlsFixture::CallOverTls(const std::string& address,
                                         const TlsConfig* certificate) {
  grpc::SslCredentialsOptions options;
  absl::StatusOr<TlsCredentialFiles> trusted =
      ReadTlsFiles(certificates().good, "--tls_");
  EXPECT_TRUE(trusted.ok()) << trusted.status();
  if (!trusted.ok()) return grpc::StatusCode::INTERNAL;
  options.pem_root_certs = trusted->ca;
  if (certificate != nullptr) {
    absl::StatusOr<TlsCredentialFiles> own =
        ReadTlsFiles(*certificate, "--tls_");
    EXPECT_TRUE(own.ok()) << own.status();
    if (!own.ok()) return grpc::StatusCode::INTERNAL;
    options.pem_private_key = own->key;
    options.pem_cert_chain = own->cert;
  }
  return CallNoService(
             grpc::CreateChannel(address, grpc::SslCredentials(options)),
             absl::Now() + kDeadline)
      .error_code();
}

}  // namespace sluice::testing
