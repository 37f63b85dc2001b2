#include "test/integration/collective/rank_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

extern char** environ;

namespace sluice::ccl::testing {

RankProcess::RankProcess(const std::string& name,
                         std::vector<std::string> flags,
                         std::vector<std::string> environment) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  const char* tmpdir = std::getenv("TEST_TMPDIR");
  std::vector<std::string> arguments = {
      absl::StrCat(srcdir ? srcdir : ".", "/", workspace ? workspace : "sluice",
                   "/test/integration/collective/ccl_rank")};
  arguments.insert(arguments.end(), flags.begin(), flags.end());
  output_path_ = absl::StrCat(tmpdir ? tmpdir : "/tmp", "/", name, ".",
                              reinterpret_cast<uintptr_t>(this), ".out");
  for (char** e = environ; *e != nullptr; ++e) environment.push_back(*e);
  std::vector<char*> argv, envp;
  for (std::string& s : arguments) argv.push_back(s.data());
  argv.push_back(nullptr);
  for (std::string& s : environment) envp.push_back(s.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO,
                                   output_path_.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  if (posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(),
                  envp.data()) != 0) {
    pid_ = 0;
  }
  posix_spawn_file_actions_destroy(&actions);
}

RankProcess::~RankProcess() { Kill(); }

void RankProcess::Kill() {
  if (pid_ <= 0 || reaped_) return;
  kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  reaped_ = true;
}

void RankProcess::Stop() {
  if (pid_ > 0 && !reaped_) kill(pid_, SIGSTOP);
}

std::vector<std::string> RankProcess::Lines() const {
  std::ifstream file(output_path_);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(file, line)) lines.push_back(line);
  return lines;
}

std::string RankProcess::WaitForLine(const std::string& prefix,
                                     absl::Duration timeout) const {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    for (const std::string& line : Lines()) {
      if (line.rfind(prefix, 0) == 0) return line;
    }
    if (absl::Now() >= deadline) return "";
    absl::SleepFor(absl::Milliseconds(10));
  }
}

int RankProcess::WaitForExit(absl::Duration timeout) {
  if (pid_ <= 0 || reaped_) return -1;
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    int status = 0;
    pid_t done = waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
      reaped_ = true;
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    if (absl::Now() >= deadline) return -1;
    absl::SleepFor(absl::Milliseconds(10));
  }
}

}  // namespace sluice::ccl::testing
