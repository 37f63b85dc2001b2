// The status page of a real sluice_lighthouse, in headless Chromium, while
// three replica processes heartbeat it and ask it for quorums: the DOM shows
// every member and the quorum id the replicas got, and a stopped (SIGSTOP)
// member is highlighted as stale. A screenshot goes to the test's outputs
// (lighthouse_status.png).
#include <stdlib.h>

#include <memory>
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

TEST(StatusPageChromiumTest, ShowsARealQuorumAndAStoppedMember) {
  // A 2 s heartbeat timeout: a member stopped for over 1 s is stale on the
  // page; the others heartbeat every 100 ms.
  absl::StatusOr<LighthouseProcess> lighthouse = StartLighthouse(
      "lighthouse", {"--address=127.0.0.1:0", "--min_replicas=2",
                     "--heartbeat_timeout_ms=2000", "--join_timeout_ms=1000"});
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
