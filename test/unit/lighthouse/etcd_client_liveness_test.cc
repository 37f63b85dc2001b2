// EtcdClient against an etcd that goes silent mid-request (its host
// vanished, or a partition): with a request timeout far longer than the
// liveness bound, the request fails within the bound, as TCP gives up on
// the connection (keepalive and user timeout), not at the request timeout.
// A fake etcd on loopback stands for it, blackholed in a network namespace
// of the test's own (test/util/network_faults.h).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <future>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/lighthouse/etcd_client.h"
#include "sluice/support/liveness.h"
#include "test/util/network_faults.h"

namespace sluice::lighthouse {
namespace {

using ::testing::HasSubstr;

constexpr absl::Duration kLiveness = absl::Seconds(1);
// Without the liveness options a request would wait this long.
constexpr absl::Duration kRequestTimeout = absl::Seconds(30);
// Keepalive counts whole seconds: the probe goes out after kLiveness of
// silence and the connection fails when it is unanswered for a second.
const absl::Duration kBound = kLiveness + kLivenessPingTimeout;
// Scheduling and the blackhole's own setup on a loaded machine.
constexpr absl::Duration kSlack = absl::Milliseconds(1500);

class EtcdClientLivenessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<test_util::NetworkFaults> faults =
        test_util::StartNetworkFaultTest(kLiveness);
    if (!faults.ok()) GTEST_SKIP() << faults.status();
    faults_.emplace(*std::move(faults));
    listener_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(listener_, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(
        bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof(address)),
        0);
    ASSERT_EQ(listen(listener_, 4), 0);
    socklen_t length = sizeof(address);
    getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
  }

  void TearDown() override {
    for (int fd : {accepted_, listener_}) {
      if (fd >= 0) close(fd);
    }
  }

  // Accepts the client's connection within `timeout`; false if none came.
  bool Accept(absl::Duration timeout) {
    pollfd waiting{listener_, POLLIN, 0};
    if (poll(&waiting, 1,
             static_cast<int>(absl::ToInt64Milliseconds(timeout))) != 1) {
      return false;
    }
    accepted_ = accept(listener_, nullptr, nullptr);
    return accepted_ >= 0;
  }

  std::optional<test_util::NetworkFaults> faults_;
  int listener_ = -1;
  int accepted_ = -1;
  int port_ = 0;
};

TEST_F(EtcdClientLivenessTest, SilentEtcdFailsARequestWithinTheLivenessBound) {
  const std::string endpoint = absl::StrCat("http://127.0.0.1:", port_);
  absl::StatusOr<std::unique_ptr<EtcdClient>> client =
      EtcdClient::Create({endpoint}, kRequestTimeout);
  ASSERT_TRUE(client.ok()) << client.status();
  auto request = std::async(std::launch::async,
                            [&] { return (*client)->Get("leader").status(); });
  // The connection is up (the kernel completed it) and the request on its
  // way or delivered, unanswered; then every segment of it is lost.
  ASSERT_TRUE(Accept(absl::Seconds(10)));
  ASSERT_TRUE(faults_->Blackhole(port_, test_util::Traffic::kBothWays).ok());
  const absl::Time cut = absl::Now();
  ASSERT_EQ(request.wait_for(absl::ToChronoNanoseconds(kBound + kSlack)),
            std::future_status::ready)
      << "still waiting " << absl::FormatDuration(kBound + kSlack)
      << " after etcd went silent";
  const absl::Duration took = absl::Now() - cut;
  const absl::Status failed = request.get();
  EXPECT_EQ(failed.code(), absl::StatusCode::kUnavailable) << failed;
  EXPECT_THAT(failed.message(), HasSubstr(endpoint + ": no reply"));
  // Not at once: the connection was silent, not refused or reset.
  EXPECT_GE(took, kLiveness - absl::Milliseconds(200)) << failed;
  ASSERT_TRUE(faults_->Heal().ok());
}

}  // namespace
}  // namespace sluice::lighthouse
