// sluice_lighthouse processes over an etcd on 127.0.0.1 that serves only
// TLS and requires a client certificate of the test CA, the lighthouses
// dialing it with their --tls_* files: two with the good certificate elect
// a leader and the other takes over after kill -9 of it; one whose
// certificate is of another CA, and one given an http:// endpoint to the
// TLS port, cannot use etcd and exit saying why, naming the endpoint.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/lighthouse/lighthouse_client.h"
#include "sluice/support/tls.h"
#include "test/integration/ha/etcd_process.h"
#include "test/integration/ha/logged_process.h"
#include "test/util/test_certificates.h"

namespace sluice::lighthouse::testing {
namespace {

using ::sluice::testing::MakeTestCertificates;
using ::sluice::testing::TestCertificates;
using ::testing::HasSubstr;

// Starting a lighthouse, and a lease expiring and a follower noticing,
// under the sanitizers on a loaded machine.
constexpr absl::Duration kTimeout = absl::Seconds(30);
constexpr absl::Duration kStatusTimeout = absl::Seconds(2);

std::string TempRoot() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr && *dir != '\0' ? dir : "/tmp";
}

class LighthouseEtcdTlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access("/usr/bin/etcd", X_OK) != 0) {
      GTEST_SKIP() << "/usr/bin/etcd is missing (Debian's etcd-server)";
    }
    absl::StatusOr<TestCertificates> made =
        MakeTestCertificates(TempRoot() + "/certificates");
    ASSERT_TRUE(made.ok()) << made.status();
    certificates_ = *std::move(made);
    // The test's status requests to the lighthouses, which serve TLS.
    ASSERT_TRUE(SetTlsConfig(certificates_.good).ok());
    absl::StatusOr<std::unique_ptr<EtcdProcess>> etcd =
        EtcdProcess::Start(certificates_.good);
    ASSERT_TRUE(etcd.ok()) << etcd.status();
    etcd_ = *std::move(etcd);
  }

  void TearDown() override { EXPECT_TRUE(SetTlsConfig(TlsConfig()).ok()); }

  // A lighthouse on a fixed port (the others send replicas to it).
  absl::StatusOr<std::unique_ptr<LoggedProcess>> StartLighthouse(
      const std::string& name, const TlsConfig& tls, const std::string& etcd,
      std::string* address) {
    absl::StatusOr<int> port = PickFreePort();
    if (!port.ok()) return port.status();
    *address = absl::StrCat("127.0.0.1:", *port);
    std::vector<std::string> argv = {
        "tools/sluice_lighthouse/sluice_lighthouse", "--address=" + *address,
        "--etcd=" + etcd, "--etcd_lease_ttl_ms=2000"};
    if (tls.enabled()) {
      for (const std::string& flag : TestCertificates::Flags(tls)) {
        argv.push_back(flag);
      }
    }
    return LoggedProcess::Start(name, std::move(argv));
  }

  // The lighthouse's own status, over gRPC with TLS.
  static absl::StatusOr<proto::LighthouseStatus> Status(
      const std::string& address) {
    auto client = LighthouseClient::Create({address});
    if (!client.ok()) return client.status();
    return (*client)->GetStatus(kStatusTimeout);
  }

  // Waits until the lighthouse at `address` says it leads.
  static bool WaitForLeader(const std::string& address) {
    const absl::Time deadline = absl::Now() + kTimeout;
    while (absl::Now() < deadline) {
      auto status = Status(address);
      if (status.ok() && status->is_leader()) return true;
      absl::SleepFor(absl::Milliseconds(50));
    }
    return false;
  }

  // Waits for the lighthouse to exit; its output.
  static std::string WaitForExit(LoggedProcess& lighthouse) {
    EXPECT_TRUE(lighthouse.WaitForExit(kTimeout))
        << lighthouse.name() << " still runs:\n"
        << lighthouse.Tail();
    return absl::StrJoin(lighthouse.Lines(), "\n");
  }

  TestCertificates certificates_;
  std::unique_ptr<EtcdProcess> etcd_;
};

TEST_F(LighthouseEtcdTlsTest, FailoverOverTls) {
  std::string first_address, second_address;
  auto first = StartLighthouse("lighthouse 0", certificates_.good,
                               etcd_->endpoint(), &first_address);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE((*first)->WaitForLine("lighthouse listening on ", kTimeout).ok())
      << (*first)->Tail();
  ASSERT_TRUE(WaitForLeader(first_address)) << (*first)->Tail();

  auto second = StartLighthouse("lighthouse 1", certificates_.good,
                                etcd_->endpoint(), &second_address);
  ASSERT_TRUE(second.ok()) << second.status();
  ASSERT_TRUE((*second)->WaitForLine("lighthouse listening on ", kTimeout).ok())
      << (*second)->Tail();
  auto follower = Status(second_address);
  ASSERT_TRUE(follower.ok()) << follower.status();
  EXPECT_FALSE(follower->is_leader());
  EXPECT_EQ(follower->leader_address(), first_address);

  const absl::Time killed = absl::Now();
  (*first)->Kill();
  ASSERT_TRUE(WaitForLeader(second_address)) << (*second)->Tail();
  std::printf(
      "kill -9 of the leading lighthouse to the other leading, over TLS: "
      "%s\n",
      absl::FormatDuration(absl::Now() - killed).c_str());
}

TEST_F(LighthouseEtcdTlsTest, CertificateOfAnotherCaCannotUseEtcd) {
  std::string address;
  const absl::Time start = absl::Now();
  auto lighthouse = StartLighthouse("lighthouse", certificates_.other_ca,
                                    etcd_->endpoint(), &address);
  ASSERT_TRUE(lighthouse.ok()) << lighthouse.status();
  const std::string output = WaitForExit(**lighthouse);
  std::printf("a lighthouse of another CA exited after %s\n",
              absl::FormatDuration(absl::Now() - start).c_str());
  EXPECT_THAT(output, HasSubstr(etcd_->endpoint() +
                                ": the TLS handshake failed: this process "
                                "refused etcd's certificate"));
}

TEST_F(LighthouseEtcdTlsTest, HttpEndpointToTheTlsPortCannotUseEtcd) {
  std::string address;
  const std::string http =
      absl::StrCat("http://127.0.0.1:", etcd_->client_port());
  auto lighthouse =
      StartLighthouse("lighthouse", certificates_.good, http, &address);
  ASSERT_TRUE(lighthouse.ok()) << lighthouse.status();
  EXPECT_THAT(WaitForExit(**lighthouse),
              HasSubstr(http +
                        ": no reply: etcd closed the connection at once (if "
                        "it serves only TLS on that port, give " +
                        etcd_->endpoint()));
}

TEST_F(LighthouseEtcdTlsTest, HttpsEndpointWithoutTlsIsRefusedAtStart) {
  std::string address;
  auto lighthouse =
      StartLighthouse("lighthouse", TlsConfig(), etcd_->endpoint(), &address);
  ASSERT_TRUE(lighthouse.ok()) << lighthouse.status();
  EXPECT_THAT(WaitForExit(**lighthouse),
              HasSubstr("etcd endpoint '" + etcd_->endpoint() +
                        "' is https but this process has no TLS configured"));
}

}  // namespace
}  // namespace sluice::lighthouse::testing
