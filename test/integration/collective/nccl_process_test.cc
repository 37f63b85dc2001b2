// NCCL groups of two ccl_rank processes on CUDA device 0, meeting through a
// store in this process. One rank is killed (SIGKILL) or stopped (SIGSTOP)
// while both are inside a run of 16 MB allreduces: the survivor gets an
// error value, retryable, with the generation, within the collective's
// deadline plus 1 s; it is not killed (the watchdog aborted its
// communicator without escalating); and it then builds a communicator of
// the next generation alone and allreduces in it. With an abort deadline
// (1 ms) that ncclCommAbort cannot meet, the survivor's watchdog escalates
// instead: the process exits with the restartable code.
//
// NCCL refuses two ranks of one communicator on one GPU ("Duplicate GPU")
// unless they claim different hosts: each rank gets its own NCCL_HOSTID,
// so that NCCL connects them with its socket transport, kept on loopback.
// Skips, saying why, without a CUDA device, and, quoting NCCL, when NCCL
// still refuses the pair.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "sluice/gpu/gpu_device.h"
#include "sluice/support/exit_codes.h"
#include "test/integration/collective/ccl_rank_process.h"
#include "test/util/child_process.h"
#include "test/util/store_server.h"

namespace sluice::ccl {
namespace {

using ::sluice::testing::ChildProcess;
using ::sluice::testing::ChildProcessOptions;
using ::sluice::testing::Runfile;

constexpr int64_t kTimeoutMs = 5000;

using testing::Field;
using testing::StartCclRank;

// The last `n` lines `process` printed, for failure messages: a rank prints
// a line per allreduce, too many to quote whole.
std::string Tail(const ChildProcess& process, size_t n) {
  std::vector<std::string> lines = process.Lines();
  lines.erase(lines.begin(), lines.end() - std::min(n, lines.size()));
  return absl::StrJoin(lines, "\n");
}

class NcclRanksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<int> devices = gpu::CountDevices();
    if (!devices.ok()) GTEST_SKIP() << devices.status().message();
  }

  std::unique_ptr<ChildProcess> StartRank(
      int rank, std::vector<std::string> extra_flags) {
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
        "--max_life_s=90",
    };
    flags.insert(flags.end(), extra_flags.begin(), extra_flags.end());
    std::vector<std::string> environment = {
        // Both ranks on device 0 as two hosts, so that NCCL takes them.
        absl::StrCat("NCCL_HOSTID=sluice-nccl-process-test-rank-", rank),
        // Whatever interfaces the machine has, the two "hosts" are one.
        "NCCL_SOCKET_IFNAME=lo",
        // An InfiniBand adapter would otherwise carry them instead of the
        // socket transport, and whether it loops back varies by machine.
        "NCCL_IB_DISABLE=1",
    };
    auto process =
        StartCclRank(absl::StrCat("nccl_rank", rank), flags, environment);
    EXPECT_TRUE(process->started());
    return process;
  }

  // Why to skip, quoting NCCL, when the ranks did not connect because NCCL
  // refused them as two ranks on one GPU; "" otherwise.
  static std::string DuplicateGpuRefusal(const std::string& connected,
                                         const ChildProcess& a,
                                         const ChildProcess& b) {
    if (!absl::StartsWith(connected, "connect error")) return "";
    std::vector<std::string> said;
    for (const ChildProcess* process : {&a, &b}) {
      for (const std::string& line : process->Lines()) {
        if (absl::StrContains(line, "Duplicate GPU") &&
            std::find(said.begin(), said.end(), line) == said.end()) {
          said.push_back(line);
        }
      }
    }
    if (said.empty()) return "";
    return absl::StrCat(
        "this NCCL refuses two ranks on one device even with distinct "
        "NCCL_HOSTID values; it said:\n",
        absl::StrJoin(said, "\n"));
  }

  sluice::testing::StoreServer store_;
};

class NcclProcessTest : public NcclRanksTest,
                        public ::testing::WithParamInterface<bool> {};

TEST_P(NcclProcessTest, SurvivorGetsAnErrorValueAndANewCommunicatorWorks) {
  const bool stop = GetParam();
  // The survivor alone in the next generation.
  const std::vector<std::string> rejoin = {
      "--rejoin_generation=2", "--rejoin_rank=0", "--rejoin_size=1"};
  std::unique_ptr<ChildProcess> survivor = StartRank(0, rejoin);
  std::unique_ptr<ChildProcess> victim = StartRank(1, rejoin);
  std::string connected = survivor->WaitForLine("connect", absl::Seconds(60));
  if (std::string refusal = DuplicateGpuRefusal(connected, *survivor, *victim);
      !refusal.empty()) {
    GTEST_SKIP() << refusal;
  }
  ASSERT_EQ(connected, "connected") << Tail(*survivor, 20);
  ASSERT_NE(survivor->WaitForLine("ok allreduce 3", absl::Seconds(60)), "")
      << Tail(*survivor, 20);

  absl::Time struck = absl::Now();
  if (stop) {
    victim->Stop();
  } else {
    victim->Kill();
  }
  std::string error = survivor->WaitForLine(
      "error allreduce", absl::Milliseconds(kTimeoutMs) + absl::Seconds(5));
  absl::Duration noticed = absl::Now() - struck;
  ASSERT_NE(error, "") << "no error value within the deadline + 5 s\n"
                       << Tail(*survivor, 20);
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
      survivor->WaitForLine("rejoined ok generation=2", absl::Seconds(60)), "")
      << Tail(*survivor, 20);
  // Not killed, nor escalated (exit 75): it finished.
  EXPECT_EQ(survivor->WaitForExit(absl::Seconds(30)), 0) << Tail(*survivor, 20);
}

INSTANTIATE_TEST_SUITE_P(KillOrStop, NcclProcessTest, ::testing::Bool(),
                         [](const auto& info) {
                           return info.param ? "Stopped" : "Killed";
                         });

using NcclEscalationTest = NcclRanksTest;

TEST_F(NcclEscalationTest, EscalatesWhenAbortOutlastsItsDeadline) {
  // The real ncclCommAbort joins NCCL's proxy threads and frees the
  // communicator's device memory: far longer than 1 ms.
  std::unique_ptr<ChildProcess> survivor =
      StartRank(0, {"--abort_timeout_ms=1"});
  std::unique_ptr<ChildProcess> victim = StartRank(1, {});
  std::string connected = survivor->WaitForLine("connect", absl::Seconds(60));
  if (std::string refusal = DuplicateGpuRefusal(connected, *survivor, *victim);
      !refusal.empty()) {
    GTEST_SKIP() << refusal;
  }
  ASSERT_EQ(connected, "connected") << Tail(*survivor, 20);
  ASSERT_NE(survivor->WaitForLine("ok allreduce 3", absl::Seconds(60)), "")
      << Tail(*survivor, 20);

  victim->Kill();
  // The collective fails within its deadline, the abort starts then, and
  // the watchdog gives it 1 ms.
  int code =
      survivor->WaitForExit(absl::Milliseconds(kTimeoutMs) + absl::Seconds(5));
  EXPECT_EQ(code, kRestartableExitCode)
      << "no restartable exit within the deadline + 5 s\n"
      << Tail(*survivor, 20);
  std::vector<std::string> lines = survivor->Lines();
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const auto& line) {
    return absl::StrContains(line, "did not return within");
  })) << Tail(*survivor, 20);
}

}  // namespace
}  // namespace sluice::ccl
