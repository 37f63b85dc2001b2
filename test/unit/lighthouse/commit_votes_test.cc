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

}  // namespace
}  // namespace sluice::lighthouse
