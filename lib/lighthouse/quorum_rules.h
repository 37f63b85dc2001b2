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
#include "absl/time/time.h"
#include "lib/lighthouse/lighthouse_service.pb.h"

namespace sluice::lighthouse {

struct QuorumRulesOptions {
  int min_replicas = 1;
  absl::Duration join_timeout = absl::Milliseconds(60000);
  absl::Duration heartbeat_timeout = absl::Milliseconds(5000);
};

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
  uint64_t next_ticket_ = 1;
};

}  // namespace sluice::lighthouse

#endif  // SLUICE_LIB_LIGHTHOUSE_QUORUM_RULES_H_
