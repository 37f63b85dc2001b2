#include "lib/lighthouse/lighthouse_client.h"

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "grpcpp/grpcpp.h"
#include "lib/support/grpc_credentials.h"
#include "lib/support/grpc_liveness.h"
#include "sluice/support/failure.h"
#include "sluice/support/logging.h"

namespace sluice::lighthouse {
namespace {

constexpr char kLeaderKey[] = "sluice-lighthouse-leader";
// Set by the lighthouse on the refusal of a drained replica's request.
constexpr char kDrainedKey[] = "sluice-lighthouse-drained";
constexpr char kDrainedPayload[] = "type.sluice.dev/lighthouse.Drained";
// The pause after every lighthouse refused or could not be reached, so
// that a client waiting out a failover does not spin.
constexpr absl::Duration kRoundPause = absl::Milliseconds(50);

std::string NamedLeader(const grpc::ClientContext& context) {
  const auto& trailers = context.GetServerTrailingMetadata();
  auto it = trailers.find(kLeaderKey);
  if (it == trailers.end()) return "";
  return std::string(it->second.data(), it->second.size());
}

// A refused TLS handshake: fatal, since calling again fails again.
absl::Status HandshakeRefused(const grpc::Status& status, const char* method,
                              const std::string& address) {
  return MarkFailureClass(
      absl::UnavailableError(absl::StrCat(method, " to lighthouse ", address,
                                          ": ", HandshakeReason(status))),
      FailureClass::kFatal);
}

// A drained replica's refusal: not retryable, and marked so that
// IsDrained tells it without reading the message.
absl::Status DrainedError(const grpc::Status& status, const char* method,
                          const std::string& address) {
  absl::Status error(absl::StatusCode::kFailedPrecondition,
                     absl::StrCat(method, " to lighthouse ", address, ": ",
                                  status.error_message()));
  error.SetPayload(kDrainedPayload, absl::Cord("drained"));
  return error;
}

// The lighthouse's answer as a retryable error naming it. A request the
// lighthouse calls invalid or forbids stays what it is: sending it again
// fails again.
absl::Status FromGrpc(const grpc::Status& status, const char* method,
                      const std::string& address) {
  absl::Status error(static_cast<absl::StatusCode>(status.error_code()),
                     absl::StrCat(method, " to lighthouse ", address, ": ",
                                  status.error_message()));
  if (error.code() == absl::StatusCode::kInvalidArgument ||
      error.code() == absl::StatusCode::kPermissionDenied) {
    return error;
  }
  return MarkRetryable(std::move(error), absl::StrCat("lighthouse ", address));
}

}  // namespace

bool IsDrained(const absl::Status& status) {
  return status.GetPayload(kDrainedPayload).has_value();
}

class LighthouseClient::Target {
 public:
  explicit Target(std::string address)
      : address_(std::move(address)),
        stub_(proto::Lighthouse::NewStub(NewLivenessChannel(address_))) {}

  const std::string& address() const { return address_; }
  proto::Lighthouse::Stub* stub() const { return stub_.get(); }

  // Guarded by the client's mu_.
  bool suspect = false;
  std::set<grpc::ClientContext*> in_flight;

 private:
  const std::string address_;
  const std::unique_ptr<proto::Lighthouse::Stub> stub_;
};

absl::StatusOr<std::unique_ptr<LighthouseClient>> LighthouseClient::Create(
    std::vector<std::string> addresses) {
  if (addresses.empty()) {
    return absl::InvalidArgumentError(
        "lighthouse client: no lighthouse address given");
  }
  for (const std::string& address : addresses) {
    if (address.rfind(':') == std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("lighthouse client: lighthouse address '", address,
                       "' is not host:port"));
    }
  }
  return std::unique_ptr<LighthouseClient>(
      new LighthouseClient(std::move(addresses)));
}

LighthouseClient::LighthouseClient(std::vector<std::string> addresses) {
  for (std::string& address : addresses) {
    targets_.push_back(std::make_unique<Target>(std::move(address)));
  }
}

LighthouseClient::~LighthouseClient() = default;

std::string LighthouseClient::leader() const {
  std::lock_guard<std::mutex> lock(mu_);
  return targets_[current_]->address();
}

LighthouseClient::Target& LighthouseClient::Current(CallKind kind) {
  std::lock_guard<std::mutex> lock(mu_);
  if (kind == CallKind::kWaiting) {
    for (size_t i = 0; i < targets_.size(); ++i) {
      Target& target = *targets_[(current_ + i) % targets_.size()];
      if (!target.suspect) return target;
    }
  }
  return *targets_[current_];
}

bool LighthouseClient::MoveOn(const Target& failed,
                              const std::string& named_leader) {
  std::lock_guard<std::mutex> lock(mu_);
  if (targets_[current_].get() != &failed) return true;  // moved meanwhile
  if (!named_leader.empty() && named_leader != failed.address()) {
    auto it = std::find_if(targets_.begin(), targets_.end(),
                           [&](const std::unique_ptr<Target>& target) {
                             return target->address() == named_leader;
                           });
    if (it == targets_.end()) {
      targets_.push_back(std::make_unique<Target>(named_leader));
      it = targets_.end() - 1;
    }
    current_ = it - targets_.begin();
    return true;
  }
  current_ = (current_ + 1) % targets_.size();
  return false;
}

void LighthouseClient::Answered(Target& target, bool as_leader) {
  std::lock_guard<std::mutex> lock(mu_);
  target.suspect = false;
  if (!as_leader) return;
  for (size_t i = 0; i < targets_.size(); ++i) {
    if (targets_[i].get() == &target) current_ = i;
  }
}

bool LighthouseClient::Suspect(Target& target) {
  std::lock_guard<std::mutex> lock(mu_);
  if (targets_.size() < 2) return false;
  target.suspect = true;
  for (grpc::ClientContext* context : target.in_flight) context->TryCancel();
  return true;
}

bool LighthouseClient::IsSuspect(const Target& target) const {
  std::lock_guard<std::mutex> lock(mu_);
  return target.suspect;
}

void LighthouseClient::Track(Target& target, grpc::ClientContext* context) {
  std::lock_guard<std::mutex> lock(mu_);
  target.in_flight.insert(context);
}

void LighthouseClient::Untrack(Target& target, grpc::ClientContext* context) {
  std::lock_guard<std::mutex> lock(mu_);
  target.in_flight.erase(context);
}

absl::Status LighthouseClient::Call(
    const char* method, CallKind kind, absl::Duration timeout,
    const std::function<grpc::Status(proto::Lighthouse::Stub*,
                                     grpc::ClientContext*)>& attempt) {
  const absl::Time deadline = absl::Now() + timeout;
  size_t misses = 0;  // refusals that named no other leader
  size_t hops = 0;    // leaders followed since the last pause
  bool closed_before = false;  // the last attempt was closed at connect
  // The last refusal of a prompt call, and from where: an attempt that the
  // deadline then cuts short says less.
  grpc::Status refused;
  std::string refused_by;
  while (true) {
    Target& target = Current(kind);
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(deadline));
    Track(target, &context);
    const grpc::Status status = attempt(target.stub(), &context);
    Untrack(target, &context);
    if (status.ok()) {
      Answered(target, kind != CallKind::kStatus);
      return absl::OkStatus();
    }
    const bool closed = ClosedAtConnect(status);
    if (HandshakeFailed(status) || (closed && closed_before)) {
      return HandshakeRefused(status, method, target.address());
    }
    closed_before = closed;
    const bool timed_out =
        status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
    if (kind != CallKind::kWaiting && timed_out && Suspect(target)) {
      SLUICE_LOG(WARNING) << "lighthouse " << target.address()
                          << " did not answer a " << method << " within "
                          << absl::FormatDuration(timeout)
                          << ": avoiding it until it answers again";
    }
    // Cancelled because its lighthouse became suspect: on to another one.
    const bool moved = status.error_code() == grpc::StatusCode::CANCELLED &&
                       IsSuspect(target);
    if ((status.error_code() != grpc::StatusCode::UNAVAILABLE && !moved) ||
        absl::Now() >= deadline) {
      if (context.GetServerTrailingMetadata().count(kDrainedKey) > 0) {
        return DrainedError(status, method, target.address());
      }
      if (timed_out && !refused.ok()) {
        return FromGrpc(
            grpc::Status(refused.error_code(),
                         absl::StrCat(refused.error_message(),
                                      "; then no answer before the deadline")),
            method, refused_by);
      }
      return FromGrpc(status, method, target.address());
    }
    if (kind != CallKind::kWaiting) {
      refused = status;
      refused_by = target.address();
    }
    if (moved) continue;
    size_t targets = 0;
    const bool followed = MoveOn(target, NamedLeader(context));
    {
      std::lock_guard<std::mutex> lock(mu_);
      targets = targets_.size();
    }
    // Pause once every lighthouse was tried, or when they keep naming
    // each other (a failover in progress).
    if (followed) {
      if (++hops <= targets) continue;
      hops = 0;
    } else if (++misses % targets != 0) {
      continue;
    }
    if (deadline - absl::Now() <= kRoundPause) {
      return FromGrpc(status, method, target.address());
    }
    absl::SleepFor(kRoundPause);
  }
}

absl::Status LighthouseClient::Heartbeat(const proto::HeartbeatRequest& request,
                                         absl::Duration timeout,
                                         proto::HeartbeatResponse* response) {
  proto::HeartbeatResponse ignored;
  if (response == nullptr) response = &ignored;
  return Call("heartbeat", CallKind::kPrompt, timeout,
              [&](proto::Lighthouse::Stub* stub, grpc::ClientContext* context) {
                return stub->Heartbeat(context, request, response);
              });
}

absl::StatusOr<proto::Quorum> LighthouseClient::Quorum(
    const proto::QuorumRequest& request, absl::Duration timeout) {
  proto::QuorumResponse response;
  absl::Status status =
      Call("quorum request", CallKind::kWaiting, timeout,
           [&](proto::Lighthouse::Stub* stub, grpc::ClientContext* context) {
             return stub->Quorum(context, request, &response);
           });
  if (!status.ok()) return status;
  return std::move(*response.mutable_quorum());
}

absl::StatusOr<proto::CommitResponse> LighthouseClient::Commit(
    const proto::CommitRequest& request, absl::Duration timeout) {
  proto::CommitResponse response;
  absl::Status status =
      Call("commit vote", CallKind::kWaiting, timeout,
           [&](proto::Lighthouse::Stub* stub, grpc::ClientContext* context) {
             return stub->Commit(context, request, &response);
           });
  if (!status.ok()) return status;
  return response;
}

absl::StatusOr<proto::LighthouseStatus> LighthouseClient::GetStatus(
    absl::Duration timeout) {
  proto::LighthouseStatus response;
  absl::Status status =
      Call("status request", CallKind::kStatus, timeout,
           [&](proto::Lighthouse::Stub* stub, grpc::ClientContext* context) {
             return stub->GetStatus(context, proto::StatusRequest(), &response);
           });
  if (!status.ok()) return status;
  return response;
}

namespace {

class StreamWatch final : public LighthouseWatch {
 public:
  explicit StreamWatch(std::function<void(StreamWatch*)> run) {
    thread_ = std::thread([this, run = std::move(run)] { run(this); });
  }
  ~StreamWatch() override { Stop(); }

  void Stop() override {
    std::call_once(stop_once_, [this] {
      {
        std::lock_guard<std::mutex> lock(mu_);
        stopped_.Notify();
        if (context_ != nullptr) context_->TryCancel();
      }
      thread_.join();
    });
  }

  // The stream now open, so that Stop can cancel it; false once stopped.
  bool Open(grpc::ClientContext* context) {
    std::lock_guard<std::mutex> lock(mu_);
    context_ = context;
    return !stopped_.HasBeenNotified();
  }
  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    context_ = nullptr;
  }
  // Waits `pause` unless stopped; returns whether it was stopped.
  bool Pause(absl::Duration pause) {
    return stopped_.WaitForNotificationWithTimeout(pause);
  }

 private:
  std::mutex mu_;
  grpc::ClientContext* context_ = nullptr;  // guarded by mu_
  absl::Notification stopped_;
  std::once_flag stop_once_;
  std::thread thread_;
};

}  // namespace

std::unique_ptr<LighthouseWatch> LighthouseClient::Watch(
    proto::WatchRequest request, EventCallback on_event,
    absl::Duration retry_interval) {
  return std::make_unique<StreamWatch>([this, request = std::move(request),
                                        on_event = std::move(on_event),
                                        retry_interval](StreamWatch* watch) {
    bool followed = false;  // the last stream's lighthouse named a leader
    while (true) {
      Target& target = Current(CallKind::kWaiting);
      grpc::ClientContext context;
      if (!watch->Open(&context)) return;
      Track(target, &context);
      std::unique_ptr<grpc::ClientReader<proto::LighthouseEvent>> reader =
          target.stub()->Watch(&context, request);
      proto::LighthouseEvent event;
      while (reader->Read(&event)) on_event(event);
      const grpc::Status status = reader->Finish();
      Untrack(target, &context);
      watch->Close();
      // Straight to a leader the lighthouse named, unless the last
      // one named one too (lighthouses that name each other).
      bool named = false;
      if (status.error_code() == grpc::StatusCode::UNAVAILABLE) {
        named = MoveOn(target, NamedLeader(context));
      }
      if (named && !followed) {
        followed = true;
        continue;
      }
      followed = false;
      if (watch->Pause(retry_interval)) return;
    }
  });
}

}  // namespace sluice::lighthouse
