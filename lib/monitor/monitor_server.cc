// The Monitor service: each call takes the state's lock only to apply what
// it received, so report streams, exit reports and state reads from a
// launcher never wait on one another for long.
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "grpcpp/grpcpp.h"
#include "lib/monitor/monitor_service.grpc.pb.h"
#include "lib/monitor/monitor_state.h"
#include "lib/support/grpc_credentials.h"
#include "lib/support/grpc_liveness.h"
#include "sluice/monitor/monitor.h"
#include "sluice/support/host_port.h"

namespace sluice::monitor {
namespace {

grpc::Status ToGrpc(const absl::Status& status) {
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()));
}

class MonitorService final : public proto::Monitor::Service {
 public:
  explicit MonitorService(MonitorOptions options)
      : state_(std::move(options)) {}

  grpc::Status Report(grpc::ServerContext* context,
                      grpc::ServerReader<proto::SignalBatch>* reader,
                      proto::ReportAck*) override {
    const uint64_t stream = next_stream_.fetch_add(1) + 1;
    proto::SignalBatch batch;
    bool any = false;
    while (reader->Read(&batch)) {
      any = true;
      std::lock_guard<std::mutex> lock(mu_);
      absl::Status applied = state_.Apply(stream, batch, absl::Now());
      if (!applied.ok()) {
        state_.StreamEnded(stream, absl::Now());
        return ToGrpc(applied);
      }
    }
    if (any) {
      // A stream the rank closed ends clean; one whose connection broke (a
      // reset, or liveness giving up a silent peer) is cancelled.
      const bool broken = context->IsCancelled();
      std::lock_guard<std::mutex> lock(mu_);
      state_.StreamEnded(stream, absl::Now(), broken);
    }
    return grpc::Status::OK;
  }

  grpc::Status ReportExit(grpc::ServerContext*,
                          const proto::ExitReport* request,
                          proto::ExitAck*) override {
    std::lock_guard<std::mutex> lock(mu_);
    return ToGrpc(state_.ApplyExit(*request, absl::Now()));
  }

  grpc::Status GetState(grpc::ServerContext*, const proto::GetStateRequest*,
                        proto::JobState* response) override {
    *response = State();
    return grpc::Status::OK;
  }

  grpc::Status Reset(grpc::ServerContext*, const proto::ResetRequest* request,
                     proto::ResetAck*) override {
    std::lock_guard<std::mutex> lock(mu_);
    state_.Reset(request->min_finished_epoch_floor());
    return grpc::Status::OK;
  }

  proto::JobState State() const {
    std::lock_guard<std::mutex> lock(mu_);
    return state_.Evaluate(absl::Now());
  }

 private:
  std::atomic<uint64_t> next_stream_{0};
  mutable std::mutex mu_;
  MonitorState state_;  // guarded by mu_
};

}  // namespace

class MonitorServer::Impl {
 public:
  explicit Impl(MonitorOptions options) : service(std::move(options)) {}

  MonitorService service;
  std::unique_ptr<grpc::Server> server;
  int port = 0;
  std::once_flag shutdown_once;
};

absl::StatusOr<std::unique_ptr<MonitorServer>> MonitorServer::Start(
    std::string address, MonitorOptions options) {
  absl::Status valid = ValidateMonitorOptions(options);
  if (!valid.ok()) return valid;
  if (absl::StatusOr<HostPort> valid = ParseHostPort(address); !valid.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("monitor: cannot listen on '", address,
                     "': ", valid.status().message()));
  }
  if (absl::Status allowed = CheckListenAddress(address, "monitor");
      !allowed.ok()) {
    return allowed;
  }
  auto impl = std::make_unique<Impl>(std::move(options));
  grpc::ServerBuilder builder;
  builder.AddListeningPort(address, NewServerCredentials(), &impl->port);
  AddLivenessArguments(&builder);
  builder.RegisterService(&impl->service);
  impl->server = builder.BuildAndStart();
  if (impl->server == nullptr || impl->port == 0) {
    return absl::UnavailableError(
        absl::StrCat("monitor: cannot listen on ", address));
  }
  return std::unique_ptr<MonitorServer>(new MonitorServer(std::move(impl)));
}

MonitorServer::MonitorServer(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}

MonitorServer::~MonitorServer() { Shutdown(); }

int MonitorServer::port() const { return impl_->port; }

JobState MonitorServer::State() const {
  return JobStateFromProto(impl_->service.State());
}

void MonitorServer::Shutdown() {
  std::call_once(impl_->shutdown_once, [this] {
    // Report streams last as long as their ranks: cancel them at once.
    impl_->server->Shutdown(std::chrono::system_clock::now());
    impl_->server->Wait();
  });
}

}  // namespace sluice::monitor
