// What the TLS tests of the services other than the worker share: the
// certificates, made once per test program; the five ways a handshake is
// refused, as a test parameter, with the TLS of each side; the check of a
// refusal's error; and a client of no service that presents no certificate.
#ifndef SLUICE_TEST_INTEGRATION_TLS_FIXTURE_H_
#define SLUICE_TEST_INTEGRATION_TLS_FIXTURE_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "sluice/support/tls.h"
#include "test/util/test_certificates.h"

namespace sluice::testing {

// How a handshake is refused. The server refuses a plaintext client and an
// expired certificate, the client a server it does not trust or one in
// plaintext; a client of another CA is refused by both.
enum class Refusal {
  kPlaintextClient,
  kClientOfAnotherCa,
  kExpiredClient,
  kUntrustedServer,
  kPlaintextServer,
};

// Every Refusal, for INSTANTIATE_TEST_SUITE_P; its name, in a test's and
// in a failure's.
std::vector<Refusal> AllRefusals();
std::string RefusalName(const ::testing::TestParamInfo<Refusal>& info);
void PrintTo(Refusal refusal, std::ostream* out);

// A refused handshake is refused at once: far below the calls' deadlines.
inline constexpr absl::Duration kDeadline = absl::Seconds(20);
inline constexpr absl::Duration kRefusedWithin = absl::Seconds(5);

class TlsFixture : public ::testing::TestWithParam<Refusal> {
 protected:
  static void SetUpTestSuite();
  void SetUp() override;
  // Back to plaintext, for whatever the program does next.
  void TearDown() override;

  static const TestCertificates& certificates();
  // Each side's TLS for `refusal`; a plaintext side has none.
  static TlsConfig ServerTls(Refusal refusal);
  static TlsConfig ClientTls(Refusal refusal);

  // `status`, which took `took`, is a refused handshake: fatal, at once,
  // and its message has `names` (the server and how it was called)
  // followed by the handshake's failure.
  static void ExpectRefused(const absl::Status& status, absl::Duration took,
                            const std::string& names);

  // A call of no service to `address` over TLS that trusts the CA and
  // presents no certificate, or `certificate`'s. UNIMPLEMENTED says the
  // server let the client in; UNAVAILABLE that it refused it.
  static grpc::StatusCode CallOverTls(const std::string& address,
                                      const TlsConfig* certificate);
};

}  // namespace sluice::testing

#endif  // SLUICE_TEST_INTEGRATION_TLS_FIXTURE_H_
