// Drain and kill from the lighthouse's status page, end to end under mutual
// TLS: a sluice_lighthouse process serving its page over HTTPS, three
// manager_replica processes with certificates naming them, and an operator
// who POSTs with a certificate of the same CA. The killed replica's process
// ends with kKilledByOperatorExitCode, the drained one's with 0, and the
// rest keep committing.
#include <httplib.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/ft/manager.h"
#include "sluice/support/tls.h"
#include "test/util/child_process.h"
#include "test/util/test_certificates.h"

namespace sluice::ft {
namespace {

using ::sluice::testing::ChildProcess;
using ::sluice::testing::ChildProcessOptions;
using ::sluice::testing::Runfile;
using ::testing::HasSubstr;

constexpr absl::Duration kWait = absl::Seconds(60);

std::vector<std::string> TlsFlags(const TlsConfig& tls) {
  return {"--tls_cert=" + tls.cert_file, "--tls_key=" + tls.key_file,
          "--tls_ca=" + tls.ca_file};
}

// The replica's environment: its certificate, and, under ThreadSanitizer,
// no report of threads left unjoined, which a kill's _exit leaves by
// design and whose report would replace its exit status with TSan's.
std::vector<std::string> ReplicaEnvironment(const TlsConfig& tls) {
  const char* tsan = std::getenv("TSAN_OPTIONS");
  return {"SLUICE_TLS_CERT=" + tls.cert_file, "SLUICE_TLS_KEY=" + tls.key_file,
          "SLUICE_TLS_CA=" + tls.ca_file,
          absl::StrCat("TSAN_OPTIONS=", tsan != nullptr ? tsan : "",
                       tsan != nullptr ? ":" : "", "report_thread_leaks=0")};
}

// The text after `prefix` in the first line of `child` that starts with it.
std::string AfterPrefix(const ChildProcess& child, const std::string& prefix) {
  const std::string line = child.WaitForLine(prefix, kWait);
  return line.empty() ? "" : line.substr(prefix.size());
}

int CommittedLines(const ChildProcess& child) {
  int committed = 0;
  for (const std::string& line : child.Lines()) {
    if (absl::StartsWith(line, "commit ") &&
        absl::StrContains(line, " commit=1 ")) {
      ++committed;
    }
  }
  return committed;
}

// Waits (bounded) until `child` has committed `more` steps past now.
bool CommitsMore(const ChildProcess& child, int more) {
  const int before = CommittedLines(child);
  const absl::Time deadline = absl::Now() + kWait;
  while (absl::Now() < deadline) {
    if (CommittedLines(child) >= before + more) return true;
    absl::SleepFor(absl::Milliseconds(50));
  }
  return false;
}

class OperatorActionsProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    ASSERT_NE(tmp, nullptr);
    const std::string dir = std::string(tmp) + "/certificates";
    auto made = sluice::testing::MakeTestCertificates(dir);
    ASSERT_TRUE(made.ok()) << made.status();
    certs_ = *made;
    auto operator_cert =
        sluice::testing::MakeNamedCertificate(dir, "operator_alice");
    ASSERT_TRUE(operator_cert.ok()) << operator_cert.status();
    operator_ = *operator_cert;

    ChildProcessOptions lighthouse;
    lighthouse.argv = {Runfile("tools/sluice_lighthouse/sluice_lighthouse"),
                       "--address=127.0.0.1:0",
                       "--http_port=0",
                       "--min_replicas=1",
                       "--join_timeout_ms=3000",
                       "--quorum_tick_ms=20"};
    for (const std::string& flag : TlsFlags(certs_.good)) {
      lighthouse.argv.push_back(flag);
    }
    lighthouse.name = "lighthouse";
    lighthouse.stderr_to = ChildProcessOptions::Stderr::kOwnFile;
    lighthouse_ = std::make_unique<ChildProcess>(lighthouse);
    ASSERT_TRUE(lighthouse_->started()) << lighthouse_->start_error();
    address_ = AfterPrefix(*lighthouse_, "lighthouse listening on ");
    ASSERT_FALSE(address_.empty()) << lighthouse_->Stderr();
    const std::string page = AfterPrefix(*lighthouse_, "status page at ");
    ASSERT_TRUE(absl::StartsWith(page, "https://127.0.0.1:")) << page;
    page_port_ = std::stoi(page.substr(page.rfind(':') + 1));

    for (const char* id : {"replica_a", "replica_b", "replica_c"}) {
      auto named = sluice::testing::MakeNamedCertificate(dir, id);
      ASSERT_TRUE(named.ok()) << named.status();
      ChildProcessOptions replica;
      replica.argv = {Runfile("test/integration/manager_replica"),
                      "--lighthouse=" + address_,
                      std::string("--replica_id=") + id,
                      "--floats=1024",
                      "--until_step=1000000",
                      "--min_step_ms=50"};
      replica.environment = ReplicaEnvironment(*named);
      replica.unset_environment = {"SLUICE_FAULTS", "SLUICE_LIGHTHOUSE",
                                   "SLUICE_REPLICA_ID"};
      replica.name = id;
      replica.stderr_to = ChildProcessOptions::Stderr::kOwnFile;
      replicas_.push_back(std::make_unique<ChildProcess>(replica));
      ASSERT_TRUE(replicas_.back()->started());
    }
    // Every replica trains, all three in one quorum.
    for (const auto& replica : replicas_) {
      ASSERT_FALSE(replica->WaitForLine("quorum generation=", kWait).empty())
          << replica->Output() << replica->Stderr();
    }
    for (const auto& replica : replicas_) {
      ASSERT_TRUE(CommitsMore(*replica, 3))
          << replica->Output() << replica->Stderr();
    }
  }

  void TearDown() override {
    for (const auto& replica : replicas_) replica->Kill();
    if (lighthouse_ != nullptr) lighthouse_->Kill();
  }

  // POSTs `path` to the status page with the operator's certificate.
  httplib::Result Post(const std::string& path) {
    httplib::SSLClient client("127.0.0.1", page_port_, operator_.cert_file,
                              operator_.key_file);
    client.set_ca_cert_path(certs_.ca_file.c_str());
    client.enable_server_certificate_verification(true);
    client.set_read_timeout(10);
    return client.Post(path, "", "text/plain");
  }

  sluice::testing::TestCertificates certs_;
  TlsConfig operator_;
  std::unique_ptr<ChildProcess> lighthouse_;
  std::string address_;
  int page_port_ = 0;
  std::vector<std::unique_ptr<ChildProcess>> replicas_;
};

TEST_F(OperatorActionsProcessTest, KillThenDrainWhileTheRestCommit) {
  ChildProcess& a = *replicas_[0];
  ChildProcess& b = *replicas_[1];
  ChildProcess& c = *replicas_[2];

  httplib::Result killed = Post("/replicas/replica_a/kill");
  ASSERT_TRUE(killed) << httplib::to_string(killed.error());
  EXPECT_EQ(killed->status, 200) << killed->body;
  EXPECT_EQ(a.WaitForExit(kWait), kKilledByOperatorExitCode)
      << a.DescribeExit() << "\n"
      << a.Stderr();
  EXPECT_THAT(a.Stderr(),
              HasSubstr("replica replica_a: killed by the operator "
                        "(operator_alice from the lighthouse status page)"));
  EXPECT_TRUE(CommitsMore(b, 3)) << b.Output() << b.Stderr();
  EXPECT_TRUE(CommitsMore(c, 3)) << c.Output() << c.Stderr();

  httplib::Result drained = Post("/replicas/replica_b/drain");
  ASSERT_TRUE(drained) << httplib::to_string(drained.error());
  EXPECT_EQ(drained->status, 200) << drained->body;
  EXPECT_EQ(b.WaitForExit(kWait), 0) << b.DescribeExit() << "\n" << b.Stderr();
  EXPECT_FALSE(
      b.WaitForLine("replica replica_b drained by the operator at step ",
                    absl::Seconds(1))
          .empty())
      << b.Output();
  EXPECT_TRUE(CommitsMore(c, 3)) << c.Output() << c.Stderr();

  // The lighthouse logged both, naming the operator and where from.
  const std::string log = lighthouse_->Stderr();
  EXPECT_THAT(log, HasSubstr("killed replica replica_a for the operator "
                             "operator_alice at 127.0.0.1:"));
  EXPECT_THAT(log, HasSubstr("drained replica replica_b for the operator "
                             "operator_alice at 127.0.0.1:"));
  // An unknown replica is named in the 404.
  httplib::Result unknown = Post("/replicas/replica_z/kill");
  ASSERT_TRUE(unknown) << httplib::to_string(unknown.error());
  EXPECT_EQ(unknown->status, 404);
  EXPECT_THAT(unknown->body, HasSubstr("replica_z"));
}

}  // namespace
}  // namespace sluice::ft
