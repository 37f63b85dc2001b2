#include "lib/distributed/wait_reporter.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace sluice::dist::internal {
namespace {

// The first delay, and the one between two reports on the same RPC.
constexpr absl::Duration kReportEvery = absl::Seconds(1);

std::string ErrnoReason(int error) {
  if (error == ECONNREFUSED) return "connection refused";
  if (error == ETIMEDOUT) return "timed out";
  return std::strerror(error);
}

// Connects one socket of `info` within `timeout`; 0 or the errno.
int TryConnect(const addrinfo& info, absl::Duration timeout) {
  const int fd =
      socket(info.ai_family, info.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
             info.ai_protocol);
  if (fd < 0) return errno;
  int error = 0;
  if (connect(fd, info.ai_addr, info.ai_addrlen) != 0) {
    error = errno;
    if (error == EINPROGRESS) {
      pollfd poll_fd{fd, POLLOUT, 0};
      const int ready = poll(
          &poll_fd, 1, static_cast<int>(absl::ToInt64Milliseconds(timeout)));
      if (ready == 0) {
        error = ETIMEDOUT;
      } else if (ready < 0) {
        error = errno;
      } else {
        socklen_t length = sizeof(error);
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
      }
    }
  }
  close(fd);
  return error;
}

}  // namespace

std::string ProbeAddress(const std::string& address, absl::Duration timeout) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) return "no port in the address";
  std::string host = address.substr(0, colon);
  // "[::1]:7001": the brackets are not part of the name.
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  const std::string port = address.substr(colon + 1);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0) {
    return "host not found";
  }
  int error = ECONNREFUSED;
  for (addrinfo* info = found; info != nullptr; info = info->ai_next) {
    error = TryConnect(*info, timeout);
    if (error == 0) break;
  }
  freeaddrinfo(found);
  return error == 0 ? "" : ErrnoReason(error);
}

WaitReporter::WaitReporter(std::string task, std::string address, Report report,
                           ChannelState channel_state)
    : task_(std::move(task)),
      address_(std::move(address)),
      report_(std::move(report)),
      channel_state_(std::move(channel_state)) {}

WaitReporter::~WaitReporter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

uint64_t WaitReporter::Begin(std::string_view what, absl::Duration timeout) {
  std::lock_guard<std::mutex> lock(mu_);
  const absl::Time now = absl::Now();
  const uint64_t id = next_id_++;
  waiting_.emplace(id, Waiting{what, now, timeout, now + kReportEvery});
  if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
  if (now + kReportEvery < wake_at_) changed_.notify_all();
  return id;
}

void WaitReporter::Answered(uint64_t id) { End(id, /*answered=*/true, ""); }

void WaitReporter::GaveUp(uint64_t id, std::string_view why) {
  End(id, /*answered=*/false, why);
}

void WaitReporter::ForgetChannel() {
  std::lock_guard<std::mutex> lock(mu_);
  channel_state_ = nullptr;
}

void WaitReporter::End(uint64_t id, bool answered, std::string_view why) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = waiting_.find(id);
  if (it == waiting_.end()) return;
  const Waiting& waiting = it->second;
  // A wait nobody was told of ends as quietly as it began.
  if (waiting.reported) {
    const std::string after = absl::FormatDuration(
        absl::Trunc(absl::Now() - waiting.start, absl::Milliseconds(100)));
    const std::string what(waiting.what);
    ended_.push_back(
        answered ? absl::StrCat("task ", task_, " at ", address_, " answered ",
                                what, " after ", after)
                 : absl::StrCat("gave up waiting for task ", task_, " at ",
                                address_, " for ", what, " after ", after, ": ",
                                std::string(why)));
    changed_.notify_all();
  }
  waiting_.erase(it);
}

void WaitReporter::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  uint64_t seen_begins = 0;
  while (true) {
    for (const std::string& line : ended_) report_(line);
    ended_.clear();
    if (stopping_) return;
    absl::Time due = absl::InfiniteFuture();
    for (const auto& [id, waiting] : waiting_) {
      due = std::min(due, waiting.next_report);
    }
    const absl::Time now = absl::Now();
    absl::Time wake = due;
    if (due == absl::InfiniteFuture() && next_id_ != seen_begins) {
      // RPCs come and go: the thread looks again in a while rather than be
      // woken by each Begin. It sleeps for good once a while passes
      // without any.
      seen_begins = next_id_;
      wake = now + kReportEvery;
    }
    if (now < wake) {
      wake_at_ = wake;
      if (wake == absl::InfiniteFuture()) {
        changed_.wait(lock);
      } else {
        changed_.wait_until(lock, absl::ToChronoTime(wake));
      }
      continue;
    }
    if (due > now) continue;
    for (const auto& [id, line] : DueLines(lock)) {
      // One that ended meanwhile is not reported.
      auto it = waiting_.find(id);
      if (stopping_ || it == waiting_.end()) continue;
      report_(line);
      it->second.reported = true;
    }
  }
}

std::vector<std::pair<uint64_t, std::string>> WaitReporter::DueLines(
    std::unique_lock<std::mutex>& lock) {
  struct Due {
    uint64_t id;
    std::string what;
    absl::Time start;
    absl::Duration timeout;
  };
  std::vector<Due> due;
  const absl::Time now = absl::Now();
  for (auto& [id, waiting] : waiting_) {
    if (waiting.next_report > now) continue;
    waiting.next_report = now + kReportEvery;
    due.push_back(
        {id, std::string(waiting.what), waiting.start, waiting.timeout});
  }
  const std::string channel = channel_state_ ? channel_state_() : "";
  // Every wait is for the same task: one probe tells why for all of them.
  // It runs without the lock, so that RPCs begin and end meanwhile.
  lock.unlock();
  std::string why = ProbeAddress(address_, absl::Milliseconds(500));
  if (why.empty()) {
    why = channel.empty() ? "connected, no answer yet"
                          : absl::StrCat("port open, channel ", channel);
  }
  const absl::Time probed = absl::Now();
  std::vector<std::pair<uint64_t, std::string>> lines;
  for (const Due& waiting : due) {
    lines.emplace_back(
        waiting.id,
        absl::StrCat("waiting for task ", task_, " at ", address_, " for ",
                     waiting.what, ": ", why, " (",
                     absl::ToInt64Seconds(probed - waiting.start), "s of ",
                     absl::FormatDuration(waiting.timeout), ")"));
  }
  lock.lock();
  return lines;
}

}  // namespace sluice::dist::internal
