// EtcdClient over TLS against a real etcd on 127.0.0.1 that serves only
// TLS and requires a client certificate of the test CA: the good
// certificate reads and writes; a certificate of another CA, an expired
// one, a CA that did not sign etcd's, a server that does not name the
// address dialed, and a plaintext server each fail fast with an error
// naming the endpoint and saying the TLS handshake failed; such an endpoint
// is passed over for the next one; an http:// endpoint to the TLS port
// says to use https://; an https:// endpoint without TLS is refused at
// Create.
#include <httplib.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/lighthouse/etcd_client.h"
#include "sluice/support/tls.h"
#include "test/integration/ha/etcd_process.h"
#include "test/util/test_certificates.h"

namespace sluice::lighthouse {
namespace {

using ::sluice::testing::MakeTestCertificates;
using ::sluice::testing::TestCertificates;
using ::testing::AllOf;
using ::testing::AnyOf;
using testing::EtcdProcess;
using ::testing::HasSubstr;

constexpr absl::Duration kRequestTimeout = absl::Seconds(2);
// A refused handshake on loopback takes milliseconds; the bound leaves room
// for the sanitizers and a loaded machine, and stays under the request
// timeout, which a handshake that hung would reach.
constexpr absl::Duration kFailFast = absl::Milliseconds(1500);

std::string TempRoot() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr && *dir != '\0' ? dir : "/tmp";
}

ProcessTls Files(const TlsConfig& config) {
  absl::StatusOr<TlsCredentialFiles> files = ReadTlsFiles(config, "--tls_");
  EXPECT_TRUE(files.ok()) << files.status();
  return ProcessTls{true, files.ok() ? *files : TlsCredentialFiles()};
}

class EtcdClientTlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (access("/usr/bin/etcd", X_OK) != 0) return;
    absl::StatusOr<TestCertificates> made =
        MakeTestCertificates(TempRoot() + "/certificates");
    ASSERT_TRUE(made.ok()) << made.status();
    certificates_ = new TestCertificates(*std::move(made));
    absl::StatusOr<std::unique_ptr<EtcdProcess>> etcd =
        EtcdProcess::Start(certificates_->good);
    ASSERT_TRUE(etcd.ok()) << etcd.status();
    etcd_ = etcd->release();
  }

  static void TearDownTestSuite() {
    delete etcd_;
    delete certificates_;
  }

  void SetUp() override {
    if (access("/usr/bin/etcd", X_OK) != 0) {
      GTEST_SKIP() << "/usr/bin/etcd is missing (Debian's etcd-server)";
    }
    ASSERT_NE(etcd_, nullptr);
  }

  static std::unique_ptr<EtcdClient> NewClient(
      const std::vector<std::string>& endpoints, const TlsConfig& config) {
    auto client = EtcdClient::Create(endpoints, kRequestTimeout, Files(config));
    EXPECT_TRUE(client.ok()) << client.status();
    return client.ok() ? *std::move(client) : nullptr;
  }

  // A Get that must fail: its status, after checking it failed fast.
  static absl::Status FailingGet(EtcdClient& client, const char* what) {
    const absl::Time start = absl::Now();
    absl::Status status = client.Get("k").status();
    const absl::Duration took = absl::Now() - start;
    std::printf("%s: refused in %s: %s\n", what,
                absl::FormatDuration(took).c_str(),
                std::string(status.message()).c_str());
    EXPECT_LT(took, kFailFast) << what;
    EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable) << status;
    return status;
  }

  static TestCertificates* certificates_;
  static EtcdProcess* etcd_;
};

TestCertificates* EtcdClientTlsTest::certificates_ = nullptr;
EtcdProcess* EtcdClientTlsTest::etcd_ = nullptr;

TEST_F(EtcdClientTlsTest, GoodCertificateReadsAndWrites) {
  for (const std::string& endpoint :
       {etcd_->endpoint(),
        absl::StrCat("https://localhost:", etcd_->client_port())}) {
    auto client = NewClient({endpoint}, certificates_->good);
    ASSERT_NE(client, nullptr);
    const absl::Time start = absl::Now();
    ASSERT_TRUE(client->Put({"k", endpoint}).ok()) << endpoint;
    auto read = client->Get("k");
    std::printf("%s: a put and a get in %s\n", endpoint.c_str(),
                absl::FormatDuration(absl::Now() - start).c_str());
    ASSERT_TRUE(read.ok()) << read.status();
    ASSERT_TRUE(read->has_value());
    EXPECT_EQ((*read)->value, endpoint);
  }
}

TEST_F(EtcdClientTlsTest, CertificateOfAnotherCaFailsTheHandshake) {
  auto client = NewClient({etcd_->endpoint()}, certificates_->other_ca);
  ASSERT_NE(client, nullptr);
  // This side refuses etcd's certificate before etcd sees this one.
  EXPECT_THAT(FailingGet(*client, "another CA").message(),
              AllOf(HasSubstr(etcd_->endpoint() +
                              ": the TLS handshake failed: this process "
                              "refused etcd's certificate (unable to get "
                              "local issuer certificate)"),
                    HasSubstr("--tls_ca")));
}

TEST_F(EtcdClientTlsTest, TrustingAnotherCaFailsTheHandshake) {
  auto client = NewClient({etcd_->endpoint()}, certificates_->trusts_other);
  ASSERT_NE(client, nullptr);
  EXPECT_THAT(
      FailingGet(*client, "trusting another CA").message(),
      HasSubstr(etcd_->endpoint() + ": the TLS handshake failed: this process "
                                    "refused etcd's certificate"));
}

TEST_F(EtcdClientTlsTest, EtcdRefusesAnExpiredCertificate) {
  auto client = NewClient({etcd_->endpoint()}, certificates_->expired);
  ASSERT_NE(client, nullptr);
  // etcd refuses it after this side's handshake ended: its alert names
  // why, unless the request being written met the closed connection first.
  const std::string message(FailingGet(*client, "expired").message());
  EXPECT_THAT(message,
              HasSubstr(etcd_->endpoint() + ": the TLS handshake failed"));
  EXPECT_THAT(message,
              AnyOf(HasSubstr("(etcd sent sslv3 alert bad certificate)"),
                    HasSubstr("etcd closed the connection at once, most "
                              "likely refusing this process's certificate")));
}

TEST_F(EtcdClientTlsTest, ServerNotNamingTheAddressDialedIsRefused) {
  // The certificates name 127.0.0.1 and localhost, not 127.0.0.2.
  httplib::SSLServer server(certificates_->good.cert_file.c_str(),
                            certificates_->good.key_file.c_str());
  ASSERT_TRUE(server.is_valid());
  server.Post("/v3/kv/range",
              [](const httplib::Request&, httplib::Response& response) {
                response.set_content("{}", "application/json");
              });
  const int port = server.bind_to_any_port("127.0.0.2");
  ASSERT_GT(port, 0) << "cannot listen on 127.0.0.2";
  std::thread serving([&server] { server.listen_after_bind(); });
  const std::string endpoint = absl::StrCat("https://127.0.0.2:", port);
  auto client = NewClient({endpoint}, certificates_->good);
  ASSERT_NE(client, nullptr);
  EXPECT_THAT(FailingGet(*client, "another address").message(),
              HasSubstr(endpoint + ": the TLS handshake failed: this process "
                                   "refused etcd's certificate (IP address "
                                   "mismatch)"));
  server.stop();
  serving.join();
}

TEST_F(EtcdClientTlsTest, PlaintextEtcdFailsTheHandshake) {
  absl::StatusOr<std::unique_ptr<EtcdProcess>> plain = EtcdProcess::Start();
  ASSERT_TRUE(plain.ok()) << plain.status();
  const std::string endpoint =
      absl::StrCat("https://127.0.0.1:", (*plain)->client_port());
  auto client = NewClient({endpoint}, certificates_->good);
  ASSERT_NE(client, nullptr);
  EXPECT_THAT(FailingGet(*client, "plaintext etcd").message(),
              HasSubstr(endpoint + ": the TLS handshake failed ("));
}

TEST_F(EtcdClientTlsTest, HttpEndpointOfTheTlsPortSaysToUseHttps) {
  const std::string http =
      absl::StrCat("http://127.0.0.1:", etcd_->client_port());
  auto client = NewClient({http}, certificates_->good);
  ASSERT_NE(client, nullptr);
  EXPECT_THAT(FailingGet(*client, "http:// to the TLS port").message(),
              HasSubstr(http +
                        ": no reply: etcd closed the connection at once (if "
                        "it serves only TLS on that port, give " +
                        etcd_->endpoint()));
}

TEST_F(EtcdClientTlsTest, RefusedEndpointsArePassedOver) {
  const std::string http =
      absl::StrCat("http://127.0.0.1:", etcd_->client_port());
  const std::string closed = "https://127.0.0.1:1";
  auto client =
      NewClient({http, closed, etcd_->endpoint()}, certificates_->good);
  ASSERT_NE(client, nullptr);
  ASSERT_TRUE(client->Put({"passed", "over"}).ok());

  auto refused =
      NewClient({closed, etcd_->endpoint()}, certificates_->other_ca);
  ASSERT_NE(refused, nullptr);
  EXPECT_THAT(
      FailingGet(*refused, "every endpoint").message(),
      AllOf(HasSubstr(closed + ": cannot connect"),
            HasSubstr(etcd_->endpoint() + ": the TLS handshake failed")));
}

TEST_F(EtcdClientTlsTest, HttpsWithoutTlsIsRefusedAtCreate) {
  auto client =
      EtcdClient::Create({etcd_->endpoint()}, kRequestTimeout, ProcessTls());
  EXPECT_EQ(client.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(client.status().message(),
              AllOf(HasSubstr("etcd endpoint '" + etcd_->endpoint() +
                              "' is https but this process has no TLS "
                              "configured"),
                    HasSubstr("give --tls_cert, --tls_key and --tls_ca")));
}

TEST_F(EtcdClientTlsTest, KeyOfAnotherCertificateIsRefusedAtCreate) {
  TlsConfig mixed = certificates_->good;
  mixed.key_file = certificates_->other_ca.key_file;
  auto client =
      EtcdClient::Create({etcd_->endpoint()}, kRequestTimeout, Files(mixed));
  EXPECT_EQ(client.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(client.status().message(),
              HasSubstr("--tls_key is not the private key of --tls_cert"));
}

}  // namespace
}  // namespace sluice::lighthouse
