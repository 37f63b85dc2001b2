#include "test/integration/worker_process.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

extern char** environ;

namespace sluice::dist::testing {
namespace {

// Keeps the worker's stdout from growing without bound in a long test; the
// tests only look for recent lines.
constexpr size_t kMaxOutputBytes = 8 << 20;

absl::Status ErrnoError(std::string_view what) {
  return absl::InternalError(
      absl::StrCat(std::string(what), ": ", std::strerror(errno)));
}

std::string DescribeWaitStatus(int status) {
  if (WIFEXITED(status)) return absl::StrCat("exit code ", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return absl::StrCat("killed by signal ", WTERMSIG(status), " (",
                        strsignal(WTERMSIG(status)), ")");
  }
  return absl::StrCat("wait status ", status);
}

int CountOccurrences(std::string_view haystack, std::string_view needle) {
  int count = 0;
  for (size_t at = haystack.find(needle); at != std::string_view::npos;
       at = haystack.find(needle, at + needle.size())) {
    ++count;
  }
  return count;
}

// The process state letter in /proc/<pid>/stat ('T' when stopped), or 0.
char ProcessState(pid_t pid) {
  std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
  std::string text((std::istreambuf_iterator<char>(stat)),
                   std::istreambuf_iterator<char>());
  // The command name in parentheses may hold spaces; the state follows it.
  size_t close = text.rfind(')');
  if (close == std::string::npos || close + 2 >= text.size()) return 0;
  return text[close + 2];
}

}  // namespace

absl::StatusOr<PortReservation> PortReservation::Reserve() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return ErrnoError("socket");
  int one = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) != 0 ||
      setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0) {
    absl::Status error = ErrnoError("setsockopt");
    close(fd);
    return error;
  }
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    absl::Status error = ErrnoError("bind 127.0.0.1:0");
    close(fd);
    return error;
  }
  return PortReservation(fd, ntohs(address.sin_port));
}

PortReservation::PortReservation(PortReservation&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), port_(other.port_) {}

PortReservation& PortReservation::operator=(PortReservation&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    port_ = other.port_;
  }
  return *this;
}

PortReservation::~PortReservation() {
  if (fd_ >= 0) close(fd_);
}

std::string PortReservation::address() const {
  return absl::StrCat("127.0.0.1:", port_);
}

std::string WorkerBinaryPath() {
  if (const char* path = std::getenv("SLUICE_WORKER_BINARY")) return path;
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  return absl::StrCat(srcdir != nullptr ? srcdir : ".", "/",
                      workspace != nullptr ? workspace : "sluice",
                      "/tools/sluice_worker/sluice_worker");
}

absl::StatusOr<std::unique_ptr<WorkerProcess>> WorkerProcess::Start(
    WorkerProcessOptions options) {
  if (options.port <= 0) {
    return absl::InvalidArgumentError("WorkerProcess needs a reserved port");
  }
  // Everything the child needs is built before fork: between fork and exec
  // a child of a threaded process may only make async-signal-safe calls.
  const std::string binary = WorkerBinaryPath();
  std::vector<std::string> arguments = {
      binary, absl::StrCat("--task_name=", options.task_name),
      absl::StrCat("--address=127.0.0.1:", options.port)};
  arguments.insert(arguments.end(), options.flags.begin(), options.flags.end());
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  // The test's environment, less the variables options.environment sets.
  std::vector<std::string> environment = options.environment;
  std::vector<char*> envp;
  for (char** variable = environ; *variable != nullptr; ++variable) {
    const std::string_view entry(*variable);
    const std::string_view name_and_equals =
        entry.substr(0, entry.find('=') + 1);
    const bool replaced = std::any_of(
        environment.begin(), environment.end(), [&](const std::string& set) {
          return !name_and_equals.empty() &&
                 std::string_view(set).substr(0, name_and_equals.size()) ==
                     name_and_equals;
        });
    if (!replaced) envp.push_back(*variable);
  }
  for (std::string& variable : environment) envp.push_back(variable.data());
  envp.push_back(nullptr);
  const bool stderr_to_stdout = options.stderr_to_stdout;

  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return ErrnoError("pipe2");
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    absl::Status error = ErrnoError("fork");
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return error;
  }
  if (pid == 0) {
    // The worker must not outlive the test, even when the test crashes.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(126);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    dup2(pipe_fds[1], STDOUT_FILENO);
    if (stderr_to_stdout) dup2(pipe_fds[1], STDERR_FILENO);
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
    // The test's sockets and pipes (other workers' included) stay out of
    // the worker, so that a pipe reaches EOF when its own worker dies.
    syscall(SYS_close_range, 3u, ~0u, 0u);
    execve(binary.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  std::unique_ptr<WorkerProcess> worker(
      new WorkerProcess(std::move(options), pid, pipe_fds[0]));
  absl::Status ready = worker->AwaitReady();
  if (!ready.ok()) return ready;  // the destructor kills the process
  return worker;
}

WorkerProcess::WorkerProcess(WorkerProcessOptions options, pid_t pid,
                             int stdout_fd)
    : options_(std::move(options)), pid_(pid), stdout_fd_(stdout_fd) {}

WorkerProcess::~WorkerProcess() {
  Kill();
  // The pipe's only writer is gone, so the drainer sees EOF and ends.
  if (drainer_.joinable()) drainer_.join();
  close(stdout_fd_);
}

std::string WorkerProcess::address() const {
  return absl::StrCat("127.0.0.1:", options_.port);
}

absl::Status WorkerProcess::AwaitReady() {
  const absl::Time deadline = absl::Now() + options_.ready_timeout;
  std::string text;
  size_t line_start = 0;
  for (;;) {
    size_t newline = text.find('\n', line_start);
    if (newline != std::string::npos) {
      std::string line = text.substr(line_start, newline - line_start);
      const std::string expected =
          absl::StrCat("sluice_worker ", options_.task_name,
                       " listening on 127.0.0.1:", options_.port);
      if (line != expected) {
        // With stderr in the pipe, log lines may come before the ready line.
        if (options_.stderr_to_stdout) {
          line_start = newline + 1;
          continue;
        }
        return absl::InternalError(absl::StrCat("worker ", options_.task_name,
                                                " printed '", line, "' where '",
                                                expected, "' was expected"));
      }
      output_ = text.substr(newline + 1);
      drainer_ = std::thread([this] { Drain(); });
      return absl::OkStatus();
    }
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      return absl::DeadlineExceededError(absl::StrCat(
          "worker ", options_.task_name, " printed no 'listening on' line in ",
          absl::FormatDuration(options_.ready_timeout)));
    }
    pollfd poll_fd = {stdout_fd_, POLLIN, 0};
    int polled = poll(&poll_fd, 1,
                      static_cast<int>(absl::ToInt64Milliseconds(left)) + 1);
    if (polled < 0 && errno != EINTR) return ErrnoError("poll");
    if (polled <= 0) continue;
    char buffer[4096];
    ssize_t n = read(stdout_fd_, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Reap(/*wait=*/true);
      return absl::InternalError(absl::StrCat(
          "worker ", options_.task_name, " (", WorkerBinaryPath(),
          ") exited before it was ready: ", DescribeWaitStatus(wait_status_),
          "; its stdout: '", text, "'"));
    }
    text.append(buffer, n);
  }
}

void WorkerProcess::Drain() {
  char buffer[16384];
  for (;;) {
    ssize_t n = read(stdout_fd_, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    std::lock_guard<std::mutex> lock(mu_);
    output_.append(buffer, n);
    if (output_.size() > kMaxOutputBytes) {
      output_.erase(0, output_.size() - kMaxOutputBytes / 2);
    }
    output_changed_.notify_all();
  }
}

bool WorkerProcess::Reap(bool wait) {
  if (reaped_) return true;
  for (;;) {
    int status = 0;
    pid_t reaped = waitpid(pid_, &status, wait ? 0 : WNOHANG);
    if (reaped == pid_) {
      reaped_ = true;
      wait_status_ = status;
      return true;
    }
    if (reaped == 0) return false;
    if (errno == EINTR) continue;
    // ECHILD: someone else reaped it; it is gone either way.
    reaped_ = true;
    return true;
  }
}

void WorkerProcess::Kill() {
  if (reaped_) return;
  kill(pid_, SIGKILL);
  Reap(/*wait=*/true);
}

void WorkerProcess::Stop() {
  if (reaped_) return;
  kill(pid_, SIGSTOP);
  // Signals are delivered asynchronously: return only once the process is
  // really stopped, so that a test's next request meets a stopped worker.
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (ProcessState(pid_) != 'T' && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(1));
  }
}

void WorkerProcess::Continue() {
  if (reaped_) return;
  kill(pid_, SIGCONT);
}

absl::StatusOr<int> WorkerProcess::Terminate(absl::Duration timeout) {
  if (reaped_) {
    return absl::FailedPreconditionError(
        absl::StrCat("worker ", options_.task_name, " has already exited"));
  }
  kill(pid_, SIGTERM);
  const absl::Time deadline = absl::Now() + timeout;
  while (!Reap(/*wait=*/false)) {
    if (absl::Now() >= deadline) {
      Kill();
      return absl::DeadlineExceededError(
          absl::StrCat("worker ", options_.task_name, " did not exit within ",
                       absl::FormatDuration(timeout), " of SIGTERM"));
    }
    absl::SleepFor(absl::Milliseconds(5));
  }
  if (!WIFEXITED(wait_status_)) {
    return absl::InternalError(
        absl::StrCat("worker ", options_.task_name,
                     " after SIGTERM: ", DescribeWaitStatus(wait_status_)));
  }
  return WEXITSTATUS(wait_status_);
}

bool WorkerProcess::IsRunning() { return !Reap(/*wait=*/false); }

bool WorkerProcess::WaitForOutput(std::string_view text, int count,
                                  absl::Duration timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return output_changed_.wait_for(
      lock, absl::ToChronoMilliseconds(timeout),
      [&] { return CountOccurrences(output_, text) >= count; });
}

int WorkerProcess::CountOutput(std::string_view text) {
  std::lock_guard<std::mutex> lock(mu_);
  return CountOccurrences(output_, text);
}

}  // namespace sluice::dist::testing
