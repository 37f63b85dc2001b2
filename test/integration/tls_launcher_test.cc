// Mutual TLS on the services of a launched job, on 127.0.0.1: the step
// monitor (a sluice_monitor process), with a rank's StepReporter and a
// launcher's MonitorClient as its clients, and the launchers' rendezvous
// (node 0's server in this process), with another node's client and a
// sluice_launch process as that node. With certificates of one CA the rank
// reports, the launcher reads and the node joins. A client that presents
// no certificate is refused by the server. A plaintext client, a client
// certificate of another CA or an expired one, a server certificate the
// client does not trust and a plaintext server are each refused at once,
// with an error that names the server and says the handshake failed,
// classified fatal; the rank, which has no error to return, says it in its
// warning and trains on. tls_services_test.cc does the same for the store
// and healing.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/launcher/launcher_monitor.h"
#include "lib/launcher/launcher_rendezvous.h"
#include "sluice/monitor/step_reporter.h"
#include "sluice/support/logging.h"
#include "sluice/support/tls.h"
#include "test/integration/tls_fixture.h"
#include "test/integration/worker_process.h"
#include "test/util/child_process.h"
#include "test/util/log_capture.h"
#include "test/util/wait_until.h"

namespace sluice::testing {
namespace {

using ::sluice::dist::testing::PortReservation;
using ::testing::HasSubstr;

constexpr char kListening[] = "sluice_monitor listening on ";

class MonitorTlsTest : public TlsFixture {
 protected:
  // A sluice_monitor process with `server`'s TLS, then this process's set
  // to `client`.
  void Start(const TlsConfig& server, const TlsConfig& client) {
    ChildProcessOptions options;
    options.argv = {Runfile("tools/sluice_monitor/sluice_monitor"),
                    "--address=127.0.0.1:0", "--world_size=1"};
    if (server.enabled()) {
      for (std::string& flag : TestCertificates::Flags(server)) {
        options.argv.push_back(std::move(flag));
      }
    }
    options.name = "sluice_monitor";
    monitor_ = std::make_unique<ChildProcess>(std::move(options));
    ASSERT_TRUE(monitor_->started()) << monitor_->start_error();
    const std::string line = monitor_->WaitForLine(kListening, kDeadline);
    ASSERT_FALSE(line.empty()) << monitor_->Output();
    address_ = line.substr(sizeof(kListening) - 1);
    ASSERT_TRUE(SetTlsConfig(client).ok());
  }

  std::unique_ptr<ChildProcess> monitor_;
  std::string address_;
};

TEST_F(MonitorTlsTest, ARankReportsAndALauncherReadsOverMutualTls) {
  ASSERT_NO_FATAL_FAILURE(Start(certificates().good, certificates().good));
  test_util::ScopedLogCapture log;
  std::unique_ptr<monitor::StepReporter> reporter =
      monitor::StepReporter::Connect(address_, 0);
  reporter->EpochEnd(0);
  reporter->TrainEnd();
  launcher::MonitorClient client(address_);
  ASSERT_TRUE(client.WaitUntilServing(kDeadline).ok());
  EXPECT_TRUE(WaitUntil(
      [&] {
        absl::StatusOr<launcher::MonitorSnapshot> state =
            client.GetState(kDeadline);
        return state.ok() && state->min_finished_epoch == 1;
      },
      kDeadline));
  EXPECT_EQ(reporter->connections(), 1);
  EXPECT_THAT(absl::StrJoin(log.lines(), "\n"),
              ::testing::Not(HasSubstr("unreachable")));
}

TEST_F(MonitorTlsTest, AClientWithoutACertificateIsRefused) {
  ASSERT_NO_FATAL_FAILURE(Start(certificates().good, certificates().good));
  EXPECT_EQ(CallOverTls(address_, &certificates().good),
            grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(CallOverTls(address_, nullptr), grpc::StatusCode::UNAVAILABLE);
}

TEST_P(MonitorTlsTest, ALauncherIsRefused) {
  ASSERT_NO_FATAL_FAILURE(Start(ServerTls(GetParam()), ClientTls(GetParam())));
  launcher::MonitorClient client(address_);
  const std::string names = "GetState on the monitor at " + address_ + ": ";
  absl::Time start = absl::Now();
  absl::Status serving = client.WaitUntilServing(kDeadline);
  ExpectRefused(serving, absl::Now() - start, names);
  start = absl::Now();
  absl::StatusOr<launcher::MonitorSnapshot> state = client.GetState(kDeadline);
  ExpectRefused(state.status(), absl::Now() - start, names);
}

// Reporting never fails the rank: the refusal is its warning's reason.
TEST_P(MonitorTlsTest, ARankIsToldWhyItsMonitorIsUnreachable) {
  ASSERT_NO_FATAL_FAILURE(Start(ServerTls(GetParam()), ClientTls(GetParam())));
  test_util::ScopedLogCapture log;
  std::unique_ptr<monitor::StepReporter> reporter =
      monitor::StepReporter::Connect(address_, 0);
  reporter->StepBegin(1);
  const std::string warning =
      absl::StrCat("rank 0: step monitor at ", address_,
                   " unreachable (the TLS handshake failed (");
  EXPECT_TRUE(WaitUntil(
      [&] {
        for (const test_util::ScopedLogCapture::Entry& entry : log.entries()) {
          if (entry.first == LogSeverity::kWarning &&
              entry.second.find(warning) != std::string::npos) {
            return true;
          }
        }
        return false;
      },
      kRefusedWithin))
      << absl::StrJoin(log.lines(), "\n");
  reporter->StepEnd(1);
}

INSTANTIATE_TEST_SUITE_P(Refusals, MonitorTlsTest,
                         ::testing::ValuesIn(AllRefusals()), RefusalName);

class RendezvousTlsTest : public TlsFixture {
 protected:
  // Node 0's rendezvous of a job of two nodes of one rank each, with
  // `server`'s TLS, then this process's set to `client`.
  void Start(const TlsConfig& server, const TlsConfig& client) {
    absl::StatusOr<PortReservation> port = PortReservation::Reserve();
    ASSERT_TRUE(port.ok()) << port.status();
    address_ = port->address();
    port_ = *std::move(port);
    ASSERT_TRUE(SetTlsConfig(server).ok());
    absl::StatusOr<std::unique_ptr<launcher::RendezvousServer>> started =
        launcher::RendezvousServer::Start(address_, /*nnodes=*/2, /*nproc=*/1,
                                          /*monitor_address=*/"",
                                          /*node_timeout=*/absl::Minutes(1));
    ASSERT_TRUE(started.ok()) << started.status();
    server_ = *std::move(started);
    ASSERT_TRUE(SetTlsConfig(client).ok());
  }

  static launcher::NodeReportInfo Report() {
    launcher::NodeReportInfo report;
    report.node_rank = 1;
    return report;
  }

  std::optional<PortReservation> port_;
  std::string address_;
  std::unique_ptr<launcher::RendezvousServer> server_;
};

TEST_F(RendezvousTlsTest, ANodeJoinsOverMutualTls) {
  ASSERT_NO_FATAL_FAILURE(Start(certificates().good, certificates().good));
  launcher::RendezvousClient client(address_);
  absl::StatusOr<launcher::JoinInfo> joined =
      client.Join(1, 1, "127.0.0.1", kDeadline);
  ASSERT_TRUE(joined.ok()) << joined.status();
  EXPECT_EQ(joined->world_size, 2);
  EXPECT_EQ(joined->rank_offset, 1);
  EXPECT_EQ(server_->JoinedNodes(), 1);
  absl::StatusOr<launcher::RendezvousView> view =
      client.Poll(Report(), kDeadline);
  EXPECT_TRUE(view.ok()) << view.status();
}

TEST_F(RendezvousTlsTest, AClientWithoutACertificateIsRefused) {
  ASSERT_NO_FATAL_FAILURE(Start(certificates().good, certificates().good));
  EXPECT_EQ(CallOverTls(address_, &certificates().good),
            grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(CallOverTls(address_, nullptr), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(server_->JoinedNodes(), 0);
}

TEST_P(RendezvousTlsTest, ANodeIsRefused) {
  ASSERT_NO_FATAL_FAILURE(Start(ServerTls(GetParam()), ClientTls(GetParam())));
  launcher::RendezvousClient client(address_);
  absl::Time start = absl::Now();
  absl::StatusOr<launcher::JoinInfo> joined =
      client.Join(1, 1, "127.0.0.1", kDeadline);
  ExpectRefused(joined.status(), absl::Now() - start,
                "Join on the rendezvous at " + address_ + ": ");
  start = absl::Now();
  absl::StatusOr<launcher::RendezvousView> view =
      client.Poll(Report(), kDeadline);
  ExpectRefused(view.status(), absl::Now() - start,
                "Poll on the rendezvous at " + address_ + ": ");
  EXPECT_EQ(server_->JoinedNodes(), 0);
}

INSTANTIATE_TEST_SUITE_P(Refusals, RendezvousTlsTest,
                         ::testing::ValuesIn(AllRefusals()), RefusalName);

// A refused node would be refused again: sluice_launch gives up at once
// rather than at the end of its rendezvous timeout, and says why.
TEST_F(RendezvousTlsTest, APlaintextLauncherStopsAtOnceAndSaysWhy) {
  ASSERT_NO_FATAL_FAILURE(Start(certificates().good, certificates().good));
  ChildProcessOptions options;
  options.argv = {Runfile("tools/sluice_launch/sluice_launch"),
                  "--nnodes=2",
                  "--node_rank=1",
                  "--nproc=1",
                  "--rendezvous=" + address_,
                  "--rendezvous_timeout_s=120",
                  "--",
                  "true"};
  options.name = "sluice_launch";
  ChildProcess launch(std::move(options));
  ASSERT_TRUE(launch.started()) << launch.start_error();
  EXPECT_EQ(launch.WaitForExit(kDeadline), 1) << launch.Output();
  EXPECT_THAT(
      launch.Output(),
      HasSubstr(absl::StrCat("sluice_launch: cannot join the rendezvous at ",
                             address_, " as node 1: Join on the rendezvous at ",
                             address_, ": the TLS handshake failed (")));
  EXPECT_EQ(server_->JoinedNodes(), 0);
}

}  // namespace
}  // namespace sluice::testing
