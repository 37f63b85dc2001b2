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

// A set of replica ids as reasons write it, e.g. "{a, b}".
std::string SetText(const std::vector<std::string>& ids) {
  return absl::StrCat("{", absl::StrJoin(ids, ", "), "}");
}

bool Contains(const std::vector<std::string>& sorted, const std::string& id) {
  return std::binary_search(sorted.begin(), sorted.end(), id);
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
  first_lost_.clear();
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
  if (vote.contributors_size() > 0) {
    VoteWithContributors(vote, round);
  } else if (!first_lost_.empty()) {
    round.outcome = Decided(false, first_lost_);
  } else if (!round.contributors_from.empty()) {
    round.outcome = Decided(
        false, absl::StrCat("replica ", vote.replica_id(), " voted on step ",
                            vote.step(), " of quorum ", quorum_id_,
                            " naming no contributors, but replica ",
                            round.contributors_from, " named ",
                            SetText(round.contributors)));
  } else if (!vote.ok()) {
    round.outcome = Decided(
        false,
        absl::StrCat("replica ", vote.replica_id(), " voted against step ",
                     vote.step(), " of quorum ", quorum_id_,
                     vote.failure().empty() ? "" : ": ", vote.failure()));
  } else if (round.votes.size() == participants_.size()) {
    round.outcome = AllVoted();
  }
  if (vote.contributors_size() == 0 && round.plain_from.empty()) {
    round.plain_from = vote.replica_id();
  }
  result.outcome = round.outcome;
  result.failed_now = round.outcome.has_value() && !round.outcome->commit();
  while (rounds_.size() > kRoundsKept) rounds_.erase(rounds_.begin());
  return result;
}

void CommitVotes::VoteWithContributors(const proto::CommitRequest& vote,
                                       Round& round) {
  std::vector<std::string> contributors(vote.contributors().begin(),
                                        vote.contributors().end());
  std::sort(contributors.begin(), contributors.end());
  contributors.erase(std::unique(contributors.begin(), contributors.end()),
                     contributors.end());
  const std::string& voter = vote.replica_id();
  const std::string on_step =
      absl::StrCat(" step ", vote.step(), " of quorum ", quorum_id_);
  // Partial collectives survive the loss of ranks they left out, not of
  // those whose inputs the result holds.
  for (const std::string& contributor : contributors) {
    auto lost = lost_.find(contributor);
    if (lost != lost_.end()) {
      round.outcome = Decided(false, lost->second);
      return;
    }
  }
  for (const std::string& contributor : contributors) {
    if (!Contains(participants_, contributor)) {
      round.outcome = Decided(
          false, absl::StrCat("replica ", voter, " named contributor ",
                              contributor, " of", on_step,
                              ", not a participant of quorum ", quorum_id_));
      return;
    }
  }
  if (!round.plain_from.empty()) {
    round.outcome =
        Decided(false, absl::StrCat("replica ", voter, " named contributors ",
                                    SetText(contributors), " for", on_step,
                                    ", but replica ", round.plain_from,
                                    " voted naming none"));
    return;
  }
  if (round.contributors_from.empty()) {
    round.contributors = contributors;
    round.contributors_from = voter;
  } else if (contributors != round.contributors) {
    round.outcome =
        Decided(false, absl::StrCat("replica ", voter, " named contributors ",
                                    SetText(contributors), " for", on_step,
                                    ", but replica ", round.contributors_from,
                                    " named ", SetText(round.contributors)));
    return;
  }
  const bool contributes = Contains(contributors, voter);
  if (!contributes && vote.ok()) {
    // Its input is not in the result it votes for: it cannot have one.
    round.outcome =
        Decided(false, absl::StrCat("replica ", voter, " voted for", on_step,
                                    " naming contributors ",
                                    SetText(contributors), " without itself"));
    return;
  }
  // A participant left out may say so; only the contributors decide.
  if (!contributes) return;
  if (!vote.ok()) {
    round.outcome =
        Decided(false, absl::StrCat("replica ", voter, " voted against",
                                    on_step, vote.failure().empty() ? "" : ": ",
                                    vote.failure()));
    return;
  }
  for (const std::string& contributor : contributors) {
    auto it = round.votes.find(contributor);
    if (it == round.votes.end() || !it->second) return;
  }
  const int size = static_cast<int>(contributors.size());
  if (size < min_replicas_) {
    round.outcome = Decided(
        false,
        absl::StrCat("step ", vote.step(), " of quorum ", quorum_id_, " has ",
                     size, " contributors ", SetText(contributors),
                     ", fewer than min_replicas ", min_replicas_));
    return;
  }
  round.outcome = Decided(true, "");
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
  const bool named = it != rounds_.end() && !it->second.contributors.empty();
  for (const std::string& participant :
       named ? it->second.contributors : participants_) {
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
  const std::string& why = lost_.emplace(replica_id, reason).first->second;
  if (first_lost_.empty()) first_lost_ = reason;
  int failed = 0;
  for (auto& [step, round] : rounds_) {
    if (round.outcome.has_value()) continue;
    // The survivors' partial collectives went on without it: their step
    // can still commit.
    if (!round.contributors.empty() &&
        !Contains(round.contributors, replica_id)) {
      continue;
    }
    round.outcome = Decided(false, why);
    ++failed;
  }
  return failed;
}

}  // namespace sluice::lighthouse
