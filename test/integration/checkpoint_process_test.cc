// Checkpoints across processes: written by one process and read by another,
// and a save killed (SIGKILL, through a fault point) at each stage.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/coordinator/checkpoint.h"
#include "sluice/host_context/host_allocator.h"
#include "test/util/checkpoint_tensors.h"

extern char** environ;

namespace sluice::dist {
namespace {

using test_util::BitIdentical;
using test_util::CheckpointTestTensors;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string ChildBinaryPath() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  return absl::StrCat(srcdir != nullptr ? srcdir : ".", "/",
                      workspace != nullptr ? workspace : "sluice",
                      "/test/integration/checkpoint_child");
}

// Runs checkpoint_child with `arguments` and SLUICE_FAULTS set to `faults`
// (unset when empty), and returns its wait status. A child still running
// after a minute is killed and reported as an error.
absl::StatusOr<int> RunChild(const std::vector<std::string>& arguments,
                             const std::string& faults = "") {
  std::vector<std::string> strings = {ChildBinaryPath()};
  strings.insert(strings.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (std::string& s : strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  std::vector<std::string> environment;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::string(*e).rfind("SLUICE_FAULTS=", 0) != 0) {
      environment.push_back(*e);
    }
  }
  if (!faults.empty()) environment.push_back("SLUICE_FAULTS=" + faults);
  std::vector<char*> envp;
  for (std::string& s : environment) envp.push_back(s.data());
  envp.push_back(nullptr);

  pid_t pid;
  const int error =
      posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), envp.data());
  if (error != 0) {
    return absl::ErrnoToStatus(error, absl::StrCat("cannot start ", argv[0]));
  }
  const absl::Time deadline = absl::Now() + absl::Minutes(1);
  while (true) {
    int status = 0;
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) return status;
    if (done < 0) return absl::ErrnoToStatus(errno, "waitpid");
    if (absl::Now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return absl::DeadlineExceededError("checkpoint_child ran past a minute");
    }
    absl::SleepFor(absl::Milliseconds(5));
  }
}

bool ExitedWith(const absl::StatusOr<int>& status, int code) {
  return status.ok() && WIFEXITED(*status) && WEXITSTATUS(*status) == code;
}

class CheckpointProcessTest : public ::testing::Test {
 protected:
  MallocAllocator allocator_;
  const std::string dir_ = test_util::MakeTempDirectory();
};

TEST_F(CheckpointProcessTest, WrittenByOneProcessReadByAnother) {
  // Another process writes; this one reads.
  ASSERT_TRUE(ExitedWith(RunChild({"save", dir_, "5", "11", "3"}), 0));
  absl::StatusOr<Checkpoint> restored = RestoreCheckpoint(dir_, &allocator_);
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ(restored->step, 5);
  EXPECT_EQ(restored->epoch, 6);
  EXPECT_TRUE(
      BitIdentical(CheckpointTestTensors(11, &allocator_), restored->tensors));

  // This process writes; another reads, and fails on the wrong tensors.
  ASSERT_TRUE(
      SaveCheckpoint(dir_, 6, 7, CheckpointTestTensors(12, &allocator_)).ok());
  EXPECT_TRUE(ExitedWith(RunChild({"verify", dir_, "6", "12"}), 0));
  EXPECT_TRUE(ExitedWith(RunChild({"verify", dir_, "6", "13"}), 1));
}

}  // namespace
}  // namespace sluice::dist
