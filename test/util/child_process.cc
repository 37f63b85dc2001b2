#include "test/util/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "test/util/wait_until.h"

extern char** environ;

namespace sluice::testing {
namespace {

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  return std::string((std::istreambuf_iterator<char>(file)),
                     std::istreambuf_iterator<char>());
}

// The process state letter in /proc/<pid>/stat ('T' when stopped), or 0.
char ProcessState(pid_t pid) {
  const std::string text = ReadFile(absl::StrCat("/proc/", pid, "/stat"));
  // The command name in parentheses may hold spaces; the state follows it.
  const size_t close = text.rfind(')');
  if (close == std::string::npos || close + 2 >= text.size()) return 0;
  return text[close + 2];
}

// The test's environment less what `options` unsets or replaces, then
// `options.environment`.
std::vector<std::string> ChildEnvironment(const ChildProcessOptions& options) {
  std::vector<std::string> names = options.unset_environment;
  for (const std::string& entry : options.environment) {
    names.push_back(entry.substr(0, entry.find('=')));
  }
  std::vector<std::string> environment;
  for (char** variable = environ; *variable != nullptr; ++variable) {
    const std::string_view entry(*variable);
    const std::string_view name = entry.substr(0, entry.find('='));
    bool dropped = false;
    for (const std::string& other : names) dropped |= name == other;
    if (!dropped) environment.emplace_back(entry);
  }
  environment.insert(environment.end(), options.environment.begin(),
                     options.environment.end());
  return environment;
}

int OpenOutput(const std::string& path) {
  return open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

}  // namespace

std::string Runfile(std::string_view path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  return absl::StrCat(srcdir != nullptr ? srcdir : ".", "/",
                      workspace != nullptr ? workspace : "sluice", "/",
                      std::string(path));
}

ChildProcess::ChildProcess(ChildProcessOptions options) {
  static std::atomic<int> serial{0};
  const std::string stem =
      absl::StrCat(TempDir(), "/", options.name, ".", ++serial);
  stdout_path_ = absl::StrCat(stem, ".out");
  if (options.stderr_to == ChildProcessOptions::Stderr::kOwnFile) {
    stderr_path_ = absl::StrCat(stem, ".err");
  }
  if (options.argv.empty()) {
    start_error_ = "no argv";
    return;
  }
  // Everything the child needs is made before fork: between fork and exec
  // a child of a threaded process may only make async-signal-safe calls.
  std::vector<std::string> environment = ChildEnvironment(options);
  std::vector<char*> argv, envp;
  for (std::string& argument : options.argv) argv.push_back(argument.data());
  argv.push_back(nullptr);
  for (std::string& variable : environment) envp.push_back(variable.data());
  envp.push_back(nullptr);

  const int stdin_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  const int stdout_fd = OpenOutput(stdout_path_);
  const int stderr_fd = stderr_path_.empty() ? -1 : OpenOutput(stderr_path_);
  const bool stderr_to_stdout =
      options.stderr_to == ChildProcessOptions::Stderr::kWithStdout;
  // The child writes errno here when exec fails; exec closes it otherwise,
  // so the parent learns which without waiting for the child to exit.
  int exec_error[2] = {-1, -1};
  const bool ready = stdin_fd >= 0 && stdout_fd >= 0 &&
                     (stderr_path_.empty() || stderr_fd >= 0) &&
                     pipe2(exec_error, O_CLOEXEC) == 0;
  const int setup_errno = errno;
  pid_t pid = -1;
  if (ready) {
    const pid_t parent = getpid();
    pid = fork();
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      // The parent died before prctl took effect: no signal will come.
      if (getppid() != parent) _exit(126);
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      dup2(stdin_fd, STDIN_FILENO);
      dup2(stdout_fd, STDOUT_FILENO);
      if (stderr_to_stdout) dup2(stdout_fd, STDERR_FILENO);
      if (stderr_fd >= 0) dup2(stderr_fd, STDERR_FILENO);
      // The test's sockets and pipes stay out of the child, so that, e.g.,
      // a peer sees a connection close when the test closes it. The error
      // pipe stays until exec closes it.
      const unsigned int keep = static_cast<unsigned int>(exec_error[1]);
      if (keep > 3) syscall(SYS_close_range, 3u, keep - 1, 0u);
      syscall(SYS_close_range, keep + 1, ~0u, 0u);
      execve(argv[0], argv.data(), envp.data());
      const int error = errno;
      (void)!write(exec_error[1], &error, sizeof(error));
      _exit(127);
    }
  }
  const int fork_errno = errno;
  for (int fd : {stdin_fd, stdout_fd, stderr_fd, exec_error[1]}) {
    if (fd >= 0) close(fd);
  }
  if (!ready || pid < 0) {
    if (exec_error[0] >= 0) close(exec_error[0]);
    const int error = ready ? fork_errno : setup_errno;
    start_error_ = absl::StrCat("cannot start ", options.argv[0], ": ",
                                std::strerror(error));
    return;
  }
  int error = 0;
  ssize_t n;
  do {
    n = read(exec_error[0], &error, sizeof(error));
  } while (n < 0 && errno == EINTR);
  close(exec_error[0]);
  if (n == static_cast<ssize_t>(sizeof(error))) {
    int status = 0;
    waitpid(pid, &status, 0);
    start_error_ = absl::StrCat("cannot start ", options.argv[0], ": ",
                                std::strerror(error));
    return;
  }
  pid_ = pid;
}

ChildProcess::~ChildProcess() {
  if (!started() || reaped_) return;
  // SIGKILL ends a stopped child as well; continuing it first keeps that
  // from resting on the kernel alone.
  kill(pid_, SIGCONT);
  Kill();
}

bool ChildProcess::Reap(bool wait) {
  if (!started() || reaped_) return true;
  for (;;) {
    int status = 0;
    const pid_t reaped = waitpid(pid_, &status, wait ? 0 : WNOHANG);
    if (reaped == pid_) {
      reaped_ = true;
      wait_status_ = status;
      return true;
    }
    if (reaped == 0) return false;
    if (errno == EINTR) continue;
    // ECHILD: reaped elsewhere; it is gone either way.
    reaped_ = true;
    return true;
  }
}

bool ChildProcess::Exited() const {
  if (!started() || reaped_) return true;
  siginfo_t info;
  info.si_pid = 0;
  if (waitid(P_PID, pid_, &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    return errno == ECHILD;
  }
  return info.si_pid == pid_;
}

void ChildProcess::Kill() {
  if (!started() || reaped_) return;
  kill(pid_, SIGKILL);
  Reap(/*wait=*/true);
}

void ChildProcess::Stop() {
  if (!started() || reaped_) return;
  kill(pid_, SIGSTOP);
  WaitUntil([&] { return ProcessState(pid_) == 'T' || Exited(); },
            absl::Seconds(10));
}

void ChildProcess::Continue() {
  if (started() && !reaped_) kill(pid_, SIGCONT);
}

void ChildProcess::Terminate() {
  if (started() && !reaped_) kill(pid_, SIGTERM);
}

bool ChildProcess::Running() { return !Reap(/*wait=*/false); }

int ChildProcess::WaitForExit(absl::Duration timeout) {
  if (!WaitUntil([&] { return Reap(/*wait=*/false); }, timeout) ||
      !wait_status_.has_value() || !WIFEXITED(*wait_status_)) {
    return -1;
  }
  return WEXITSTATUS(*wait_status_);
}

std::string ChildProcess::DescribeExit() const {
  if (!wait_status_.has_value()) return "running";
  const int status = *wait_status_;
  if (WIFEXITED(status)) return absl::StrCat("exit code ", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return absl::StrCat("killed by signal ", WTERMSIG(status), " (",
                        strsignal(WTERMSIG(status)), ")");
  }
  return absl::StrCat("wait status ", status);
}

std::string ChildProcess::Output() const {
  std::lock_guard<std::mutex> lock(output_mu_);
  const int fd = open(stdout_path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return output_;
  char buffer[65536];
  for (;;) {
    const ssize_t n = pread(fd, buffer, sizeof(buffer), output_.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    output_.append(buffer, n);
  }
  close(fd);
  return output_;
}

std::string ChildProcess::Stderr() const {
  return stderr_path_.empty() ? "" : ReadFile(stderr_path_);
}

std::vector<std::string> ChildProcess::Lines() const {
  // Asked first: output read after the child exited is all there is.
  const bool exited = Exited();
  const std::string text = Output();
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t end; (end = text.find('\n', start)) != std::string::npos;
       start = end + 1) {
    lines.push_back(text.substr(start, end - start));
  }
  if (exited && start < text.size()) lines.push_back(text.substr(start));
  return lines;
}

std::string ChildProcess::WaitForLine(const std::string& prefix,
                                      absl::Duration timeout) const {
  return WaitForLineMatching(
             [&](const std::string& line) {
               return line.compare(0, prefix.size(), prefix) == 0;
             },
             timeout)
      .value_or("");
}

std::optional<std::string> ChildProcess::WaitForLineMatching(
    const std::function<bool(const std::string&)>& matches,
    absl::Duration timeout, size_t from) const {
  std::optional<std::string> found;
  WaitUntil(
      [&] {
        const bool exited = Exited();
        const std::vector<std::string> lines = Lines();
        for (size_t i = from; i < lines.size(); ++i) {
          if (matches(lines[i])) {
            found = lines[i];
            return true;
          }
        }
        return exited;
      },
      timeout);
  return found;
}

}  // namespace sluice::testing
