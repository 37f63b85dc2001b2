// The status page's HTTP server in-process, with a status function the test
// controls: /status.json carries the status, / the page, and Stop frees the
// port.
#include "lib/lighthouse/lighthouse_status_page.h"

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice::lighthouse {
namespace {

using ::testing::HasSubstr;

proto::LighthouseStatus TwoReplicas(int64_t quorum_id) {
  proto::LighthouseStatus status;
  status.mutable_quorum()->set_quorum_id(quorum_id);
  status.mutable_quorum()->set_reason("2 of 2 heartbeating replicas asked");
  status.set_min_replicas(2);
  status.set_heartbeat_timeout_ms(5000);
  status.set_address("127.0.0.1:29510");
  status.set_is_leader(true);
  status.set_leader_address("127.0.0.1:29510");
  for (const char* id : {"replica_a", "replica_b"}) {
    proto::ReplicaStatus* replica = status.add_replicas();
    replica->mutable_replica()->set_replica_id(id);
    replica->mutable_replica()->set_step(12);
    replica->set_healthy(id[8] == 'a');
    replica->set_heartbeat_age_ms(id[8] == 'a' ? 40 : 7000);
  }
  return status;
}

httplib::Result Fetch(int port, const char* path) {
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(std::chrono::seconds(2));
  client.set_read_timeout(std::chrono::seconds(5));
  return client.Get(path);
}

TEST(LighthouseStatusPageTest, ServesTheStatusAsJson) {
  std::atomic<int64_t> quorum_id{3};
  auto page = LighthouseStatusPage::Start(
      "127.0.0.1", 0, [&] { return TwoReplicas(quorum_id.load()); });
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_GT((*page)->port(), 0);
  EXPECT_EQ((*page)->url(),
            "http://127.0.0.1:" + std::to_string((*page)->port()) + "/");

  httplib::Result reply = Fetch((*page)->port(), "/status.json");
  ASSERT_TRUE(reply) << httplib::to_string(reply.error());
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(reply->get_header_value("Content-Type"), "application/json");
  nlohmann::json json = nlohmann::json::parse(reply->body);
  EXPECT_EQ(json["quorum"]["quorum_id"], "3");  // int64: a string
  EXPECT_EQ(json["quorum"]["reason"], "2 of 2 heartbeating replicas asked");
  EXPECT_EQ(json["min_replicas"], 2);
  EXPECT_EQ(json["is_leader"], true);
  ASSERT_EQ(json["replicas"].size(), 2u);
  EXPECT_EQ(json["replicas"][0]["replica"]["replica_id"], "replica_a");
  EXPECT_EQ(json["replicas"][1]["healthy"], false);  // false is written
  EXPECT_EQ(json["replicas"][1]["heartbeat_age_ms"], "7000");

  // Each request asks the function again.
  quorum_id = 4;
  reply = Fetch((*page)->port(), "/status.json");
  ASSERT_TRUE(reply);
  EXPECT_EQ(nlohmann::json::parse(reply->body)["quorum"]["quorum_id"], "4");
}

TEST(LighthouseStatusPageTest, ServesTheHtmlPage) {
  auto page = LighthouseStatusPage::Start("127.0.0.1", 0,
                                          [] { return TwoReplicas(1); });
  ASSERT_TRUE(page.ok()) << page.status();
  httplib::Result reply = Fetch((*page)->port(), "/");
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
  EXPECT_THAT(reply->get_header_value("Content-Type"), HasSubstr("text/html"));
  EXPECT_EQ(reply->body, StatusPageHtml());
  EXPECT_THAT(reply->body, HasSubstr("fetch(\"status.json\""));
  EXPECT_THAT(reply->body, HasSubstr("id=\"member-rows\""));
  // Self-contained: nothing loaded from elsewhere.
  EXPECT_THAT(reply->body, ::testing::Not(HasSubstr("src=")));
  EXPECT_THAT(reply->body, ::testing::Not(HasSubstr("http")));
  EXPECT_EQ(Fetch((*page)->port(), "/missing")->status, 404);
}

TEST(LighthouseStatusPageTest, StopFreesThePortAndATakenPortIsAnError) {
  auto page = LighthouseStatusPage::Start("127.0.0.1", 0,
                                          [] { return TwoReplicas(1); });
  ASSERT_TRUE(page.ok()) << page.status();
  const int port = (*page)->port();
  auto clash = LighthouseStatusPage::Start("127.0.0.1", port,
                                           [] { return TwoReplicas(1); });
  EXPECT_EQ(clash.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(clash.status().message(),
              HasSubstr("cannot listen on 127.0.0.1:" + std::to_string(port)));
  (*page)->Stop();
  (*page)->Stop();  // idempotent
  EXPECT_FALSE(Fetch(port, "/status.json"));
  auto again = LighthouseStatusPage::Start("127.0.0.1", port,
                                           [] { return TwoReplicas(1); });
  EXPECT_TRUE(again.ok()) << again.status();
}

}  // namespace
}  // namespace sluice::lighthouse
