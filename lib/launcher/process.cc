#include "lib/launcher/process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

extern char** environ;

namespace sluice::launcher {
namespace {

absl::Status ErrnoError(std::string_view what, int error) {
  return absl::InternalError(
      absl::StrCat(std::string(what), ": ", std::strerror(error)));
}

bool IsExecutableFile(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
         access(path.c_str(), X_OK) == 0;
}

// The path execve needs: `command` itself when it names a path, else the
// first executable match in $PATH. Resolved before fork, since the child
// may only make async-signal-safe calls.
absl::StatusOr<std::string> ResolveCommand(const std::string& command) {
  if (command.empty()) {
    return absl::InvalidArgumentError("the command to run is empty");
  }
  if (command.find('/') != std::string::npos) {
    if (!IsExecutableFile(command)) {
      return absl::NotFoundError(
          absl::StrCat("command ", command, " is not an executable file"));
    }
    return command;
  }
  const char* path = std::getenv("PATH");
  for (absl::string_view directory :
       absl::StrSplit(path != nullptr ? path : "/usr/bin:/bin", ':')) {
    std::string candidate = absl::StrCat(
        directory.empty() ? "." : std::string(directory), "/", command);
    if (IsExecutableFile(candidate)) return candidate;
  }
  return absl::NotFoundError(
      absl::StrCat("command ", command, " is not in $PATH"));
}

// The parent's environment with `overrides` ("NAME=value") replacing or
// adding variables.
std::vector<std::string> MergeEnvironment(
    const std::vector<std::string>& overrides) {
  std::vector<std::string> merged;
  for (char** variable = environ; *variable != nullptr; ++variable) {
    std::string_view entry(*variable);
    std::string_view name = entry.substr(0, entry.find('=') + 1);
    bool replaced = std::any_of(
        overrides.begin(), overrides.end(), [&](const std::string& set) {
          return std::string_view(set).substr(0, name.size()) == name;
        });
    if (!replaced) merged.emplace_back(entry);
  }
  merged.insert(merged.end(), overrides.begin(), overrides.end());
  return merged;
}

void CloseIfOpen(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

}  // namespace

std::string DescribeWaitStatus(int wait_status) {
  if (WIFEXITED(wait_status)) {
    return absl::StrCat("exit code ", WEXITSTATUS(wait_status));
  }
  if (WIFSIGNALED(wait_status)) {
    return absl::StrCat("killed by signal ", WTERMSIG(wait_status), " (",
                        strsignal(WTERMSIG(wait_status)), ")");
  }
  return absl::StrCat("wait status ", wait_status);
}

int ExitCodeOf(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

absl::StatusOr<std::unique_ptr<ChildProcess>> ChildProcess::Spawn(
    const SpawnOptions& options) {
  if (options.argv.empty()) {
    return absl::InvalidArgumentError("no command to run");
  }
  absl::StatusOr<std::string> binary = ResolveCommand(options.argv[0]);
  if (!binary.ok()) return binary.status();
  std::vector<std::string> arguments = options.argv;
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  std::vector<std::string> environment = MergeEnvironment(options.environment);
  std::vector<char*> envp;
  for (std::string& variable : environment) envp.push_back(variable.data());
  envp.push_back(nullptr);

  // out, err: the child's output; status: carries execve's errno back, and
  // closes (on exec) without a byte when execve succeeds.
  int out[2] = {-1, -1}, err[2] = {-1, -1}, status[2] = {-1, -1};
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 ||
      pipe2(status, O_CLOEXEC) != 0) {
    absl::Status error = ErrnoError("pipe2", errno);
    for (int* fds : {out, err, status}) {
      CloseIfOpen(fds[0]);
      CloseIfOpen(fds[1]);
    }
    return error;
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    absl::Status error = ErrnoError("fork", errno);
    for (int* fds : {out, err, status}) {
      CloseIfOpen(fds[0]);
      CloseIfOpen(fds[1]);
    }
    return error;
  }
  if (pid == 0) {
    // Only async-signal-safe calls from here to execve.
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    // The parent may have died before prctl took effect.
    if (getppid() != parent) _exit(126);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int signal : {SIGINT, SIGTERM, SIGPIPE, SIGCHLD, SIGHUP}) {
      ::signal(signal, SIG_DFL);
    }
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    // Other children's pipes stay out of this one, so that each pipe
    // reaches EOF when its own child exits.
    int status_fd = dup2(status[1], 3);
    syscall(SYS_close_range, 4u, ~0u, 0u);
    fcntl(status_fd, F_SETFD, FD_CLOEXEC);
    execve(binary->c_str(), argv.data(), envp.data());
    int error = errno;
    ssize_t ignored = write(3, &error, sizeof(error));
    (void)ignored;
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  close(status[1]);
  int exec_error = 0;
  ssize_t n;
  do {
    n = read(status[0], &exec_error, sizeof(exec_error));
  } while (n < 0 && errno == EINTR);
  close(status[0]);
  std::unique_ptr<ChildProcess> child(new ChildProcess(pid, out[0], err[0]));
  if (n > 0) {
    int wait_status = 0;
    waitpid(pid, &wait_status, 0);
    child->wait_status_ = wait_status;
    return ErrnoError(absl::StrCat("cannot execute ", *binary), exec_error);
  }
  return child;
}

ChildProcess::~ChildProcess() {
  // Also what the child started and left behind in its group.
  SignalGroup(SIGKILL);
  if (!wait_status_.has_value()) {
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  CloseIfOpen(stdout_fd_);
  CloseIfOpen(stderr_fd_);
}

int ChildProcess::TakeStdout() { return std::exchange(stdout_fd_, -1); }
int ChildProcess::TakeStderr() { return std::exchange(stderr_fd_, -1); }

void ChildProcess::SignalGroup(int signal) {
  // The group outlives its leader while anything in it runs.
  kill(-pid_, signal);
}

std::optional<int> ChildProcess::Poll() {
  if (wait_status_.has_value()) return wait_status_;
  int status = 0;
  pid_t reaped;
  do {
    reaped = waitpid(pid_, &status, WNOHANG);
  } while (reaped < 0 && errno == EINTR);
  if (reaped == pid_) {
    wait_status_ = status;
  } else if (reaped < 0) {
    // ECHILD: reaped elsewhere; it is gone either way.
    wait_status_ = 0;
  }
  return wait_status_;
}

}  // namespace sluice::launcher
