#include "lib/lighthouse/commit_votes.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace sluice::lighthouse {
namespace {

// Steps decided long ago are asked about by nobody: keep this many.
constexpr size_t kRoundsKept = 64;

proto::CommitResponse Decided(bool commit, std::string reason) {
  proto::CommitResponse response;
  response.set_commit(commit);
  response.set_reason(std::move(reason));
  return response;
}

}  // namespace

void CommitVotes::Reset(const proto::Quorum& quorum, int min_replicas) {
  quorum_id_ = quorum.quorum_id();
  participants_.clear();
  for (const proto::ReplicaInfo& participant : quorum.participants()) {
    participants_.push_back(participant.replica_id());
  }
  std::sort(participants_.begin(), participants_.end());
  min_replicas_ = min_replicas;
  lost_.clear();
  rounds_.clear();
}

std::string CommitVotes::OtherQuorum(int64_t quorum_id) const {
  // A quorum above the current one was issued by another lighthouse that
  // led meanwhile: this one never saw it.
  return absl::StrCat(quorum_id < quorum_id_ ? "stale" : "unknown", " quorum ",
                      quorum_id, " (current ", quorum_id_, ")");
}

proto::CommitResponse CommitVotes::AllVoted() const {
  const int size = static_cast<int>(participants_.size());
  if (size < min_replicas_) {
    return Decided(false, absl::StrCat("quorum ", quorum_id_, " has ", size,
                                       " participants, fewer than "
                                       "min_replicas ",
                                       min_replicas_));
  }
  return Decided(true, "");
}

CommitVotes::Result CommitVotes::Vote(const proto::CommitRequest& vote) {
  Result result;
  if (vote.quorum_id() != quorum_id_) {
    result.outcome = Decided(false, OtherQuorum(vote.quorum_id()));
    return result;
  }
  if (!std::binary_search(participants_.begin(), participants_.end(),
                          vote.replica_id())) {
    result.outcome = Decided(
        false, absl::StrCat("replica ", vote.replica_id(),
                            " is not a participant of quorum ", quorum_id_));
    return result;
  }
  Round& round = rounds_[vote.step()];
  if (round.outcome.has_value()) {
    result.outcome = round.outcome;
    return result;
  }
  round.votes[vote.replica_id()] = vote.ok();
  if (!lost_.empty()) {
    round.outcome = Decided(false, lost_);
  } else if (!vote.ok()) {
    round.outcome = Decided(
        false,
        absl::StrCat("replica ", vote.replica_id(), " voted against step ",
                     vote.step(), " of quorum ", quorum_id_,
                     vote.failure().empty() ? "" : ": ", vote.failure()));
  } else if (round.votes.size() == participants_.size()) {
    round.outcome = AllVoted();
  }
  result.outcome = round.outcome;
  result.failed_now = round.outcome.has_value() && !round.outcome->commit();
  while (rounds_.size() > kRoundsKept) rounds_.erase(rounds_.begin());
  return result;
}

std::optional<proto::CommitResponse> CommitVotes::Outcome(int64_t quorum_id,
                                                          int64_t step) const {
  if (quorum_id != quorum_id_) return Decided(false, OtherQuorum(quorum_id));
  auto it = rounds_.find(step);
  if (it == rounds_.end()) return std::nullopt;
  return it->second.outcome;
}

std::string CommitVotes::Missing(int64_t quorum_id, int64_t step) const {
  std::vector<std::string> missing;
  auto it = quorum_id == quorum_id_ ? rounds_.find(step) : rounds_.end();
  for (const std::string& participant : participants_) {
    if (it == rounds_.end() || it->second.votes.count(participant) == 0) {
      missing.push_back(participant);
    }
  }
  return absl::StrJoin(missing, ", ");
}

int CommitVotes::MemberLost(const std::string& replica_id,
                            const std::string& reason) {
  if (!std::binary_search(participants_.begin(), participants_.end(),
                          replica_id)) {
    return 0;
  }
  if (lost_.empty()) lost_ = reason;
  int failed = 0;
  for (auto& [step, round] : rounds_) {
    if (round.outcome.has_value()) continue;
    round.outcome = Decided(false, lost_);
    ++failed;
  }
  return failed;
}

}  // namespace sluice::lighthouse
