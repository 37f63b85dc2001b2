#include "test/integration/worker_process.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "test/util/wait_until.h"

namespace sluice::dist::testing {
namespace {

using ::sluice::testing::ChildProcessOptions;
using ::sluice::testing::WaitUntil;

absl::Status ErrnoError(std::string_view what) {
  return absl::InternalError(
      absl::StrCat(std::string(what), ": ", std::strerror(errno)));
}

int CountOccurrences(std::string_view haystack, std::string_view needle) {
  int count = 0;
  for (size_t at = haystack.find(needle); at != std::string_view::npos;
       at = haystack.find(needle, at + needle.size())) {
    ++count;
  }
  return count;
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
  return ::sluice::testing::Runfile("tools/sluice_worker/sluice_worker");
}

absl::StatusOr<std::unique_ptr<WorkerProcess>> WorkerProcess::Start(
    WorkerProcessOptions options) {
  if (options.port <= 0) {
    return absl::InvalidArgumentError("WorkerProcess needs a reserved port");
  }
  ChildProcessOptions child;
  child.argv = {WorkerBinaryPath(),
                absl::StrCat("--task_name=", options.task_name),
                absl::StrCat("--address=127.0.0.1:", options.port)};
  if (options.enable_test_kernels) {
    child.argv.push_back("--enable_test_kernels");
  }
  child.argv.insert(child.argv.end(), options.flags.begin(),
                    options.flags.end());
  child.environment = options.environment;
  child.name = absl::StrCat("sluice_worker.", options.port);
  // Unless asked otherwise, what a worker logs goes to the test log, where
  // it explains a failure without getting in the way of the stdout lines
  // the tests count.
  child.stderr_to = options.stderr_to_stdout
                        ? ChildProcessOptions::Stderr::kWithStdout
                        : ChildProcessOptions::Stderr::kInherit;
  std::unique_ptr<WorkerProcess> worker(
      new WorkerProcess(std::move(options), std::move(child)));
  if (!worker->child_.started()) {
    return absl::InternalError(worker->child_.start_error());
  }
  absl::Status ready = worker->AwaitReady();
  if (!ready.ok()) return ready;  // the destructor kills the process
  return worker;
}

WorkerProcess::WorkerProcess(WorkerProcessOptions options,
                             ChildProcessOptions child)
    : options_(std::move(options)), child_(std::move(child)) {}

WorkerProcess::~WorkerProcess() = default;

std::string WorkerProcess::address() const {
  return absl::StrCat("127.0.0.1:", options_.port);
}

absl::Status WorkerProcess::AwaitReady() {
  const std::string expected =
      absl::StrCat("sluice_worker ", options_.task_name,
                   " listening on 127.0.0.1:", options_.port);
  std::optional<absl::Status> result;
  WaitUntil(
      [&] {
        // Asked first: output read after the worker exited is all there is.
        const bool exited = !child_.Running();
        const std::string text = child_.Output();
        size_t line_start = 0;
        for (size_t newline;
             (newline = text.find('\n', line_start)) != std::string::npos;
             line_start = newline + 1) {
          const std::string line =
              text.substr(line_start, newline - line_start);
          if (line == expected) {
            ready_end_ = newline + 1;
            result = absl::OkStatus();
            return true;
          }
          // With stderr in the file, log lines may come before the ready
          // line.
          if (!options_.stderr_to_stdout) {
            result = absl::InternalError(
                absl::StrCat("worker ", options_.task_name, " printed '", line,
                             "' where '", expected, "' was expected"));
            return true;
          }
        }
        if (exited) {
          result = absl::InternalError(absl::StrCat(
              "worker ", options_.task_name, " (", WorkerBinaryPath(),
              ") exited before it was ready: ", child_.DescribeExit(),
              "; its stdout: '", text, "'"));
        }
        return exited;
      },
      options_.ready_timeout);
  if (result.has_value()) return *result;
  return absl::DeadlineExceededError(absl::StrCat(
      "worker ", options_.task_name, " printed no 'listening on' line in ",
      absl::FormatDuration(options_.ready_timeout)));
}

void WorkerProcess::Kill() { child_.Kill(); }

void WorkerProcess::Stop() { child_.Stop(); }

void WorkerProcess::Continue() { child_.Continue(); }

absl::StatusOr<int> WorkerProcess::Terminate(absl::Duration timeout) {
  // Reaped, not merely exited: a worker that exited on its own still tells
  // its exit code here.
  if (child_.wait_status().has_value()) {
    return absl::FailedPreconditionError(
        absl::StrCat("worker ", options_.task_name, " has already exited"));
  }
  child_.Terminate();
  child_.WaitForExit(timeout);
  const std::optional<int> status = child_.wait_status();
  if (!status.has_value()) {
    child_.Kill();
    return absl::DeadlineExceededError(
        absl::StrCat("worker ", options_.task_name, " did not exit within ",
                     absl::FormatDuration(timeout), " of SIGTERM"));
  }
  if (!WIFEXITED(*status)) {
    return absl::InternalError(
        absl::StrCat("worker ", options_.task_name,
                     " after SIGTERM: ", child_.DescribeExit()));
  }
  return WEXITSTATUS(*status);
}

bool WorkerProcess::IsRunning() { return child_.Running(); }

bool WorkerProcess::WaitForOutput(std::string_view text, int count,
                                  absl::Duration timeout) {
  return WaitUntil([&] { return CountOutput(text) >= count; }, timeout);
}

int WorkerProcess::CountOutput(std::string_view text) {
  const std::string output = child_.Output();
  return CountOccurrences(std::string_view(output).substr(ready_end_), text);
}

}  // namespace sluice::dist::testing
