// sluice_worker refuses an address it cannot listen on as given, from
// --address or from the cluster spec, at startup and with the reason,
// instead of listening somewhere else (port 65537 would wrap to port 1).
#include <sys/wait.h>

#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/integration/worker_process.h"

namespace sluice::dist::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Outcome {
  int exit_code = -1;  // -1: killed by a signal, or by the timeout
  std::string output;  // stdout and stderr together
};

// Runs sluice_worker with `flags` (shell words), for at most 30 s.
Outcome RunWorker(const std::string& flags,
                  const std::string& task = "/job:worker/task:0") {
  const std::string command =
      absl::StrCat("timeout -s KILL 30 ", WorkerBinaryPath(),
                   " --task_name=", task, " ", flags, " </dev/null 2>&1");
  Outcome outcome;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return outcome;
  char buffer[512];
  size_t read;
  while ((read = fread(buffer, 1, sizeof(buffer), pipe)) > 0) {
    outcome.output.append(buffer, read);
  }
  const int status = pclose(pipe);
  if (WIFEXITED(status) && WEXITSTATUS(status) != 124 &&
      WEXITSTATUS(status) != 137) {
    outcome.exit_code = WEXITSTATUS(status);
  }
  return outcome;
}

TEST(BadAddressTest, APortOutOfRangeStopsTheWorkerAtStartup) {
  Outcome outcome = RunWorker("--address=127.0.0.1:65537");
  EXPECT_EQ(outcome.exit_code, 1) << outcome.output;
  EXPECT_THAT(outcome.output,
              HasSubstr("invalid --address '127.0.0.1:65537': port 65537 is "
                        "out of range 0..65535"));
  EXPECT_THAT(outcome.output, Not(HasSubstr("listening on")));
}

TEST(BadAddressTest, MalformedAddressesNameWhatIsWrong) {
  struct Case {
    const char* address;
    const char* reason;
  } cases[] = {
      {"127.0.0.1:http", "port 'http' is not a number"},
      {"127.0.0.1", "expected host:port, there is no ':' before a port"},
      {":7001", "the host is missing"},
      {"127.0.0.1:", "the port is missing"},
      {"127.0.0.1:-1", "port '-1' is not a number"},
  };
  for (const Case& c : cases) {
    Outcome outcome = RunWorker(absl::StrCat("'--address=", c.address, "'"));
    EXPECT_EQ(outcome.exit_code, 1) << c.address << ": " << outcome.output;
    EXPECT_THAT(outcome.output,
                HasSubstr(absl::StrCat("invalid --address '", c.address,
                                       "': ", c.reason)))
        << c.address;
  }
}

TEST(BadAddressTest, ABadAddressInTheClusterSpecNamesTheTask) {
  Outcome outcome = RunWorker(
      R"('--cluster={"worker": ["127.0.0.1:7001", "127.0.0.1:99999"]}')",
      "/job:worker/task:1");
  EXPECT_EQ(outcome.exit_code, 1) << outcome.output;
  EXPECT_THAT(outcome.output,
              HasSubstr("address '127.0.0.1:99999' of task /job:worker/task:1: "
                        "port 99999 is out of range 0..65535"));
}

}  // namespace
}  // namespace sluice::dist::testing
