// The status page rendered by headless Chromium from a status the test
// makes up: every field reaches the DOM, stale members are highlighted, text
// from replicas stays text, and the page follows a changing status.
#include <stdlib.h>

#include <atomic>
#include <string>

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
  return status;
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
