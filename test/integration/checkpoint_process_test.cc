// Checkpoints across processes: written by one process and read by another,
// and a save killed (SIGKILL, through a fault point) at each stage.
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/checkpoint/checkpoint.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/support/logging.h"
#include "test/util/checkpoint_tensors.h"
#include "test/util/child_process.h"

namespace sluice::checkpoint {
namespace {

using ::sluice::testing::ChildProcess;
using ::sluice::testing::ChildProcessOptions;
using ::sluice::testing::Runfile;
using test_util::BitIdentical;
using test_util::CheckpointTestTensors;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Runs checkpoint_child with `arguments` and SLUICE_FAULTS set to `faults`
// (unset when empty), and returns its wait status. A child still running
// after a minute is killed and reported as an error.
absl::StatusOr<int> RunChild(const std::vector<std::string>& arguments,
                             const std::string& faults = "") {
  ChildProcessOptions options;
  options.argv = {Runfile("test/integration/checkpoint_child")};
  options.argv.insert(options.argv.end(), arguments.begin(), arguments.end());
  if (faults.empty()) {
    options.unset_environment = {"SLUICE_FAULTS"};
  } else {
    options.environment = {"SLUICE_FAULTS=" + faults};
  }
  options.name = "checkpoint_child";
  // What a failing check says stays in the test log.
  options.stderr_to = ChildProcessOptions::Stderr::kInherit;
  ChildProcess child(std::move(options));
  if (!child.started()) return absl::InternalError(child.start_error());
  child.WaitForExit(absl::Minutes(1));
  if (!child.wait_status().has_value()) {
    return absl::DeadlineExceededError("checkpoint_child ran past a minute");
  }
  return *child.wait_status();
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

// A save killed at one fault point, and what it must leave on disk.
struct KillCase {
  const char* name;
  const char* faults;
  // Leftovers the killed save leaves: a temporary data file, a temporary
  // manifest, a data file renamed into place whose manifest never was.
  bool temporary_data;
  bool temporary_manifest;
  bool orphan_data;
};

class KilledSaveTest : public CheckpointProcessTest,
                       public ::testing::WithParamInterface<KillCase> {
 protected:
  // The names in the directory, sorted into the kinds a save writes.
  struct Leftovers {
    int manifests = 0;
    int data_files = 0;
    bool temporary_data = false;
    bool temporary_manifest = false;
  };
  Leftovers Scan() {
    Leftovers found;
    for (const std::string& name : ListNames()) {
      const bool temporary = name.rfind(".ckpt-tmp-", 0) == 0;
      const bool manifest = absl::EndsWith(name, ".manifest");
      const bool data = absl::EndsWith(name, ".data");
      if (temporary && data) found.temporary_data = true;
      if (temporary && manifest) found.temporary_manifest = true;
      if (!temporary && manifest) ++found.manifests;
      if (!temporary && data) ++found.data_files;
    }
    return found;
  }
  std::vector<std::string> ListNames() {
    std::vector<std::string> names;
    DIR* dir = opendir(dir_.c_str());
    SLUICE_CHECK(dir != nullptr) << dir_;
    while (const dirent* entry = readdir(dir)) names.push_back(entry->d_name);
    closedir(dir);
    return names;
  }
};

TEST_P(KilledSaveTest, LeavesThePreviousCheckpointIntact) {
  const KillCase& c = GetParam();
  ASSERT_TRUE(
      SaveCheckpoint(dir_, 1, 2, CheckpointTestTensors(1, &allocator_)).ok());

  absl::StatusOr<int> killed =
      RunChild({"save", dir_, "2", "2", "5"}, c.faults);
  ASSERT_TRUE(killed.ok()) << killed.status();
  ASSERT_TRUE(WIFSIGNALED(*killed) && WTERMSIG(*killed) == SIGKILL)
      << "wait status " << *killed;
  Leftovers left = Scan();
  EXPECT_EQ(left.manifests, 1);
  EXPECT_EQ(left.data_files, c.orphan_data ? 2 : 1);
  EXPECT_EQ(left.temporary_data, c.temporary_data);
  EXPECT_EQ(left.temporary_manifest, c.temporary_manifest);

  // The previous checkpoint, here and in a fresh process.
  absl::StatusOr<Checkpoint> restored = RestoreCheckpoint(dir_, &allocator_);
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ(restored->step, 1);
  EXPECT_TRUE(
      BitIdentical(CheckpointTestTensors(1, &allocator_), restored->tensors));
  EXPECT_TRUE(ExitedWith(RunChild({"verify", dir_, "1", "1"}), 0));

  // The next save clears what the killed one left.
  ASSERT_TRUE(
      SaveCheckpoint(dir_, 3, 4, CheckpointTestTensors(3, &allocator_)).ok());
  left = Scan();
  EXPECT_EQ(left.manifests, 2);
  EXPECT_EQ(left.data_files, 2);
  EXPECT_FALSE(left.temporary_data);
  EXPECT_FALSE(left.temporary_manifest);
  EXPECT_THAT(*ListCheckpointSteps(dir_), ElementsAre(3, 1));
  EXPECT_TRUE(ExitedWith(RunChild({"verify", dir_, "3", "3"}), 0));
}

INSTANTIATE_TEST_SUITE_P(
    FaultPoints, KilledSaveTest,
    ::testing::Values(
        KillCase{"AtBegin", "checkpoint.save.begin=kill", false, false, false},
        KillCase{"InTheFifthTensor", "checkpoint.save.tensor=kill@nth=5", true,
                 false, false},
        KillCase{"BeforeTheDataRename", "checkpoint.save.rename=kill@nth=1",
                 true, false, false},
        KillCase{"BeforeTheManifestRename", "checkpoint.save.rename=kill@nth=2",
                 false, true, true}),
    [](const ::testing::TestParamInfo<KillCase>& info) {
      return std::string(info.param.name);
    });

TEST_F(CheckpointProcessTest, AMalformedFaultSpecStopsTheChild) {
  absl::StatusOr<int> status =
      RunChild({"save", dir_, "1", "1", "5"}, "checkpoint.save.nowhere=kill");
  EXPECT_TRUE(ExitedWith(status, 1));
  EXPECT_THAT(*ListCheckpointSteps(dir_), ::testing::IsEmpty());
}

}  // namespace
}  // namespace sluice::checkpoint
