// The status page's drain and kill routes in-process: over HTTPS they act
// only for a client certificate of the CA and name its common name and
// address; without TLS every POST is refused; an unknown replica is 404.
#include <httplib.h>

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/lighthouse/bounded_http_server.h"
#include "lib/lighthouse/lighthouse_status_page.h"
#include "test/util/test_certificates.h"

namespace sluice::lighthouse {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  std::stringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

proto::LighthouseStatus OneReplica() {
  proto::LighthouseStatus status;
  status.add_replicas()->mutable_replica()->set_replica_id("replica_a");
  return status;
}

struct Acted {
  ReplicaAction action;
  std::string replica_id;
  std::string by;
  std::string from;
};

class StatusPageActionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    ASSERT_NE(tmp, nullptr);
    auto made = testing::MakeTestCertificates(std::string(tmp) + "/certs");
    ASSERT_TRUE(made.ok()) << made.status();
    certs_ = *made;
  }

  std::unique_ptr<LighthouseStatusPage> StartHttps() {
    StatusPageActions actions;
    actions.tls = {ReadFile(certs_.good.cert_file),
                   ReadFile(certs_.good.key_file), ReadFile(certs_.ca_file)};
    actions.act = [this](ReplicaAction action, const std::string& replica,
                         const std::string& by, const std::string& from) {
      if (replica != "replica_a") {
        return absl::NotFoundError(
            absl::StrCat("lighthouse knows no replica ", replica));
      }
      std::lock_guard<std::mutex> lock(mu_);
      acted_.push_back({action, replica, by, from});
      return absl::OkStatus();
    };
    auto page = LighthouseStatusPage::Start(
        "127.0.0.1", 0, OneReplica, HttpServerLimits(), std::move(actions));
    EXPECT_TRUE(page.ok()) << page.status();
    return page.ok() ? *std::move(page) : nullptr;
  }

  std::unique_ptr<httplib::SSLClient> Client(int port,
                                             const TlsConfig* config) {
    auto client =
        config == nullptr
            ? std::make_unique<httplib::SSLClient>("127.0.0.1", port)
            : std::make_unique<httplib::SSLClient>(
                  "127.0.0.1", port, config->cert_file, config->key_file);
    client->set_ca_cert_path(certs_.ca_file.c_str());
    client->enable_server_certificate_verification(true);
    client->set_read_timeout(5);
    return client;
  }

  std::vector<Acted> acted() {
    std::lock_guard<std::mutex> lock(mu_);
    return acted_;
  }

  testing::TestCertificates certs_;
  std::mutex mu_;
  std::vector<Acted> acted_;
};

TEST_F(StatusPageActionsTest, ServesThePageOverHttpsWithActionsOn) {
  auto page = StartHttps();
  ASSERT_NE(page, nullptr);
  EXPECT_THAT(page->url(), StartsWith("https://127.0.0.1:"));
  auto client = Client(page->port(), nullptr);
  auto json = client->Get("/status.json");
  ASSERT_TRUE(json) << httplib::to_string(json.error());
  EXPECT_EQ(nlohmann::json::parse(json->body)["operator_actions"], true);
  auto html = client->Get("/");
  ASSERT_TRUE(html) << httplib::to_string(html.error());
  EXPECT_THAT(html->body, HasSubstr("action-result"));
}

TEST_F(StatusPageActionsTest, RefusesAnActionWithoutClientCertificate) {
  auto page = StartHttps();
  ASSERT_NE(page, nullptr);
  const std::vector<const TlsConfig*> refused = {nullptr, &certs_.other_ca,
                                                 &certs_.expired};
  for (const TlsConfig* config : refused) {
    auto reply = Client(page->port(), config)
                     ->Post("/replicas/replica_a/kill", "", "text/plain");
    ASSERT_TRUE(reply) << httplib::to_string(reply.error());
    EXPECT_EQ(reply->status, 403);
    EXPECT_EQ(reply->body, std::string(kActionsNeedCertificate) + "\n");
  }
  EXPECT_TRUE(acted().empty());
}

TEST_F(StatusPageActionsTest, ActsForTheCertificatesCommonName) {
  auto page = StartHttps();
  ASSERT_NE(page, nullptr);
  auto client = Client(page->port(), &certs_.good);
  auto killed = client->Post("/replicas/replica_a/kill", "", "text/plain");
  ASSERT_TRUE(killed) << httplib::to_string(killed.error());
  EXPECT_EQ(killed->status, 200);
  EXPECT_EQ(killed->body, "replica replica_a killed by good\n");
  auto drained = client->Post("/replicas/replica_a/drain", "", "text/plain");
  ASSERT_TRUE(drained) << httplib::to_string(drained.error());
  EXPECT_EQ(drained->status, 200);
  const std::vector<Acted> done = acted();
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].action, ReplicaAction::kKill);
  EXPECT_EQ(done[1].action, ReplicaAction::kDrain);
  EXPECT_EQ(done[0].replica_id, "replica_a");
  EXPECT_EQ(done[0].by, "good");
  EXPECT_THAT(done[0].from, StartsWith("127.0.0.1:"));
}

TEST_F(StatusPageActionsTest, AnswersNotFoundForAnUnknownReplica) {
  auto page = StartHttps();
  ASSERT_NE(page, nullptr);
  auto reply = Client(page->port(), &certs_.good)
                   ->Post("/replicas/replica_z/drain", "", "text/plain");
  ASSERT_TRUE(reply) << httplib::to_string(reply.error());
  EXPECT_EQ(reply->status, 404);
  EXPECT_THAT(reply->body, HasSubstr("replica_z"));
}

TEST(StatusPageWithoutTlsTest, RefusesEveryActionAndOffersNone) {
  auto page = LighthouseStatusPage::Start("127.0.0.1", 0, OneReplica);
  ASSERT_TRUE(page.ok()) << page.status();
  httplib::Client client("127.0.0.1", (*page)->port());
  client.set_read_timeout(5);
  auto reply = client.Post("/replicas/replica_a/kill", "", "text/plain");
  ASSERT_TRUE(reply) << httplib::to_string(reply.error());
  EXPECT_EQ(reply->status, 403);
  EXPECT_EQ(reply->body, std::string(kActionsNeedTls) + "\n");
  auto json = client.Get("/status.json");
  ASSERT_TRUE(json) << httplib::to_string(json.error());
  EXPECT_EQ(nlohmann::json::parse(json->body)["operator_actions"], false);
}

}  // namespace
}  // namespace sluice::lighthouse
