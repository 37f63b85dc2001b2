// Every failure-handling server checks where it listens before it binds: a
// port past 65535, which gRPC and cpp-httplib would wrap (99999 listening
// on 34463), is INVALID_ARGUMENT naming the address, for embedders as for
// the tools.
#include <memory>
#include <string>

#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/ft/heal_server.h"
#include "lib/launcher/launcher_rendezvous.h"
#include "lib/lighthouse/lighthouse_status_page.h"
#include "sluice/lighthouse/lighthouse.h"
#include "sluice/monitor/monitor.h"

namespace sluice::ft {
namespace {

using ::testing::HasSubstr;

void ExpectRefused(const absl::Status& status, const std::string& what) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(), HasSubstr(what)) << status;
}

TEST(ListenAddressTest, MonitorRefusesAPortPast65535) {
  ExpectRefused(monitor::MonitorServer::Start("127.0.0.1:99999",
                                              monitor::MonitorOptions())
                    .status(),
                "monitor: cannot listen on '127.0.0.1:99999': port 99999 is "
                "out of range 0..65535");
}

TEST(ListenAddressTest, LighthouseRefusesBadBindAndAdvertiseAddresses) {
  lighthouse::LighthouseOptions bind;
  bind.bind = "127.0.0.1:99999";
  ExpectRefused(lighthouse::Lighthouse::Start(bind).status(),
                "lighthouse: cannot listen on '127.0.0.1:99999': port 99999 "
                "is out of range 0..65535");
  lighthouse::LighthouseOptions advertise;
  advertise.bind = "127.0.0.1:0";
  advertise.advertise = "lighthouse.example.com:http";
  ExpectRefused(lighthouse::Lighthouse::Start(advertise).status(),
                "lighthouse: cannot advertise 'lighthouse.example.com:http': "
                "port 'http' is not a number");
}

TEST(ListenAddressTest, StatusPageRefusesAPortOutside0To65535) {
  auto status = [] { return lighthouse::proto::LighthouseStatus(); };
  ExpectRefused(
      lighthouse::LighthouseStatusPage::Start("127.0.0.1", 95177, status)
          .status(),
      "lighthouse status page: cannot listen on '127.0.0.1:95177': "
      "port 95177 is out of range 0..65535");
  ExpectRefused(
      lighthouse::LighthouseStatusPage::Start("127.0.0.1", -1, status).status(),
      "port -1 is out of range 0..65535");
}

TEST(ListenAddressTest, RendezvousRefusesAPortPast65535) {
  ExpectRefused(launcher::RendezvousServer::Start(
                    "127.0.0.1:65536", 2, 1, "127.0.0.1:1", absl::Seconds(1))
                    .status(),
                "cannot serve the rendezvous at '127.0.0.1:65536' "
                "(--rendezvous): port 65536 is out of range 0..65535");
}

TEST(ListenAddressTest, HealServerRefusesAnUnbracketedIpv6Host) {
  ExpectRefused(
      HealServer::Start("::1", "replica_a",
                        [](bool) { return absl::StatusOr<ServedState>(); })
          .status(),
      "healing service: cannot listen on '::1:0': host '::1' has a ':'");
}

}  // namespace
}  // namespace sluice::ft
