#include "lib/lighthouse/etcd_quorum_authority.h"

#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "sluice/support/logging.h"

namespace sluice::lighthouse {
namespace {

using Clock = std::chrono::steady_clock;

Clock::duration ToClock(absl::Duration duration) {
  return std::chrono::duration_cast<Clock::duration>(
      absl::ToChronoNanoseconds(duration));
}

}  // namespace

absl::StatusOr<std::unique_ptr<EtcdQuorumAuthority>>
EtcdQuorumAuthority::Create(EtcdQuorumAuthorityOptions options) {
  if (options.address.empty()) {
    return absl::InvalidArgumentError(
        "etcd quorum authority: the lighthouse's address is empty");
  }
  if (options.prefix.empty()) {
    return absl::InvalidArgumentError("etcd quorum authority: empty prefix");
  }
  if (options.lease_ttl < absl::Seconds(1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "etcd quorum authority: lease TTL ",
        absl::FormatDuration(options.lease_ttl), " is under etcd's 1s"));
  }
  absl::StatusOr<std::unique_ptr<EtcdClient>> client =
      EtcdClient::Create(options.endpoints, options.request_timeout);
  if (!client.ok()) return client.status();
  return std::unique_ptr<EtcdQuorumAuthority>(
      new EtcdQuorumAuthority(std::move(options), *std::move(client)));
}

EtcdQuorumAuthority::EtcdQuorumAuthority(EtcdQuorumAuthorityOptions options,
                                         std::unique_ptr<EtcdClient> client)
    : options_(std::move(options)), client_(std::move(client)) {
  // The first round before returning: a lighthouse knows from the start
  // who leads (or that it does), as far as etcd answers.
  Step();
  thread_ = std::thread([this] { Run(); });
}

EtcdQuorumAuthority::~EtcdQuorumAuthority() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  thread_.join();
  // Deleting the lease deletes the leader key it holds: the others need
  // not wait for the TTL. Best effort: an unreachable etcd lets it expire.
  if (lease_ != 0) client_->RevokeLease(lease_).IgnoreError();
}

void EtcdQuorumAuthority::Run() {
  // The constructor ran the first round.
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    // A step-down is acted on at once: the sooner the key is gone, the
    // sooner a follower leads.
    stop_cv_.wait_for(lock, absl::ToChronoMilliseconds(options_.poll_interval),
                      [this] { return stopping_ || stepping_down_; });
    if (stopping_) return;
    lock.unlock();
    Step();
    lock.lock();
  }
}

void EtcdQuorumAuthority::StepDown(const std::string& why) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!leader_) return;
    leader_ = false;
    leader_revision_ = 0;
    leader_address_.clear();
    stepping_down_ = true;
    step_down_reason_ = why;
  }
  stop_cv_.notify_all();
}

void EtcdQuorumAuthority::RevokeAfterStepDown() {
  const Clock::time_point sent = Clock::now();
  std::string why;
  {
    std::lock_guard<std::mutex> lock(mu_);
    why = std::move(step_down_reason_);
  }
  absl::Status revoked = absl::OkStatus();
  if (lease_ != 0) revoked = client_->RevokeLease(lease_);
  const int64_t lease = std::exchange(lease_, 0);
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Unrevoked, the lease holds the key until it expires, a TTL from its
    // last renewal at the latest, and only then may a follower take it.
    campaign_after_ = sent + ToClock(revoked.ok() ? options_.lease_ttl
                                                  : options_.lease_ttl * 2);
    stepping_down_ = false;
  }
  // The lighthouse logged why it stepped down.
  if (revoked.ok()) {
    SLUICE_LOG(INFO) << "lighthouse " << options_.address << ": etcd lease "
                     << lease << " revoked, and the leader key with it";
  } else {
    SLUICE_LOG(WARNING) << "lighthouse " << options_.address
                        << ": stepped down (" << why
                        << ") but cannot revoke etcd lease " << lease
                        << ", which expires unrenewed: " << revoked;
  }
}

void EtcdQuorumAuthority::Step() {
  bool step_down = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    step_down = stepping_down_;
  }
  if (step_down) {
    RevokeAfterStepDown();
    return;
  }
  // The lease counts from before the request that granted or renewed it.
  const Clock::time_point sent = Clock::now();
  if (lease_ == 0) {
    absl::StatusOr<int64_t> lease = client_->GrantLease(options_.lease_ttl);
    if (!Reached(lease.status())) {
      SetNotLeader("");
      return;
    }
    lease_ = *lease;
    std::lock_guard<std::mutex> lock(mu_);
    lease_until_ = sent + ToClock(options_.lease_ttl);
  } else {
    // Renewed every round, so that the lease is always nearly whole when
    // etcd goes out of reach: a cut shorter than the TTL less the time to
    // notice the heal (a round and a request timeout) loses nothing.
    absl::StatusOr<int64_t> ttl = client_->KeepAlive(lease_);
    if (!Reached(ttl.status())) {
      // Unreachable: leadership lapses with the lease (IsLeader checks
      // lease_until_); keep the lease to renew it if etcd comes back in
      // time.
      return;
    }
    if (*ttl <= 0) {
      SLUICE_LOG(WARNING) << "lighthouse " << options_.address
                          << ": etcd lease " << lease_
                          << " expired; campaigning with a new one";
      lease_ = 0;
      SetNotLeader("");
      return;
    }
    std::lock_guard<std::mutex> lock(mu_);
    lease_until_ = sent + std::chrono::seconds(*ttl);
  }

  absl::StatusOr<std::optional<EtcdKeyValue>> leader =
      client_->Get(leader_key());
  if (!Reached(leader.status())) return;
  if (!leader->has_value()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      // Stepped down: a follower is to take the key, not this one again.
      if (stepping_down_ || Clock::now() < campaign_after_) {
        leader_address_.clear();
        return;
      }
    }
    absl::StatusOr<EtcdTxnResult> won =
        client_->Txn({EtcdCompare::CreateRevisionIs(leader_key(), 0)},
                     {EtcdPut{leader_key(), options_.address, lease_}});
    if (!won.ok() || !won->succeeded) return;  // read again next round
    {
      std::lock_guard<std::mutex> lock(mu_);
      // A step-down while the campaign was in flight: the lease is revoked
      // next round, the new key with it.
      if (stepping_down_) return;
      leader_ = true;
      // The key was created by this transaction, at its revision.
      leader_revision_ = won->revision;
      leader_address_ = options_.address;
    }
    // Logged with mu_ released: the lighthouse asks IsLeader under its own
    // lock, which every RPC takes, and stderr may be slow.
    SLUICE_LOG(INFO) << "lighthouse " << options_.address
                     << ": leader (etcd lease " << lease_ << ", revision "
                     << won->revision << ")";
    return;
  }
  const EtcdKeyValue& key = **leader;
  if (key.lease == lease_ && key.value == options_.address) {
    std::lock_guard<std::mutex> lock(mu_);
    // Read before the step-down revoked the lease.
    if (stepping_down_) return;
    leader_ = true;
    leader_revision_ = key.create_revision;
    leader_address_ = key.value;
    return;
  }
  SetNotLeader(key.value);
}

void EtcdQuorumAuthority::SetNotLeader(std::string leader_address) {
  const std::string named = leader_address.empty() ? "unknown" : leader_address;
  bool was_leader = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    was_leader = leader_;
    leader_ = false;
    leader_revision_ = 0;
    leader_address_ = std::move(leader_address);
  }
  // With mu_ released, as in Step.
  if (was_leader) {
    SLUICE_LOG(WARNING) << "lighthouse " << options_.address
                        << ": no longer the leader (leader: " << named << ")";
  }
}

bool EtcdQuorumAuthority::Reached(const absl::Status& answered) {
  const Clock::time_point now = Clock::now();
  std::string log;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (answered.ok()) {
      last_answer_ = now;
      if (unreachable_since_.has_value()) {
        log = absl::StrCat(
            "etcd answers again after ",
            absl::FormatDuration(absl::Trunc(
                absl::FromChrono(now - *unreachable_since_),
                absl::Milliseconds(10))),
            " out of reach");
      }
      unreachable_since_.reset();
      unreachable_error_.clear();
    } else {
      unreachable_error_ = std::string(answered.message());
      if (!unreachable_since_.has_value()) {
        unreachable_since_ = now;
        log = absl::StrCat(
            "etcd does not answer (", unreachable_error_,
            "): no lighthouse can lead or issue a quorum until it does; ",
            leader_ ? "this leader's lease lapses unrenewed"
                    : "the leader's lease lapses unrenewed",
            " within ", absl::FormatDuration(options_.lease_ttl));
      }
    }
  }
  // With mu_ released, as in Step.
  if (!log.empty()) {
    if (answered.ok()) {
      SLUICE_LOG(INFO) << "lighthouse " << options_.address << ": " << log;
    } else {
      SLUICE_LOG(ERROR) << "lighthouse " << options_.address << ": " << log;
    }
  }
  return answered.ok();
}

bool EtcdQuorumAuthority::IsLeader() const {
  std::lock_guard<std::mutex> lock(mu_);
  return leader_ && Clock::now() < lease_until_;
}

std::string EtcdQuorumAuthority::LeaderAddress() const {
  std::lock_guard<std::mutex> lock(mu_);
  const Clock::time_point now = Clock::now();
  if (leader_ && now >= lease_until_) return "";
  // Read from etcd more than a lease ago: that leader may be gone.
  if (!leader_ && unreachable_since_.has_value() &&
      now - last_answer_ >= ToClock(options_.lease_ttl)) {
    return "";
  }
  return leader_address_;
}

std::string EtcdQuorumAuthority::Trouble() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!unreachable_since_.has_value()) return "";
  return absl::StrCat(
      "etcd unreachable for ",
      absl::FormatDuration(
          absl::Trunc(absl::FromChrono(Clock::now() - *unreachable_since_),
                      absl::Milliseconds(100))),
      " (", unreachable_error_, ")");
}

absl::StatusOr<int64_t> EtcdQuorumAuthority::ReadQuorumIdLocked() {
  absl::StatusOr<std::optional<EtcdKeyValue>> key =
      client_->Get(quorum_id_key());
  if (!key.ok()) return key.status();
  int64_t id = 0;
  int64_t revision = 0;
  if (key->has_value()) {
    if (!absl::SimpleAtoi((*key)->value, &id) || id < 0) {
      return absl::DataLossError(
          absl::StrCat("etcd key ", quorum_id_key(), " holds '",
                       (*key)->value.substr(0, 100), "', not a quorum id"));
    }
    revision = (*key)->mod_revision;
  }
  last_quorum_id_ = id;
  quorum_mod_revision_ = revision;
  quorum_read_ = true;
  return id;
}

absl::StatusOr<int64_t> EtcdQuorumAuthority::LastQuorumId() {
  std::lock_guard<std::mutex> lock(quorum_mu_);
  return ReadQuorumIdLocked();
}

absl::Status EtcdQuorumAuthority::RecordQuorumId(int64_t id) {
  std::lock_guard<std::mutex> lock(quorum_mu_);
  if (!quorum_read_) {
    absl::StatusOr<int64_t> read = ReadQuorumIdLocked();
    if (!read.ok()) return read.status();
  }
  int64_t leader_revision = 0;
  {
    std::lock_guard<std::mutex> state_lock(mu_);
    if (!leader_ || Clock::now() >= lease_until_) {
      return absl::FailedPreconditionError(absl::StrCat(
          "quorum id ", id, " not recorded: lighthouse ", options_.address,
          " is not the leader (leader: ",
          leader_address_.empty() ? "unknown" : leader_address_, ")"));
    }
    leader_revision = leader_revision_;
  }
  if (id <= last_quorum_id_) {
    return absl::FailedPreconditionError(
        absl::StrCat("quorum id ", id, " not recorded: etcd already holds ",
                     last_quorum_id_, " under ", quorum_id_key()));
  }
  const int64_t read_id = last_quorum_id_;
  absl::StatusOr<EtcdTxnResult> txn = client_->Txn(
      {EtcdCompare::ValueIs(leader_key(), options_.address),
       EtcdCompare::CreateRevisionIs(leader_key(), leader_revision),
       quorum_mod_revision_ == 0
           ? EtcdCompare::CreateRevisionIs(quorum_id_key(), 0)
           : EtcdCompare::ModRevisionIs(quorum_id_key(), quorum_mod_revision_)},
      {EtcdPut{quorum_id_key(), absl::StrCat(id), 0}});
  if (!txn.ok()) {
    // The write may or may not have happened: read before the next one.
    quorum_read_ = false;
    return txn.status();
  }
  if (txn->succeeded) {
    last_quorum_id_ = id;
    quorum_mod_revision_ = txn->revision;
    return absl::OkStatus();
  }

  // Lost a race: say to whom.
  quorum_read_ = false;
  std::string why;
  absl::StatusOr<std::optional<EtcdKeyValue>> leader =
      client_->Get(leader_key());
  if (leader.ok()) {
    const bool still_leader = leader->has_value() &&
                              (*leader)->value == options_.address &&
                              (*leader)->create_revision == leader_revision;
    if (!still_leader) {
      SetNotLeader(leader->has_value() ? (*leader)->value : "");
      why = leader->has_value()
                ? absl::StrCat("lighthouse ", (*leader)->value, " leads now")
                : "no lighthouse leads now";
    }
  }
  absl::StatusOr<int64_t> now_id = ReadQuorumIdLocked();
  if (now_id.ok() && *now_id != read_id) {
    absl::StrAppend(&why, why.empty() ? "" : " and ", "the quorum id moved to ",
                    *now_id, " (this lighthouse had read ", read_id, ")");
  }
  if (why.empty()) why = "the leader key or the quorum id changed meanwhile";
  return absl::FailedPreconditionError(
      absl::StrCat("quorum id ", id, " not recorded by lighthouse ",
                   options_.address, ": ", why));
}

}  // namespace sluice::lighthouse
