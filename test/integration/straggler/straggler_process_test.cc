// A real sluice_monitor and four straggler_rank processes on 127.0.0.1,
// steps of 100 ms; rank 2 takes 300 ms for steps 20 to 29, slowed by the
// fault point monitor.step.end through SLUICE_FAULTS. It is named a
// straggler within --straggler_steps=5 steps of the slowdown, cleared within
// 5 steps of its recovery, and no other rank is ever named. Every wait is
// bounded; children are killed and reaped whatever happens. A lighthouse
// given the monitor (--monitor) shows the verdict on its status page.
#include <cstdio>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "lib/monitor/monitor_service.grpc.pb.h"
#include "test/integration/ha/ha_cluster.h"
#include "test/util/child_process.h"
#include "test/util/wait_until.h"

namespace sluice::monitor {
namespace {

using ::sluice::testing::ChildProcess;
using ::sluice::testing::ChildProcessOptions;
using ::sluice::testing::Runfile;
using ::sluice::testing::WaitUntil;

constexpr int kRanks = 4;
constexpr int kSlowRank = 2;
constexpr int64_t kSlowFrom = 20;
constexpr int64_t kSlowUntil = 30;
constexpr int64_t kStragglerSteps = 5;
constexpr int64_t kStepMs = 100;
constexpr int64_t kSlowStepMs = 300;

// Delays the ends of steps kSlowFrom to kSlowUntil - 1 (hits kSlowFrom + 1
// on: step 0 is hit 1). The grammar has no trigger that stops firing, but
// on each hit the first entry that fires acts, so a zero delay from
// kSlowUntil on ends the slowdown.
std::string SlowdownSpec() {
  return absl::StrCat("monitor.step.end=delay:0@from=", kSlowUntil + 1,
                      ";monitor.step.end=delay:", kSlowStepMs - kStepMs,
                      "@from=", kSlowFrom + 1);
}

std::unique_ptr<ChildProcess> StartRank(const std::string& monitor, int rank) {
  ChildProcessOptions options;
  options.argv = {Runfile("test/integration/straggler/straggler_rank"),
                  absl::StrCat("--step_ms=", kStepMs)};
  options.environment = {"SLUICE_MONITOR=" + monitor,
                         absl::StrCat("SLUICE_RANK=", rank)};
  if (rank == kSlowRank) {
    options.environment.push_back("SLUICE_FAULTS=" + SlowdownSpec());
  }
  options.name = absl::StrCat("straggler_rank", rank);
  options.stderr_to = ChildProcessOptions::Stderr::kInherit;
  auto child = std::make_unique<ChildProcess>(std::move(options));
  EXPECT_TRUE(child->started()) << child->start_error();
  return child;
}

std::optional<proto::JobState> GetState(proto::Monitor::Stub& stub) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(2)));
  proto::GetStateRequest request;
  proto::JobState state;
  if (!stub.GetState(&context, request, &state).ok()) return std::nullopt;
  return state;
}

// The ratio written before `marker` in `message` ("..., 2.9x its peers'"),
// or -1.
double RatioBefore(const std::string& message, const std::string& marker) {
  const size_t end = message.find(marker);
  if (end == std::string::npos) return -1;
  const size_t begin = message.rfind(", ", end);
  double ratio = -1;
  if (begin == std::string::npos ||
      !absl::SimpleAtod(message.substr(begin + 2, end - begin - 2), &ratio)) {
    return -1;
  }
  return ratio;
}

// A sluice_monitor of kRanks ranks, straggler verdicts after
// kStragglerSteps slow steps.
std::unique_ptr<ChildProcess> StartMonitor() {
  ChildProcessOptions options;
  options.argv = {Runfile("tools/sluice_monitor/sluice_monitor"),
                  "--address=127.0.0.1:0",
                  absl::StrCat("--world_size=", kRanks),
                  absl::StrCat("--straggler_steps=", kStragglerSteps),
                  "--straggler_threshold=1.5",
                  "--step_kind=first:60"};
  options.name = "sluice_monitor";
  auto monitor = std::make_unique<ChildProcess>(std::move(options));
  EXPECT_TRUE(monitor->started()) << monitor->start_error();
  return monitor;
}

// The monitor's address once it listens; "" (a failure) when it does not.
std::string MonitorAddress(ChildProcess& monitor) {
  const std::string listening = "sluice_monitor listening on ";
  const std::string line = monitor.WaitForLine(listening, absl::Seconds(30));
  EXPECT_FALSE(line.empty()) << monitor.Output();
  return line.empty() ? "" : line.substr(listening.size());
}

TEST(StragglerProcessTest, SlowedRankIsNamedWithinTheGivenStepsOthersNever) {
  std::unique_ptr<ChildProcess> started = StartMonitor();
  ChildProcess& monitor = *started;
  const std::string address = MonitorAddress(monitor);
  ASSERT_FALSE(address.empty());

  std::vector<std::unique_ptr<ChildProcess>> ranks;
  for (int rank = 0; rank < kRanks; ++rank) {
    ranks.push_back(StartRank(address, rank));
  }
  auto stub = proto::Monitor::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));

  // Every poll looks for a rank named that should not be.
  std::set<std::string> wrongly_named;
  proto::JobState last;
  auto poll = [&]() -> bool {
    std::optional<proto::JobState> state = GetState(*stub);
    if (!state.has_value()) return false;
    for (const proto::Verdict& verdict : state->stragglers()) {
      if (verdict.rank() != kSlowRank) wrongly_named.insert(verdict.message());
    }
    last = *std::move(state);
    return true;
  };
  auto straggler = [&]() -> std::string {
    for (const proto::Verdict& verdict : last.stragglers()) {
      if (verdict.rank() == kSlowRank) return verdict.message();
    }
    return "";
  };

  ASSERT_TRUE(WaitUntil([&] { return poll() && !straggler().empty(); },
                        absl::Seconds(40)))
      << last.DebugString();
  const std::string named = straggler();
  // The verdict is made as the 5th slow step ends; a poll every few
  // milliseconds sees it before the next 300 ms step ends.
  const int64_t named_after = last.ranks(kSlowRank).last_end_step();
  const int64_t latency = named_after - kSlowFrom + 1;
  std::printf(
      "rank %d named after slow step %lld: %lld steps after its "
      "slowdown: %s\n",
      kSlowRank, static_cast<long long>(named_after),
      static_cast<long long>(latency), named.c_str());
  EXPECT_GE(latency, kStragglerSteps);
  EXPECT_LE(latency, kStragglerSteps + 1);
  EXPECT_TRUE(absl::StartsWith(
      named, "rank 2 straggles: its last 5 steps took a median 3"))
      << named;
  EXPECT_TRUE(absl::StrContains(named, "since step 20 at ")) << named;
  const double ratio = RatioBefore(named, "x its peers' ");
  EXPECT_GE(ratio, 2.0) << named;
  EXPECT_LE(ratio, 3.5) << named;
  EXPECT_EQ(last.verdicts_size(), 0) << last.DebugString();

  ASSERT_TRUE(WaitUntil(
      [&] {
        return poll() && straggler().empty() &&
               !last.ranks(kSlowRank).straggler_recovered().empty();
      },
      absl::Seconds(30)))
      << last.DebugString();
  const int64_t cleared_after = last.ranks(kSlowRank).last_end_step();
  std::printf(
      "rank %d cleared after step %lld, %lld steps after it "
      "recovered: %s\n",
      kSlowRank, static_cast<long long>(cleared_after),
      static_cast<long long>(cleared_after - kSlowUntil + 1),
      last.ranks(kSlowRank).straggler_recovered().c_str());
  EXPECT_LE(cleared_after - kSlowUntil + 1, kStragglerSteps + 1);
  EXPECT_TRUE(absl::StrContains(last.ranks(kSlowRank).straggler_recovered(),
                                "since step 30; it straggled from step 20 to "
                                "step 29"))
      << last.ranks(kSlowRank).straggler_recovered();

  // The healthy ranks run on past 50 steps, never named.
  ASSERT_TRUE(WaitUntil(
      [&] {
        if (!poll()) return false;
        for (const proto::RankState& rank : last.ranks()) {
          if (rank.last_end_step() < 50) return false;
        }
        return true;
      },
      absl::Seconds(30)))
      << last.DebugString();
  EXPECT_TRUE(wrongly_named.empty())
      << "wrongly named: " << *wrongly_named.begin();
  EXPECT_EQ(last.stragglers_size(), 0) << last.DebugString();

  // The monitor said each of it once, and nothing else.
  monitor.Terminate();
  EXPECT_EQ(monitor.WaitForExit(absl::Seconds(20)), 0)
      << monitor.DescribeExit();
  int straggles = 0, cleared = 0;
  for (const std::string& said : monitor.Lines()) {
    if (absl::StartsWith(said, "verdict: rank 2 straggles: ")) {
      ++straggles;
    } else if (absl::StartsWith(
                   said, "verdict cleared: rank 2 no longer straggles: ")) {
      ++cleared;
    } else {
      EXPECT_FALSE(absl::StartsWith(said, "verdict")) << said;
    }
  }
  EXPECT_EQ(straggles, 1) << monitor.Output();
  EXPECT_EQ(cleared, 1) << monitor.Output();
}

// The first straggler `status` (status.json) lists under `monitor` (its
// index in --monitor), or null.
const nlohmann::json* ListedStraggler(const nlohmann::json& status,
                                      size_t monitor) {
  if (!status.contains("monitors") || status["monitors"].size() <= monitor) {
    return nullptr;
  }
  const nlohmann::json& said = status["monitors"][monitor];
  if (!said.contains("stragglers") || said["stragglers"].empty()) {
    return nullptr;
  }
  return &said["stragglers"][0];
}

// The lighthouse's status page shows what the replica groups' monitors
// name: here one monitor that names rank 2, and one that is out of reach.
TEST(StragglerProcessTest, LighthousePageShowsTheMonitorsStragglers) {
  std::unique_ptr<ChildProcess> monitor = StartMonitor();
  const std::string address = MonitorAddress(*monitor);
  ASSERT_FALSE(address.empty());
  // Nothing listens on port 1 of the loopback.
  const std::string unreachable = "127.0.0.1:1";
  absl::StatusOr<lighthouse::testing::LighthouseProcess> lighthouse =
      lighthouse::testing::StartLighthouse(
          "lighthouse",
          {"--address=127.0.0.1:0",
           absl::StrCat("--monitor=", address, ",", unreachable)});
  ASSERT_TRUE(lighthouse.ok()) << lighthouse.status();
  std::vector<std::unique_ptr<ChildProcess>> ranks;
  for (int rank = 0; rank < kRanks; ++rank) {
    ranks.push_back(StartRank(address, rank));
  }
  auto stub = proto::Monitor::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));

  // The monitor's verdict, then the page's row of it.
  proto::Verdict verdict;
  ASSERT_TRUE(WaitUntil(
      [&] {
        std::optional<proto::JobState> state = GetState(*stub);
        if (!state.has_value() || state->stragglers().empty()) return false;
        verdict = state->stragglers(0);
        return true;
      },
      absl::Seconds(40)));
  const absl::Time named = absl::Now();
  // Reads status.json until it lists a straggler under the first monitor
  // (or none), for up to `timeout`.
  nlohmann::json status;
  auto await_page = [&](bool straggler, absl::Duration timeout) {
    return WaitUntil(
        [&] {
          absl::StatusOr<nlohmann::json> fetched =
              lighthouse::testing::FetchStatus(lighthouse->status_url);
          if (!fetched.ok()) return false;
          status = *std::move(fetched);
          return (ListedStraggler(status, 0) != nullptr) == straggler;
        },
        timeout);
  };
  ASSERT_TRUE(await_page(true, absl::Seconds(5))) << status.dump(2);
  const absl::Duration shown_after = absl::Now() - named;
  std::printf(
      "the lighthouse's page showed the monitor's verdict %s after "
      "it was made: %s\n",
      absl::FormatDuration(shown_after).c_str(), verdict.message().c_str());
  // Asked once a second: within that and a poll (and the slowness of a
  // sanitizer's build on two cores).
#ifdef SLUICE_SANITIZER
  EXPECT_LT(shown_after, absl::Seconds(3));
#else
  EXPECT_LT(shown_after, absl::Milliseconds(1500));
#endif
  const nlohmann::json& straggler = *ListedStraggler(status, 0);
  EXPECT_EQ(straggler.value("rank", 0), kSlowRank) << status.dump(2);
  EXPECT_EQ(straggler.value("message", ""), verdict.message());
  EXPECT_EQ(straggler.value("since_us", ""), absl::StrCat(verdict.time_us()));
  const nlohmann::json& monitors = status["monitors"];
  EXPECT_EQ(monitors[0].value("address", ""), address);
  EXPECT_EQ(monitors[0].value("trouble", ""), "");
  EXPECT_EQ(monitors[1].value("address", ""), unreachable);
  EXPECT_TRUE(absl::StartsWith(monitors[1].value("trouble", ""),
                               "the monitor did not answer: UNAVAILABLE: "))
      << status.dump(2);
  EXPECT_EQ(ListedStraggler(status, 1), nullptr);

  // Once rank 2 keeps pace again, the page names no straggler.
  ASSERT_TRUE(await_page(false, absl::Seconds(30))) << status.dump(2);
}

}  // namespace
}  // namespace sluice::monitor
