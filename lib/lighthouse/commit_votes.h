// CommitVotes: the lighthouse's commit votes (docs/lighthouse.md). Each
// participant of the current quorum votes on each step; a step commits only
// when every participant voted ok and there are at least min_replicas of
// them. A vote against, or a participant lost, decides the step at once.
#ifndef SLUICE_LIB_LIGHTHOUSE_COMMIT_VOTES_H_
#define SLUICE_LIB_LIGHTHOUSE_COMMIT_VOTES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lib/lighthouse/lighthouse_service.pb.h"

namespace sluice::lighthouse {

class CommitVotes {
 public:
  // Votes are now on `quorum`; those of earlier quorums are dropped.
  void Reset(const proto::Quorum& quorum, int min_replicas);

  struct Result {
    // Set once the step is decided (by this vote or before).
    std::optional<proto::CommitResponse> outcome;
    // This vote decided a step of the current quorum against committing.
    bool failed_now = false;
  };
  Result Vote(const proto::CommitRequest& vote);

  // The outcome of `step` of `quorum_id`, when decided.
  std::optional<proto::CommitResponse> Outcome(int64_t quorum_id,
                                               int64_t step) const;
  // The participants that have not voted on `step`, e.g. "b, c".
  std::string Missing(int64_t quorum_id, int64_t step) const;

  // A participant is lost: every undecided step, and every later one, of
  // the current quorum fails. Returns how many undecided steps failed.
  int MemberLost(const std::string& replica_id, const std::string& reason);

 private:
  struct Round {
    std::map<std::string, bool> votes;  // by replica id: ok
    std::optional<proto::CommitResponse> outcome;
  };

  // Why a vote on `quorum_id`, not the current quorum, does not commit.
  std::string OtherQuorum(int64_t quorum_id) const;
  // The step's outcome once every participant voted ok.
  proto::CommitResponse AllVoted() const;

  int64_t quorum_id_ = 0;
  std::vector<std::string> participants_;  // sorted replica ids
  int min_replicas_ = 1;
  std::string lost_;  // why the current quorum lost a member, "" if it did not
  std::map<int64_t, Round> rounds_;  // by step, the most recent ones
};

}  // namespace sluice::lighthouse

#endif  // SLUICE_LIB_LIGHTHOUSE_COMMIT_VOTES_H_
