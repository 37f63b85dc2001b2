// Mutual TLS between a client (this process) and a sluice_worker process on
// 127.0.0.1: the round trip works with certificates of one CA; a client or
// server without TLS, or with a certificate of another CA, or an expired
// one, is refused, and the error names the task, says the handshake failed
// and is fatal (retrying will not help). A worker refuses to listen beyond
// loopback without TLS unless --insecure is given.
#include "sluice/support/tls.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/support/failure.h"
#include "test/integration/remote_test_util.h"
#include "test/integration/worker_fixture.h"
#include "test/integration/worker_process.h"
#include "test/util/child_process.h"
#include "test/util/test_certificates.h"

namespace sluice::dist::testing {
namespace {

using ::sluice::testing::ChildProcess;
using ::sluice::testing::ChildProcessOptions;
using ::sluice::testing::MakeTestCertificates;
using ::sluice::testing::TestCertificateDir;
using ::sluice::testing::TestCertificates;
using ::testing::HasSubstr;

// A refused handshake is refused at once: far below the call's deadline.
constexpr absl::Duration kDeadline = absl::Seconds(20);
constexpr absl::Duration kRefusedWithin = absl::Seconds(5);

class TlsTest : public WorkerFixture {
 protected:
  void SetUp() override {
    absl::StatusOr<TestCertificates> certificates =
        MakeTestCertificates(TestCertificateDir());
    ASSERT_TRUE(certificates.ok()) << certificates.status();
    certificates_ = *std::move(certificates);
  }

  void TearDown() override {
    WorkerFixture::TearDown();
    EXPECT_TRUE(SetTlsConfig(TlsConfig()).ok());
  }

  // A worker with `server` (none: plaintext) and a client with `client`.
  void Start(const TlsConfig* server, const TlsConfig& client,
             bool expect_answer) {
    ASSERT_TRUE(SetTlsConfig(client).ok());
    std::vector<std::string> flags = {"--work_queue_type=mstd:2"};
    if (server != nullptr) {
      for (std::string& flag : TestCertificates::Flags(*server)) {
        flags.push_back(std::move(flag));
      }
    }
    ASSERT_NO_FATAL_FAILURE(StartCluster(1, RpcOptions(),
                                         /*start_workers=*/expect_answer,
                                         flags));
    if (!expect_answer) ASSERT_NO_FATAL_FAILURE(StartWorker(0));
  }

  // The status request fails at once with a fatal error naming the task
  // and the handshake.
  void ExpectRefused() {
    const absl::Time start = absl::Now();
    absl::StatusOr<TaskStatus> status = GetStatusNow(task(0), kDeadline);
    ASSERT_FALSE(status.ok());
    EXPECT_LT(absl::Now() - start, kRefusedWithin) << status.status();
    EXPECT_THAT(status.status().message(),
                HasSubstr("on task " + Name(0) + " failed"));
    EXPECT_THAT(status.status().message(),
                HasSubstr("the TLS handshake failed"));
    EXPECT_EQ(FailureClassName(Classify(status.status())), "fatal")
        << status.status();
  }

  TestCertificates certificates_;
};

TEST_F(TlsTest, ACallRoundTripsOverMutualTls) {
  ASSERT_NO_FATAL_FAILURE(Start(&certificates_.good, certificates_.good,
                                /*expect_answer=*/true));
  absl::StatusOr<RemoteFunction> add = RegisterTestFunction(task(0), "add");
  ASSERT_TRUE(add.ok()) << add.status();
  auto sum = CallNow(task(0), *add, Args(I32(40), I32(2)));
  ASSERT_FALSE(sum[0]->IsError()) << sum[0]->GetError();
  EXPECT_EQ(sum[0]->get<int32_t>(), 42);
}

TEST_F(TlsTest, APlaintextClientIsRefused) {
  ASSERT_NO_FATAL_FAILURE(
      Start(&certificates_.good, TlsConfig(), /*expect_answer=*/false));
  ExpectRefused();
}

TEST_F(TlsTest, AClientCertificateOfAnotherCaIsRefused) {
  ASSERT_NO_FATAL_FAILURE(Start(&certificates_.good, certificates_.other_ca,
                                /*expect_answer=*/false));
  ExpectRefused();
}

TEST_F(TlsTest, AnExpiredClientCertificateIsRefused) {
  ASSERT_NO_FATAL_FAILURE(Start(&certificates_.good, certificates_.expired,
                                /*expect_answer=*/false));
  ExpectRefused();
}

TEST_F(TlsTest, AServerCertificateTheClientDoesNotTrustIsRefused) {
  ASSERT_NO_FATAL_FAILURE(Start(&certificates_.good, certificates_.trusts_other,
                                /*expect_answer=*/false));
  ExpectRefused();
}

TEST_F(TlsTest, APlaintextServerIsRefused) {
  ASSERT_NO_FATAL_FAILURE(
      Start(nullptr, certificates_.good, /*expect_answer=*/false));
  ExpectRefused();
}

// sluice_worker on every address without TLS: refused, and the message says
// how to fix it; with --insecure it starts and warns.
TEST_F(TlsTest, AWorkerBeyondLoopbackNeedsTlsOrInsecure) {
  absl::StatusOr<PortReservation> port = PortReservation::Reserve();
  ASSERT_TRUE(port.ok()) << port.status();
  const std::string address = absl::StrCat("0.0.0.0:", port->port());
  ChildProcessOptions refused;
  refused.argv = {WorkerBinaryPath(), "--task_name=/job:worker/task:0",
                  "--address=" + address};
  refused.name = "refused_worker";
  ChildProcess worker(refused);
  ASSERT_TRUE(worker.started()) << worker.start_error();
  EXPECT_NE(worker.WaitForExit(absl::Seconds(20)), 0);
  EXPECT_THAT(absl::StrJoin(worker.Lines(), "\n"),
              HasSubstr("refusing to listen on " + address +
                        " without TLS: anyone who reaches the port would be "
                        "served; give --tls_cert, --tls_key and --tls_ca"));

  ChildProcessOptions insecure = refused;
  insecure.argv.push_back("--insecure");
  insecure.name = "insecure_worker";
  ChildProcess allowed(insecure);
  ASSERT_TRUE(allowed.started()) << allowed.start_error();
  EXPECT_FALSE(allowed
                   .WaitForLine("sluice_worker /job:worker/task:0 listening on",
                                absl::Seconds(20))
                   .empty())
      << absl::StrJoin(allowed.Lines(), "\n");
  EXPECT_THAT(absl::StrJoin(allowed.Lines(), "\n"),
              HasSubstr("listens on " + address + " without TLS (--insecure)"));
  allowed.Kill();
}

}  // namespace
}  // namespace sluice::dist::testing
