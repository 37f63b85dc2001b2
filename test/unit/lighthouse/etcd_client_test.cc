// EtcdClient against small HTTP servers in-process that answer as etcd's
// gateway does, or do not: the requests it sends, the replies it reads,
// endpoints tried in turn, and every failure as a status naming the
// endpoint. (Against a real etcd: test/integration/ha.)
#include "lib/lighthouse/etcd_client.h"

#include <httplib.h>

#include <atomic>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice::lighthouse {
namespace {

using ::testing::HasSubstr;

// An HTTP server on a free port of 127.0.0.1, serving until destroyed.
class FakeGateway {
 public:
  FakeGateway() {
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) absl::SleepFor(absl::Milliseconds(1));
  }
  ~FakeGateway() {
    server_.stop();
    thread_.join();
  }

  httplib::Server& server() { return server_; }
  std::string endpoint() const {
    return absl::StrCat("http://127.0.0.1:", port_);
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

std::unique_ptr<EtcdClient> NewClient(std::vector<std::string> endpoints,
                                      absl::Duration timeout) {
  auto client = EtcdClient::Create(std::move(endpoints), timeout);
  EXPECT_TRUE(client.ok()) << client.status();
  return client.ok() ? *std::move(client) : nullptr;
}

TEST(EtcdClientTest, SendsBase64AndReadsStringIntegers) {
  FakeGateway gateway;
  std::string request_body;
  gateway.server().Post("/v3/kv/range", [&](const httplib::Request& request,
                                            httplib::Response& response) {
    request_body = request.body;
    // "leader" / "127.0.0.1:1" in base64; integers as strings.
    response.set_content(
        R"({"header":{"revision":"9"},"kvs":[{"key":"bGVhZGVy",)"
        R"("create_revision":"4","mod_revision":"7","version":"2",)"
        R"("value":"MTI3LjAuMC4xOjE=","lease":"7587859"}],"count":"1"})",
        "application/json");
  });
  auto client = NewClient({gateway.endpoint()}, absl::Seconds(2));
  ASSERT_TRUE(client);
  auto key = client->Get("leader");
  ASSERT_TRUE(key.ok()) << key.status();
  ASSERT_TRUE(key->has_value());
  EXPECT_EQ((*key)->key, "leader");
  EXPECT_EQ((*key)->value, "127.0.0.1:1");
  EXPECT_EQ((*key)->create_revision, 4);
  EXPECT_EQ((*key)->mod_revision, 7);
  EXPECT_EQ((*key)->lease, 7587859);
  EXPECT_EQ(nlohmann::json::parse(request_body)["key"], "bGVhZGVy");
}

TEST(EtcdClientTest, TxnSendsComparesAndPuts) {
  FakeGateway gateway;
  nlohmann::json sent;
  gateway.server().Post("/v3/kv/txn", [&](const httplib::Request& request,
                                          httplib::Response& response) {
    sent = nlohmann::json::parse(request.body);
    response.set_content(R"({"header":{"revision":"12"},"succeeded":true})",
                         "application/json");
  });
  auto client = NewClient({gateway.endpoint()}, absl::Seconds(2));
  ASSERT_TRUE(client);
  auto result = client->Txn(
      {EtcdCompare::ValueIs("a", "x"), EtcdCompare::CreateRevisionIs("b", 0),
       EtcdCompare::ModRevisionIs("c", 5)},
      {EtcdPut{"c", "6", 42}});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->succeeded);
  EXPECT_EQ(result->revision, 12);
  ASSERT_EQ(sent["compare"].size(), 3u);
  EXPECT_EQ(sent["compare"][0]["target"], "VALUE");
  EXPECT_EQ(sent["compare"][0]["value"], "eA==");
  EXPECT_EQ(sent["compare"][1]["target"], "CREATE");
  EXPECT_EQ(sent["compare"][1]["create_revision"], "0");
  EXPECT_EQ(sent["compare"][2]["target"], "MOD");
  EXPECT_EQ(sent["compare"][2]["mod_revision"], "5");
  EXPECT_EQ(sent["success"][0]["request_put"]["value"], "Ng==");
  EXPECT_EQ(sent["success"][0]["request_put"]["lease"], "42");
}

TEST(EtcdClientTest, AnUnavailableMemberPassesTheRequestOn) {
  FakeGateway sick, healthy;
  std::atomic<int> sick_calls{0};
  sick.server().Post("/v3/lease/grant", [&](const httplib::Request&,
                                            httplib::Response& response) {
    ++sick_calls;
    response.status = 503;
    response.set_content(R"({"error":"etcdserver: no leader","code":14})",
                         "application/json");
  });
  healthy.server().Post("/v3/lease/grant", [](const httplib::Request&,
                                              httplib::Response& response) {
    response.set_content(R"({"ID":"77","TTL":"2"})", "application/json");
  });
  auto client =
      NewClient({sick.endpoint(), healthy.endpoint()}, absl::Seconds(2));
  ASSERT_TRUE(client);
  auto lease = client->GrantLease(absl::Seconds(2));
  ASSERT_TRUE(lease.ok()) << lease.status();
  EXPECT_EQ(*lease, 77);
  // The endpoint that answered is asked first next time.
  ASSERT_TRUE(client->GrantLease(absl::Seconds(2)).ok());
  EXPECT_EQ(sick_calls.load(), 1);
}

TEST(EtcdClientTest, EtcdErrorsKeepTheirCodeAndNameTheEndpoint) {
  FakeGateway gateway;
  gateway.server().Post("/v3/lease/revoke", [](const httplib::Request&,
                                               httplib::Response& response) {
    response.status = 404;
    response.set_content(
        R"({"error":"etcdserver: requested lease not found",)"
        R"("message":"etcdserver: requested lease not found","code":5})",
        "application/json");
  });
  gateway.server().Post("/v3/lease/grant", [](const httplib::Request&,
                                              httplib::Response& response) {
    response.set_content("<html>a proxy</html>", "text/html");
  });
  auto client = NewClient({gateway.endpoint()}, absl::Seconds(2));
  ASSERT_TRUE(client);
  absl::Status revoked = client->RevokeLease(5);
  EXPECT_EQ(revoked.code(), absl::StatusCode::kNotFound) << revoked;
  EXPECT_THAT(revoked.message(),
              HasSubstr(gateway.endpoint() + "/v3/lease/revoke (HTTP 404): "
                                             "etcdserver: requested lease "
                                             "not found"));
  // A 200 that is not etcd's JSON.
  auto granted = client->GrantLease(absl::Seconds(1));
  EXPECT_EQ(granted.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(granted.status().message(),
              HasSubstr(absl::StrCat("etcd at ", gateway.endpoint(),
                                     "/v3/lease/grant answered something that "
                                     "is not a JSON object: '<html>a proxy"
                                     "</html>'")));
}

TEST(EtcdClientTest, ASilentEndpointTimesOut) {
  FakeGateway gateway;
  gateway.server().Post(
      "/v3/kv/range", [](const httplib::Request&, httplib::Response& response) {
        absl::SleepFor(absl::Seconds(2));
        response.set_content("{}", "application/json");
      });
  auto client = NewClient({gateway.endpoint()}, absl::Milliseconds(200));
  ASSERT_TRUE(client);
  const absl::Time start = absl::Now();
  auto key = client->Get("k");
  EXPECT_LT(absl::Now() - start, absl::Milliseconds(1500));
  EXPECT_EQ(key.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(key.status().message(),
              HasSubstr(gateway.endpoint() + ": no reply"));
}

TEST(EtcdClientTest, RejectsBadEndpoints) {
  EXPECT_THAT(
      EtcdClient::Create({"https://h:1"}, absl::Seconds(1), ProcessTls())
          .status()
          .message(),
      HasSubstr("etcd endpoint 'https://h:1' is https but this "
                "process has no TLS configured: give --tls_cert, "
                "--tls_key and --tls_ca"));
  EXPECT_THAT(
      EtcdClient::Create({"http://h"}, absl::Seconds(1)).status().message(),
      HasSubstr("'http://h' is not http://host:port"));
  EXPECT_THAT(
      EtcdClient::Create({"h:99999"}, absl::Seconds(1)).status().message(),
      HasSubstr("is not http://host:port"));
  EXPECT_THAT(EtcdClient::Create({}, absl::Seconds(1)).status().message(),
              HasSubstr("no etcd endpoint"));
  EXPECT_TRUE(
      EtcdClient::Create({"127.0.0.1:2379", "http://h:1/"}, absl::Seconds(1))
          .ok());
  EXPECT_EQ(EtcdClient::SplitEndpoints("http://a:1, http://b:2,,"),
            (std::vector<std::string>{"http://a:1", "http://b:2"}));
}

}  // namespace
}  // namespace sluice::lighthouse
