#include "lib/lighthouse/quorum_rules.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace sluice::lighthouse {
namespace {

// "60 s", "0.5 s": how the options are spelled in reasons.
std::string Seconds(absl::Duration duration) {
  return absl::StrCat(absl::ToDoubleSeconds(duration), " s");
}

bool IsReplicaIdCharacter(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' ||
         c == '_' || c == ':' || c == '/' || c == '-';
}

bool IsUtf8Continuation(char byte) {
  return (static_cast<unsigned char>(byte) & 0xC0) == 0x80;
}

}  // namespace

std::string Escaped(absl::string_view text, size_t max_bytes) {
  std::string escaped;
  for (size_t i = 0; i < text.size(); ++i) {
    // Byte by byte, so that a cut never splits an escape.
    const std::string piece = absl::CHexEscape(text.substr(i, 1));
    if (escaped.size() + piece.size() > max_bytes) {
      return absl::StrCat(escaped, "...");
    }
    escaped += piece;
  }
  return escaped;
}

std::string WithoutControlCharacters(absl::string_view text, size_t max_bytes) {
  std::string kept;
  for (char c : text) {
    const unsigned char byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      absl::StrAppend(&kept, absl::StrFormat("\\x%02x", byte));
    } else {
      kept.push_back(c);
    }
  }
  if (kept.size() <= max_bytes) return kept;
  size_t cut = max_bytes;
  while (cut > 0 && IsUtf8Continuation(kept[cut])) --cut;
  return kept.substr(0, cut);
}

absl::Status CheckReplicaId(absl::string_view replica_id) {
  if (replica_id.empty()) {
    return absl::InvalidArgumentError("the request names no replica_id");
  }
  if (replica_id.size() > kMaxReplicaIdBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "replica id \"", Escaped(replica_id), "\" is ", replica_id.size(),
        " bytes long: a replica id is at most ", kMaxReplicaIdBytes, " bytes"));
  }
  for (size_t i = 0; i < replica_id.size(); ++i) {
    if (IsReplicaIdCharacter(replica_id[i])) continue;
    return absl::InvalidArgumentError(
        absl::StrCat("replica id \"", Escaped(replica_id), "\" has \"",
                     Escaped(replica_id.substr(i, 1)), "\" at byte ", i,
                     ": a replica id is made of ", kReplicaIdCharacters));
  }
  return absl::OkStatus();
}

absl::Status CheckReplicaAddress(absl::string_view address) {
  if (address.size() > kMaxReplicaAddressBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("address \"", Escaped(address), "\" is ", address.size(),
                     " bytes long: an address is at most ",
                     kMaxReplicaAddressBytes, " bytes"));
  }
  for (char c : address) {
    const unsigned char byte = static_cast<unsigned char>(c);
    if (byte <= 0x20 || byte == 0x7f) {
      return absl::InvalidArgumentError(
          absl::StrCat("address \"", Escaped(address),
                       "\" holds a space or a control character"));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateQuorumRulesOptions(const QuorumRulesOptions& options) {
  if (options.min_replicas < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("lighthouse: min_replicas must be at least 1, got ",
                     options.min_replicas));
  }
  if (options.join_timeout < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("lighthouse: join_timeout must not be negative, got ",
                     absl::FormatDuration(options.join_timeout)));
  }
  if (options.heartbeat_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("lighthouse: heartbeat_timeout must be positive, got ",
                     absl::FormatDuration(options.heartbeat_timeout)));
  }
  if (options.forget_after < options.heartbeat_timeout) {
    return absl::InvalidArgumentError(absl::StrCat(
        "lighthouse: forget_after must be at least heartbeat_timeout (",
        absl::FormatDuration(options.heartbeat_timeout), "), got ",
        absl::FormatDuration(options.forget_after)));
  }
  if (options.max_replicas < options.min_replicas) {
    return absl::InvalidArgumentError(
        absl::StrCat("lighthouse: max_replicas must be at least min_replicas (",
                     options.min_replicas, "), got ", options.max_replicas));
  }
  return absl::OkStatus();
}

QuorumRules::QuorumRules(QuorumRulesOptions options)
    : options_(std::move(options)) {}

void QuorumRules::RaiseQuorumId(int64_t last_issued) {
  id_floor_ = std::max(id_floor_, last_issued);
}

void QuorumRules::SpendQuorumId(int64_t id) {
  spent_id_ = std::max(spent_id_, id);
}

QuorumRules::Replica& QuorumRules::Touch(const std::string& replica_id,
                                         uint64_t incarnation, absl::Time now) {
  auto it = replicas_.find(replica_id);
  if (it != replicas_.end() && it->second.incarnation != incarnation) {
    // A restarted process: its former self (and its pending request) is
    // gone, and it is a new member.
    replicas_.erase(it);
    it = replicas_.end();
  }
  if (it == replicas_.end()) {
    it = replicas_.emplace(replica_id, Replica()).first;
    it->second.incarnation = incarnation;
    it->second.info.set_replica_id(replica_id);
    it->second.info.set_incarnation(incarnation);
    // A drained replica's restart stays out.
    if (auto drained = drained_.find(replica_id); drained != drained_.end()) {
      it->second.removed = drained->second;
    }
  }
  it->second.last_heard = now;
  it->second.watch_ended = false;
  return it->second;
}

absl::Status QuorumRules::Admit(const std::string& replica_id,
                                uint64_t incarnation, absl::Time now) const {
  auto it = replicas_.find(replica_id);
  if (it == replicas_.end()) {
    if (replicas_.size() < static_cast<size_t>(options_.max_replicas)) {
      return absl::OkStatus();
    }
    return absl::ResourceExhaustedError(absl::StrCat(
        "replica ", replica_id, " is refused: ", replicas_.size(),
        " replicas are known, max_replicas ", options_.max_replicas,
        "; a replica is forgotten once silent for ",
        Seconds(options_.forget_after)));
  }
  const Replica& known = it->second;
  if (known.incarnation == incarnation || known.open_watches == 0 ||
      !Healthy(known, now)) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "replica ", replica_id, " is held by incarnation ", known.incarnation,
      ", which is healthy and watching: incarnation ", incarnation,
      " is taken once its watch stream ends or it misses its heartbeat "
      "timeout (",
      Seconds(options_.heartbeat_timeout), ")"));
}

std::vector<std::string> QuorumRules::Forget(absl::Time now) {
  std::set<std::string> participants;
  for (const proto::ReplicaInfo& participant : current_.participants()) {
    participants.insert(participant.replica_id());
  }
  std::vector<std::string> forgotten;
  for (auto it = replicas_.begin(); it != replicas_.end();) {
    const Replica& replica = it->second;
    const bool waits = replica.open_watches > 0 || replica.ticket.has_value() ||
                       participants.count(it->first) > 0;
    if (waits || now - replica.last_heard < options_.forget_after) {
      ++it;
      continue;
    }
    forgotten.push_back(it->first);
    it = replicas_.erase(it);
  }
  return forgotten;
}

bool QuorumRules::Healthy(const Replica& replica, absl::Time now) const {
  return !replica.watch_ended && replica.removed.empty() &&
         now - replica.last_heard < options_.heartbeat_timeout;
}

void QuorumRules::CommitFailed() {
  if (forced_new_generation_.empty())
    forced_new_generation_ = "a commit failed";
}

void QuorumRules::Heartbeat(const std::string& replica_id, uint64_t incarnation,
                            absl::Time now) {
  Touch(replica_id, incarnation, now);
}

uint64_t QuorumRules::Request(const proto::QuorumRequest& request,
                              absl::Time now) {
  const proto::ReplicaInfo& info = request.replica();
  Replica& replica = Touch(info.replica_id(), info.incarnation(), now);
  replica.info = info;
  replica.ticket = next_ticket_++;
  replica.requested = now;
  replica.commit_failures = request.commit_failures();
  // A replica that holds a quorum above every one issued here held it from
  // a lighthouse before this one (a restart without etcd): ids never go
  // back, so that no replica is given an id it already holds.
  if (request.last_quorum_id() > current_.quorum_id()) {
    RaiseQuorumId(request.last_quorum_id());
  }
  return *replica.ticket;
}

void QuorumRules::Withdraw(uint64_t ticket) {
  for (auto& [id, replica] : replicas_) {
    if (replica.ticket == ticket) replica.ticket.reset();
  }
}

bool QuorumRules::IsPending(uint64_t ticket) const {
  for (const auto& [id, replica] : replicas_) {
    if (replica.ticket == ticket) return true;
  }
  return false;
}

void QuorumRules::WatchOpened(const std::string& replica_id,
                              uint64_t incarnation, absl::Time now) {
  ++Touch(replica_id, incarnation, now).open_watches;
}

void QuorumRules::WatchEnded(const std::string& replica_id,
                             uint64_t incarnation, bool outlived_pause) {
  auto it = replicas_.find(replica_id);
  if (it == replicas_.end() || it->second.incarnation != incarnation ||
      it->second.open_watches == 0) {
    return;
  }
  if (--it->second.open_watches == 0 && !outlived_pause) {
    it->second.watch_ended = true;
  }
}

void QuorumRules::Resumed(absl::Time now) {
  for (auto& [id, replica] : replicas_) {
    replica.last_heard = std::max(replica.last_heard, now);
  }
}

std::string QuorumRules::WhyLost(const proto::ReplicaInfo& participant,
                                 absl::Time now) const {
  const std::string& id = participant.replica_id();
  auto it = replicas_.find(id);
  if (it == replicas_.end()) return absl::StrCat("replica ", id, " lost");
  const Replica& replica = it->second;
  if (replica.incarnation != participant.incarnation()) {
    return absl::StrCat("replica ", id, " restarted (incarnation ",
                        replica.incarnation, ", was ",
                        participant.incarnation(), ")");
  }
  if (!replica.removed.empty()) return replica.removed;
  if (replica.watch_ended) {
    return absl::StrCat("replica ", id, " lost: its watch stream ended");
  }
  if (!Healthy(replica, now)) {
    return absl::StrCat(
        "replica ", id, " lost: no heartbeat for ",
        Seconds(absl::Trunc(now - replica.last_heard, absl::Milliseconds(100))),
        " (heartbeat timeout ", Seconds(options_.heartbeat_timeout), ")");
  }
  return "";
}

std::vector<LostMember> QuorumRules::TakeLostMembers(absl::Time now) {
  std::vector<LostMember> lost;
  for (const proto::ReplicaInfo& participant : current_.participants()) {
    if (reported_lost_.count(participant.replica_id()) > 0) continue;
    std::string why = WhyLost(participant, now);
    if (why.empty()) continue;
    reported_lost_.insert(participant.replica_id());
    if (forced_new_generation_.empty()) forced_new_generation_ = why;
    lost.push_back(
        {current_.quorum_id(), participant.replica_id(), std::move(why)});
  }
  return lost;
}

bool QuorumRules::Kill(const std::string& replica_id, const std::string& why,
                       const std::string& by) {
  auto it = replicas_.find(replica_id);
  if (it == replicas_.end()) return false;
  it->second.removed = why;
  it->second.killed_by = by;
  it->second.ticket.reset();
  return true;
}

std::string QuorumRules::KilledBy(const std::string& replica_id,
                                  uint64_t incarnation) const {
  auto it = replicas_.find(replica_id);
  if (it == replicas_.end() || it->second.incarnation != incarnation) {
    return "";
  }
  return it->second.killed_by;
}

bool QuorumRules::Drain(const std::string& replica_id,
                        const std::string& why) {
  auto it = replicas_.find(replica_id);
  if (it == replicas_.end()) return false;
  drained_[replica_id] = why;
  it->second.removed = why;
  it->second.ticket.reset();
  return true;
}

std::string QuorumRules::WhyDrained(const std::string& replica_id) const {
  auto it = drained_.find(replica_id);
  return it == drained_.end() ? "" : it->second;
}

QuorumDecision QuorumRules::Evaluate(absl::Time now) const {
  QuorumDecision decision;
  int healthy = 0;
  std::vector<const Replica*> requesters;  // sorted by replica id
  absl::Time first_request = absl::InfiniteFuture();
  for (const auto& [id, replica] : replicas_) {
    if (!Healthy(replica, now)) continue;
    ++healthy;
    if (replica.ticket.has_value()) {
      requesters.push_back(&replica);
      first_request = std::min(first_request, replica.requested);
    }
  }
  const int asked = static_cast<int>(requesters.size());
  if (asked == 0) {
    decision.waiting = absl::StrCat("no healthy replica asked (", healthy,
                                    " healthy replicas)");
    return decision;
  }

  const auto is_requester = [&](const proto::ReplicaInfo& participant) {
    auto it = replicas_.find(participant.replica_id());
    return it != replicas_.end() &&
           it->second.incarnation == participant.incarnation() &&
           Healthy(it->second, now) && it->second.ticket.has_value();
  };
  const bool fast = current_.participants_size() > 0 &&
                    std::all_of(current_.participants().begin(),
                                current_.participants().end(), is_requester);
  std::string reason;
  if (fast) {
    reason = absl::StrCat("fast quorum: every participant of quorum ",
                          current_.quorum_id(), " asked again");
  } else {
    const std::string counts =
        absl::StrCat(asked, " of ", healthy, " healthy replicas asked");
    const std::string min_replicas =
        absl::StrCat("(min_replicas ", options_.min_replicas, ")");
    if (asked < options_.min_replicas) {
      decision.waiting = absl::StrCat(counts, ", fewer than min_replicas ",
                                      options_.min_replicas);
      return decision;
    }
    // The split-brain guard: a quorum needs a majority of the replicas that
    // are alive, so two halves never both form one.
    if (2 * asked <= healthy) {
      decision.waiting =
          absl::StrCat(counts, ", not more than half ", min_replicas);
      return decision;
    }
    if (asked < healthy) {
      if (now - first_request < options_.join_timeout) {
        decision.waiting = absl::StrCat(counts, " ", min_replicas,
                                        ", waiting for the rest up to the join "
                                        "timeout (",
                                        Seconds(options_.join_timeout), ")");
        return decision;
      }
      reason = absl::StrCat("join timeout ", Seconds(options_.join_timeout),
                            " passed: ", counts, " ", min_replicas);
    } else {
      reason = absl::StrCat(counts, " ", min_replicas);
    }
  }

  FormedQuorum formed;
  bool same_members = asked == current_.participants_size();
  std::string reported_failure;
  for (int i = 0; i < asked; ++i) {
    const Replica& replica = *requesters[i];
    *formed.quorum.add_participants() = replica.info;
    formed.tickets.push_back(*replica.ticket);
    if (replica.commit_failures > 0 && reported_failure.empty()) {
      reported_failure =
          absl::StrCat("replica ", replica.info.replica_id(), " reported ",
                       replica.commit_failures, " failed commits");
    }
    if (same_members) {
      const proto::ReplicaInfo& before = current_.participants(i);
      same_members = before.replica_id() == replica.info.replica_id() &&
                     before.incarnation() == replica.incarnation;
    }
  }
  std::string why_new;
  if (!same_members) {
    why_new = "the participants changed";
  } else if (!forced_new_generation_.empty()) {
    why_new = forced_new_generation_;
  } else if (!reported_failure.empty()) {
    why_new = reported_failure;
  } else if (id_floor_ > current_.quorum_id()) {
    why_new = absl::StrCat("quorum ", id_floor_, " was issued elsewhere");
  }
  formed.new_generation = !why_new.empty();
  formed.quorum.set_quorum_id(
      formed.new_generation
          ? std::max({current_.quorum_id(), id_floor_, spent_id_}) + 1
          : current_.quorum_id());
  formed.quorum.set_created_us(absl::ToUnixMicros(now));
  if (formed.new_generation && current_.quorum_id() > 0) {
    absl::StrAppend(&reason, "; new generation: ", why_new);
  }
  formed.quorum.set_reason(std::move(reason));
  decision.formed = std::move(formed);
  return decision;
}

void QuorumRules::Issue(const FormedQuorum& formed) {
  current_ = formed.quorum;
  forced_new_generation_.clear();
  reported_lost_.clear();
  for (auto& [id, replica] : replicas_) {
    if (replica.ticket.has_value() &&
        std::find(formed.tickets.begin(), formed.tickets.end(),
                  *replica.ticket) != formed.tickets.end()) {
      replica.ticket.reset();
      replica.commit_failures = 0;
    }
  }
}

std::vector<proto::ReplicaStatus> QuorumRules::Replicas(absl::Time now) const {
  int64_t max_step = 0;
  std::set<std::string> members;
  for (const proto::ReplicaInfo& participant : current_.participants()) {
    auto it = replicas_.find(participant.replica_id());
    if (it == replicas_.end() ||
        it->second.incarnation != participant.incarnation()) {
      continue;
    }
    members.insert(participant.replica_id());
    max_step = std::max(max_step, it->second.info.step());
  }
  std::vector<proto::ReplicaStatus> statuses;
  for (const auto& [id, replica] : replicas_) {
    proto::ReplicaStatus status;
    *status.mutable_replica() = replica.info;
    status.set_heartbeat_age_ms(
        absl::ToInt64Milliseconds(now - replica.last_heard));
    status.set_healthy(Healthy(replica, now));
    status.set_in_quorum(members.count(id) > 0);
    status.set_recovering(
        status.in_quorum() &&
        (replica.info.healing() || replica.info.step() < max_step));
    status.set_requesting(replica.ticket.has_value());
    status.set_drained(drained_.count(id) > 0);
    statuses.push_back(std::move(status));
  }
  return statuses;
}

}  // namespace sluice::lighthouse
