// Commit votes: every outcome, with the reason a replica reads.
#include "lib/lighthouse/commit_votes.h"

#include <string>

#include "gtest/gtest.h"

namespace sluice::lighthouse {
namespace {

proto::Quorum QuorumOf(int64_t id, std::initializer_list<const char*> ids) {
  proto::Quorum quorum;
  quorum.set_quorum_id(id);
  for (const char* replica : ids) {
    quorum.add_participants()->set_replica_id(replica);
  }
  return quorum;
}

proto::CommitRequest VoteOf(const std::string& replica, int64_t quorum_id,
                            int64_t step, bool ok,
                            const std::string& failure = "") {
  proto::CommitRequest vote;
  vote.set_replica_id(replica);
  vote.set_quorum_id(quorum_id);
  vote.set_step(step);
  vote.set_ok(ok);
  vote.set_failure(failure);
  return vote;
}

// A vote that names the step's contributors (partial collectives).
proto::CommitRequest VoteNaming(const std::string& replica, int64_t quorum_id,
                                int64_t step, bool ok,
                                std::initializer_list<const char*> contributors,
                                const std::string& failure = "") {
  proto::CommitRequest vote = VoteOf(replica, quorum_id, step, ok, failure);
  for (const char* contributor : contributors) {
    vote.add_contributors(contributor);
  }
  return vote;
}

TEST(CommitVotesTest, CommitsOnceEveryParticipantVotedOk) {
  CommitVotes votes;
  votes.Reset(QuorumOf(3, {"a", "b", "c"}), 2);
  EXPECT_FALSE(votes.Vote(VoteOf("a", 3, 10, true)).outcome.has_value());
  EXPECT_FALSE(votes.Vote(VoteOf("c", 3, 10, true)).outcome.has_value());
  EXPECT_EQ(votes.Missing(3, 10), "b");
  EXPECT_FALSE(votes.Outcome(3, 10).has_value());
  CommitVotes::Result last = votes.Vote(VoteOf("b", 3, 10, true));
  ASSERT_TRUE(last.outcome.has_value());
  EXPECT_TRUE(last.outcome->commit());
  EXPECT_FALSE(last.failed_now);
  ASSERT_TRUE(votes.Outcome(3, 10).has_value());
  EXPECT_TRUE(votes.Outcome(3, 10)->commit());
  // Another step is a vote of its own.
  EXPECT_EQ(votes.Missing(3, 11), "a, b, c");
}

TEST(CommitVotesTest, VoteAgainstDecidesAtOnce) {
  CommitVotes votes;
  votes.Reset(QuorumOf(3, {"a", "b", "c"}), 1);
  votes.Vote(VoteOf("a", 3, 10, true));
  CommitVotes::Result against =
      votes.Vote(VoteOf("b", 3, 10, false, "allreduce timed out"));
  ASSERT_TRUE(against.outcome.has_value());
  EXPECT_FALSE(against.outcome->commit());
  EXPECT_TRUE(against.failed_now);
  EXPECT_EQ(against.outcome->reason(),
            "replica b voted against step 10 of quorum 3: allreduce timed out");
  // c, voting ok later, reads the same outcome.
  CommitVotes::Result late = votes.Vote(VoteOf("c", 3, 10, true));
  EXPECT_FALSE(late.outcome->commit());
  EXPECT_FALSE(late.failed_now);
}

TEST(CommitVotesTest, LostParticipantFailsOpenAndLaterSteps) {
  CommitVotes votes;
  votes.Reset(QuorumOf(3, {"a", "b", "c"}), 1);
  votes.Vote(VoteOf("a", 3, 10, true));
  EXPECT_EQ(votes.MemberLost("c", "replica c lost: its watch stream ended"), 1);
  ASSERT_TRUE(votes.Outcome(3, 10).has_value());
  EXPECT_FALSE(votes.Outcome(3, 10)->commit());
  EXPECT_EQ(votes.Outcome(3, 10)->reason(),
            "replica c lost: its watch stream ended");
  CommitVotes::Result later = votes.Vote(VoteOf("a", 3, 11, true));
  ASSERT_TRUE(later.outcome.has_value());
  EXPECT_FALSE(later.outcome->commit());
  EXPECT_TRUE(later.failed_now);
  // A replica of no participant changes nothing.
  EXPECT_EQ(votes.MemberLost("z", "replica z lost"), 0);
}

TEST(CommitVotesTest, VoteOnAnOldQuorumIsStale) {
  CommitVotes votes;
  votes.Reset(QuorumOf(4, {"a", "b"}), 1);
  CommitVotes::Result stale = votes.Vote(VoteOf("a", 3, 10, true));
  ASSERT_TRUE(stale.outcome.has_value());
  EXPECT_FALSE(stale.outcome->commit());
  EXPECT_FALSE(stale.failed_now);
  EXPECT_EQ(stale.outcome->reason(), "stale quorum 3 (current 4)");
  EXPECT_EQ(votes.Outcome(3, 10)->reason(), "stale quorum 3 (current 4)");
  EXPECT_EQ(votes.Vote(VoteOf("a", 9, 10, true)).outcome->reason(),
            "unknown quorum 9 (current 4)");
}

TEST(CommitVotesTest, VoteOfANonParticipantIsRefused) {
  CommitVotes votes;
  votes.Reset(QuorumOf(4, {"a", "b"}), 1);
  CommitVotes::Result outsider = votes.Vote(VoteOf("z", 4, 10, true));
  ASSERT_TRUE(outsider.outcome.has_value());
  EXPECT_FALSE(outsider.outcome->commit());
  EXPECT_EQ(outsider.outcome->reason(),
            "replica z is not a participant of quorum 4");
  EXPECT_FALSE(votes.Outcome(4, 10).has_value());
}

TEST(CommitVotesTest, FewerParticipantsThanMinReplicasNeverCommit) {
  CommitVotes votes;
  votes.Reset(QuorumOf(5, {"a"}), 2);
  CommitVotes::Result only = votes.Vote(VoteOf("a", 5, 1, true));
  ASSERT_TRUE(only.outcome.has_value());
  EXPECT_FALSE(only.outcome->commit());
  EXPECT_TRUE(only.failed_now);
  EXPECT_EQ(only.outcome->reason(),
            "quorum 5 has 1 participants, fewer than min_replicas 2");
}

TEST(CommitVotesTest, ContributorsCommitAfterANonContributorWasLost) {
  CommitVotes votes;
  votes.Reset(QuorumOf(3, {"a", "b", "c"}), 2);
  EXPECT_EQ(votes.MemberLost("c", "replica c lost: its watch stream ended"), 0);
  EXPECT_FALSE(
      votes.Vote(VoteNaming("a", 3, 10, true, {"a", "b"})).outcome.has_value());
  // Only the contributors are waited for.
  EXPECT_EQ(votes.Missing(3, 10), "b");
  // The same set in another order is the same set.
  CommitVotes::Result last =
      votes.Vote(VoteNaming("b", 3, 10, true, {"b", "a"}));
  ASSERT_TRUE(last.outcome.has_value());
  EXPECT_TRUE(last.outcome->commit());
  EXPECT_EQ(last.outcome->reason(), "");
  EXPECT_FALSE(last.failed_now);
  // A vote that names no contributors still fails after the loss.
  CommitVotes::Result plain = votes.Vote(VoteOf("a", 3, 11, true));
  ASSERT_TRUE(plain.outcome.has_value());
  EXPECT_FALSE(plain.outcome->commit());
  EXPECT_TRUE(plain.failed_now);
  EXPECT_EQ(plain.outcome->reason(), "replica c lost: its watch stream ended");
}

TEST(CommitVotesTest, LostNonContributorLeavesTheContributorsStepOpen) {
  CommitVotes votes;
  votes.Reset(QuorumOf(3, {"a", "b", "c"}), 2);
  votes.Vote(VoteNaming("a", 3, 10, true, {"a", "b"}));
  votes.Vote(VoteOf("a", 3, 11, true));
  // Step 11 names no contributors: it fails as before; step 10 stays open.
  EXPECT_EQ(votes.MemberLost("c", "replica c lost: its watch stream ended"), 1);
  EXPECT_FALSE(votes.Outcome(3, 10).has_value());
  ASSERT_TRUE(votes.Outcome(3, 11).has_value());
  EXPECT_EQ(votes.Outcome(3, 11)->reason(),
            "replica c lost: its watch stream ended");
  CommitVotes::Result last =
      votes.Vote(VoteNaming("b", 3, 10, true, {"a", "b"}));
  ASSERT_TRUE(last.outcome.has_value());
  EXPECT_TRUE(last.outcome->commit());
  EXPECT_EQ(last.outcome->reason(), "");
}

TEST(CommitVotesTest, LostContributorFailsTheStep) {
  CommitVotes votes;
  votes.Reset(QuorumOf(3, {"a", "b", "c"}), 1);
  votes.Vote(VoteNaming("a", 3, 10, true, {"a", "c"}));
  EXPECT_EQ(votes.MemberLost("c", "replica c lost: its watch stream ended"), 1);
  ASSERT_TRUE(votes.Outcome(3, 10).has_value());
  EXPECT_FALSE(votes.Outcome(3, 10)->commit());
  EXPECT_EQ(votes.Outcome(3, 10)->reason(),
            "replica c lost: its watch stream ended");
  // Voted after the loss, a set that includes the lost replica fails alike.
  CommitVotes::Result later =
      votes.Vote(VoteNaming("a", 3, 11, true, {"a", "c"}));
  ASSERT_TRUE(later.outcome.has_value());
  EXPECT_FALSE(later.outcome->commit());
  EXPECT_TRUE(later.failed_now);
  EXPECT_EQ(later.outcome->reason(), "replica c lost: its watch stream ended");
  // Each lost replica fails the steps with its own reason.
  votes.Vote(VoteNaming("a", 3, 12, true, {"a", "b"}));
  EXPECT_EQ(votes.MemberLost("b", "replica b lost: heartbeat timed out"), 1);
  EXPECT_EQ(votes.Outcome(3, 12)->reason(),
            "replica b lost: heartbeat timed out");
}

TEST(CommitVotesTest, DifferingContributorsDecideAgainst) {
  CommitVotes votes;
  votes.Reset(QuorumOf(3, {"a", "b", "c"}), 1);
  votes.Vote(VoteNaming("a", 3, 10, true, {"a", "b"}));
  CommitVotes::Result other =
      votes.Vote(VoteNaming("b", 3, 10, true, {"c", "a", "b"}));
  ASSERT_TRUE(other.outcome.has_value());
  EXPECT_FALSE(other.outcome->commit());
  EXPECT_TRUE(other.failed_now);
  EXPECT_EQ(other.outcome->reason(),
            "replica b named contributors {a, b, c} for step 10 of quorum 3, "
            "but replica a named {a, b}");
}

TEST(CommitVotesTest, ContributorThatIsNoParticipantDecidesAgainst) {
  CommitVotes votes;
  votes.Reset(QuorumOf(3, {"a", "b", "c"}), 1);
  CommitVotes::Result outsider =
      votes.Vote(VoteNaming("a", 3, 10, true, {"a", "z"}));
  ASSERT_TRUE(outsider.outcome.has_value());
  EXPECT_FALSE(outsider.outcome->commit());
  EXPECT_TRUE(outsider.failed_now);
  EXPECT_EQ(outsider.outcome->reason(),
            "replica a named contributor z of step 10 of quorum 3, not a "
            "participant of quorum 3");
}

TEST(CommitVotesTest, FewerContributorsThanMinReplicasNeverCommit) {
  CommitVotes votes;
  votes.Reset(QuorumOf(3, {"a", "b", "c"}), 2);
  votes.MemberLost("b", "replica b lost: its watch stream ended");
  votes.MemberLost("c", "replica c lost: its watch stream ended");
  CommitVotes::Result only = votes.Vote(VoteNaming("a", 3, 10, true, {"a"}));
  ASSERT_TRUE(only.outcome.has_value());
  EXPECT_FALSE(only.outcome->commit());
  EXPECT_TRUE(only.failed_now);
  EXPECT_EQ(only.outcome->reason(),
            "step 10 of quorum 3 has 1 contributors {a}, fewer than "
            "min_replicas 2");
}

TEST(CommitVotesTest, NonContributorVoteNeitherCountsNorFails) {
  CommitVotes votes;
  votes.Reset(QuorumOf(3, {"a", "b", "c"}), 2);
  // c was left out: it votes against, naming the contributors it was told.
  EXPECT_FALSE(votes
                   .Vote(VoteNaming("c", 3, 10, false, {"a", "b"},
                                    "left out of the allreduce"))
                   .outcome.has_value());
  EXPECT_FALSE(
      votes.Vote(VoteNaming("a", 3, 10, true, {"a", "b"})).outcome.has_value());
  CommitVotes::Result last =
      votes.Vote(VoteNaming("b", 3, 10, true, {"a", "b"}));
  ASSERT_TRUE(last.outcome.has_value());
  EXPECT_TRUE(last.outcome->commit());
  // A vote for a result its own input is not in is no vote a replica can
  // cast honestly.
  CommitVotes::Result outside =
      votes.Vote(VoteNaming("c", 3, 11, true, {"a", "b"}));
  ASSERT_TRUE(outside.outcome.has_value());
  EXPECT_FALSE(outside.outcome->commit());
  EXPECT_TRUE(outside.failed_now);
  EXPECT_EQ(outside.outcome->reason(),
            "replica c voted for step 11 of quorum 3 naming contributors "
            "{a, b} without itself");
}

TEST(CommitVotesTest, VotesWithAndWithoutContributorsDecideAgainst) {
  CommitVotes votes;
  votes.Reset(QuorumOf(3, {"a", "b", "c"}), 1);
  votes.Vote(VoteNaming("a", 3, 10, true, {"a", "b"}));
  CommitVotes::Result plain = votes.Vote(VoteOf("c", 3, 10, true));
  ASSERT_TRUE(plain.outcome.has_value());
  EXPECT_FALSE(plain.outcome->commit());
  EXPECT_TRUE(plain.failed_now);
  EXPECT_EQ(plain.outcome->reason(),
            "replica c voted on step 10 of quorum 3 naming no contributors, "
            "but replica a named {a, b}");
  // And the other way round.
  votes.Vote(VoteOf("c", 3, 11, true));
  CommitVotes::Result named =
      votes.Vote(VoteNaming("a", 3, 11, true, {"a", "b"}));
  ASSERT_TRUE(named.outcome.has_value());
  EXPECT_FALSE(named.outcome->commit());
  EXPECT_TRUE(named.failed_now);
  EXPECT_EQ(named.outcome->reason(),
            "replica a named contributors {a, b} for step 11 of quorum 3, but "
            "replica c voted naming none");
}

TEST(CommitVotesTest, ContributorVotingAgainstDecidesAtOnce) {
  CommitVotes votes;
  votes.Reset(QuorumOf(3, {"a", "b", "c"}), 1);
  CommitVotes::Result against = votes.Vote(
      VoteNaming("a", 3, 10, false, {"a", "b"}, "nan in the gradients"));
  ASSERT_TRUE(against.outcome.has_value());
  EXPECT_FALSE(against.outcome->commit());
  EXPECT_TRUE(against.failed_now);
  EXPECT_EQ(against.outcome->reason(),
            "replica a voted against step 10 of quorum 3: nan in the "
            "gradients");
}

}  // namespace
}  // namespace sluice::lighthouse
