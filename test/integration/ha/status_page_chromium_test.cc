// The status page of a real sluice_lighthouse, in headless Chromium, while
// three replica processes heartbeat it and ask it for quorums: the DOM shows
// every member and the quorum id the replicas got, a stopped (SIGSTOP)
// member is highlighted as stale, and once its heartbeat times out the
// history shows the generation it was in and its loss. A screenshot goes to
// the test's outputs (lighthouse_status.png).
#include <stdlib.h>

#include <map>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/integration/ha/chromium.h"
#include "test/integration/ha/ha_cluster.h"

namespace sluice::lighthouse::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The history table's rows in a dumped DOM, newest first: data-kind and
// each cell's text by class.
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

// Whether the lighthouse's history has a loss of `replica_id`.
bool HistoryHasLoss(const std::string& status_url,
                    const std::string& replica_id) {
  absl::StatusOr<nlohmann::json> status = FetchStatus(status_url);
  if (!status.ok() || !status->contains("history")) return false;
  for (const auto& entry : (*status)["history"]) {
    if (entry.value("kind", "") == "MEMBER_LOST" &&
        entry.value("replica_id", "") == replica_id) {
      return true;
    }
  }
  return false;
}

TEST(StatusPageChromiumTest, ShowsARealQuorumAndAStoppedMember) {
  // A 2 s heartbeat timeout: a member stopped for over 1 s is stale on the
  // page, and lost at 2 s; the others heartbeat every 100 ms. The join
  // timeout is longer, so that the others wait for the stopped member until
  // it is lost rather than leave it out of their next quorum.
  // The step monitor it lists is out of reach (nothing listens on port 1):
  // the stragglers table says so.
  absl::StatusOr<LighthouseProcess> lighthouse = StartLighthouse(
      "lighthouse", {"--address=127.0.0.1:0", "--min_replicas=2",
                     "--heartbeat_timeout_ms=2000", "--join_timeout_ms=3000",
                     "--monitor=127.0.0.1:1"});
  ASSERT_TRUE(lighthouse.ok()) << lighthouse.status();
  std::vector<std::unique_ptr<LoggedProcess>> replicas;
  for (const char* id : {"replica_0", "replica_1", "replica_2"}) {
    auto replica = StartReplica(id, lighthouse->address);
    ASSERT_TRUE(replica.ok()) << replica.status();
    replicas.push_back(*std::move(replica));
  }
  for (auto& replica : replicas) {
    ASSERT_TRUE(replica
                    ->WaitForLine("members replica_0,replica_1,replica_2",
                                  absl::Seconds(30))
                    .ok())
        << replica->Tail() << "\n"
        << lighthouse->process->Tail();
  }

  replicas[2]->Stop();
  absl::SleepFor(absl::Milliseconds(1500));
  absl::StatusOr<std::string> dom =
      DumpDom(lighthouse->status_url, absl::Milliseconds(2000));
  ASSERT_TRUE(dom.ok()) << dom.status();

  const auto rows = ReplicaRowClasses(*dom);
  ASSERT_EQ(rows.size(), 3u) << *dom;
  // (A row may also be "recovering": each replica's step is its own.)
  EXPECT_THAT(rows.at("replica_0"), Not(HasSubstr("stale"))) << *dom;
  EXPECT_THAT(rows.at("replica_1"), Not(HasSubstr("stale"))) << *dom;
  EXPECT_THAT(rows.at("replica_2"), HasSubstr("replica stale")) << *dom;
  EXPECT_EQ(ElementText(*dom, "lighthouse-address"), lighthouse->address);
  EXPECT_EQ(ElementText(*dom, "leader"), "this lighthouse");
  EXPECT_EQ(ElementText(*dom, "min-replicas"), "2");
  EXPECT_EQ(ElementText(*dom, "heartbeat-timeout"), "2000 ms");
  EXPECT_NE(ElementText(*dom, "quorum-reason"), "-");
  EXPECT_TRUE(std::regex_search(
      *dom, std::regex("<tr class=\"monitor-trouble bad\"><td "
                       "class=\"monitor\">127\\.0\\.0\\.1:1</td>.*the "
                       "monitor did not answer: UNAVAILABLE")))
      << *dom;
  // The quorum the page shows is one the replicas got (the two running ones
  // get it without the stopped one once its heartbeat times out).
  int64_t shown = 0;
  ASSERT_TRUE(absl::SimpleAtoi(ElementText(*dom, "quorum-id"), &shown)) << *dom;
  EXPECT_TRUE(replicas[0]
                  ->WaitForLine(absl::StrCat("quorum ", shown, " from "),
                                absl::Seconds(10))
                  .ok())
      << "the page shows quorum " << shown << "; replica_0 printed:\n"
      << replicas[0]->Tail();

  // The stopped member is lost at its heartbeat timeout: the history shows
  // it, and the generation the three formed.
  const absl::Time lost_by = absl::Now() + absl::Seconds(10);
  while (!HistoryHasLoss(lighthouse->status_url, "replica_2") &&
         absl::Now() < lost_by) {
    absl::SleepFor(absl::Milliseconds(100));
  }
  dom = DumpDom(lighthouse->status_url, absl::Milliseconds(1000));
  ASSERT_TRUE(dom.ok()) << dom.status();
  const std::vector<HistoryRow> history = HistoryRows(*dom);
  const HistoryRow* loss = nullptr;
  const HistoryRow* formed_with_all = nullptr;
  for (const HistoryRow& row : history) {
    if (loss == nullptr && row.kind == "MEMBER_LOST" &&
        row.cells.at("history-replica-id") == "replica_2") {
      loss = &row;
    }
    const std::string& participants = row.cells.at("participants");
    if (loss != nullptr && formed_with_all == nullptr &&
        row.kind == "GENERATION_FORMED" &&
        participants.find("replica_0 (world size 1, incarnation ") == 0 &&
        participants.find(", replica_1 (world size 1") != std::string::npos &&
        participants.find(", replica_2 (world size 1") != std::string::npos) {
      formed_with_all = &row;
    }
  }
  ASSERT_NE(loss, nullptr) << *dom << "\n" << lighthouse->process->Tail();
  EXPECT_THAT(loss->cells.at("reason"),
              HasSubstr("replica replica_2 lost: no heartbeat for "));
  EXPECT_EQ(loss->cells.at("kind"), "member lost");
  // The loss is of the generation of all three, which formed before it.
  ASSERT_NE(formed_with_all, nullptr) << *dom;
  EXPECT_EQ(formed_with_all->cells.at("history-quorum-id"),
            loss->cells.at("history-quorum-id"));
  EXPECT_NE(formed_with_all->cells.at("reason"), "");
  EXPECT_NE(ElementText(*dom, "generation-reason"), "-");

  const char* outputs = getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  ASSERT_NE(outputs, nullptr);
  absl::Status shot = Screenshot(
      lighthouse->status_url, absl::StrCat(outputs, "/lighthouse_status.png"),
      absl::Milliseconds(1500));
  EXPECT_TRUE(shot.ok()) << shot;

  // Woken up, it heartbeats again and its row is no longer stale.
  replicas[2]->Continue();
  ASSERT_TRUE(replicas[2]->WaitForLine("quorum ", absl::Seconds(1)).ok());
  absl::SleepFor(absl::Milliseconds(500));
  dom = DumpDom(lighthouse->status_url, absl::Milliseconds(1000));
  ASSERT_TRUE(dom.ok()) << dom.status();
  EXPECT_THAT(ReplicaRowClasses(*dom)["replica_2"], Not(HasSubstr("stale")))
      << *dom;
}

}  // namespace
}  // namespace sluice::lighthouse::testing
