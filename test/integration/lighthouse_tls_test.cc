// Mutual TLS between a lighthouse and its replicas' client, in one process
// over 127.0.0.1 (the process-wide setting is changed between making the
// server and the client): a replica whose certificate carries its id forms
// a quorum; one that speaks for an id its certificate does not carry is
// refused; a plaintext client, a certificate of another CA, an expired one,
// a server the client does not trust and a plaintext server each fail at
// once with an error naming the lighthouse and the handshake, classified
// fatal.
#include <memory>
#include <string>
#include <utility>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/lighthouse/lighthouse_client.h"
#include "sluice/lighthouse/lighthouse.h"
#include "sluice/support/failure.h"
#include "sluice/support/tls.h"
#include "test/util/test_certificates.h"

namespace sluice::lighthouse {
namespace {

using ::sluice::testing::MakeNamedCertificate;
using ::sluice::testing::TestCertificateDir;
using ::sluice::testing::MakeTestCertificates;
using ::sluice::testing::TestCertificates;
using ::testing::HasSubstr;

constexpr absl::Duration kTimeout = absl::Seconds(20);
// A refused handshake is seen at once, far below the call's timeout.
constexpr absl::Duration kRefusedWithin = absl::Seconds(5);

proto::QuorumRequest Ask(const std::string& id) {
  proto::QuorumRequest request;
  request.mutable_replica()->set_replica_id(id);
  request.mutable_replica()->set_address("127.0.0.1:1");
  request.mutable_replica()->set_incarnation(1);
  return request;
}

proto::HeartbeatRequest Beat(const std::string& id) {
  proto::HeartbeatRequest request;
  request.set_replica_id(id);
  request.set_incarnation(1);
  return request;
}

class LighthouseTlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<TestCertificates> certificates =
        MakeTestCertificates(TestCertificateDir());
    ASSERT_TRUE(certificates.ok()) << certificates.status();
    certificates_ = *std::move(certificates);
    absl::StatusOr<TlsConfig> replica_a =
        MakeNamedCertificate(TestCertificateDir(), "replica_a");
    ASSERT_TRUE(replica_a.ok()) << replica_a.status();
    replica_a_ = *std::move(replica_a);
  }

  void TearDown() override {
    client_.reset();
    if (lighthouse_ != nullptr) lighthouse_->Shutdown();
    EXPECT_TRUE(SetTlsConfig(TlsConfig()).ok());
  }

  // A lighthouse with `server` and a client with `client` (an empty
  // config: plaintext).
  void Start(const TlsConfig& server, const TlsConfig& client) {
    ASSERT_TRUE(SetTlsConfig(server).ok());
    LighthouseOptions options;
    options.bind = "127.0.0.1:0";
    options.quorum_tick = absl::Milliseconds(20);
    absl::StatusOr<std::unique_ptr<Lighthouse>> lighthouse =
        Lighthouse::Start(options);
    ASSERT_TRUE(lighthouse.ok()) << lighthouse.status();
    lighthouse_ = *std::move(lighthouse);
    ASSERT_TRUE(SetTlsConfig(client).ok());
    absl::StatusOr<std::unique_ptr<LighthouseClient>> made =
        LighthouseClient::Create({lighthouse_->address()});
    ASSERT_TRUE(made.ok()) << made.status();
    client_ = *std::move(made);
  }

  // A quorum request fails at once, fatally, naming the lighthouse and the
  // handshake.
  void ExpectRefused() {
    const absl::Time start = absl::Now();
    absl::StatusOr<proto::Quorum> quorum =
        client_->Quorum(Ask("replica_a"), kTimeout);
    ASSERT_FALSE(quorum.ok());
    EXPECT_LT(absl::Now() - start, kRefusedWithin) << quorum.status();
    EXPECT_THAT(quorum.status().message(),
                HasSubstr("to lighthouse " + lighthouse_->address()));
    EXPECT_THAT(quorum.status().message(),
                HasSubstr("the TLS handshake failed"));
    EXPECT_EQ(FailureClassName(Classify(quorum.status())), "fatal")
        << quorum.status();
  }

  TestCertificates certificates_;
  TlsConfig replica_a_;  // names replica_a
  std::unique_ptr<Lighthouse> lighthouse_;
  std::unique_ptr<LighthouseClient> client_;
};

TEST_F(LighthouseTlsTest, AReplicaWhoseCertificateCarriesItsIdFormsAQuorum) {
  ASSERT_NO_FATAL_FAILURE(Start(certificates_.good, replica_a_));
  EXPECT_TRUE(client_->Heartbeat(Beat("replica_a"), kTimeout).ok());
  absl::StatusOr<proto::Quorum> quorum =
      client_->Quorum(Ask("replica_a"), kTimeout);
  ASSERT_TRUE(quorum.ok()) << quorum.status();
  ASSERT_EQ(quorum->participants_size(), 1);
  EXPECT_EQ(quorum->participants(0).replica_id(), "replica_a");
}

TEST_F(LighthouseTlsTest, AReplicaCannotSpeakForAnIdItsCertificateLacks) {
  ASSERT_NO_FATAL_FAILURE(Start(certificates_.good, replica_a_));
  const std::string refusal =
      "refusing to hear replica replica_b from a certificate that names "
      "replica_a";
  absl::Status beat = client_->Heartbeat(Beat("replica_b"), kTimeout);
  EXPECT_EQ(beat.code(), absl::StatusCode::kPermissionDenied) << beat;
  EXPECT_THAT(beat.message(), HasSubstr(refusal));
  absl::StatusOr<proto::Quorum> quorum =
      client_->Quorum(Ask("replica_b"), kTimeout);
  ASSERT_FALSE(quorum.ok());
  EXPECT_THAT(quorum.status().message(), HasSubstr(refusal));
  EXPECT_EQ(FailureClassName(Classify(quorum.status())), "fatal");
  // The refused id never joined: the status knows only what it heard.
  absl::StatusOr<proto::LighthouseStatus> status =
      client_->GetStatus(kTimeout);
  ASSERT_TRUE(status.ok()) << status.status();
  for (const auto& replica : status->replicas()) {
    EXPECT_NE(replica.replica().replica_id(), "replica_b");
  }
}

TEST_F(LighthouseTlsTest, APlaintextClientIsRefused) {
  ASSERT_NO_FATAL_FAILURE(Start(certificates_.good, TlsConfig()));
  ExpectRefused();
}

TEST_F(LighthouseTlsTest, AClientCertificateOfAnotherCaIsRefused) {
  ASSERT_NO_FATAL_FAILURE(Start(certificates_.good, certificates_.other_ca));
  ExpectRefused();
}

TEST_F(LighthouseTlsTest, AnExpiredClientCertificateIsRefused) {
  ASSERT_NO_FATAL_FAILURE(Start(certificates_.good, certificates_.expired));
  ExpectRefused();
}

TEST_F(LighthouseTlsTest, AServerCertificateTheClientDoesNotTrustIsRefused) {
  ASSERT_NO_FATAL_FAILURE(
      Start(certificates_.good, certificates_.trusts_other));
  ExpectRefused();
}

TEST_F(LighthouseTlsTest, APlaintextServerIsRefused) {
  ASSERT_NO_FATAL_FAILURE(Start(TlsConfig(), replica_a_));
  ExpectRefused();
}

}  // namespace
}  // namespace sluice::lighthouse
