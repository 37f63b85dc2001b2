// Gloo groups of three ccl_rank processes on 127.0.0.1 meeting through a
// store in this process: every collective's values; a rank killed (-9) or
// stopped (SIGSTOP) while its peers are in each collective, after which
// the survivors get retryable errors within the timeout and form the next
// generation's group. Every wait is bounded; every child is killed and
// reaped whatever happens.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "test/integration/collective/ccl_rank_process.h"
#include "test/util/child_process.h"
#include "test/util/store_server.h"

namespace sluice::ccl {
namespace {

using ::sluice::testing::ChildProcess;
using ::sluice::testing::ChildProcessOptions;
using ::sluice::testing::Runfile;

constexpr int kSize = 3;
const std::vector<std::string> kOps = {"allreduce",      "allgather",
                                       "reduce_scatter", "broadcast",
                                       "barrier",        "sendrecv"};

using testing::Field;
using testing::StartCclRank;

class CollectiveProcessTest : public ::testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<ChildProcess> StartRank(int rank, int64_t generation,
                                          std::vector<std::string> flags) {
    flags.push_back(absl::StrCat("--store=", store_.address()));
    flags.push_back(absl::StrCat("--rank=", rank));
    flags.push_back(absl::StrCat("--size=", kSize));
    flags.push_back(absl::StrCat("--generation=", generation));
    flags.push_back(absl::StrCat("--op=", GetParam()));
    flags.push_back("--elements=12");
    auto process = StartCclRank(absl::StrCat(GetParam(), "_rank", rank), flags);
    EXPECT_TRUE(process->started());
    return process;
  }

  void ExpectSurvivorsFailThenRejoin(bool stop_instead_of_kill,
                                     const std::string& expected_code);

  sluice::testing::StoreServer store_;
};

TEST_P(CollectiveProcessTest, EveryRankGetsTheRightValues) {
  std::vector<std::unique_ptr<ChildProcess>> ranks;
  for (int rank = 0; rank < kSize; ++rank) {
    ranks.push_back(StartRank(rank, 1, {"--count=4"}));
  }
  for (int rank = 0; rank < kSize; ++rank) {
    ASSERT_EQ(ranks[rank]->WaitForExit(absl::Seconds(60)), 0);
    std::vector<std::string> lines = ranks[rank]->Lines();
    std::vector<std::string> expected = {"connected"};
    for (int i = 0; i < 4; ++i) {
      expected.push_back(absl::StrCat("ok ", GetParam(), " ", i));
    }
    EXPECT_EQ(lines, expected) << "rank " << rank;
  }
}

// Rank 1 stalls before iteration 2, with ranks 0 and 2 in that collective,
// and is then killed or stopped. The survivors' errors are retryable,
// name generation 4, and come within the timeout (plus slack for a loaded
// machine); then the survivors form generation 5 and allreduce in it.
void CollectiveProcessTest::ExpectSurvivorsFailThenRejoin(
    bool stop_instead_of_kill, const std::string& expected_code) {
  constexpr int64_t kTimeoutMs = 3000;
  std::vector<std::unique_ptr<ChildProcess>> ranks;
  for (int rank = 0; rank < kSize; ++rank) {
    std::vector<std::string> flags = {"--count=100",
                                      absl::StrCat("--timeout_ms=", kTimeoutMs),
                                      "--linger_ms=3000", "--max_life_s=60"};
    if (rank == 1) {
      flags.push_back("--stall_before=2");
    } else {
      flags.push_back("--rejoin_generation=5");
      flags.push_back(absl::StrCat("--rejoin_rank=", rank / 2));
      flags.push_back("--rejoin_size=2");
    }
    ranks.push_back(StartRank(rank, 4, flags));
  }
  ASSERT_NE(ranks[1]->WaitForLine("stalling", absl::Seconds(60)), "");
  // Let the survivors enter the collective.
  absl::SleepFor(absl::Milliseconds(300));
  if (stop_instead_of_kill) {
    ranks[1]->Stop();
  } else {
    ranks[1]->Kill();
  }
  for (int rank : {0, 2}) {
    std::string error = ranks[rank]->WaitForLine(
        "error", absl::Milliseconds(kTimeoutMs) + absl::Seconds(10));
    ASSERT_NE(error, "") << "rank " << rank << " reported no error";
    EXPECT_EQ(error.rfind(absl::StrCat("error ", GetParam(), " 2 "), 0), 0u)
        << error;
    EXPECT_NE(error.find(absl::StrCat("code=", expected_code)),
              std::string::npos)
        << error;
    EXPECT_NE(error.find("class=retryable"), std::string::npos) << error;
    EXPECT_EQ(Field(error, "generation"), 4) << error;
    int64_t elapsed = Field(error, "elapsed_ms");
    EXPECT_LE(elapsed, kTimeoutMs + 2000) << error;
    if (stop_instead_of_kill) {
      // Its own deadline, not an early close by the other survivor.
      EXPECT_GE(elapsed, kTimeoutMs - 400) << error;
    }
  }
  for (int rank : {0, 2}) {
    EXPECT_NE(
        ranks[rank]->WaitForLine("rejoined ok generation=5", absl::Seconds(30)),
        "")
        << "rank " << rank << ": " << absl::StrJoin(ranks[rank]->Lines(), "\n");
    EXPECT_EQ(ranks[rank]->WaitForExit(absl::Seconds(30)), 0)
        << "rank " << rank << " crashed or hung";
  }
}

TEST_P(CollectiveProcessTest, KilledRankFailsTheSurvivorsRetryably) {
  ExpectSurvivorsFailThenRejoin(/*stop_instead_of_kill=*/false, "UNAVAILABLE");
}

TEST_P(CollectiveProcessTest, StoppedRankTimesTheSurvivorsOut) {
  ExpectSurvivorsFailThenRejoin(/*stop_instead_of_kill=*/true,
                                "DEADLINE_EXCEEDED");
}

INSTANTIATE_TEST_SUITE_P(EveryCollective, CollectiveProcessTest,
                         ::testing::ValuesIn(kOps),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

// A rank killed at a random moment of a run of large allreduces: the
// survivors get a retryable error and never hang.
TEST(CollectiveKillTest, KillAtARandomMomentOfLargeAllReduces) {
  sluice::testing::StoreServer store;
  std::vector<std::unique_ptr<ChildProcess>> ranks;
  for (int rank = 0; rank < kSize; ++rank) {
    ranks.push_back(StartCclRank(
        absl::StrCat("random_kill_rank", rank),
        std::vector<std::string>{
            absl::StrCat("--store=", store.address()),
            absl::StrCat("--rank=", rank), absl::StrCat("--size=", kSize),
            "--generation=0", "--op=allreduce", "--elements=262144",
            "--count=100000", "--timeout_ms=5000", "--linger_ms=2000",
            "--max_life_s=60"}));
  }
  ASSERT_NE(ranks[2]->WaitForLine("ok allreduce 3", absl::Seconds(60)), "");
  absl::SleepFor(absl::Milliseconds(37));
  ranks[2]->Kill();
  for (int rank : {0, 1}) {
    std::string error = ranks[rank]->WaitForLine("error", absl::Seconds(15));
    ASSERT_NE(error, "") << "rank " << rank;
    EXPECT_NE(error.find("class=retryable"), std::string::npos) << error;
    EXPECT_EQ(ranks[rank]->WaitForExit(absl::Seconds(20)), 0);
    for (const std::string& line : ranks[rank]->Lines()) {
      EXPECT_NE(line.rfind("wrong", 0), 0u) << line;
    }
  }
}

// A rank killed at a random moment of a run of large partial allreduces:
// the survivors never fail; every iteration has the same contributors on
// all of them, and its value is the sum over those.
TEST(CollectiveKillTest, PartialAllReducesGoOnWithoutAKilledRank) {
  constexpr int kRanks = 4;
  constexpr int kCount = 40;
  sluice::testing::StoreServer store;
  std::vector<std::unique_ptr<ChildProcess>> ranks;
  for (int rank = 0; rank < kRanks; ++rank) {
    ranks.push_back(StartCclRank(
        absl::StrCat("partial_kill_rank", rank),
        std::vector<std::string>{
            absl::StrCat("--store=", store.address()),
            absl::StrCat("--rank=", rank), absl::StrCat("--size=", kRanks),
            "--generation=0", "--op=allreduce_partial", "--elements=262144",
            absl::StrCat("--count=", kCount), "--timeout_ms=10000",
            "--max_life_s=90"}));
  }
  ASSERT_NE(ranks[3]->WaitForLine("ok allreduce_partial 3", absl::Seconds(60)),
            "");
  absl::SleepFor(absl::Milliseconds(23));
  ranks[3]->Kill();
  std::vector<std::vector<std::string>> lines;
  for (int rank = 0; rank < kRanks - 1; ++rank) {
    ASSERT_EQ(ranks[rank]->WaitForExit(absl::Seconds(60)), 0)
        << "rank " << rank;
    std::vector<std::string> oks;
    for (const std::string& line : ranks[rank]->Lines()) {
      EXPECT_NE(line.rfind("wrong", 0), 0u) << line;
      EXPECT_NE(line.rfind("error", 0), 0u) << line;
      if (line.rfind("ok ", 0) == 0) oks.push_back(line);
    }
    ASSERT_EQ(oks.size(), static_cast<size_t>(kCount)) << "rank " << rank;
    lines.push_back(std::move(oks));
  }
  int left_out = 0;
  for (int i = 0; i < kCount; ++i) {
    EXPECT_EQ(lines[1][i], lines[0][i]);
    EXPECT_EQ(lines[2][i], lines[0][i]);
    const bool without_3 =
        lines[0][i].find("contributors=0,1,2") != std::string::npos &&
        lines[0][i].find("contributors=0,1,2,3") == std::string::npos;
    if (without_3) ++left_out;
    // Once left out, the killed rank stays out.
    if (i > 0 && !without_3) {
      EXPECT_EQ(left_out, 0) << lines[0][i];
    }
  }
  EXPECT_GT(left_out, kCount - 10);
}

}  // namespace
}  // namespace sluice::ccl
