// The Lighthouse service over QuorumRules and CommitVotes. One lock guards
// both; a waiting call (Quorum, Commit, Watch) sleeps on one condition
// variable in short slices so that it also notices its caller leaving (a
// cancelled call, a dropped connection), a lost leadership and Shutdown
// within a slice.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "grpcpp/grpcpp.h"
#include "lib/ft/commit_votes.h"
#include "lib/ft/lighthouse_service.grpc.pb.h"
#include "lib/ft/quorum_rules.h"
#include "sluice/ft/lighthouse.h"
#include "sluice/support/host_port.h"

namespace sluice::ft {
namespace {

constexpr char kLeaderKey[] = "sluice-lighthouse-leader";
// How long a waiting call sleeps before it looks at its caller again.
constexpr absl::Duration kWaitSlice = absl::Milliseconds(20);
// A long poll answers this much before the caller's deadline, so that the
// caller reads why no quorum formed rather than its own deadline error.
constexpr absl::Duration kAnswerMargin = absl::Milliseconds(100);

absl::Time DeadlineOf(const grpc::ServerContext& context) {
  const auto deadline = context.deadline();
  if (deadline == std::chrono::system_clock::time_point::max()) {
    return absl::InfiniteFuture();
  }
  return absl::FromChrono(deadline);
}

std::string SecondsText(absl::Duration duration) {
  return absl::StrCat(
      absl::ToDoubleSeconds(absl::Trunc(duration, absl::Milliseconds(10))),
      " s");
}

grpc::Status Unavailable(const std::string& message) {
  return grpc::Status(grpc::StatusCode::UNAVAILABLE, message);
}

struct Watcher {
  std::string replica_id;
  uint64_t incarnation = 0;
  std::deque<proto::LighthouseEvent> events;
};

}  // namespace

class LighthouseService final : public proto::Lighthouse::Service {
 public:
  LighthouseService(const LighthouseOptions& options,
                    const QuorumRulesOptions& rules_options)
      : options_(options), rules_(rules_options) {}

  // Called once the port is known; RPCs wait for it.
  absl::Status Init(QuorumAuthority* authority, std::string address) {
    authority_ = authority;
    address_ = std::move(address);
    absl::StatusOr<int64_t> last = authority_->LastQuorumId();
    ready_.Notify();
    if (!last.ok()) return last.status();
    std::lock_guard<std::mutex> lock(mu_);
    rules_.RaiseQuorumId(*last);
    was_leader_ = authority_->IsLeader();
    return absl::OkStatus();
  }

  const std::string& address() const { return address_; }

  grpc::Status Heartbeat(grpc::ServerContext* context,
                         const proto::HeartbeatRequest* request,
                         proto::HeartbeatResponse*) override {
    grpc::Status refused;
    if (Refuse(context, request->replica_id(), request->incarnation(),
               &refused)) {
      return refused;
    }
    std::lock_guard<std::mutex> lock(mu_);
    const absl::Time now = absl::Now();
    rules_.Heartbeat(request->replica_id(), request->incarnation(), now);
    UpdateLocked(now);
    return grpc::Status::OK;
  }

  grpc::Status Quorum(grpc::ServerContext* context,
                      const proto::QuorumRequest* request,
                      proto::QuorumResponse* response) override {
    const std::string& replica = request->replica().replica_id();
    grpc::Status refused;
    if (Refuse(context, replica, request->replica().incarnation(), &refused)) {
      return refused;
    }
    const absl::Time start = absl::Now();
    const absl::Time deadline = DeadlineOf(*context) - kAnswerMargin;
    std::unique_lock<std::mutex> lock(mu_);
    const uint64_t ticket = rules_.Request(*request, start);
    UpdateLocked(start);
    while (true) {
      auto answer = answers_.find(ticket);
      if (answer != answers_.end()) {
        *response->mutable_quorum() = std::move(answer->second);
        answers_.erase(answer);
        return grpc::Status::OK;
      }
      if (!rules_.IsPending(ticket)) {
        return grpc::Status(
            grpc::StatusCode::ABORTED,
            absl::StrCat("lighthouse ", address_,
                         ": the quorum request of replica ", replica,
                         " was replaced by a newer one"));
      }
      grpc::Status ended =
          Ended(context, "quorum request of replica " + replica);
      const absl::Time now = absl::Now();
      if (ended.ok() && now >= deadline) {
        ended = grpc::Status(
            grpc::StatusCode::DEADLINE_EXCEEDED,
            absl::StrCat("lighthouse ", address_, ": no quorum for replica ",
                         replica, " within ", SecondsText(now - start), ": ",
                         rules_.Evaluate(now).waiting));
      }
      if (!ended.ok()) {
        rules_.Withdraw(ticket);
        return ended;
      }
      changed_.wait_for(lock, absl::ToChronoNanoseconds(
                                  std::min(kWaitSlice, deadline - now)));
    }
  }

  grpc::Status Commit(grpc::ServerContext* context,
                      const proto::CommitRequest* request,
                      proto::CommitResponse* response) override {
    grpc::Status refused;
    // A vote names no incarnation: the quorum's participants do.
    if (Refuse(context, request->replica_id(), /*incarnation=*/std::nullopt,
               &refused)) {
      return refused;
    }
    const absl::Time start = absl::Now();
    const absl::Time deadline = DeadlineOf(*context) - kAnswerMargin;
    std::unique_lock<std::mutex> lock(mu_);
    CommitVotes::Result vote = votes_.Vote(*request);
    if (vote.failed_now) {
      rules_.CommitFailed();
      Log(absl::StrCat("step ", request->step(), " of quorum ",
                       request->quorum_id(),
                       " does not commit: ", vote.outcome->reason()));
    }
    changed_.notify_all();
    const std::string what = absl::StrCat(
        "commit vote of replica ", request->replica_id(), " on step ",
        request->step(), " of quorum ", request->quorum_id());
    while (true) {
      std::optional<proto::CommitResponse> outcome =
          votes_.Outcome(request->quorum_id(), request->step());
      if (outcome.has_value()) {
        *response = std::move(*outcome);
        return grpc::Status::OK;
      }
      grpc::Status ended = Ended(context, what);
      const absl::Time now = absl::Now();
      if (ended.ok() && now >= deadline) {
        ended = grpc::Status(
            grpc::StatusCode::DEADLINE_EXCEEDED,
            absl::StrCat(
                "lighthouse ", address_, ": ", what, ": no vote within ",
                SecondsText(now - start), " from ",
                votes_.Missing(request->quorum_id(), request->step())));
      }
      if (!ended.ok()) return ended;
      changed_.wait_for(lock, absl::ToChronoNanoseconds(
                                  std::min(kWaitSlice, deadline - now)));
    }
  }

  grpc::Status Watch(
      grpc::ServerContext* context, const proto::WatchRequest* request,
      grpc::ServerWriter<proto::LighthouseEvent>* writer) override {
    grpc::Status refused;
    if (Refuse(context, request->replica_id(), request->incarnation(),
               &refused)) {
      return refused;
    }
    Watcher watcher;
    watcher.replica_id = request->replica_id();
    watcher.incarnation = request->incarnation();
    std::unique_lock<std::mutex> lock(mu_);
    watchers_.insert(&watcher);
    rules_.WatchOpened(watcher.replica_id, watcher.incarnation, absl::Now());
    UpdateLocked(absl::Now());
    grpc::Status ended;
    while (true) {
      ended = Ended(context, "watch of replica " + watcher.replica_id);
      if (!ended.ok()) break;
      if (watcher.events.empty()) {
        changed_.wait_for(lock, absl::ToChronoNanoseconds(kWaitSlice));
        continue;
      }
      const proto::LighthouseEvent event = std::move(watcher.events.front());
      watcher.events.pop_front();
      lock.unlock();
      const bool written = writer->Write(event);
      lock.lock();
      if (!written) {
        ended =
            grpc::Status(grpc::StatusCode::CANCELLED, "the watch stream broke");
        break;
      }
    }
    watchers_.erase(&watcher);
    // The watching process is gone (or will reconnect): with no other
    // stream of it open it is lost now, not at its heartbeat timeout.
    rules_.WatchEnded(watcher.replica_id, watcher.incarnation);
    UpdateLocked(absl::Now());
    return ended;
  }

  grpc::Status GetStatus(grpc::ServerContext*, const proto::StatusRequest*,
                         proto::LighthouseStatus* response) override {
    ready_.WaitForNotification();
    *response = Status();
    return grpc::Status::OK;
  }

  proto::LighthouseStatus Status() const {
    proto::LighthouseStatus status;
    const absl::Time now = absl::Now();
    std::lock_guard<std::mutex> lock(mu_);
    *status.mutable_quorum() = rules_.current();
    for (proto::ReplicaStatus& replica : rules_.Replicas(now)) {
      *status.add_replicas() = std::move(replica);
    }
    status.set_min_replicas(options_.min_replicas);
    status.set_heartbeat_timeout_ms(
        absl::ToInt64Milliseconds(options_.heartbeat_timeout));
    status.set_address(address_);
    status.set_is_leader(authority_->IsLeader());
    status.set_leader_address(authority_->LeaderAddress());
    status.set_now_us(absl::ToUnixMicros(now));
    return status;
  }

  // Heartbeat timeouts and join timeouts happen between requests.
  void Tick() {
    std::lock_guard<std::mutex> lock(mu_);
    UpdateLocked(absl::Now());
  }

  void Stop() {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    changed_.notify_all();
  }

 private:
  // Whether to answer `replica`'s call at once with `status`: a request
  // that names no replica or no incarnation (0 would pass for a restart of
  // every process that names one), or a lighthouse that is not the leader.
  bool Refuse(grpc::ServerContext* context, const std::string& replica,
              std::optional<uint64_t> incarnation, grpc::Status* status) {
    ready_.WaitForNotification();
    if (replica.empty() || incarnation == uint64_t{0}) {
      *status = grpc::Status(
          grpc::StatusCode::INVALID_ARGUMENT,
          absl::StrCat("lighthouse ", address_, ": the request ",
                       replica.empty() ? "names no replica_id"
                                       : "of replica " + replica +
                                             " names no incarnation"));
      return true;
    }
    *status = NotLeader(context);
    return !status->ok();
  }

  // UNAVAILABLE naming the leader (also in the trailing metadata) when this
  // lighthouse is not it.
  grpc::Status NotLeader(grpc::ServerContext* context) {
    if (authority_->IsLeader()) return grpc::Status::OK;
    const std::string leader = authority_->LeaderAddress();
    if (!leader.empty()) context->AddTrailingMetadata(kLeaderKey, leader);
    return Unavailable(absl::StrCat("lighthouse ", address_,
                                    " is not the leader (leader: ",
                                    leader.empty() ? "unknown" : leader, ")"));
  }

  // Why a waiting call ends now (OK while it waits on). Under mu_.
  grpc::Status Ended(grpc::ServerContext* context, const std::string& what) {
    if (stopping_) {
      return Unavailable(absl::StrCat("lighthouse ", address_,
                                      " is shutting down: ", what, " ended"));
    }
    if (context->IsCancelled()) {
      return grpc::Status(grpc::StatusCode::CANCELLED,
                          absl::StrCat(what, " was cancelled"));
    }
    return NotLeader(context);
  }

  void Log(const std::string& message) const {
    std::fprintf(stderr, "lighthouse %s: %s\n", address_.c_str(),
                 message.c_str());
  }

  // Reports lost members and issues a quorum when one forms. Under mu_.
  void UpdateLocked(absl::Time now) {
    changed_.notify_all();
    if (!authority_->IsLeader()) {
      was_leader_ = false;
      return;
    }
    if (!was_leader_) {
      // Another lighthouse led meanwhile: start above what it issued.
      absl::StatusOr<int64_t> last = authority_->LastQuorumId();
      if (!last.ok()) {
        LogAuthorityError(last.status());
        return;
      }
      rules_.RaiseQuorumId(*last);
      was_leader_ = true;
    }
    for (const LostMember& lost : rules_.TakeLostMembers(now)) {
      Log(absl::StrCat("quorum ", lost.quorum_id, ": ", lost.reason));
      if (votes_.MemberLost(lost.replica_id, lost.reason) > 0) {
        rules_.CommitFailed();
      }
      proto::LighthouseEvent event;
      event.set_kind(proto::LighthouseEvent::MEMBER_LOST);
      event.set_quorum_id(lost.quorum_id);
      event.set_replica_id(lost.replica_id);
      event.set_reason(lost.reason);
      for (Watcher* watcher : watchers_) {
        if (watcher->replica_id != lost.replica_id &&
            IsParticipant(rules_.current(), *watcher)) {
          watcher->events.push_back(event);
        }
      }
    }
    QuorumDecision decision = rules_.Evaluate(now);
    if (!decision.formed.has_value()) return;
    const FormedQuorum& formed = *decision.formed;
    const proto::Quorum& quorum = formed.quorum;
    if (formed.new_generation) {
      // Recorded before anyone sees it: two lighthouses never issue the
      // same generation.
      absl::Status recorded = authority_->RecordQuorumId(quorum.quorum_id());
      if (!recorded.ok()) {
        LogAuthorityError(recorded);
        if (absl::IsFailedPrecondition(recorded)) {
          absl::StatusOr<int64_t> last = authority_->LastQuorumId();
          if (last.ok()) rules_.RaiseQuorumId(*last);
        }
        return;
      }
      last_authority_error_.clear();
      std::vector<std::string> names;
      for (const proto::ReplicaInfo& participant : quorum.participants()) {
        names.push_back(participant.replica_id());
      }
      Log(absl::StrCat("quorum ", quorum.quorum_id(), " formed with ",
                       absl::StrJoin(names, ", "), ": ", quorum.reason()));
      votes_.Reset(quorum, options_.min_replicas);
    }
    rules_.Issue(formed);
    for (uint64_t ticket : formed.tickets) answers_[ticket] = quorum;
    proto::LighthouseEvent event;
    event.set_kind(proto::LighthouseEvent::QUORUM_FORMED);
    event.set_quorum_id(quorum.quorum_id());
    event.set_reason(quorum.reason());
    for (Watcher* watcher : watchers_) {
      if (IsParticipant(quorum, *watcher)) watcher->events.push_back(event);
    }
  }

  static bool IsParticipant(const proto::Quorum& quorum,
                            const Watcher& watcher) {
    for (const proto::ReplicaInfo& participant : quorum.participants()) {
      if (participant.replica_id() == watcher.replica_id &&
          participant.incarnation() == watcher.incarnation) {
        return true;
      }
    }
    return false;
  }

  // Logs an authority's refusal once, not every tick.
  void LogAuthorityError(const absl::Status& status) {
    const std::string text = status.ToString();
    if (text == last_authority_error_) return;
    last_authority_error_ = text;
    Log(absl::StrCat("issues no quorum: the quorum authority refused: ", text));
  }

  const LighthouseOptions& options_;
  QuorumAuthority* authority_ = nullptr;  // set by Init
  std::string address_;                   // set by Init
  absl::Notification ready_;

  mutable std::mutex mu_;
  std::condition_variable changed_;
  QuorumRules rules_;                          // guarded by mu_
  CommitVotes votes_;                          // guarded by mu_
  std::map<uint64_t, proto::Quorum> answers_;  // by ticket; guarded by mu_
  std::set<Watcher*> watchers_;                // guarded by mu_
  bool stopping_ = false;                      // guarded by mu_
  bool was_leader_ = true;                     // guarded by mu_
  std::string last_authority_error_;           // guarded by mu_
};

class Lighthouse::Impl {
 public:
  Impl(LighthouseOptions options, QuorumRulesOptions rules_options)
      : options(std::move(options)), service(this->options, rules_options) {}

  LighthouseOptions options;
  LighthouseService service;
  std::unique_ptr<QuorumAuthority> authority;
  std::unique_ptr<grpc::Server> server;
  std::thread ticker;
  absl::Notification stop_ticking;
  std::once_flag shutdown_once;
};

absl::StatusOr<std::unique_ptr<Lighthouse>> Lighthouse::Start(
    LighthouseOptions options, std::unique_ptr<QuorumAuthority> authority) {
  QuorumRulesOptions rules_options;
  rules_options.min_replicas = options.min_replicas;
  rules_options.join_timeout = options.join_timeout;
  rules_options.heartbeat_timeout = options.heartbeat_timeout;
  absl::Status valid = ValidateQuorumRulesOptions(rules_options);
  if (!valid.ok()) return valid;
  if (options.quorum_tick <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("lighthouse: quorum_tick must be positive, got ",
                     absl::FormatDuration(options.quorum_tick)));
  }
  absl::StatusOr<HostPort> bind = ParseHostPort(options.bind);
  if (!bind.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("lighthouse: cannot listen on '", options.bind,
                     "': ", bind.status().message()));
  }
  // Replicas dial the advertised address: one that wraps past port 65535
  // would send them elsewhere.
  if (!options.advertise.empty()) {
    absl::StatusOr<HostPort> advertised = ParseHostPort(options.advertise);
    if (!advertised.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("lighthouse: cannot advertise '", options.advertise,
                       "': ", advertised.status().message()));
    }
  }
  auto impl = std::make_unique<Impl>(std::move(options), rules_options);
  const LighthouseOptions& opts = impl->options;
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort(opts.bind, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&impl->service);
  for (grpc::Service* service : opts.extra_services) {
    builder.RegisterService(service);
  }
  impl->server = builder.BuildAndStart();
  if (impl->server == nullptr || port == 0) {
    return absl::UnavailableError(
        absl::StrCat("lighthouse: cannot listen on ", opts.bind));
  }
  std::string address = opts.advertise.empty()
                            ? absl::StrCat(bind->host, ":", port)
                            : opts.advertise;
  impl->authority = authority != nullptr ? std::move(authority)
                                         : NewLocalQuorumAuthority(address);
  absl::Status ready =
      impl->service.Init(impl->authority.get(), std::move(address));
  auto lighthouse =
      std::unique_ptr<Lighthouse>(new Lighthouse(std::move(impl)));
  if (!ready.ok()) {
    lighthouse->Shutdown();
    return absl::UnavailableError(
        absl::StrCat("lighthouse ", lighthouse->address(),
                     ": cannot read the last quorum id: ", ready.message()));
  }
  Impl* started = lighthouse->impl_.get();
  started->ticker = std::thread([started] {
    while (!started->stop_ticking.WaitForNotificationWithTimeout(
        started->options.quorum_tick)) {
      started->service.Tick();
    }
  });
  return lighthouse;
}

Lighthouse::Lighthouse(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Lighthouse::~Lighthouse() { Shutdown(); }

const std::string& Lighthouse::address() const {
  return impl_->service.address();
}

proto::LighthouseStatus Lighthouse::Status() const {
  return impl_->service.Status();
}

void Lighthouse::Shutdown() {
  std::call_once(impl_->shutdown_once, [this] {
    impl_->service.Stop();
    impl_->server->Shutdown(std::chrono::system_clock::now() +
                            std::chrono::seconds(1));
    impl_->server->Wait();
    impl_->stop_ticking.Notify();
    if (impl_->ticker.joinable()) impl_->ticker.join();
  });
}

}  // namespace sluice::ft
