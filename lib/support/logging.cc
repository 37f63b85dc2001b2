#include "sluice/support/logging.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace sluice {
namespace internal {

std::atomic<int> min_log_level{-1};

}  // namespace internal

namespace {

constexpr int kMinLevel = static_cast<int>(LogSeverity::kInfo);
constexpr int kMaxLevel = static_cast<int>(LogSeverity::kFatal);

// Leaked on purpose: objects destroyed during static destruction may still
// log, and the mutex must outlive them.
std::mutex& SinkMutex() {
  static std::mutex* mutex = new std::mutex;
  return *mutex;
}

// Read without the mutex so the common no-sink case never locks; the mutex
// is what guarantees a replaced sink is no longer in use.
std::atomic<LogSink*> current_sink{nullptr};

// Set while this thread is inside LogSink::Send, so a sink that logs gets
// its lines on stderr instead of deadlocking on SinkMutex.
thread_local bool in_sink = false;

char SeverityLetter(LogSeverity severity) {
  switch (severity) {
    case LogSeverity::kInfo:
      return 'I';
    case LogSeverity::kWarning:
      return 'W';
    case LogSeverity::kError:
      return 'E';
    case LogSeverity::kFatal:
      return 'F';
  }
  return '?';
}

const char* Basename(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash == nullptr ? path : slash + 1;
}

void WriteToStderr(std::string_view data) {
  while (!data.empty()) {
    ssize_t written = ::write(STDERR_FILENO, data.data(), data.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return;  // Nowhere left to report a failure to write the log.
    }
    data.remove_prefix(static_cast<size_t>(written));
  }
}

void AppendPrefix(LogSeverity severity, const char* file, int line,
                  std::string* out) {
  timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  tm local;
  localtime_r(&now.tv_sec, &local);
  // The tid is fetched per message rather than cached: a cached value would
  // be stale in a forked child, such as a death test.
  long tid = ::syscall(SYS_gettid);

  char buffer[64];
  int length = std::snprintf(
      buffer, sizeof(buffer), "%c%04d%02d%02d %02d:%02d:%02d.%06ld %ld ",
      SeverityLetter(severity), local.tm_year + 1900, local.tm_mon + 1,
      local.tm_mday, local.tm_hour, local.tm_min, local.tm_sec,
      static_cast<long>(now.tv_nsec / 1000), tid);
  if (length > 0) {
    out->append(buffer,
                std::min(static_cast<size_t>(length), sizeof(buffer) - 1));
  }
  out->append(Basename(file));
  out->push_back(':');
  out->append(std::to_string(line));
  out->append("] ");
}

}  // namespace

LogSink::~LogSink() = default;

LogSink* SetLogSink(LogSink* sink) {
  std::lock_guard<std::mutex> lock(SinkMutex());
  return current_sink.exchange(sink, std::memory_order_acq_rel);
}

void SetMinLogLevel(LogSeverity severity) {
  internal::min_log_level.store(static_cast<int>(severity),
                                std::memory_order_relaxed);
}

LogSeverity MinLogLevel() {
  int level = internal::min_log_level.load(std::memory_order_relaxed);
  if (level < 0) level = internal::InitMinLogLevel();
  return static_cast<LogSeverity>(level);
}

namespace internal {

int ParseMinLogLevel(const char* text) {
  if (text == nullptr || *text == '\0') return kMinLevel;
  char* end = nullptr;
  errno = 0;
  long value = std::strtol(text, &end, 10);
  if (errno != 0 || *end != '\0') return kMinLevel;
  if (value < kMinLevel) return kMinLevel;
  if (value > kMaxLevel) return kMaxLevel;
  return static_cast<int>(value);
}

int InitMinLogLevel() {
  int from_env = ParseMinLogLevel(std::getenv("SLUICE_MIN_LOG_LEVEL"));
  // Loses to a concurrent SetMinLogLevel, which must take precedence.
  int expected = -1;
  min_log_level.compare_exchange_strong(expected, from_env,
                                        std::memory_order_relaxed);
  return min_log_level.load(std::memory_order_relaxed);
}

LogMessage::LogMessage(const char* file, int line, LogSeverity severity)
    : LogMessage(file, line, severity, nullptr) {}

LogMessage::LogMessage(const char* file, int line, LogSeverity severity,
                       const char* failed_condition)
    : file_(file),
      line_(line),
      severity_(severity),
      failed_condition_(failed_condition) {}

LogMessage::~LogMessage() { Emit(); }

void LogMessage::Emit() {
  std::string body = stream_.str();
  std::string line;
  line.reserve(64 + body.size());
  AppendPrefix(severity_, file_, line_, &line);
  if (failed_condition_ != nullptr) {
    line.append("check failed: ");
    line.append(failed_condition_);
    if (!body.empty()) line.push_back(' ');
  }
  line.append(body);

  bool sent = false;
  if (!in_sink && current_sink.load(std::memory_order_acquire) != nullptr) {
    std::lock_guard<std::mutex> lock(SinkMutex());
    // Re-read under the lock: the sink may have been replaced meanwhile.
    if (LogSink* sink = current_sink.load(std::memory_order_relaxed)) {
      in_sink = true;
      sink->Send(severity_, line);
      in_sink = false;
      sent = true;
    }
  }
  if (!sent || severity_ == LogSeverity::kFatal) {
    line.push_back('\n');
    WriteToStderr(line);
  }
}

LogMessageFatal::LogMessageFatal(const char* file, int line)
    : LogMessage(file, line, LogSeverity::kFatal, nullptr) {}

LogMessageFatal::LogMessageFatal(const char* file, int line,
                                 const char* failed_condition)
    : LogMessage(file, line, LogSeverity::kFatal, failed_condition) {}

LogMessageFatal::~LogMessageFatal() {
  Emit();
  std::abort();
}

}  // namespace internal
}  // namespace sluice
