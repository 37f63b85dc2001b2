#include "lib/lighthouse/monitor_stragglers.h"

#include <condition_variable>
#include <mutex>
#include <thread>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpcpp/grpcpp.h"
#include "lib/monitor/monitor_service.grpc.pb.h"
#include "lib/support/grpc_credentials.h"

namespace sluice::lighthouse {

class MonitorStragglers::Poller {
 public:
  Poller(std::vector<std::string> addresses, absl::Duration period)
      : period_(period) {
    for (std::string& address : addresses) {
      Monitor monitor;
      monitor.stub = monitor::proto::Monitor::NewStub(
          grpc::CreateChannel(address, NewChannelCredentials()));
      monitor.said.set_address(std::move(address));
      monitor.said.set_trouble("not asked yet");
      monitors_.push_back(std::move(monitor));
    }
    thread_ = std::thread([this] { Run(); });
  }

  ~Poller() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    stop_.notify_all();
    thread_.join();
  }

  void AddTo(proto::LighthouseStatus& status) const {
    std::lock_guard<std::mutex> lock(mu_);
    for (const Monitor& monitor : monitors_) {
      *status.add_monitors() = monitor.said;
    }
  }

 private:
  struct Monitor {
    std::unique_ptr<monitor::proto::Monitor::Stub> stub;
    proto::MonitorStragglers said;  // guarded by mu_
  };

  void Run() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopping_) {
      lock.unlock();
      for (Monitor& monitor : monitors_) Ask(monitor);
      lock.lock();
      stop_.wait_for(lock, absl::ToChronoNanoseconds(period_),
                     [this] { return stopping_; });
    }
  }

  // One GetState call, without mu_: a monitor that does not answer holds
  // up neither the page nor the others for longer than the period.
  void Ask(Monitor& monitor) {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + period_));
    monitor::proto::JobState state;
    const grpc::Status status = monitor.stub->GetState(
        &context, monitor::proto::GetStateRequest(), &state);
    proto::MonitorStragglers said;
    said.set_address(monitor.said.address());
    if (status.ok()) {
      said.set_answered_us(absl::ToUnixMicros(absl::Now()));
      for (const monitor::proto::Verdict& verdict : state.stragglers()) {
        proto::MonitorStragglers::Straggler* straggler = said.add_stragglers();
        straggler->set_rank(verdict.rank());
        straggler->set_message(verdict.message());
        straggler->set_since_us(verdict.time_us());
      }
    } else {
      std::lock_guard<std::mutex> lock(mu_);
      // What it said before stays, marked as old by answered_us.
      said = monitor.said;
      said.set_trouble(absl::StrCat(
          "the monitor did not answer: ",
          HandshakeFailed(status)
              ? HandshakeReason(status)
              : absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                             status.error_message())
                    .ToString()));
    }
    std::lock_guard<std::mutex> lock(mu_);
    monitor.said = std::move(said);
  }

  const absl::Duration period_;
  // The stubs are set before the thread starts; `said` is guarded by mu_.
  std::vector<Monitor> monitors_;
  mutable std::mutex mu_;
  std::condition_variable stop_;
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;
};

MonitorStragglers::MonitorStragglers(std::vector<std::string> addresses,
                                     absl::Duration period)
    : poller_(std::make_unique<Poller>(std::move(addresses), period)) {}

MonitorStragglers::~MonitorStragglers() = default;

void MonitorStragglers::AddTo(proto::LighthouseStatus& status) const {
  poller_->AddTo(status);
}

}  // namespace sluice::lighthouse
