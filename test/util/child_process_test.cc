#include "test/util/child_process.h"

#include <signal.h>
#include <sys/wait.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/util/wait_until.h"

namespace sluice::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

ChildProcessOptions Shell(const std::string& script) {
  ChildProcessOptions options;
  options.argv = {"/bin/sh", "-c", script};
  options.name = "sh";
  return options;
}

// Whether a process `pid` exists at all (a zombie counts).
bool Exists(pid_t pid) { return kill(pid, 0) == 0; }

TEST(ChildProcessTest, LinesAndExitCode) {
  ChildProcess child(Shell("echo hi; echo there >&2; printf tail; exit 3"));
  ASSERT_TRUE(child.started()) << child.start_error();
  EXPECT_EQ(child.WaitForExit(absl::Seconds(30)), 3);
  EXPECT_THAT(child.Lines(), ElementsAre("hi", "there", "tail"));
  EXPECT_EQ(child.DescribeExit(), "exit code 3");
}

TEST(ChildProcessTest, StderrInAFileOfItsOwn) {
  ChildProcessOptions options = Shell("echo out; echo err >&2");
  options.stderr_to = ChildProcessOptions::Stderr::kOwnFile;
  ChildProcess child(options);
  ASSERT_EQ(child.WaitForExit(absl::Seconds(30)), 0);
  EXPECT_THAT(child.Lines(), ElementsAre("out"));
  EXPECT_EQ(child.Stderr(), "err\n");
}

TEST(ChildProcessTest, EnvironmentIsSetReplacedAndUnset) {
  setenv("CHILD_PROCESS_TEST_KEPT", "kept", 1);
  setenv("CHILD_PROCESS_TEST_REPLACED", "old", 1);
  setenv("CHILD_PROCESS_TEST_UNSET", "present", 1);
  ChildProcessOptions options = Shell(
      "echo $CHILD_PROCESS_TEST_KEPT $CHILD_PROCESS_TEST_REPLACED "
      "${CHILD_PROCESS_TEST_UNSET:-absent}");
  options.environment = {"CHILD_PROCESS_TEST_REPLACED=new"};
  options.unset_environment = {"CHILD_PROCESS_TEST_UNSET"};
  ChildProcess child(options);
  ASSERT_EQ(child.WaitForExit(absl::Seconds(30)), 0);
  EXPECT_THAT(child.Lines(), ElementsAre("kept new absent"));
}

TEST(ChildProcessTest, WaitForLineSeesALineAndGivesUpWhenTheChildExits) {
  ChildProcess child(Shell("echo ready 1; sleep 1; echo done"));
  EXPECT_EQ(child.WaitForLine("ready", absl::Seconds(30)), "ready 1");
  const absl::Time start = absl::Now();
  EXPECT_EQ(child.WaitForLine("never", absl::Seconds(60)), "");
  EXPECT_LT(absl::Now() - start, absl::Seconds(30));
  EXPECT_EQ(child.WaitForLineMatching(
                [](const std::string& line) { return line == "done"; },
                absl::Seconds(1), /*from=*/1),
            "done");
}

TEST(ChildProcessTest, AMissingBinaryDoesNotStart) {
  ChildProcessOptions options;
  options.argv = {"/nonexistent/binary"};
  ChildProcess child(options);
  EXPECT_FALSE(child.started());
  EXPECT_THAT(child.start_error(), HasSubstr("/nonexistent/binary"));
  EXPECT_EQ(child.WaitForExit(absl::ZeroDuration()), -1);
}

TEST(ChildProcessTest, TerminateAndKillReportTheSignal) {
  ChildProcess terminated(Shell("echo up; exec sleep 60"));
  ASSERT_NE(terminated.WaitForLine("up", absl::Seconds(30)), "");
  terminated.Terminate();
  EXPECT_EQ(terminated.WaitForExit(absl::Seconds(30)), -1);
  ASSERT_TRUE(terminated.wait_status().has_value());
  EXPECT_TRUE(WIFSIGNALED(*terminated.wait_status()));
  EXPECT_EQ(WTERMSIG(*terminated.wait_status()), SIGTERM);

  ChildProcess killed(Shell("exec sleep 60"));
  EXPECT_TRUE(killed.Running());
  killed.Kill();
  EXPECT_FALSE(killed.Running());
  EXPECT_EQ(killed.DescribeExit(), "killed by signal 9 (Killed)");
}

TEST(ChildProcessTest, StopAndContinue) {
  ChildProcess child(Shell("exec sleep 60"));
  child.Stop();
  EXPECT_TRUE(child.Running());
  child.Continue();
  EXPECT_EQ(child.WaitForExit(absl::Milliseconds(100)), -1);
}

TEST(ChildProcessTest, TheDestructorKillsAndReapsAStoppedChild) {
  auto child = std::make_unique<ChildProcess>(Shell("exec sleep 60"));
  ASSERT_TRUE(child->started());
  const pid_t pid = child->pid();
  child->Stop();
  child.reset();
  // Reaped: not even a zombie is left.
  EXPECT_FALSE(Exists(pid));
}

}  // namespace
}  // namespace sluice::testing
