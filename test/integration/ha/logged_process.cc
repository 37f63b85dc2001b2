#include "test/integration/ha/logged_process.h"

#include <signal.h>
#include <unistd.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace sluice::lighthouse::testing {

absl::StatusOr<std::unique_ptr<LoggedProcess>> LoggedProcess::Start(
    std::string name, std::vector<std::string> argv) {
  launcher::SpawnOptions options;
  options.argv = std::move(argv);
  absl::StatusOr<std::unique_ptr<launcher::ChildProcess>> child =
      launcher::ChildProcess::Spawn(options);
  if (!child.ok()) {
    return absl::Status(
        child.status().code(),
        absl::StrCat("cannot start ", name, ": ", child.status().message()));
  }
  return std::unique_ptr<LoggedProcess>(
      new LoggedProcess(std::move(name), *std::move(child)));
}

LoggedProcess::LoggedProcess(std::string name,
                             std::unique_ptr<launcher::ChildProcess> child)
    : name_(std::move(name)), child_(std::move(child)) {
  stdout_reader_ =
      std::thread(&LoggedProcess::Read, this, child_->TakeStdout(), true);
  stderr_reader_ =
      std::thread(&LoggedProcess::Read, this, child_->TakeStderr(), false);
}

LoggedProcess::~LoggedProcess() {
  child_.reset();  // kills the group, so the pipes reach EOF
  stdout_reader_.join();
  stderr_reader_.join();
}

void LoggedProcess::Read(int fd, bool is_stdout) {
  std::string pending;
  char buffer[4096];
  while (true) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(buffer, n);
    size_t newline;
    std::lock_guard<std::mutex> lock(mu_);
    while ((newline = pending.find('\n')) != std::string::npos) {
      lines_.push_back(pending.substr(0, newline));
      if (is_stdout) stdout_lines_.push_back(lines_.back());
      pending.erase(0, newline + 1);
    }
    changed_.notify_all();
  }
  close(fd);
  std::lock_guard<std::mutex> lock(mu_);
  if (!pending.empty()) {
    lines_.push_back(pending);
    if (is_stdout) stdout_lines_.push_back(pending);
  }
  --open_streams_;
  changed_.notify_all();
}

absl::StatusOr<std::string> LoggedProcess::WaitForLine(std::string_view text,
                                                       absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  std::unique_lock<std::mutex> lock(mu_);
  size_t checked = 0;
  while (true) {
    for (; checked < lines_.size(); ++checked) {
      if (lines_[checked].find(text) != std::string::npos) {
        return lines_[checked];
      }
    }
    if (open_streams_ == 0) {
      lock.unlock();
      return absl::UnavailableError(
          absl::StrCat(name_, " exited without printing '", std::string(text),
                       "'; its last lines:\n", Tail()));
    }
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      lock.unlock();
      return absl::DeadlineExceededError(absl::StrCat(
          name_, " printed no '", std::string(text), "' within ",
          absl::FormatDuration(timeout), "; its last lines:\n", Tail()));
    }
    changed_.wait_for(
        lock, absl::ToChronoMilliseconds(left) + std::chrono::milliseconds(1));
  }
}

bool LoggedProcess::WaitForExit(absl::Duration timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return changed_.wait_for(lock, absl::ToChronoMilliseconds(timeout),
                           [this] { return open_streams_ == 0; });
}

std::vector<std::string> LoggedProcess::Lines() {
  std::lock_guard<std::mutex> lock(mu_);
  return lines_;
}

std::vector<std::string> LoggedProcess::StdoutLines() {
  std::lock_guard<std::mutex> lock(mu_);
  return stdout_lines_;
}

std::string LoggedProcess::Tail(int lines) {
  std::lock_guard<std::mutex> lock(mu_);
  const size_t first =
      lines_.size() > static_cast<size_t>(lines) ? lines_.size() - lines : 0;
  return absl::StrJoin(lines_.begin() + first, lines_.end(), "\n");
}

void LoggedProcess::Kill() {
  child_->SignalGroup(SIGKILL);
  while (!child_->Poll().has_value()) usleep(1000);
}

void LoggedProcess::Stop() { child_->SignalGroup(SIGSTOP); }

void LoggedProcess::Continue() { child_->SignalGroup(SIGCONT); }

}  // namespace sluice::lighthouse::testing
