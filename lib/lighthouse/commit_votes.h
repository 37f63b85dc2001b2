// CommitVotes: the lighthouse's commit votes (docs/lighthouse.md). Each
// participant of the current quorum votes on each step; a step commits only
// when every participant voted ok and there are at least min_replicas of
// them. A vote against, or a participant lost, decides the step at once.
//
// Votes may instead name the step's contributors (partial collectives left
// the others out): the step then commits once every contributor voted ok
// naming the same contributors, and there are at least min_replicas of
// them, so that a replica lost mid-allreduce does not cost the step the
// survivors computed without it.
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
  // The participants that have not voted on `step`, e.g. "b, c": the
  // contributors alone once a vote named them.
  std::string Missing(int64_t quorum_id, int64_t step) const;

  // A participant is lost: every undecided step, and every later one, of
  // the current quorum fails, but for those whose votes name contributors
  // without it. Returns how many undecided steps failed.
  int MemberLost(const std::string& replica_id, const std::string& reason);

 private:
  struct Round {
    std::map<std::string, bool> votes;  // by replica id: ok
    // What the first vote that named contributors named (sorted), and who
    // cast it; empty while no vote did.
    std::vector<std::string> contributors;
    std::string contributors_from;
    // Who cast the first vote that named none, "" while nobody did.
    std::string plain_from;
    std::optional<proto::CommitResponse> outcome;
  };

  // Why a vote on `quorum_id`, not the current quorum, does not commit.
  std::string OtherQuorum(int64_t quorum_id) const;
  // The step's outcome once every participant voted ok.
  proto::CommitResponse AllVoted() const;
  // Decides `round` (undecided) on `vote`, which names contributors, when
  // the vote settles it.
  void VoteWithContributors(const proto::CommitRequest& vote, Round& round);

  int64_t quorum_id_ = 0;
  std::vector<std::string> participants_;  // sorted replica ids
  int min_replicas_ = 1;
  // The participants the current quorum lost, and why the first was lost
  // ("" while none was): what fails a step whose contributors are unknown.
  std::map<std::string, std::string> lost_;  // by replica id: why
  std::string first_lost_;
  std::map<int64_t, Round> rounds_;  // by step, the most recent ones
};

}  // namespace sluice::lighthouse

#endif  // SLUICE_LIB_LIGHTHOUSE_COMMIT_VOTES_H_
