// The Lighthouse service over QuorumRules and CommitVotes. One lock guards
// both; a waiting call (Quorum, Commit, Watch) sleeps on one condition
// variable in short slices so that it also notices its caller leaving (a
// cancelled call, a dropped connection), a lost leadership and Shutdown
// within a slice.
//
// Every call takes that lock, so nothing slow happens under it: the quorum
// authority (etcd, with a timeout of 500 ms per endpoint) is asked with the
// lock released, and the log is written with it released.
//
// A leader among several lighthouses steps down when no replica has called
// it for step_down_after within its term, once one did: the replicas cannot
// reach it, and another lighthouse may be reachable.
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
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "grpcpp/grpcpp.h"
#include "lib/lighthouse/commit_votes.h"
#include "lib/lighthouse/lighthouse_service.grpc.pb.h"
#include "lib/lighthouse/lighthouse_status.h"
#include "lib/lighthouse/lighthouse_status_history.h"
#include "lib/lighthouse/quorum_authority.h"
#include "lib/lighthouse/quorum_rules.h"
#include "lib/support/grpc_credentials.h"
#include "lib/support/grpc_liveness.h"
#include "sluice/lighthouse/lighthouse.h"
#include "sluice/support/host_port.h"
#include "sluice/support/liveness.h"

namespace sluice::lighthouse {
namespace {

constexpr char kLeaderKey[] = "sluice-lighthouse-leader";
constexpr char kDrainedKey[] = "sluice-lighthouse-drained";
// How long a waiting call sleeps before it looks at its caller again.
constexpr absl::Duration kWaitSlice = absl::Milliseconds(20);
// A long poll answers this much before the caller's deadline, so that the
// caller reads why no quorum formed rather than its own deadline error.
constexpr absl::Duration kAnswerMargin = absl::Milliseconds(100);
// Rounds of one Update: catching up as a new leader, recording a quorum id,
// issuing the quorum. What a leadership that comes and goes leaves undone
// waits for the next tick.
constexpr int kMaxUpdateRounds = 4;
// A gap this long (or five quorum ticks, if longer) between two runs of the
// lighthouse's threads means the process did not run: the ticker runs every
// tick.
constexpr absl::Duration kNoticedPause = absl::Seconds(1);
// The status lists this many replicas at most (participants first, then
// healthy ones), so that status.json stays well under 1 MB however many
// replicas are known.
constexpr size_t kMaxStatusReplicas = 500;
// forget_after's default: this many heartbeat timeouts, and at least
// kMinDefaultForgetAfter, so that a replica that was away for a while (a
// slow restart) is still remembered when it comes back.
constexpr int kForgetAfterHeartbeatTimeouts = 10;
constexpr absl::Duration kMinDefaultForgetAfter = absl::Seconds(60);

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

// The replicas the status lists: the participants of the current quorum,
// then healthy replicas, then the others, each group by replica id, at most
// kMaxStatusReplicas of them.
std::vector<proto::ReplicaStatus> ListedReplicas(
    std::vector<proto::ReplicaStatus> replicas) {
  std::stable_partition(
      replicas.begin(), replicas.end(),
      [](const proto::ReplicaStatus& replica) { return replica.healthy(); });
  std::stable_partition(
      replicas.begin(), replicas.end(),
      [](const proto::ReplicaStatus& replica) { return replica.in_quorum(); });
  if (replicas.size() > kMaxStatusReplicas) replicas.resize(kMaxStatusReplicas);
  return replicas;
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
    last_awake_ = absl::Now();
    rules_.RaiseQuorumId(*last);
    was_leader_ = authority_->IsLeader();
    if (was_leader_) StartTerm(absl::Now());
    return absl::OkStatus();
  }

  const std::string& address() const { return address_; }

  grpc::Status Heartbeat(grpc::ServerContext* context,
                         const proto::HeartbeatRequest* request,
                         proto::HeartbeatResponse* response) override {
    grpc::Status refused;
    if (Refuse(context, request->replica_id(), request->incarnation(),
               &refused)) {
      return refused;
    }
    std::unique_lock<std::mutex> lock(mu_);
    const absl::Time now = Awake();
    if (NotAdmitted(request->replica_id(), request->incarnation(), now,
                    &refused)) {
      return refused;
    }
    HeardFrom(request->replica_id(), now);
    history_.Heard(request->replica_id(), request->incarnation(), now);
    rules_.Heartbeat(request->replica_id(), request->incarnation(), now);
    response->set_killed_by(
        rules_.KilledBy(request->replica_id(), request->incarnation()));
    Update(lock);
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
    const absl::Status address =
        CheckReplicaAddress(request->replica().address());
    if (!address.ok()) {
      return Invalid(absl::StrCat("the quorum request of replica ", replica,
                                  ": ", address.message()));
    }
    const absl::Time start = absl::Now();
    const absl::Time deadline = DeadlineOf(*context) - kAnswerMargin;
    std::unique_lock<std::mutex> lock(mu_);
    Awake();
    if (NotAdmitted(replica, request->replica().incarnation(), start,
                    &refused)) {
      return refused;
    }
    if (grpc::Status drained = Drained(context, replica); !drained.ok()) {
      return drained;
    }
    HeardFrom(replica, start);
    history_.Heard(replica, request->replica().incarnation(), start);
    const uint64_t ticket = rules_.Request(*request, start);
    Update(lock);
    while (true) {
      auto answer = answers_.find(ticket);
      if (answer != answers_.end()) {
        *response->mutable_quorum() = std::move(answer->second);
        answers_.erase(answer);
        return grpc::Status::OK;
      }
      if (grpc::Status drained = Drained(context, replica); !drained.ok()) {
        rules_.Withdraw(ticket);
        return drained;
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
    // The contributors reach the reasons, the log and the other
    // participants' answers: they must be ids, as the voter's is.
    for (const std::string& contributor : request->contributors()) {
      const absl::Status valid = CheckReplicaId(contributor);
      if (!valid.ok()) {
        return Invalid(absl::StrCat("the commit vote of replica ",
                                    request->replica_id(),
                                    " names a contributor that is not a "
                                    "replica id: ",
                                    valid.message()));
      }
    }
    const absl::Time start = absl::Now();
    const absl::Time deadline = DeadlineOf(*context) - kAnswerMargin;
    std::unique_lock<std::mutex> lock(mu_);
    Awake();
    HeardFrom(request->replica_id(), start);
    const bool undecided =
        !votes_.Outcome(request->quorum_id(), request->step()).has_value();
    // The failure reaches the log and the other participants' answers.
    proto::CommitRequest bounded = *request;
    bounded.set_failure(
        WithoutControlCharacters(request->failure(), kMaxFailureBytes));
    CommitVotes::Result vote = votes_.Vote(bounded);
    // A step counts once, by the vote that decided it.
    if (undecided && vote.outcome.has_value() && vote.outcome->commit()) {
      step_rate_.Committed(start);
    }
    if (vote.failed_now) {
      rules_.CommitFailed();
      Log(absl::StrCat("step ", request->step(), " of quorum ",
                       request->quorum_id(),
                       " does not commit: ", vote.outcome->reason()));
      FlushLog(lock);
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
    const absl::Time opened = Awake();
    if (NotAdmitted(watcher.replica_id, watcher.incarnation, opened,
                    &refused)) {
      return refused;
    }
    HeardFrom(watcher.replica_id, opened);
    history_.Heard(watcher.replica_id, watcher.incarnation, opened);
    watchers_.insert(&watcher);
    rules_.WatchOpened(watcher.replica_id, watcher.incarnation, opened);
    Update(lock);
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
    rules_.WatchEnded(watcher.replica_id, watcher.incarnation,
                      /*outlived_pause=*/opened < last_resumed_);
    Update(lock);
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
    status.set_min_replicas(options_.min_replicas);
    status.set_heartbeat_timeout_ms(
        absl::ToInt64Milliseconds(options_.heartbeat_timeout));
    status.set_address(address_);
    const bool leader = authority_->IsLeader();
    status.set_is_leader(leader);
    status.set_leader_address(authority_->LeaderAddress());
    status.set_authority_trouble(authority_->Trouble());
    status.set_now_us(absl::ToUnixMicros(now));
    if (authority_->CanStepDown()) {
      status.set_step_down_after_ms(
          absl::ToInt64Milliseconds(options_.step_down_after));
    }
    std::lock_guard<std::mutex> lock(mu_);
    // A term this lighthouse has not noticed the end of yet is not claimed.
    if (leader && was_leader_) {
      status.set_leader_since_us(absl::ToUnixMicros(term_started_));
    }
    status.set_last_step_down(last_step_down_);
    *status.mutable_quorum() = rules_.current();
    history_.AddTo(status);
    status.set_steps_per_second(step_rate_.PerSecond(now));
    status.set_committed_steps(step_rate_.total());
    for (proto::ReplicaStatus& replica : ListedReplicas(rules_.Replicas(now))) {
      *status.add_replicas() = std::move(replica);
    }
    return status;
  }

  // Lighthouse::Kill and Lighthouse::Drain.
  absl::Status Act(bool kill, const std::string& replica_id,
                   const std::string& by, const std::string& from) {
    ready_.WaitForNotification();
    std::unique_lock<std::mutex> lock(mu_);
    const absl::Time now = Awake();
    if (!authority_->IsLeader()) {
      const std::string leader = authority_->LeaderAddress();
      return absl::UnavailableError(absl::StrCat(
          "lighthouse ", address_, " is not the leader (leader: ",
          leader.empty() ? "unknown" : leader, "): act on replica ",
          replica_id, " there"));
    }
    const std::string why =
        kill ? absl::StrCat("replica ", replica_id,
                            " was killed by the operator (", by, ")")
             : absl::StrCat("replica ", replica_id,
                            " was drained by the operator (", by, ")");
    const bool known =
        kill ? rules_.Kill(replica_id, why, by) : rules_.Drain(replica_id, why);
    if (!known) {
      return absl::NotFoundError(absl::StrCat(
          "lighthouse ", address_, " knows no replica ", Escaped(replica_id)));
    }
    Log(absl::StrCat(kill ? "killed" : "drained", " replica ", replica_id,
                     " for the operator ", by, " at ", from,
                     " (status page)"));
    history_.OperatorActed(kill ? proto::HistoryEntry::OPERATOR_KILLED
                                : proto::HistoryEntry::OPERATOR_DRAINED,
                           replica_id,
                           absl::StrCat(why, " from ", from), now);
    if (kill) {
      proto::LighthouseEvent event;
      event.set_kind(proto::LighthouseEvent::KILLED);
      event.set_quorum_id(rules_.quorum_id());
      event.set_replica_id(replica_id);
      event.set_reason(why);
      event.set_operator_name(by);
      for (Watcher* watcher : watchers_) {
        if (watcher->replica_id == replica_id) watcher->events.push_back(event);
      }
    }
    // Its peers are told it is lost, and the next quorum forms without it.
    Update(lock);
    return absl::OkStatus();
  }

  // Heartbeat timeouts, join timeouts and silences happen between requests.
  void Tick() {
    std::unique_lock<std::mutex> lock(mu_);
    NoticeAuthorityTrouble();
    const absl::Time now = Awake();
    ForgetSilentReplicas(now);
    StepDownIfUnreached(now);
    Update(lock);
  }

  void Stop() {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    changed_.notify_all();
  }

  std::string WhyNotIssuedHere(int64_t generation) const {
    std::lock_guard<std::mutex> lock(mu_);
    if (first_issued_ != 0 && generation >= first_issued_) return "";
    return absl::StrCat(
        "quorum ", generation, " was not issued by lighthouse ", address_,
        " since it started",
        first_issued_ == 0 ? " (it has issued none yet)"
                           : absl::StrCat(" (its first was ", first_issued_, ")"),
        ": the lighthouse restarted or another one led");
  }

 private:
  // The time now, noticing when this process did not run for a while
  // (stopped, or starved of CPU): the silence of its replicas meanwhile was
  // its own, and the streams that broke meanwhile end now. Under mu_.
  absl::Time Awake() {
    const absl::Time now = absl::Now();
    const absl::Duration asleep = now - last_awake_;
    last_awake_ = now;
    if (asleep < std::max(kNoticedPause, 5 * options_.quorum_tick)) return now;
    last_resumed_ = now;
    rules_.Resumed(now);
    Log(absl::StrCat("did not run for ", SecondsText(asleep),
                     " (stopped, or starved of CPU): no replica is blamed for "
                     "the silence, nor for the watch streams that broke "
                     "meanwhile; each has the heartbeat timeout (",
                     SecondsText(options_.heartbeat_timeout),
                     ") to be heard again"));
    history_.Record(proto::HistoryEntry::PAUSED,
                    absl::StrCat("did not run for ", SecondsText(asleep),
                                 " (stopped, or starved of CPU)"),
                    now);
    return now;
  }

  // Whether to answer `replica`'s call at once with `status`: a request
  // that names no replica or no incarnation (0 would pass for a restart of
  // every process that names one), or a lighthouse that is not the leader.
  bool Refuse(grpc::ServerContext* context, const std::string& replica,
              std::optional<uint64_t> incarnation, grpc::Status* status) {
    ready_.WaitForNotification();
    // Checked first: the id is written raw in the messages below.
    const absl::Status valid = CheckReplicaId(replica);
    if (!valid.ok()) {
      *status = Invalid(valid.message());
      return true;
    }
    if (incarnation == uint64_t{0}) {
      *status = Invalid(absl::StrCat("the request of replica ", replica,
                                     " names no incarnation"));
      return true;
    }
    *status = NotCarriedByCertificate(*context, replica);
    if (!status->ok()) return true;
    *status = NotLeader(context);
    return !status->ok();
  }

  // With TLS a replica is who its certificate says: it may speak only for
  // an id that the certificate carries as its common name or as a
  // subjectAltName, so that one member cannot pose as another. In
  // plaintext (loopback) any caller may speak for any id.
  grpc::Status NotCarriedByCertificate(const grpc::ServerContext& context,
                                       const std::string& replica) const {
    const std::vector<std::string> names = PeerCertificateNames(context);
    if (names.empty() ||
        std::find(names.begin(), names.end(), replica) != names.end()) {
      return grpc::Status::OK;
    }
    return grpc::Status(
        grpc::StatusCode::PERMISSION_DENIED,
        absl::StrCat("lighthouse ", address_, ": refusing to hear replica ",
                     replica, " from a certificate that names ",
                     absl::StrJoin(names, ", "),
                     ": a replica's certificate must carry its id as its "
                     "common name or a subjectAltName"));
  }

  // FAILED_PRECONDITION when an operator drained `replica`, with a trailer
  // that says so: the client tells it from the other failed preconditions
  // without reading the message. Under mu_.
  grpc::Status Drained(grpc::ServerContext* context,
                       const std::string& replica) const {
    const std::string why = rules_.WhyDrained(replica);
    if (why.empty()) return grpc::Status::OK;
    context->AddTrailingMetadata(kDrainedKey, "1");
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, why);
  }

  grpc::Status Invalid(absl::string_view why) const {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        absl::StrCat("lighthouse ", address_, ": ", why));
  }

  // Whether to refuse `replica` speaking as `incarnation`, with `status`:
  // past max_replicas, or a live process holds the id (QuorumRules::Admit).
  // Under mu_.
  bool NotAdmitted(const std::string& replica, uint64_t incarnation,
                   absl::Time now, grpc::Status* status) {
    const absl::Status admitted = rules_.Admit(replica, incarnation, now);
    if (admitted.ok()) return false;
    *status = grpc::Status(static_cast<grpc::StatusCode>(admitted.code()),
                           absl::StrCat("lighthouse ", address_, ": ",
                                        admitted.message()));
    return true;
  }

  // Frees what this lighthouse keeps of replicas silent for forget_after
  // that wait for nothing. Under mu_.
  void ForgetSilentReplicas(absl::Time now) {
    for (const std::string& replica : rules_.Forget(now)) {
      history_.Forget(replica);
    }
  }

  // UNAVAILABLE naming the leader (also in the trailing metadata) when this
  // lighthouse is not it.
  grpc::Status NotLeader(grpc::ServerContext* context) {
    if (authority_->IsLeader()) return grpc::Status::OK;
    const std::string leader = authority_->LeaderAddress();
    if (!leader.empty()) context->AddTrailingMetadata(kLeaderKey, leader);
    const std::string trouble = authority_->Trouble();
    return Unavailable(absl::StrCat(
        "lighthouse ", address_, " is not the leader (leader: ",
        leader.empty() ? "unknown" : leader,
        trouble.empty() ? "" : "; " + trouble, ")"));
  }

  // Why a waiting call ends now (OK while it waits on). Under mu_.
  grpc::Status Ended(grpc::ServerContext* context, const std::string& what) {
    Awake();
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

  // Queues a line of the log; FlushLog writes it. Under mu_.
  void Log(const std::string& message) {
    pending_log_.push_back(
        absl::StrCat("lighthouse ", address_, ": ", message, "\n"));
  }

  // Writes the queued lines with mu_ released (stderr may be a pipe that is
  // read slowly, or a file on a slow disk). Lines come out in the order they
  // were queued: each writer takes all that is queued under log_mu_. Called
  // with mu_ held by `lock`; holds it again on return.
  void FlushLog(std::unique_lock<std::mutex>& lock) {
    if (pending_log_.empty()) return;
    lock.unlock();
    {
      std::lock_guard<std::mutex> writing(log_mu_);
      lock.lock();
      std::vector<std::string> lines = std::exchange(pending_log_, {});
      lock.unlock();
      for (const std::string& line : lines) {
        std::fputs(line.c_str(), stderr);
      }
    }
    lock.lock();
  }

  // Reports lost members and issues a quorum when one forms. Called with mu_
  // held by `lock`; holds it again on return, but releases it meanwhile to
  // ask the authority and to write the log, so whatever the caller read
  // under mu_ before may have changed.
  void Update(std::unique_lock<std::mutex>& lock) {
    changed_.notify_all();
    for (int round = 0; round < kMaxUpdateRounds; ++round) {
      if (!Leading()) break;
      if (!was_leader_) {
        // One authority call at a time: the one in flight decides again
        // with what changed meanwhile once it returns.
        if (authority_busy_ || !CatchUpAsLeader(lock)) break;
        continue;
      }
      // Lost members are told at once, even while an authority call is in
      // flight: their peers abort their collectives on it.
      ReportLostMembers(absl::Now());
      if (authority_busy_ || !IssueQuorum(lock)) break;
    }
    FlushLog(lock);
  }

  // Whether the authority says this lighthouse leads; when it does not, the
  // lighthouse must catch up before it issues again. Under mu_.
  bool Leading() {
    if (authority_->IsLeader()) return true;
    if (was_leader_) {
      const std::string leader = authority_->LeaderAddress();
      history_.Record(proto::HistoryEntry::NOT_LEADING,
                      absl::StrCat("no longer leads (leader: ",
                                   leader.empty() ? "unknown" : leader, ")"),
                      absl::Now());
    }
    was_leader_ = false;
    heard_this_term_ = false;
    ++leadership_lapses_;
    return false;
  }

  // A term begins when this lighthouse has caught up as leader. Under mu_.
  void StartTerm(absl::Time now) {
    term_started_ = now;
    heard_this_term_ = false;
    history_.Record(
        proto::HistoryEntry::LEADING,
        authority_->CanStepDown() ? "took the leadership" : "leads alone", now);
  }

  // A replica's call reached this lighthouse as leader. Under mu_.
  void HeardFrom(const std::string& replica_id, absl::Time now) {
    last_call_ = now;
    last_caller_ = replica_id;
    heard_this_term_ = true;
  }

  // Steps down when no replica has called for step_down_after, and one did
  // in this term: the replicas have lost this lighthouse, and one they reach
  // should lead. A new leader waits for its first call however long it
  // takes (replicas find it; a job not started yet has none), so a
  // lighthouse that leads with no replica never steps down, and one that
  // stepped down and leads again does not without a call first. Under mu_.
  void StepDownIfUnreached(absl::Time now) {
    if (!was_leader_ || !heard_this_term_ || !authority_->CanStepDown()) {
      return;
    }
    const absl::Duration silence = now - last_call_;
    if (silence < options_.step_down_after || !authority_->IsLeader()) return;
    const std::string why = absl::StrCat(
        "no replica called for ", SecondsText(silence), " (step_down_after ",
        SecondsText(options_.step_down_after), "; ",
        rules_.replica_count(), " replicas known, the last call from ",
        last_caller_, ")");
    authority_->StepDown(why);
    last_step_down_ = absl::StrCat(
        "stepped down at ",
        absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", now, absl::UTCTimeZone()),
        ": ", why);
    Log(absl::StrCat("steps down as leader: ", why));
    history_.Record(proto::HistoryEntry::STEPPED_DOWN, why, now);
    Leading();  // the term ends; waiting calls end with UNAVAILABLE
  }

  // Runs `call`, which asks the authority (etcd, for several lighthouses:
  // up to 500 ms per endpoint), with mu_ released and marked busy. Called
  // with mu_ held by `lock`.
  template <typename Call>
  void CallAuthority(std::unique_lock<std::mutex>& lock, Call call) {
    authority_busy_ = true;
    lock.unlock();
    call();
    lock.lock();
    authority_busy_ = false;
    changed_.notify_all();
  }

  // Another lighthouse may have led meanwhile: the next id starts above what
  // the authority recorded. True when it did and no lapse of leadership was
  // noticed while asking.
  bool CatchUpAsLeader(std::unique_lock<std::mutex>& lock) {
    const uint64_t lapses = leadership_lapses_;
    absl::StatusOr<int64_t> last = absl::UnknownError("not asked");
    CallAuthority(lock, [&] { last = authority_->LastQuorumId(); });
    if (!last.ok()) {
      LogAuthorityError(last.status());
      return false;
    }
    rules_.RaiseQuorumId(*last);
    if (leadership_lapses_ != lapses) return true;  // read again
    was_leader_ = true;
    StartTerm(absl::Now());
    return true;
  }

  // Issues the quorum that forms now, if any. A new generation's id is
  // reserved (decided under mu_), recorded with the authority (mu_
  // released), and published only if it is still what forms once mu_ is
  // held again: requests may have come or gone, members may have been lost,
  // and the leadership may have lapsed meanwhile. An id recorded and not
  // published is spent, never used again. True when there is more to decide.
  bool IssueQuorum(std::unique_lock<std::mutex>& lock) {
    QuorumDecision decision = rules_.Evaluate(absl::Now());
    if (!decision.formed.has_value()) return false;
    if (!decision.formed->new_generation) {
      Publish(*decision.formed);
      return false;
    }
    const int64_t id = decision.formed->quorum.quorum_id();
    const uint64_t lapses = leadership_lapses_;
    absl::Status recorded;
    absl::StatusOr<int64_t> last = absl::UnknownError("not asked");
    // Recorded before anyone sees it: two lighthouses never issue the same
    // generation.
    CallAuthority(lock, [&] {
      recorded = authority_->RecordQuorumId(id);
      if (absl::IsFailedPrecondition(recorded)) {
        last = authority_->LastQuorumId();
      }
    });
    if (!recorded.ok()) {
      LogAuthorityError(recorded);
      if (last.ok()) rules_.RaiseQuorumId(*last);
      return false;
    }
    last_authority_error_.clear();
    if (leadership_lapses_ != lapses || !Leading()) {
      // Another lighthouse may have issued quorums meanwhile.
      rules_.SpendQuorumId(id);
      return false;
    }
    decision = rules_.Evaluate(absl::Now());
    if (decision.formed.has_value() && decision.formed->new_generation &&
        decision.formed->quorum.quorum_id() == id) {
      Publish(*decision.formed);
      return false;
    }
    rules_.SpendQuorumId(id);
    return decision.formed.has_value();
  }

  // Makes `formed` the current quorum and answers its requests. Under mu_.
  void Publish(const FormedQuorum& formed) {
    const proto::Quorum& quorum = formed.quorum;
    if (formed.new_generation) {
      std::vector<std::string> names;
      for (const proto::ReplicaInfo& participant : quorum.participants()) {
        names.push_back(participant.replica_id());
      }
      Log(absl::StrCat("quorum ", quorum.quorum_id(), " formed with ",
                       absl::StrJoin(names, ", "), ": ", quorum.reason()));
      history_.GenerationFormed(quorum);
      votes_.Reset(quorum, options_.min_replicas);
      if (first_issued_ == 0) first_issued_ = quorum.quorum_id();
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
    changed_.notify_all();
  }

  // Tells the other participants of the current quorum about members that
  // stopped being healthy, and fails the votes they owe. Under mu_.
  void ReportLostMembers(absl::Time now) {
    for (const LostMember& lost : rules_.TakeLostMembers(now)) {
      Log(absl::StrCat("quorum ", lost.quorum_id, ": ", lost.reason));
      history_.MemberLost(lost.quorum_id, lost.replica_id, lost.reason, now);
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
    history_.Record(proto::HistoryEntry::AUTHORITY_TROUBLE,
                    "issues no quorum: the quorum authority refused: " + text,
                    absl::Now());
  }

  // Records when the authority's trouble (etcd out of reach) begins and
  // ends: the authority logs it, and the page's history keeps it. Under mu_.
  void NoticeAuthorityTrouble() {
    const std::string trouble = authority_->Trouble();
    const bool troubled = !trouble.empty();
    if (troubled == authority_troubled_) return;
    authority_troubled_ = troubled;
    history_.Record(troubled ? proto::HistoryEntry::AUTHORITY_TROUBLE
                             : proto::HistoryEntry::AUTHORITY_BACK,
                    troubled ? trouble : "the quorum authority answers again",
                    absl::Now());
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
  // Times an Update found this lighthouse not leading: an authority call
  // that saw it change answered for an earlier leadership.
  uint64_t leadership_lapses_ = 0;        // guarded by mu_
  bool authority_busy_ = false;           // a call in flight; guarded by mu_
  std::string last_authority_error_;      // guarded by mu_
  std::vector<std::string> pending_log_;  // guarded by mu_
  // The term: since when this lighthouse leads (valid while was_leader_),
  // whether a replica called in it, and the last call.
  absl::Time term_started_;       // guarded by mu_
  bool heard_this_term_ = false;  // guarded by mu_
  absl::Time last_call_;          // guarded by mu_
  std::string last_caller_;       // guarded by mu_
  std::string last_step_down_;    // for the status; guarded by mu_
  // The last time a thread of this lighthouse ran under mu_ (see Awake).
  absl::Time last_awake_;  // guarded by mu_
  // When Awake last noticed that this process had not run.
  absl::Time last_resumed_ = absl::InfinitePast();  // guarded by mu_
  // The first quorum id this process issued, 0 before; guarded by mu_.
  int64_t first_issued_ = 0;
  // What the status page tells of the past; guarded by mu_.
  StatusHistory history_;
  StepRate step_rate_;
  bool authority_troubled_ = false;  // as NoticeAuthorityTrouble last saw
  // Held while writing the log; taken before mu_, never while holding it.
  std::mutex log_mu_;
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
    LighthouseOptions options) {
  return Start(std::move(options), nullptr);
}

absl::StatusOr<std::unique_ptr<Lighthouse>> Lighthouse::Start(
    LighthouseOptions options, std::unique_ptr<QuorumAuthority> authority) {
  QuorumRulesOptions rules_options;
  rules_options.min_replicas = options.min_replicas;
  rules_options.join_timeout = options.join_timeout;
  rules_options.heartbeat_timeout = options.heartbeat_timeout;
  if (options.forget_after == absl::ZeroDuration()) {
    options.forget_after =
        std::max(kForgetAfterHeartbeatTimeouts * options.heartbeat_timeout,
                 kMinDefaultForgetAfter);
  }
  rules_options.forget_after = options.forget_after;
  rules_options.max_replicas = options.max_replicas;
  absl::Status valid = ValidateQuorumRulesOptions(rules_options);
  if (!valid.ok()) return valid;
  if (options.step_down_after < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("lighthouse: step_down_after must not be negative, got ",
                     absl::FormatDuration(options.step_down_after)));
  }
  if (options.step_down_after == absl::ZeroDuration()) {
    options.step_down_after = std::max(
        options.heartbeat_timeout, LivenessTimeout() + kLivenessPingTimeout);
  }
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
  if (absl::Status allowed = CheckListenAddress(options.bind, "lighthouse");
      !allowed.ok()) {
    return allowed;
  }
  auto impl = std::make_unique<Impl>(std::move(options), rules_options);
  const LighthouseOptions& opts = impl->options;
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort(opts.bind, NewServerCredentials(), &port);
  AddLivenessArguments(&builder);
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

std::string Lighthouse::WhyNotIssuedHere(int64_t generation) const {
  return impl_->service.WhyNotIssuedHere(generation);
}

absl::Status Lighthouse::Kill(const std::string& replica_id,
                              const std::string& by, const std::string& from) {
  return impl_->service.Act(/*kill=*/true, replica_id, by, from);
}

absl::Status Lighthouse::Drain(const std::string& replica_id,
                               const std::string& by, const std::string& from) {
  return impl_->service.Act(/*kill=*/false, replica_id, by, from);
}

LighthouseStatus Lighthouse::Status() const {
  return StatusFromProto(impl_->service.Status());
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

}  // namespace sluice::lighthouse
