// The quorum rules on a fake clock: one test per rule, and the limits on
// what replicas may send and how many are remembered.
#include "lib/lighthouse/quorum_rules.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "lib/lighthouse/lighthouse_status_history.h"

namespace sluice::lighthouse {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1000000);

class QuorumRulesTest : public ::testing::Test {
 protected:
  explicit QuorumRulesTest(int min_replicas = 1) {
    QuorumRulesOptions options;
    options.min_replicas = min_replicas;
    rules_ = std::make_unique<QuorumRules>(options);
  }

  absl::Time At(double seconds) { return kStart + absl::Seconds(seconds); }

  uint64_t Ask(const std::string& id, double at, uint64_t incarnation = 1,
               int64_t step = 0, int64_t commit_failures = 0) {
    proto::QuorumRequest request;
    request.mutable_replica()->set_replica_id(id);
    request.mutable_replica()->set_incarnation(incarnation);
    request.mutable_replica()->set_step(step);
    request.mutable_replica()->set_address(id + ":1");
    request.set_commit_failures(commit_failures);
    return rules_->Request(request, At(at));
  }

  // Evaluates at `at` and issues what formed.
  std::optional<FormedQuorum> Form(double at) {
    QuorumDecision decision = rules_->Evaluate(At(at));
    if (decision.formed.has_value()) rules_->Issue(*decision.formed);
    last_waiting_ = decision.waiting;
    return decision.formed;
  }

  static std::vector<std::string> Members(const FormedQuorum& formed) {
    std::vector<std::string> ids;
    for (const auto& p : formed.quorum.participants()) {
      ids.push_back(p.replica_id());
    }
    return ids;
  }

  // a, b and c form quorum 1 at time 0.
  void FormFirstQuorum() {
    Ask("a", 0);
    Ask("b", 0);
    Ask("c", 0);
    auto formed = Form(0);
    ASSERT_TRUE(formed.has_value()) << last_waiting_;
    ASSERT_EQ(formed->quorum.quorum_id(), 1);
  }

  std::unique_ptr<QuorumRules> rules_;
  std::string last_waiting_;
};

class MinReplicasTwoTest : public QuorumRulesTest {
 protected:
  MinReplicasTwoTest() : QuorumRulesTest(2) {}
};

TEST_F(QuorumRulesTest, FormsOnceEveryHealthyReplicaAsked) {
  rules_->Heartbeat("c", 1, At(0));
  const uint64_t a = Ask("a", 0);
  const uint64_t b = Ask("b", 1);
  EXPECT_FALSE(Form(2).has_value());
  EXPECT_EQ(last_waiting_,
            "2 of 3 healthy replicas asked (min_replicas 1), waiting for the "
            "rest up to the join timeout (60 s)");
  const uint64_t c = Ask("c", 3);
  auto formed = Form(3);
  ASSERT_TRUE(formed.has_value()) << last_waiting_;
  EXPECT_EQ(formed->quorum.quorum_id(), 1);
  EXPECT_TRUE(formed->new_generation);
  EXPECT_EQ(Members(*formed), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(formed->quorum.participants(1).address(), "b:1");
  EXPECT_EQ(formed->quorum.reason(),
            "3 of 3 healthy replicas asked (min_replicas 1)");
  EXPECT_EQ(formed->quorum.created_us(), absl::ToUnixMicros(At(3)));
  EXPECT_EQ(formed->tickets, (std::vector<uint64_t>{a, b, c}));
  EXPECT_FALSE(rules_->IsPending(a));
}

TEST_F(MinReplicasTwoTest, NeedsMinReplicasRequestersEvenAfterJoinTimeout) {
  Ask("a", 0);
  EXPECT_FALSE(Form(0).has_value());
  EXPECT_FALSE(Form(120).has_value());
  // a's request was its last heartbeat: by now it is unhealthy.
  EXPECT_EQ(last_waiting_, "no healthy replica asked (0 healthy replicas)");
  Ask("a", 121);
  EXPECT_FALSE(Form(121).has_value());
  EXPECT_EQ(last_waiting_,
            "1 of 1 healthy replicas asked, fewer than min_replicas 2");
  Ask("b", 122);
  auto formed = Form(122);
  ASSERT_TRUE(formed.has_value()) << last_waiting_;
  EXPECT_EQ(formed->quorum.reason(),
            "2 of 2 healthy replicas asked (min_replicas 2)");
}

TEST_F(QuorumRulesTest, MajorityGuardHoldsPastTheJoinTimeout) {
  QuorumRulesOptions options;
  options.join_timeout = absl::Seconds(2);
  rules_ = std::make_unique<QuorumRules>(options);
  for (const char* id : {"c", "d"}) rules_->Heartbeat(id, 1, At(0));
  Ask("a", 0);
  Ask("b", 0);
  for (const char* id : {"c", "d"}) rules_->Heartbeat(id, 1, At(3));
  EXPECT_FALSE(Form(3).has_value());
  EXPECT_EQ(last_waiting_,
            "2 of 4 healthy replicas asked, not more than half "
            "(min_replicas 1)");
  Ask("c", 3.5);
  auto formed = Form(3.5);
  ASSERT_TRUE(formed.has_value()) << last_waiting_;
  EXPECT_EQ(Members(*formed), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(formed->quorum.reason(),
            "join timeout 2 s passed: 3 of 4 healthy replicas asked "
            "(min_replicas 1)");
}

TEST_F(QuorumRulesTest, JoinTimeoutCountsFromTheFirstPendingRequest) {
  rules_->Heartbeat("c", 1, At(0));
  Ask("a", 0);
  Ask("b", 30);
  for (double t = 4; t < 61; t += 4) rules_->Heartbeat("c", 1, At(t));
  rules_->Heartbeat("a", 1, At(58));
  rules_->Heartbeat("b", 1, At(58));
  EXPECT_FALSE(Form(59.9).has_value());
  EXPECT_NE(last_waiting_.find("waiting for the rest up to the join timeout"),
            std::string::npos)
      << last_waiting_;
  auto formed = Form(60);
  ASSERT_TRUE(formed.has_value()) << last_waiting_;
  EXPECT_EQ(Members(*formed), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(formed->quorum.reason(),
            "join timeout 60 s passed: 2 of 3 healthy replicas asked "
            "(min_replicas 1)");
}

TEST_F(QuorumRulesTest, FastQuorumWhenEveryParticipantAskedAgain) {
  FormFirstQuorum();
  // d is healthy but does not ask: without the fast rule, 3 of 4 would
  // wait for the join timeout.
  rules_->Heartbeat("d", 1, At(1));
  Ask("a", 1, 1, 5);
  Ask("b", 1, 1, 5);
  EXPECT_FALSE(Form(1).has_value());
  Ask("c", 1, 1, 5);
  auto formed = Form(1);
  ASSERT_TRUE(formed.has_value()) << last_waiting_;
  EXPECT_EQ(formed->quorum.quorum_id(), 1);
  EXPECT_FALSE(formed->new_generation);
  EXPECT_EQ(formed->quorum.reason(),
            "fast quorum: every participant of quorum 1 asked again");
  EXPECT_EQ(formed->quorum.participants(2).step(), 5);
}

TEST_F(QuorumRulesTest, FastQuorumTakesNewRequestersInANewGeneration) {
  FormFirstQuorum();
  Ask("d", 1);
  Ask("a", 1);
  Ask("b", 1);
  Ask("c", 1);
  auto formed = Form(1);
  ASSERT_TRUE(formed.has_value()) << last_waiting_;
  EXPECT_EQ(formed->quorum.quorum_id(), 2);
  EXPECT_EQ(formed->quorum.reason(),
            "fast quorum: every participant of quorum 1 asked again; new "
            "generation: the participants changed");
}

TEST_F(QuorumRulesTest, SilentParticipantIsLostAtTheHeartbeatTimeout) {
  FormFirstQuorum();
  rules_->Heartbeat("a", 1, At(4));
  rules_->Heartbeat("b", 1, At(4));
  EXPECT_TRUE(rules_->TakeLostMembers(At(4.9)).empty());
  std::vector<LostMember> lost = rules_->TakeLostMembers(At(5));
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0].replica_id, "c");
  EXPECT_EQ(lost[0].quorum_id, 1);
  EXPECT_EQ(lost[0].reason,
            "replica c lost: no heartbeat for 5 s (heartbeat timeout 5 s)");
  // Reported once.
  EXPECT_TRUE(rules_->TakeLostMembers(At(6)).empty());
  Ask("a", 6);
  Ask("b", 6);
  auto formed = Form(6);
  ASSERT_TRUE(formed.has_value()) << last_waiting_;
  EXPECT_EQ(formed->quorum.quorum_id(), 2);
  EXPECT_EQ(Members(*formed), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(formed->quorum.reason(),
            "2 of 2 healthy replicas asked (min_replicas 1); new generation: "
            "the participants changed");
}

TEST_F(QuorumRulesTest, EndedWatchStreamLosesTheReplicaAtOnce) {
  for (const char* id : {"a", "b", "c"}) rules_->WatchOpened(id, 1, At(0));
  FormFirstQuorum();
  rules_->WatchEnded("c", 1);
  // Well inside the heartbeat timeout.
  std::vector<LostMember> lost = rules_->TakeLostMembers(At(0.1));
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0].reason, "replica c lost: its watch stream ended");
  Ask("a", 0.2);
  Ask("b", 0.2);
  auto formed = Form(0.2);
  ASSERT_TRUE(formed.has_value()) << last_waiting_;
  EXPECT_EQ(formed->quorum.quorum_id(), 2);
  EXPECT_EQ(formed->quorum.reason(),
            "2 of 2 healthy replicas asked (min_replicas 1); new generation: "
            "the participants changed");
}

TEST_F(QuorumRulesTest, ReplicaWithAnotherWatchOpenIsNotLost) {
  rules_->WatchOpened("a", 1, At(0));
  rules_->WatchOpened("a", 1, At(0));
  FormFirstQuorum();
  rules_->WatchEnded("a", 1);
  EXPECT_TRUE(rules_->TakeLostMembers(At(0.1)).empty());
  rules_->WatchEnded("a", 1);
  EXPECT_EQ(rules_->TakeLostMembers(At(0.1)).size(), 1u);
  // It speaks again: healthy, yet the next quorum is a new generation
  // (its peers dropped the group of quorum 1).
  Ask("a", 0.5);
  Ask("b", 0.5);
  Ask("c", 0.5);
  auto formed = Form(0.5);
  ASSERT_TRUE(formed.has_value()) << last_waiting_;
  EXPECT_EQ(formed->quorum.quorum_id(), 2);
  EXPECT_EQ(formed->quorum.reason(),
            "fast quorum: every participant of quorum 1 asked again; new "
            "generation: replica a lost: its watch stream ended");
}

TEST_F(QuorumRulesTest, NewIncarnationIsANewMember) {
  FormFirstQuorum();
  const uint64_t old_c = Ask("c", 1, /*incarnation=*/1);
  const uint64_t new_c = Ask("c", 2, /*incarnation=*/2);
  EXPECT_FALSE(rules_->IsPending(old_c));
  EXPECT_TRUE(rules_->IsPending(new_c));
  std::vector<LostMember> lost = rules_->TakeLostMembers(At(2));
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0].reason, "replica c restarted (incarnation 2, was 1)");
  Ask("a", 2);
  Ask("b", 2);
  auto formed = Form(2);
  ASSERT_TRUE(formed.has_value()) << last_waiting_;
  EXPECT_EQ(formed->quorum.quorum_id(), 2);
  EXPECT_EQ(formed->quorum.reason(),
            "3 of 3 healthy replicas asked (min_replicas 1); new generation: "
            "the participants changed");
  EXPECT_EQ(formed->quorum.participants(2).incarnation(), 2u);
}

TEST_F(QuorumRulesTest, ReportedCommitFailuresMakeANewGeneration) {
  FormFirstQuorum();
  Ask("a", 1);
  Ask("b", 1, 1, 0, /*commit_failures=*/2);
  Ask("c", 1);
  auto formed = Form(1);
  ASSERT_TRUE(formed.has_value()) << last_waiting_;
  EXPECT_EQ(formed->quorum.quorum_id(), 2);
  EXPECT_EQ(formed->quorum.reason(),
            "fast quorum: every participant of quorum 1 asked again; new "
            "generation: replica b reported 2 failed commits");
  // Counted once: the next round with none keeps the generation.
  for (const char* id : {"a", "b", "c"}) Ask(id, 2);
  formed = Form(2);
  ASSERT_TRUE(formed.has_value()) << last_waiting_;
  EXPECT_EQ(formed->quorum.quorum_id(), 2);
}

TEST_F(QuorumRulesTest, FailedCommitVoteMakesANewGeneration) {
  FormFirstQuorum();
  rules_->CommitFailed();
  for (const char* id : {"a", "b", "c"}) Ask(id, 1);
  auto formed = Form(1);
  ASSERT_TRUE(formed.has_value()) << last_waiting_;
  EXPECT_EQ(formed->quorum.quorum_id(), 2);
  EXPECT_NE(formed->quorum.reason().find("new generation: a commit failed"),
            std::string::npos)
      << formed->quorum.reason();
}

TEST_F(QuorumRulesTest, IdsStartAboveWhatAnotherLighthouseIssued) {
  rules_->RaiseQuorumId(7);
  Ask("a", 0);
  auto formed = Form(0);
  ASSERT_TRUE(formed.has_value()) << last_waiting_;
  EXPECT_EQ(formed->quorum.quorum_id(), 8);
  rules_->RaiseQuorumId(11);
  Ask("a", 1);
  formed = Form(1);
  ASSERT_TRUE(formed.has_value()) << last_waiting_;
  EXPECT_EQ(formed->quorum.quorum_id(), 12);
  EXPECT_EQ(formed->quorum.reason(),
            "fast quorum: every participant of quorum 8 asked again; new "
            "generation: quorum 11 was issued elsewhere");
}

TEST_F(QuorumRulesTest, SpentIdIsSkippedWithoutForcingANewGeneration) {
  FormFirstQuorum();
  // Id 2 was recorded for a quorum that never went out.
  rules_->SpendQuorumId(2);
  for (const char* id : {"a", "b", "c"}) Ask(id, 1);
  auto formed = Form(1);
  ASSERT_TRUE(formed.has_value()) << last_waiting_;
  EXPECT_FALSE(formed->new_generation);
  EXPECT_EQ(formed->quorum.quorum_id(), 1);
  rules_->CommitFailed();
  for (const char* id : {"a", "b", "c"}) Ask(id, 2);
  formed = Form(2);
  ASSERT_TRUE(formed.has_value()) << last_waiting_;
  EXPECT_EQ(formed->quorum.quorum_id(), 3);
}

TEST_F(QuorumRulesTest, WithdrawnRequestIsNoLongerCounted) {
  rules_->Heartbeat("b", 1, At(0));
  const uint64_t a = Ask("a", 0);
  rules_->Withdraw(a);
  EXPECT_FALSE(rules_->IsPending(a));
  EXPECT_FALSE(Form(100).has_value());
}

TEST_F(QuorumRulesTest, ReplicasReportEveryStatusField) {
  Ask("a", 0, 1, 10);
  Ask("b", 0, 1, 7);
  ASSERT_TRUE(Form(0).has_value());
  rules_->Heartbeat("c", 1, At(3));
  Ask("a", 2, 1, 10);
  std::vector<proto::ReplicaStatus> statuses = rules_->Replicas(At(6.5));
  ASSERT_EQ(statuses.size(), 3u);
  EXPECT_EQ(statuses[0].replica().replica_id(), "a");
  EXPECT_EQ(statuses[0].heartbeat_age_ms(), 4500);
  EXPECT_TRUE(statuses[0].healthy());
  EXPECT_TRUE(statuses[0].in_quorum());
  EXPECT_FALSE(statuses[0].recovering());
  EXPECT_TRUE(statuses[0].requesting());
  EXPECT_EQ(statuses[1].replica().step(), 7);
  EXPECT_FALSE(statuses[1].healthy());  // silent for 6.5 s
  EXPECT_TRUE(statuses[1].in_quorum());
  EXPECT_TRUE(statuses[1].recovering());  // step 7 < 10
  EXPECT_FALSE(statuses[1].requesting());
  EXPECT_EQ(statuses[2].replica().replica_id(), "c");
  EXPECT_TRUE(statuses[2].healthy());
  EXPECT_FALSE(statuses[2].in_quorum());
  EXPECT_FALSE(statuses[2].recovering());
}

// The lighthouse was stopped past the heartbeat timeout (5 s): it blames no
// one for the silence, nor for the watch streams that broke meanwhile.
TEST_F(QuorumRulesTest, ResumedLighthouseBlamesNoOneForItsOwnSilence) {
  for (const char* id : {"a", "b", "c"}) rules_->WatchOpened(id, 1, At(0));
  FormFirstQuorum();
  rules_->Resumed(At(40));
  rules_->WatchEnded("a", 1, /*outlived_pause=*/true);
  EXPECT_TRUE(rules_->TakeLostMembers(At(40)).empty());
  rules_->WatchOpened("a", 1, At(40.1));
  // b truly died while the lighthouse was stopped: it is lost once the
  // heartbeat timeout passes after the resumption.
  rules_->Heartbeat("a", 1, At(44));
  rules_->Heartbeat("c", 1, At(44));
  EXPECT_TRUE(rules_->TakeLostMembers(At(44.9)).empty());
  std::vector<LostMember> lost = rules_->TakeLostMembers(At(45.1));
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0].replica_id, "b");
  // A stream opened after the pause loses its replica at once again.
  rules_->WatchEnded("a", 1);
  lost = rules_->TakeLostMembers(At(45.2));
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0].replica_id, "a");
}

// A restarted lighthouse (no etcd) starts from id 0; its replicas still hold
// quorum 7 from before: it never issues them an id they already hold.
TEST_F(QuorumRulesTest, QuorumIdStartsAboveWhatRequestersHold) {
  for (const char* id : {"a", "b"}) {
    proto::QuorumRequest request;
    request.mutable_replica()->set_replica_id(id);
    request.mutable_replica()->set_incarnation(1);
    request.set_last_quorum_id(std::string(id) == "a" ? 7 : 5);
    rules_->Request(request, At(0));
  }
  auto formed = Form(0);
  ASSERT_TRUE(formed.has_value()) << last_waiting_;
  EXPECT_EQ(formed->quorum.quorum_id(), 8);
  EXPECT_TRUE(formed->new_generation);
  // Once issued, the ids the replicas report are this lighthouse's own.
  Ask("a", 1);
  Ask("b", 1);
  formed = Form(1);
  ASSERT_TRUE(formed.has_value()) << last_waiting_;
  EXPECT_EQ(formed->quorum.quorum_id(), 8);
}

TEST(QuorumRulesOptionsTest, RejectsOutOfRangeOptions) {
  QuorumRulesOptions options;
  options.min_replicas = 0;
  EXPECT_EQ(ValidateQuorumRulesOptions(options).message(),
            "lighthouse: min_replicas must be at least 1, got 0");
  options = QuorumRulesOptions();
  options.heartbeat_timeout = absl::ZeroDuration();
  EXPECT_EQ(ValidateQuorumRulesOptions(options).message(),
            "lighthouse: heartbeat_timeout must be positive, got 0");
  EXPECT_TRUE(ValidateQuorumRulesOptions(QuorumRulesOptions()).ok());
}

}  // namespace
}  // namespace sluice::lighthouse

// Limits (docs/lighthouse.md, "Limits"): what a replica id may be, the
// replicas forgotten, the cap on known replicas, a live process's id.
namespace sluice::lighthouse {
namespace {

QuorumRules RulesWith(int max_replicas = 10000) {
  QuorumRulesOptions options;
  options.heartbeat_timeout = absl::Seconds(5);
  options.forget_after = absl::Seconds(60);
  options.max_replicas = max_replicas;
  return QuorumRules(options);
}

absl::Time At(double seconds) { return kStart + absl::Seconds(seconds); }

proto::QuorumRequest AskOf(const std::string& id) {
  proto::QuorumRequest request;
  request.mutable_replica()->set_replica_id(id);
  request.mutable_replica()->set_incarnation(1);
  return request;
}

TEST(ReplicaIdTest, AcceptsTheDocumentedCharacters) {
  EXPECT_TRUE(CheckReplicaId("replica-0_a.b:7/x").ok());
  EXPECT_TRUE(CheckReplicaId(std::string(kMaxReplicaIdBytes, 'a')).ok());
}

TEST(ReplicaIdTest, RefusesALongIdNamingTheRule) {
  const absl::Status status =
      CheckReplicaId(std::string(kMaxReplicaIdBytes + 1, 'a'));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("is 129 bytes long: a replica id is at "
                                  "most 128 bytes"),
            std::string::npos)
      << status;
  // The id is cut in the message.
  EXPECT_LT(status.message().size(), 200u) << status;
}

TEST(ReplicaIdTest, RefusesANewlineAndNeverWritesItRaw) {
  const absl::Status status =
      CheckReplicaId("a\nlighthouse 1.2.3.4:5: quorum 9 formed with evil");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message().find('\n'), std::string::npos) << status;
  EXPECT_NE(status.message().find(
                "replica id \"a\\nlighthouse 1.2.3.4:5: quorum 9 formed with "
                "evil\" has \"\\n\" at byte 1: a replica id is made of "
                "A-Z a-z 0-9 . _ : / -"),
            std::string::npos)
      << status;
  for (const std::string id : {"a b", "<b>", "\xc3\xa9", "a\"b", "a\\b"}) {
    EXPECT_EQ(CheckReplicaId(id).code(), absl::StatusCode::kInvalidArgument)
        << id;
  }
  EXPECT_EQ(CheckReplicaId("").message(), "the request names no replica_id");
}

TEST(ReplicaIdTest, EscapedCutsWholeEscapes) {
  EXPECT_EQ(Escaped("a\nb"), "a\\nb");
  const std::string cut = Escaped(std::string(100, '\x01'), 10);
  // \x01 is four bytes: two fit, then the cut.
  EXPECT_EQ(cut, "\\x01\\x01...");
}

TEST(ReplicaIdTest, AddressesAreBounded) {
  EXPECT_TRUE(CheckReplicaAddress("host-1.example.com:29510").ok());
  EXPECT_TRUE(CheckReplicaAddress("").ok());  // a replica that serves no heal
  const absl::Status long_address =
      CheckReplicaAddress(std::string(kMaxReplicaAddressBytes + 1, 'h'));
  EXPECT_EQ(long_address.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(long_address.message().find("an address is at most 256 bytes"),
            std::string::npos)
      << long_address;
  const absl::Status newline = CheckReplicaAddress("h:1\nforged");
  EXPECT_EQ(newline.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(newline.message().find('\n'), std::string::npos) << newline;
}

TEST(ReplicaIdTest, FailureTextsLoseControlCharactersAndLength) {
  EXPECT_EQ(WithoutControlCharacters("a\nb\xc3\xa9", 512), "a\\x0ab\xc3\xa9");
  // Cut on a character boundary: "é" is two bytes.
  EXPECT_EQ(WithoutControlCharacters("ab\xc3\xa9", 3), "ab");
}

TEST(QuorumRulesOptionsTest, ForgetAfterAndMaxReplicasAreChecked) {
  QuorumRulesOptions options;
  options.heartbeat_timeout = absl::Seconds(5);
  options.forget_after = absl::Seconds(4);
  EXPECT_EQ(ValidateQuorumRulesOptions(options).code(),
            absl::StatusCode::kInvalidArgument);
  options.forget_after = absl::Seconds(5);
  EXPECT_TRUE(ValidateQuorumRulesOptions(options).ok());
  options.min_replicas = 3;
  options.max_replicas = 2;
  const absl::Status status = ValidateQuorumRulesOptions(options);
  EXPECT_EQ(status.message(),
            "lighthouse: max_replicas must be at least min_replicas (3), got "
            "2");
}

TEST(ForgetTest, ForgetsOnlySilentReplicasThatWaitForNothing) {
  QuorumRules rules = RulesWith();
  // c forms quorum 1 alone at 0, then goes silent: a participant is kept.
  rules.Request(AskOf("c"), At(0));
  QuorumDecision decision = rules.Evaluate(At(0));
  ASSERT_TRUE(decision.formed.has_value()) << decision.waiting;
  rules.Issue(*decision.formed);
  rules.Heartbeat("a", 1, At(1));  // silent after 1
  const uint64_t b_ticket = rules.Request(AskOf("b"), At(1));  // pending
  rules.WatchOpened("d", 1, At(1));  // a stream still open
  rules.Heartbeat("e", 1, At(2));    // silent after 2
  ASSERT_EQ(rules.replica_count(), 5u);

  EXPECT_TRUE(rules.Forget(At(60.9)).empty());  // not 60 s yet
  EXPECT_EQ(rules.Forget(At(61)), std::vector<std::string>{"a"});
  EXPECT_EQ(rules.replica_count(), 4u);
  rules.Withdraw(b_ticket);
  rules.WatchEnded("d", 1);
  EXPECT_EQ(rules.Forget(At(62)), (std::vector<std::string>{"b", "d", "e"}));
  EXPECT_EQ(rules.replica_count(), 1u);  // c, the participant
  // A forgotten replica that speaks again is known again.
  rules.Heartbeat("a", 1, At(63));
  EXPECT_EQ(rules.replica_count(), 2u);
  bool a_healthy = false;
  for (const proto::ReplicaStatus& status : rules.Replicas(At(63))) {
    if (status.replica().replica_id() == "a") a_healthy = status.healthy();
  }
  EXPECT_TRUE(a_healthy);
}

TEST(ForgetTest, AReplicaHeardFromIsNeverForgotten) {
  QuorumRules rules = RulesWith();
  for (int second = 0; second <= 300; second += 4) {
    rules.Heartbeat("a", 1, At(second));
    EXPECT_TRUE(rules.Forget(At(second + 3)).empty()) << second;
  }
  EXPECT_EQ(rules.replica_count(), 1u);
}

TEST(MaxReplicasTest, ANewIdPastTheCapIsRefusedKnownOnesGoOn) {
  QuorumRules rules = RulesWith(/*max_replicas=*/2);
  ASSERT_TRUE(rules.Admit("a", 1, At(0)).ok());
  rules.Heartbeat("a", 1, At(0));
  ASSERT_TRUE(rules.Admit("b", 1, At(10)).ok());
  rules.Heartbeat("b", 1, At(10));
  const absl::Status refused = rules.Admit("c", 1, At(11));
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(refused.message(),
            "replica c is refused: 2 replicas are known, max_replicas 2; a "
            "replica is forgotten once silent for 60 s");
  EXPECT_TRUE(rules.Admit("a", 1, At(11)).ok());
  EXPECT_TRUE(rules.Admit("b", 2, At(11)).ok());  // a restart, no watch
  // a is forgotten at 60: c takes its place.
  EXPECT_EQ(rules.Forget(At(60)), std::vector<std::string>{"a"});
  EXPECT_TRUE(rules.Admit("c", 1, At(60)).ok());
}

TEST(AdmitTest, ANewIncarnationWaitsWhileALiveProcessWatches) {
  QuorumRules rules = RulesWith();
  rules.WatchOpened("a", 1, At(0));
  const absl::Status taken = rules.Admit("a", 2, At(1));
  EXPECT_EQ(taken.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(taken.message(),
            "replica a is held by incarnation 1, which is healthy and "
            "watching: incarnation 2 is taken once its watch stream ends or "
            "it misses its heartbeat timeout (5 s)");
  EXPECT_TRUE(rules.Admit("a", 1, At(1)).ok());
  // Silent past its heartbeat timeout (a frozen process): the restart goes
  // on.
  EXPECT_TRUE(rules.Admit("a", 2, At(5)).ok());
  // Its stream ended (the process died): at once.
  rules.Heartbeat("a", 1, At(5));
  rules.WatchEnded("a", 1);
  EXPECT_TRUE(rules.Admit("a", 2, At(5)).ok());
}

// 20,000 ids that each speak once leave nothing behind once forgotten: the
// rules and the status history hold at most the ids of the last
// forget_after.
TEST(ForgetTest, OneShotIdsLeaveMemoryBounded) {
  QuorumRules rules = RulesWith();
  StatusHistory history;
  constexpr int kIds = 20000;
  size_t most_known = 0;
  for (int i = 0; i < kIds; ++i) {
    // One id every 10 ms: 200 s in all, 6,000 within any 60 s.
    const absl::Time now = kStart + absl::Milliseconds(10 * i);
    const std::string id = absl::StrCat("one-shot-", i);
    ASSERT_TRUE(rules.Admit(id, 1, now).ok()) << i;
    rules.Heartbeat(id, 1, now);
    history.Heard(id, 1, now);
    if (i % 10 == 0) {  // a tick every 100 ms
      for (const std::string& gone : rules.Forget(now)) history.Forget(gone);
    }
    most_known = std::max(most_known, rules.replica_count());
  }
  std::printf("20000 one-shot ids: at most %zu known at once\n", most_known);
  EXPECT_LE(most_known, 6011u);
  for (const std::string& gone : rules.Forget(
           kStart + absl::Milliseconds(10 * kIds) + absl::Seconds(60))) {
    history.Forget(gone);
  }
  EXPECT_EQ(rules.replica_count(), 0u);
  EXPECT_EQ(history.remembered_replicas(), 0u);
}

}  // namespace
}  // namespace sluice::lighthouse
