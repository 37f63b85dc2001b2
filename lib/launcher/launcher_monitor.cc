#include "lib/launcher/launcher_monitor.h"

#include <grpcpp/grpcpp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/launcher/launcher_cluster.h"
#include "lib/monitor/monitor_service.grpc.pb.h"
#include "lib/support/grpc_credentials.h"
#include "lib/support/grpc_handshake.h"
#include "lib/support/grpc_liveness.h"
#include "sluice/support/failure.h"

namespace sluice::launcher {
namespace {

// A refused TLS handshake is fatal: the monitor would refuse it again.
absl::Status FromGrpc(const grpc::Status& status, const std::string& what,
                      const std::string& address) {
  if (status.ok()) return absl::OkStatus();
  const grpc::Status checked = CheckHandshake(address, status);
  if (HandshakeFailed(checked)) {
    return MarkFailureClass(absl::UnavailableError(absl::StrCat(
                                what, " on the monitor at ", address, ": ",
                                HandshakeReason(checked))),
                            FailureClass::kFatal);
  }
  return absl::UnavailableError(absl::StrCat(
      what, " on the monitor at ", address, ": ", status.error_message()));
}

const char* KindName(monitor::proto::Verdict::Kind kind) {
  switch (kind) {
    case monitor::proto::Verdict::STUCK:
      return "stuck";
    case monitor::proto::Verdict::SILENT:
      return "silent";
    case monitor::proto::Verdict::DEAD:
      return "dead";
    default:
      return "finished";
  }
}

}  // namespace

struct MonitorClient::Stub {
  std::unique_ptr<monitor::proto::Monitor::Stub> stub;
};

MonitorClient::MonitorClient(const std::string& address)
    : address_(address),
      stub_(new Stub{
          monitor::proto::Monitor::NewStub(NewLivenessChannel(address))}) {}

MonitorClient::~MonitorClient() = default;

absl::StatusOr<MonitorSnapshot> MonitorClient::GetState(
    absl::Duration timeout) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  monitor::proto::GetStateRequest request;
  monitor::proto::JobState state;
  absl::Status status = FromGrpc(
      stub_->stub->GetState(&context, request, &state), "GetState", address_);
  if (!status.ok()) return status;
  MonitorSnapshot snapshot;
  snapshot.min_finished_epoch = state.min_finished_epoch();
  for (const monitor::proto::Verdict& verdict : state.verdicts()) {
    if (verdict.kind() == monitor::proto::Verdict::FINISHED) continue;
    snapshot.failures.push_back(FailureVerdict{
        verdict.rank(), KindName(verdict.kind()), verdict.message(),
        absl::FromUnixMicros(verdict.time_us())});
  }
  return snapshot;
}

absl::Status MonitorClient::ReportExit(int rank, int wait_status,
                                       absl::Duration timeout) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  monitor::proto::ExitReport report;
  report.set_rank(rank);
  if (WIFSIGNALED(wait_status)) {
    report.set_signal(WTERMSIG(wait_status));
  } else {
    report.set_exit_code(WEXITSTATUS(wait_status));
  }
  monitor::proto::ExitAck ack;
  return FromGrpc(stub_->stub->ReportExit(&context, report, &ack), "ReportExit",
                  address_);
}

absl::Status MonitorClient::Reset(int64_t min_finished_epoch_floor,
                                  absl::Duration timeout) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  monitor::proto::ResetRequest request;
  request.set_min_finished_epoch_floor(min_finished_epoch_floor);
  monitor::proto::ResetAck ack;
  return FromGrpc(stub_->stub->Reset(&context, request, &ack), "Reset",
                  address_);
}

absl::Status MonitorClient::WaitUntilServing(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  // A call that waits for the connection would wait out its deadline on a
  // refused handshake, saying nothing of why.
  if (grpc::Status reached = WaitForServer(address_, deadline); !reached.ok()) {
    return FromGrpc(reached, "GetState", address_);
  }
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(deadline));
  context.set_wait_for_ready(true);
  monitor::proto::GetStateRequest request;
  monitor::proto::JobState state;
  return FromGrpc(stub_->stub->GetState(&context, request, &state), "GetState",
                  address_);
}

absl::StatusOr<std::unique_ptr<MonitorProcess>> MonitorProcess::Start(
    MonitorProcessOptions options, OutputPrefixer* output) {
  absl::StatusOr<std::vector<int>> port = FreePorts(1);
  if (!port.ok()) return port.status();
  std::string address = absl::StrCat(options.host, ":", (*port)[0]);
  std::unique_ptr<MonitorProcess> monitor(
      new MonitorProcess(std::move(options), output, address));
  if (absl::Status spawned = monitor->Spawn(); !spawned.ok()) return spawned;
  // Ready when it answers; a monitor that exits first (a taken port, a bad
  // flag) says why on its stderr, which the prefixer has copied.
  MonitorClient client(address);
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  for (;;) {
    if (std::optional<int> ended = monitor->child_->Poll()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the monitor (", monitor->options_.binary, ") at ", address,
          " exited before serving: ", DescribeWaitStatus(*ended)));
    }
    absl::Status serving = client.WaitUntilServing(absl::Milliseconds(200));
    if (serving.ok()) break;
    if (Classify(serving) == FailureClass::kFatal) return serving;
    if (absl::Now() > deadline) {
      return absl::DeadlineExceededError(absl::StrCat(
          "the monitor at ", address, " did not answer within 20 s"));
    }
  }
  return monitor;
}

absl::Status MonitorProcess::Spawn() {
  SpawnOptions spawn;
  spawn.argv = {options_.binary, absl::StrCat("--address=", address_),
                absl::StrCat("--world_size=", options_.world_size)};
  spawn.argv.insert(spawn.argv.end(), options_.flags.begin(),
                    options_.flags.end());
  absl::StatusOr<std::unique_ptr<ChildProcess>> child =
      ChildProcess::Spawn(spawn);
  if (!child.ok()) {
    return absl::Status(
        child.status().code(),
        absl::StrCat("cannot start the monitor: ", child.status().message()));
  }
  child_ = std::move(*child);
  output_->Add(child_->TakeStdout(), "[monitor]", STDOUT_FILENO);
  output_->Add(child_->TakeStderr(), "[monitor]", STDERR_FILENO);
  return absl::OkStatus();
}

std::optional<std::string> MonitorProcess::RestartIfExited() {
  std::optional<int> ended = child_->Poll();
  if (!ended.has_value()) return std::nullopt;
  std::string how = DescribeWaitStatus(*ended);
  absl::Status spawned = Spawn();
  if (!spawned.ok()) absl::StrAppend(&how, "; ", spawned.message());
  return how;
}

}  // namespace sluice::launcher
