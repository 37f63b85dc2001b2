// A real sluice_monitor and four straggler_rank processes on 127.0.0.1,
// steps of 100 ms; rank 2 takes 300 ms for steps 20 to 29, slowed by the
// fault point monitor.step.end through SLUICE_FAULTS. It is named a
// straggler within --straggler_steps=5 steps of the slowdown, cleared within
// 5 steps of its recovery, and no other rank is ever named. Every wait is
// bounded; children are killed and reaped whatever happens.
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

TEST(StragglerProcessTest, SlowedRankIsNamedWithinTheGivenStepsOthersNever) {
  ChildProcessOptions options;
  options.argv = {Runfile("tools/sluice_monitor/sluice_monitor"),
                  "--address=127.0.0.1:0",
                  absl::StrCat("--world_size=", kRanks),
                  absl::StrCat("--straggler_steps=", kStragglerSteps),
                  "--straggler_threshold=1.5",
                  "--step_kind=first:60"};
  options.name = "sluice_monitor";
  ChildProcess monitor(std::move(options));
  ASSERT_TRUE(monitor.started()) << monitor.start_error();
  const std::string listening = "sluice_monitor listening on ";
  const std::string line = monitor.WaitForLine(listening, absl::Seconds(30));
  ASSERT_FALSE(line.empty()) << monitor.Output();
  const std::string address = line.substr(listening.size());

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

}  // namespace
}  // namespace sluice::monitor
