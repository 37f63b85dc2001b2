// NCCL groups of two ccl_rank processes on CUDA device 0, meeting through a
// store in this process. One rank is killed (SIGKILL) or stopped (SIGSTOP)
// while both are inside a run of 16 MB allreduces: the survivor gets an
// error value, retryable, with the generation, within the collective's
// deadline plus 1 s; it is not killed (the watchdog aborted its
// communicator without escalating); and it then builds a communicator of
// the next generation alone and allreduces in it. Skips, saying why,
// without a CUDA device, and when the installed NCCL refuses two ranks on
// one device.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "sluice/gpu/gpu_device.h"
#include "test/integration/collective/rank_process.h"
#include "test/util/store_server.h"

namespace sluice::ccl {
namespace {

using testing::RankProcess;

constexpr int64_t kTimeoutMs = 5000;

// The value of `key=` in `line`, or -1.
int64_t Field(const std::string& line, const std::string& key) {
  for (absl::string_view word : absl::StrSplit(line, ' ')) {
    if (word.rfind(key + "=", 0) != 0) continue;
    int64_t value = -1;
    if (absl::SimpleAtoi(word.substr(key.size() + 1), &value)) return value;
  }
  return -1;
}

class NcclProcessTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    absl::StatusOr<int> devices = gpu::CountDevices();
    if (!devices.ok()) GTEST_SKIP() << devices.status().message();
  }

  std::unique_ptr<RankProcess> StartRank(int rank) {
    std::vector<std::string> flags = {
        "--backend=nccl",
        "--op=allreduce",
        "--count=1000000",
        "--elements=4194304",
        absl::StrCat("--timeout_ms=", kTimeoutMs),
        absl::StrCat("--store=", store_.address()),
        absl::StrCat("--rank=", rank),
        "--size=2",
        "--generation=1",
        // The survivor alone in the next generation.
        "--rejoin_generation=2",
        "--rejoin_rank=0",
        "--rejoin_size=1",
        "--max_life_s=90",
    };
    auto process =
        std::make_unique<RankProcess>(absl::StrCat("nccl_rank", rank), flags);
    EXPECT_TRUE(process->started());
    return process;
  }

  sluice::testing::StoreServer store_;
};

TEST_P(NcclProcessTest, SurvivorGetsAnErrorValueAndANewCommunicatorWorks) {
  const bool stop = GetParam();
  std::unique_ptr<RankProcess> survivor = StartRank(0);
  std::unique_ptr<RankProcess> victim = StartRank(1);
  std::string connected = survivor->WaitForLine("connect", absl::Seconds(60));
  if (absl::StrContains(connected, "connect error") &&
      absl::StrContains(connected, "Duplicate GPU")) {
    GTEST_SKIP() << "this NCCL refuses two ranks on one device: " << connected;
  }
  ASSERT_EQ(connected, "connected");
  ASSERT_NE(survivor->WaitForLine("ok allreduce 3", absl::Seconds(60)), "");

  absl::Time struck = absl::Now();
  if (stop) {
    victim->Stop();
  } else {
    victim->Kill();
  }
  std::string error = survivor->WaitForLine(
      "error allreduce", absl::Milliseconds(kTimeoutMs) + absl::Seconds(5));
  absl::Duration noticed = absl::Now() - struck;
  ASSERT_NE(error, "") << "no error value within the deadline + 5 s";
  EXPECT_TRUE(absl::StrContains(error, "class=retryable")) << error;
  EXPECT_TRUE(absl::StrContains(error, "generation=1")) << error;
  EXPECT_TRUE(absl::StrContains(error, "code=UNAVAILABLE") ||
              absl::StrContains(error, "code=DEADLINE_EXCEEDED"))
      << error;
  // The collective in flight when the peer went: at most its deadline,
  // and the survivor noticed within it plus a second.
  EXPECT_LE(Field(error, "elapsed_ms"), kTimeoutMs + 1000) << error;
  EXPECT_LE(noticed, absl::Milliseconds(kTimeoutMs) + absl::Seconds(1))
      << error;

  EXPECT_NE(
      survivor->WaitForLine("rejoined ok generation=2", absl::Seconds(60)), "");
  // Not killed, nor escalated (exit 75): it finished.
  EXPECT_EQ(survivor->WaitForExit(absl::Seconds(30)), 0);
}

INSTANTIATE_TEST_SUITE_P(KillOrStop, NcclProcessTest, ::testing::Bool(),
                         [](const auto& info) {
                           return info.param ? "Stopped" : "Killed";
                         });

}  // namespace
}  // namespace sluice::ccl
