#include "lib/launcher/process_output.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace sluice::launcher {
namespace {

void WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // a closed destination loses the output, not the job
    bytes.remove_prefix(n);
  }
}

}  // namespace

OutputPrefixer::OutputPrefixer() {
  if (pipe2(wake_fds_, O_CLOEXEC | O_NONBLOCK) != 0) {
    wake_fds_[0] = wake_fds_[1] = -1;
  }
  thread_ = std::thread([this] { Loop(); });
}

OutputPrefixer::~OutputPrefixer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  Wake();
  thread_.join();
  for (int fd : wake_fds_) {
    if (fd >= 0) close(fd);
  }
}

void OutputPrefixer::Add(int fd, std::string prefix, int destination_fd) {
  if (fd < 0) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    added_[fd] = Source{std::move(prefix), destination_fd, ""};
    ++open_;
  }
  Wake();
}

void OutputPrefixer::Drain(absl::Duration timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  const absl::Time deadline = absl::Now() + timeout;
  while (open_ > 0) {
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) break;
    drained_.wait_for(
        lock, absl::ToChronoMilliseconds(left) + std::chrono::milliseconds(1));
  }
  if (open_ == 0) return;
  abandon_ = true;
  lock.unlock();
  Wake();
  lock.lock();
  drained_.wait(lock, [this] { return open_ == 0 || stopping_; });
}

void OutputPrefixer::WriteLine(int destination_fd, std::string_view line) {
  std::string text(line);
  if (text.empty() || text.back() != '\n') text.push_back('\n');
  std::lock_guard<std::mutex> lock(write_mu_);
  WriteAll(destination_fd, text);
}

void OutputPrefixer::Wake() {
  if (wake_fds_[1] < 0) return;
  char byte = 0;
  ssize_t ignored = write(wake_fds_[1], &byte, 1);
  (void)ignored;
}

void OutputPrefixer::Flush(Source& source, bool all) {
  std::string out;
  size_t start = 0;
  for (;;) {
    size_t newline = source.pending.find('\n', start);
    size_t end;
    if (newline != std::string::npos) {
      end = newline;
    } else if (source.pending.size() - start >= kMaxLineBytes ||
               (all && start < source.pending.size())) {
      end = std::min(source.pending.size(), start + kMaxLineBytes);
    } else {
      break;
    }
    absl::StrAppend(&out, source.prefix, " ",
                    source.pending.substr(start, end - start), "\n");
    start = newline != std::string::npos ? end + 1 : end;
  }
  source.pending.erase(0, start);
  if (out.empty()) return;
  std::lock_guard<std::mutex> lock(write_mu_);
  WriteAll(source.destination_fd, out);
}

bool OutputPrefixer::ReadFrom(int fd, Source& source) {
  char buffer[16384];
  ssize_t n;
  do {
    n = read(fd, buffer, sizeof(buffer));
  } while (n < 0 && errno == EINTR);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
  if (n <= 0) return false;
  source.pending.append(buffer, n);
  Flush(source, /*all=*/false);
  return true;
}

void OutputPrefixer::Loop() {
  std::map<int, Source> sources;
  auto close_source = [&](std::map<int, Source>::iterator it) {
    Flush(it->second, /*all=*/true);
    close(it->first);
    return sources.erase(it);
  };
  for (;;) {
    bool stopping, abandon;
    {
      std::lock_guard<std::mutex> lock(mu_);
      sources.merge(added_);
      stopping = stopping_;
      abandon = abandon_;
    }
    if (stopping || abandon) {
      // What is already in the pipes still goes out.
      for (auto& [fd, source] : sources) {
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        // Bounded: a writer that never stops must not hold up the stop.
        pollfd ready = {fd, POLLIN, 0};
        for (int reads = 0;
             reads < 64 && poll(&ready, 1, 0) > 0 && ReadFrom(fd, source);
             ++reads) {
        }
      }
      int closed = 0;
      for (auto it = sources.begin(); it != sources.end();) {
        it = close_source(it);
        ++closed;
      }
      std::lock_guard<std::mutex> lock(mu_);
      open_ -= closed;
      abandon_ = false;
      drained_.notify_all();
      if (stopping) return;
      continue;
    }
    std::vector<pollfd> polled = {{wake_fds_[0], POLLIN, 0}};
    for (const auto& [fd, source] : sources) polled.push_back({fd, POLLIN, 0});
    if (poll(polled.data(), polled.size(), -1) < 0 && errno != EINTR) {
      continue;
    }
    if (polled[0].revents != 0) {
      char bytes[256];
      while (read(wake_fds_[0], bytes, sizeof(bytes)) > 0) {
      }
    }
    int closed = 0;
    for (size_t i = 1; i < polled.size(); ++i) {
      if (polled[i].revents == 0) continue;
      auto it = sources.find(polled[i].fd);
      if (!ReadFrom(it->first, it->second)) {
        close_source(it);
        ++closed;
      }
    }
    if (closed > 0) {
      std::lock_guard<std::mutex> lock(mu_);
      open_ -= closed;
      drained_.notify_all();
    }
  }
}

}  // namespace sluice::launcher
