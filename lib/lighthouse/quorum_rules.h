// QuorumRules: the lighthouse's quorum state machine (docs/lighthouse.md),
// with no clock and no threads of its own: every call takes the time, so
// that tests drive it on a fake clock and the server on absl::Now().
//
// A replica is healthy while it was heard from (heartbeat, quorum request
// or an opened Watch) within the heartbeat timeout and is not lost. A
// replica is lost at once when its last Watch stream ends (its process
// died), and when a newer incarnation of it speaks. A quorum forms from the
// healthy requesters:
//   - fast quorum: every participant of the current quorum asked again;
//   - otherwise at least min_replicas requesters that are more than half of
//     the healthy replicas, once every healthy replica asked or the join
//     timeout passed since the first pending request.
// The quorum id (the generation) grows when the participants (replica id and
// incarnation) change or a commit failed; otherwise it stays.
//
// Its memory is bounded (docs/lighthouse.md, "Limits"): at most max_replicas
// replica ids are known at once (Admit), and a replica silent for
// forget_after that waits for nothing is forgotten (Forget).
#ifndef SLUICE_LIB_LIGHTHOUSE_QUORUM_RULES_H_
#define SLUICE_LIB_LIGHTHOUSE_QUORUM_RULES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "lib/lighthouse/lighthouse_service.pb.h"

namespace sluice::lighthouse {

struct QuorumRulesOptions {
  int min_replicas = 1;
  absl::Duration join_timeout = absl::Milliseconds(60000);
  absl::Duration heartbeat_timeout = absl::Milliseconds(5000);
  // A replica not heard from for this long, with no watch stream open, no
  // pending request and not a participant of the current quorum, is
  // forgotten. At least heartbeat_timeout: a healthy replica is never
  // forgotten.
  absl::Duration forget_after = absl::Seconds(60);
  // The most replica ids known at once; a new one past it is refused.
  int max_replicas = 10000;
};

// What a replica id may be: 1 to kMaxReplicaIdBytes bytes of
// kReplicaIdCharacters, so that it can be neither a log line of its own nor
// markup, and its entry stays small.
inline constexpr size_t kMaxReplicaIdBytes = 128;
inline constexpr char kReplicaIdCharacters[] = "A-Z a-z 0-9 . _ : / -";
// A replica's address ("host:port" of its healing service): a DNS name is at
// most 253 bytes.
inline constexpr size_t kMaxReplicaAddressBytes = 256;
// A vote's failure text is cut to this many bytes.
inline constexpr size_t kMaxFailureBytes = 512;

// OK, or INVALID_ARGUMENT naming the rule that `replica_id` breaks (with the
// id escaped and cut, never raw).
absl::Status CheckReplicaId(absl::string_view replica_id);
// OK, or INVALID_ARGUMENT when `address` is longer than
// kMaxReplicaAddressBytes or holds a control character or a space.
absl::Status CheckReplicaAddress(absl::string_view address);
// `text` fit for one log line: control characters, quotes and backslashes
// escaped (C style), bytes outside ASCII as \xNN, cut to about `max_bytes`
// ending in "...".
std::string Escaped(absl::string_view text, size_t max_bytes = 64);
// `text` with its control characters (a newline among them) escaped,
// other characters kept, cut to at most `max_bytes` on a character boundary:
// for texts that replicas read (a vote's failure), which may be UTF-8.
std::string WithoutControlCharacters(absl::string_view text, size_t max_bytes);

// INVALID_ARGUMENT naming the option that is out of range.
absl::Status ValidateQuorumRulesOptions(const QuorumRulesOptions& options);

// A quorum ready to be issued, and the pending requests it answers.
struct FormedQuorum {
  proto::Quorum quorum;
  bool new_generation = false;  // its id is above the current quorum's
  std::vector<uint64_t> tickets;
};

// What Evaluate found: a quorum, or why none forms yet.
struct QuorumDecision {
  std::optional<FormedQuorum> formed;
  std::string waiting;  // when !formed, e.g. "1 of 3 healthy replicas asked"
};

// A participant of the current quorum that stopped being healthy.
struct LostMember {
  int64_t quorum_id = 0;
  std::string replica_id;
  std::string reason;  // e.g. "replica b lost: its watch stream ended"
};

class QuorumRules {
 public:
  explicit QuorumRules(QuorumRulesOptions options);

  const QuorumRulesOptions& options() const { return options_; }

  // The id of the quorum issued last; 0 before the first.
  int64_t quorum_id() const { return current_.quorum_id(); }
  const proto::Quorum& current() const { return current_; }

  // Another lighthouse issued up to `last_issued` (a new leader, or one
  // that lost a race for an id): the next quorum is a new generation above
  // it.
  void RaiseQuorumId(int64_t last_issued);
  // This lighthouse recorded `id` with its authority but did not issue it
  // (what it recorded it for changed meanwhile): the next new generation is
  // above it, as an id is never used twice, but nothing forces one.
  void SpendQuorumId(int64_t id);

  // Whether `replica_id` speaking as `incarnation` may be recorded (the
  // calls below record it regardless; the lighthouse asks first):
  //   - RESOURCE_EXHAUSTED for a new id while max_replicas ids are known;
  //   - FAILED_PRECONDITION for a new incarnation of an id whose current
  //     incarnation is healthy and holds a watch stream open: a live process
  //     holds the id, and a restart's predecessor is gone (its stream ended)
  //     or silent (unhealthy) within the heartbeat timeout. This keeps a
  //     caller that guesses no incarnation from taking a live replica's
  //     place.
  absl::Status Admit(const std::string& replica_id, uint64_t incarnation,
                     absl::Time now) const;

  // Forgets the replicas silent for forget_after (whether they were lost or
  // just went away) that wait for nothing: no watch stream open, no pending
  // request, not a participant of the current quorum. Returns their ids.
  std::vector<std::string> Forget(absl::Time now);
  // How many replica ids are known now.
  size_t replica_count() const { return replicas_.size(); }

  void Heartbeat(const std::string& replica_id, uint64_t incarnation,
                 absl::Time now);

  // Records a quorum request (a heartbeat too) and returns its ticket, which
  // a formed quorum lists when it answers it. A newer request of the same
  // replica replaces its pending one.
  uint64_t Request(const proto::QuorumRequest& request, absl::Time now);
  // Drops a pending request (its caller gave up). No-op when not pending.
  void Withdraw(uint64_t ticket);
  bool IsPending(uint64_t ticket) const;

  // A Watch stream of the replica opened (a heartbeat too) or ended. The
  // replica is lost when the last stream of its incarnation ends.
  void WatchOpened(const std::string& replica_id, uint64_t incarnation,
                   absl::Time now);
  // `outlived_pause`: the stream was open while the lighthouse did not run
  // (see Resumed). Its peer may have given up on it meanwhile, so its end,
  // whenever the lighthouse notices it, says nothing of the replica: it
  // loses no one, and the heartbeat timeout decides.
  void WatchEnded(const std::string& replica_id, uint64_t incarnation,
                  bool outlived_pause = false);

  // The lighthouse did not run for a while (stopped, or starved of CPU):
  // every replica counts as heard from `now`.
  void Resumed(absl::Time now);

  // A commit vote of the current quorum failed: the next quorum is a new
  // generation even with the same participants.
  void CommitFailed();

  // Participants of the current quorum that are no longer healthy and were
  // not returned before. The next quorum is a new generation even if they
  // come back: their peers dropped the group of this one.
  std::vector<LostMember> TakeLostMembers(absl::Time now);

  // An operator, `by`, killed the replica's current incarnation: it is
  // lost at once for `why`, and a new incarnation of it is a new member.
  // False when the id is not known.
  bool Kill(const std::string& replica_id, const std::string& why,
            const std::string& by);
  // Who killed `incarnation` of `replica_id`, "" when no one did.
  std::string KilledBy(const std::string& replica_id,
                       uint64_t incarnation) const;
  // An operator drained the replica: every incarnation of it is left out of
  // quorums from now on, as lost for `why`, and its pending request is
  // dropped. Holds for as long as these rules do (the lighthouse's life).
  // False when the id is not known.
  bool Drain(const std::string& replica_id, const std::string& why);
  // Why `replica_id` was drained, "" when it was not.
  std::string WhyDrained(const std::string& replica_id) const;

  // Whether a quorum forms now.
  QuorumDecision Evaluate(absl::Time now) const;
  // Makes `formed` (from Evaluate, with nothing changed since) the current
  // quorum and drops the requests it answers.
  void Issue(const FormedQuorum& formed);

  // Every replica heard from, for LighthouseStatus.
  std::vector<proto::ReplicaStatus> Replicas(absl::Time now) const;

 private:
  struct Replica {
    uint64_t incarnation = 0;
    proto::ReplicaInfo info;  // as last described in a request
    absl::Time last_heard;
    int open_watches = 0;
    bool watch_ended = false;        // lost: its last watch stream ended
    std::optional<uint64_t> ticket;  // its pending request
    absl::Time requested;
    int64_t commit_failures = 0;  // reported with the pending request
    // Why an operator took this incarnation out (Kill, Drain): it is lost
    // whatever it sends. "" when none did.
    std::string removed;
    std::string killed_by;  // the operator who killed it, "" when none did
  };

  // The replica `replica_id` speaking as `incarnation`: a new entry when it
  // is new or restarted.
  Replica& Touch(const std::string& replica_id, uint64_t incarnation,
                 absl::Time now);
  bool Healthy(const Replica& replica, absl::Time now) const;
  // Why a participant of the current quorum is not healthy, "" if it is.
  std::string WhyLost(const proto::ReplicaInfo& participant,
                      absl::Time now) const;

  QuorumRulesOptions options_;
  std::map<std::string, Replica> replicas_;  // by replica id
  proto::Quorum current_;
  int64_t id_floor_ = 0;  // the next new generation is above it
  int64_t spent_id_ = 0;  // and above this one (SpendQuorumId)
  // Why the next quorum is a new generation whatever its participants, ""
  // when nothing forces one.
  std::string forced_new_generation_;
  std::set<std::string> reported_lost_;  // of the current quorum
  std::map<std::string, std::string> drained_;  // why, by replica id
  uint64_t next_ticket_ = 1;
};

}  // namespace sluice::lighthouse

#endif  // SLUICE_LIB_LIGHTHOUSE_QUORUM_RULES_H_
