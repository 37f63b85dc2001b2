// The status page rendered by headless Chromium from a status the test
// makes up: every field reaches the DOM, stale members are highlighted, text
// from replicas stays text, the history is listed newest first, and the
// page follows a changing status.
#include <stdlib.h>

#include <atomic>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/lighthouse/lighthouse_status_page.h"
#include "test/integration/ha/chromium.h"

namespace sluice::lighthouse {
namespace {

using testing::DumpDom;
using testing::ElementText;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::ReplicaRowClasses;

proto::ReplicaStatus* AddReplica(proto::LighthouseStatus& status,
                                 const std::string& id, int64_t step,
                                 bool healthy, int64_t age_ms) {
  proto::ReplicaStatus* replica = status.add_replicas();
  replica->mutable_replica()->set_replica_id(id);
  replica->mutable_replica()->set_step(step);
  replica->mutable_replica()->set_address("127.0.0.1:4000" + id.substr(0, 1));
  replica->set_healthy(healthy);
  replica->set_heartbeat_age_ms(age_ms);
  replica->set_in_quorum(true);
  return replica;
}

proto::LighthouseStatus MadeUpStatus(int64_t quorum_id) {
  proto::LighthouseStatus status;
  status.mutable_quorum()->set_quorum_id(quorum_id);
  status.mutable_quorum()->set_reason("fast quorum: every member is back");
  status.set_min_replicas(2);
  status.set_heartbeat_timeout_ms(5000);
  status.set_address("127.0.0.1:29510");
  status.set_is_leader(false);
  status.set_leader_address("127.0.0.1:29511");
  AddReplica(status, "0_fresh", 20, true, 100);
  AddReplica(status, "1_slow", 20, true, 3000)->set_recovering(true);
  AddReplica(status, "2_lost", 18, false, 9000);
  AddReplica(status, "3_<b>bold</b>", 20, true, 10);
  status.mutable_replicas(0)->mutable_replica()->set_world_size(8);
  status.mutable_replicas(0)->mutable_replica()->set_incarnation(
      0xfedcba9876543210u);
  status.set_generation_reason("3 of 4 healthy replicas asked");
  status.set_generation_formed_us(1700000000000000);
  status.set_steps_per_second(12.34);
  status.set_committed_steps(4321);
  // Newest first, as the lighthouse sends it.
  proto::HistoryEntry* lost = status.add_history();
  lost->set_kind(proto::HistoryEntry::MEMBER_LOST);
  lost->set_time_us(1700000002000000);
  lost->set_quorum_id(quorum_id);
  lost->set_replica_id("2_lost");
  lost->set_reason("replica 2_lost lost: no heartbeat for 9 s");
  proto::HistoryEntry* restarted = status.add_history();
  restarted->set_kind(proto::HistoryEntry::REPLICA_RESTARTED);
  restarted->set_time_us(1700000001000000);
  restarted->set_replica_id("3_<b>bold</b>");
  restarted->set_incarnation(5);
  restarted->set_reason("new incarnation 5, was 4");
  proto::HistoryEntry* formed = status.add_history();
  formed->set_kind(proto::HistoryEntry::GENERATION_FORMED);
  formed->set_time_us(1700000000000000);
  formed->set_quorum_id(quorum_id);
  formed->set_participant_count(10);
  for (const char* id : {"0_fresh", "1_slow"}) {
    proto::ReplicaInfo* participant = formed->add_participants();
    participant->set_replica_id(id);
    participant->set_world_size(8);
    participant->set_incarnation(id[0] == '0' ? 11 : 12);
  }
  formed->set_reason("3 of 4 healthy replicas asked");
  return status;
}

// The history table's rows in a dumped DOM, in order: data-kind and each
// cell's text by class.
struct HistoryRow {
  std::string kind;
  std::map<std::string, std::string> cells;
};

std::vector<HistoryRow> HistoryRows(const std::string& dom) {
  static const std::regex row(
      "<tr class=\"history-entry[^\"]*\" data-kind=\"([A-Z_]+)\">(.*?)</tr>");
  static const std::regex cell("<td class=\"([a-z-]+)\">([^<]*)</td>");
  std::vector<HistoryRow> rows;
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), row);
       it != std::sregex_iterator(); ++it) {
    HistoryRow& parsed = rows.emplace_back();
    parsed.kind = (*it)[1].str();
    const std::string cells = (*it)[2].str();
    for (auto c = std::sregex_iterator(cells.begin(), cells.end(), cell);
         c != std::sregex_iterator(); ++c) {
      parsed.cells[(*c)[1].str()] = (*c)[2].str();
    }
  }
  return rows;
}

TEST(StatusPageFakeChromiumTest, RendersEveryMemberAndHighlightsStaleOnes) {
  std::atomic<int64_t> quorum_id{7};
  auto page = LighthouseStatusPage::Start(
      "127.0.0.1", 0, [&] { return MadeUpStatus(quorum_id.load()); });
  ASSERT_TRUE(page.ok()) << page.status();

  absl::StatusOr<std::string> dom =
      DumpDom((*page)->url(), absl::Milliseconds(3000));
  ASSERT_TRUE(dom.ok()) << dom.status();
  EXPECT_EQ(ElementText(*dom, "quorum-id"), "7") << *dom;
  EXPECT_EQ(ElementText(*dom, "quorum-reason"),
            "fast quorum: every member is back");
  EXPECT_EQ(ElementText(*dom, "min-replicas"), "2");
  EXPECT_EQ(ElementText(*dom, "leader"), "127.0.0.1:29511");
  EXPECT_EQ(ElementText(*dom, "heartbeat-timeout"), "5000 ms");
  EXPECT_EQ(ElementText(*dom, "lighthouse-address"), "127.0.0.1:29510");

  const auto rows = ReplicaRowClasses(*dom);
  ASSERT_EQ(rows.size(), 4u) << *dom;
  EXPECT_EQ(rows.at("0_fresh"), "replica");
  // Healthy, but its heartbeat is older than half the timeout.
  EXPECT_EQ(rows.at("1_slow"), "replica stale recovering");
  EXPECT_EQ(rows.at("2_lost"), "replica stale");
  // A replica id is text, never markup.
  EXPECT_EQ(rows.count("3_&lt;b&gt;bold&lt;/b&gt;"), 1u) << *dom;
  EXPECT_THAT(*dom, Not(HasSubstr("<b>bold</b>")));
  EXPECT_THAT(*dom, HasSubstr("<td class=\"heartbeat-age\">9000 ms</td>"));
  EXPECT_THAT(*dom, HasSubstr("<td class=\"step\">18</td>"));
  EXPECT_THAT(*dom,
              HasSubstr("<td class=\"world-size\">8</td><td "
                        "class=\"incarnation\">18364758544493064720</td>"));

  // Why the generation formed stays beside the fast quorum's reason.
  EXPECT_EQ(ElementText(*dom, "generation-reason"),
            "3 of 4 healthy replicas asked");
  EXPECT_EQ(ElementText(*dom, "generation-formed"), "2023-11-14T22:13:20.000Z");
  EXPECT_EQ(ElementText(*dom, "steps-per-second"),
            "12.3 over about the last 10 s");
  EXPECT_EQ(ElementText(*dom, "committed-steps"), "4321");
  const std::vector<HistoryRow> history = HistoryRows(*dom);
  ASSERT_EQ(history.size(), 3u) << *dom;
  EXPECT_EQ(history[0].kind, "MEMBER_LOST");
  EXPECT_EQ(history[0].cells.at("kind"), "member lost");
  EXPECT_EQ(history[0].cells.at("history-quorum-id"), "7");
  EXPECT_EQ(history[0].cells.at("history-replica-id"), "2_lost");
  EXPECT_EQ(history[0].cells.at("reason"),
            "replica 2_lost lost: no heartbeat for 9 s");
  EXPECT_EQ(history[0].cells.at("time"), "2023-11-14T22:13:22.000Z");
  EXPECT_EQ(history[1].kind, "REPLICA_RESTARTED");
  EXPECT_EQ(history[1].cells.at("history-replica-id"),
            "3_&lt;b&gt;bold&lt;/b&gt;");
  EXPECT_EQ(history[2].kind, "GENERATION_FORMED");
  EXPECT_EQ(history[2].cells.at("participants"),
            "0_fresh (world size 8, incarnation 11), 1_slow (world size 8, "
            "incarnation 12) and 8 more");
  EXPECT_EQ(history[2].cells.at("reason"), "3 of 4 healthy replicas asked");

  const char* outputs = getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  ASSERT_NE(outputs, nullptr);
  const std::string screenshot =
      absl::StrCat(outputs, "/lighthouse_status_made_up.png");
  absl::Status shot =
      testing::Screenshot((*page)->url(), screenshot, absl::Seconds(2));
  EXPECT_TRUE(shot.ok()) << shot;

  // The page follows the status (it polls).
  quorum_id = 8;
  dom = DumpDom((*page)->url(), absl::Milliseconds(1500));
  ASSERT_TRUE(dom.ok()) << dom.status();
  EXPECT_EQ(ElementText(*dom, "quorum-id"), "8");
}

}  // namespace
}  // namespace sluice::lighthouse
