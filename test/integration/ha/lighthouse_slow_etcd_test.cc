// A lighthouse over a real etcd reached through a proxy that holds every
// quorum id record for 400 ms (a slow etcd, inside its 500 ms timeout):
// heartbeats and status reads answer at once while a record is in flight,
// and the quorum goes out once its id is in etcd.
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "lib/lighthouse/etcd_client.h"
#include "lib/lighthouse/etcd_quorum_authority.h"
#include "lib/lighthouse/lighthouse_client.h"
#include "sluice/lighthouse/lighthouse.h"
#include "test/integration/ha/etcd_process.h"

namespace sluice::lighthouse {
namespace {

using testing::EtcdProcess;

constexpr absl::Duration kTimeout = absl::Seconds(20);
constexpr absl::Duration kRecordDelay = absl::Milliseconds(400);
// What a call that needs nothing from etcd may take while a record is held.
constexpr absl::Duration kQuick = absl::Milliseconds(100);
constexpr char kPrefix[] = "/slow/";

// Passes etcd's JSON gateway requests on to etcd, holding each transaction
// that writes the quorum id key for kRecordDelay first.
class SlowRecordProxy {
 public:
  explicit SlowRecordProxy(int etcd_port)
      : etcd_port_(etcd_port),
        // Keys travel in base64; only a record's transaction names this one.
        quorum_key_(absl::Base64Escape(std::string(kPrefix) + "quorum_id")) {
    server_.Post(R"(/v3/.*)", [this](const httplib::Request& request,
                                     httplib::Response& response) {
      Pass(request, response);
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    const absl::Time deadline = absl::Now() + kTimeout;
    while (!server_.is_running() && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(1));
    }
  }
  ~SlowRecordProxy() {
    server_.stop();
    thread_.join();
  }

  std::string endpoint() const {
    return absl::StrCat("http://127.0.0.1:", port_);
  }
  bool WaitForRecord() {
    return record_started_.WaitForNotificationWithTimeout(kTimeout);
  }
  bool in_flight() const { return in_flight_.load(); }

 private:
  void Pass(const httplib::Request& request, httplib::Response& response) {
    const bool record = request.path == "/v3/kv/txn" &&
                        absl::StrContains(request.body, quorum_key_);
    if (record) {
      in_flight_.store(true);
      if (!record_started_.HasBeenNotified()) record_started_.Notify();
      absl::SleepFor(kRecordDelay);
    }
    httplib::Client etcd("127.0.0.1", etcd_port_);
    etcd.set_read_timeout(std::chrono::seconds(5));
    httplib::Result result =
        etcd.Post(request.path.c_str(), request.body, "application/json");
    if (result) {
      response.status = result->status;
      response.set_content(result->body, "application/json");
    } else {
      response.status = 502;
      response.set_content(
          absl::StrCat("proxy: etcd at 127.0.0.1:", etcd_port_, ": ",
                       httplib::to_string(result.error())),
          "text/plain");
    }
    if (record) in_flight_.store(false);
  }

  const int etcd_port_;
  const std::string quorum_key_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  absl::Notification record_started_;
  std::atomic<bool> in_flight_{false};
};

proto::QuorumRequest Ask(const std::string& id) {
  proto::QuorumRequest request;
  request.mutable_replica()->set_replica_id(id);
  request.mutable_replica()->set_address(id + ".host:1");
  request.mutable_replica()->set_incarnation(1);
  return request;
}

TEST(LighthouseSlowEtcdTest, RecordInFlightHoldsUpNoHeartbeatOrStatus) {
  absl::StatusOr<std::unique_ptr<EtcdProcess>> etcd = EtcdProcess::Start();
  ASSERT_TRUE(etcd.ok()) << etcd.status();
  SlowRecordProxy proxy((*etcd)->client_port());
  absl::StatusOr<int> port = testing::PickFreePort();
  ASSERT_TRUE(port.ok()) << port.status();
  const std::string address = absl::StrCat("127.0.0.1:", *port);

  EtcdQuorumAuthorityOptions authority_options;
  authority_options.endpoints = {proxy.endpoint()};
  authority_options.prefix = kPrefix;
  authority_options.address = address;
  // Above the proxy's hold even on a loaded machine: the record must
  // succeed, slowly.
  authority_options.request_timeout = absl::Seconds(2);
  absl::StatusOr<std::unique_ptr<EtcdQuorumAuthority>> authority =
      EtcdQuorumAuthority::Create(authority_options);
  ASSERT_TRUE(authority.ok()) << authority.status();
  const absl::Time deadline = absl::Now() + kTimeout;
  while (!(*authority)->IsLeader() && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  ASSERT_TRUE((*authority)->IsLeader());

  LighthouseOptions options;
  options.bind = address;
  options.quorum_tick = absl::Milliseconds(20);
  absl::StatusOr<std::unique_ptr<Lighthouse>> lighthouse =
      Lighthouse::Start(options, *std::move(authority));
  ASSERT_TRUE(lighthouse.ok()) << lighthouse.status();
  absl::StatusOr<std::unique_ptr<LighthouseClient>> client =
      LighthouseClient::Create({address});
  ASSERT_TRUE(client.ok()) << client.status();

  auto asked = std::async(std::launch::async, [&] {
    return (*client)->Quorum(Ask("a"), kTimeout);
  });
  ASSERT_TRUE(proxy.WaitForRecord());
  proto::HeartbeatRequest beat;
  beat.set_replica_id("a");
  beat.set_incarnation(1);
  absl::Time start = absl::Now();
  const absl::Status beaten = (*client)->Heartbeat(beat, kTimeout);
  const absl::Duration beat_took = absl::Now() - start;
  start = absl::Now();
  const LighthouseStatus status = (*lighthouse)->Status();
  const absl::Duration status_took = absl::Now() - start;
  start = absl::Now();
  const absl::StatusOr<proto::LighthouseStatus> remote =
      (*client)->GetStatus(kTimeout);
  const absl::Duration remote_took = absl::Now() - start;
  // Measured while the record was held, not after it.
  EXPECT_TRUE(proxy.in_flight());

  EXPECT_TRUE(beaten.ok()) << beaten;
  EXPECT_LT(beat_took, kQuick);
  EXPECT_LT(status_took, kQuick);
  ASSERT_TRUE(remote.ok()) << remote.status();
  EXPECT_LT(remote_took, kQuick);
  EXPECT_TRUE(status.is_leader);
  EXPECT_EQ(status.quorum.quorum_id, 0);  // not before it is recorded

  absl::StatusOr<proto::Quorum> quorum = asked.get();
  ASSERT_TRUE(quorum.ok()) << quorum.status();
  EXPECT_EQ(quorum->quorum_id(), 1);
  absl::StatusOr<std::unique_ptr<EtcdClient>> direct =
      EtcdClient::Create({(*etcd)->endpoint()}, absl::Seconds(2));
  ASSERT_TRUE(direct.ok()) << direct.status();
  absl::StatusOr<std::optional<EtcdKeyValue>> recorded =
      (*direct)->Get(std::string(kPrefix) + "quorum_id");
  ASSERT_TRUE(recorded.ok()) << recorded.status();
  ASSERT_TRUE(recorded->has_value());
  EXPECT_EQ((*recorded)->value, "1");
  (*lighthouse)->Shutdown();
}

}  // namespace
}  // namespace sluice::lighthouse
