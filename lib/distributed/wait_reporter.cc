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

WaitReporter::WaitReporter(Report report) : report_(std::move(report)) {}

WaitReporter::~WaitReporter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

uint64_t WaitReporter::Begin(const std::string& task,
                             const std::string& address,
                             absl::Duration timeout) {
  std::lock_guard<std::mutex> lock(mu_);
  const absl::Time now = absl::Now();
  const uint64_t id = next_id_++;
  waiting_.emplace(id,
                   Waiting{task, address, now, timeout, now + kReportEvery});
  if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
  changed_.notify_all();
  return id;
}

void WaitReporter::End(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  waiting_.erase(id);
}

void WaitReporter::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    absl::Time next = absl::InfiniteFuture();
    for (const auto& [id, waiting] : waiting_) {
      next = std::min(next, waiting.next_report);
    }
    if (absl::Now() < next) {
      if (next == absl::InfiniteFuture()) {
        changed_.wait(lock);
      } else {
        changed_.wait_until(lock, absl::ToChronoTime(next));
      }
      continue;
    }
    // Due ones are probed without the lock, so that RPCs begin and end
    // meanwhile; one that ended by then is not reported.
    std::vector<std::pair<uint64_t, Waiting>> due;
    const absl::Time now = absl::Now();
    for (auto& [id, waiting] : waiting_) {
      if (waiting.next_report > now) continue;
      waiting.next_report = now + kReportEvery;
      due.emplace_back(id, waiting);
    }
    lock.unlock();
    std::vector<std::pair<uint64_t, std::string>> lines;
    for (const auto& [id, waiting] : due) {
      const std::string why =
          ProbeAddress(waiting.address, absl::Milliseconds(500));
      const absl::Time probed = absl::Now();
      lines.emplace_back(
          id, absl::StrCat(
                  "waiting for task ", waiting.task, " at ", waiting.address,
                  ": ", why.empty() ? "connected, no answer yet" : why, " (",
                  absl::ToInt64Seconds(probed - waiting.start), "s of ",
                  absl::FormatDuration(waiting.timeout), ")"));
    }
    lock.lock();
    for (const auto& [id, line] : lines) {
      if (stopping_ || waiting_.count(id) == 0) continue;
      report_(line);
    }
  }
}

}  // namespace sluice::dist::internal
