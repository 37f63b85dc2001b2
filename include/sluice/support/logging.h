// Line-oriented logging and checks for the runtime.
//
//   SLUICE_LOG(INFO) << "loaded " << n << " functions";
//   SLUICE_LOG_IF(WARNING, retries > 3) << "slow peer " << peer;
//   SLUICE_CHECK(ptr != nullptr) << "no frame for " << name;
//
// Severities are INFO, WARNING, ERROR, FATAL and DFATAL (FATAL in debug
// builds, ERROR when NDEBUG is defined). FATAL writes its line and aborts.
//
// Each message becomes one line, emitted with a single write so that lines
// from concurrent threads never interleave:
//
//   I20261122 15:27:45.123456 12345 file.cc:42] message
//
// This header is included almost everywhere, so it pulls in only <sstream>
// and what the fast path needs.

#ifndef SLUICE_SUPPORT_LOGGING_H_
#define SLUICE_SUPPORT_LOGGING_H_

#include <atomic>
#include <sstream>
#include <string_view>

namespace sluice {

enum class LogSeverity : int {
  kInfo = 0,
  kWarning = 1,
  kError = 2,
  kFatal = 3,
};

// Receives every emitted line instead of stderr once installed with
// SetLogSink. Calls to Send are serialized, so implementations need no
// locking of their own. A sink must not log from Send: such lines go to
// stderr.
class LogSink {
 public:
  virtual ~LogSink();
  // `formatted_line` is the prefixed line without its trailing newline.
  virtual void Send(LogSeverity severity, std::string_view formatted_line) = 0;
};

// Installs `sink` (nullptr restores stderr) and returns the previous one.
// Once this returns, the previous sink receives no further calls, so the
// caller may destroy it. FATAL lines also go to stderr even with a sink
// installed, because the process is about to die.
LogSink* SetLogSink(LogSink* sink);

// Messages below `severity` are dropped. Overrides SLUICE_MIN_LOG_LEVEL.
// FATAL is never dropped.
void SetMinLogLevel(LogSeverity severity);
LogSeverity MinLogLevel();

namespace internal {

// -1 until the environment has been consulted. Kept visible so the
// enabled-check stays an inline load and compare.
extern std::atomic<int> min_log_level;

// Reads SLUICE_MIN_LOG_LEVEL unless SetMinLogLevel came first; returns the
// effective level.
int InitMinLogLevel();

// Parses a SLUICE_MIN_LOG_LEVEL value: an integer, clamped to 0..3. Null,
// empty or malformed text yields 0 (INFO).
int ParseMinLogLevel(const char* text);

inline bool IsLogEnabled(LogSeverity severity) {
  if (severity == LogSeverity::kFatal) return true;
  int level = min_log_level.load(std::memory_order_relaxed);
  if (__builtin_expect(level < 0, 0)) level = InitMinLogLevel();
  return static_cast<int>(severity) >= level;
}

class LogMessage {
 public:
  LogMessage(const char* file, int line, LogSeverity severity);
  LogMessage(const LogMessage&) = delete;
  LogMessage& operator=(const LogMessage&) = delete;
  ~LogMessage();

  std::ostream& stream() { return stream_; }

 protected:
  LogMessage(const char* file, int line, LogSeverity severity,
             const char* failed_condition);

  // Formats the line and hands it to the sink or stderr.
  void Emit();

 private:
  const char* file_;
  int line_;
  LogSeverity severity_;
  const char* failed_condition_;
  std::ostringstream stream_;
};

class LogMessageFatal : public LogMessage {
 public:
  LogMessageFatal(const char* file, int line);
  // For SLUICE_CHECK: the line reads "check failed: <condition> <stream>".
  LogMessageFatal(const char* file, int line, const char* failed_condition);
  [[noreturn]] ~LogMessageFatal();
};

// Gives the streamed expression type void so it can sit in a conditional
// opposite (void)0. `&` binds looser than `<<` and tighter than `?:`.
class LogMessageVoidify {
 public:
  void operator&(std::ostream&) {}
};

}  // namespace internal
}  // namespace sluice

// `enabled` comes first so a disabled level costs one load and compare, and
// neither the condition nor the operands run.
#define SLUICE_INTERNAL_LOG_IF_IMPL(enabled, condition, message) \
  !((enabled) && (condition))                                    \
      ? static_cast<void>(0)                                     \
      : ::sluice::internal::LogMessageVoidify() & (message).stream()

#define SLUICE_INTERNAL_LOG_IF_LEVEL(level, condition)                \
  SLUICE_INTERNAL_LOG_IF_IMPL(                                        \
      ::sluice::internal::IsLogEnabled(::sluice::LogSeverity::level), \
      condition,                                                      \
      ::sluice::internal::LogMessage(__FILE__, __LINE__,              \
                                     ::sluice::LogSeverity::level))

#define SLUICE_INTERNAL_LOG_IF_INFO(condition) \
  SLUICE_INTERNAL_LOG_IF_LEVEL(kInfo, condition)
#define SLUICE_INTERNAL_LOG_IF_WARNING(condition) \
  SLUICE_INTERNAL_LOG_IF_LEVEL(kWarning, condition)
#define SLUICE_INTERNAL_LOG_IF_ERROR(condition) \
  SLUICE_INTERNAL_LOG_IF_LEVEL(kError, condition)
// FATAL is always enabled; the literal `true` (rather than IsLogEnabled)
// lets compilers see that SLUICE_LOG(FATAL) does not return.
#define SLUICE_INTERNAL_LOG_IF_FATAL(condition) \
  SLUICE_INTERNAL_LOG_IF_IMPL(                  \
      true, condition,                          \
      ::sluice::internal::LogMessageFatal(__FILE__, __LINE__))
#ifdef NDEBUG
#define SLUICE_INTERNAL_LOG_IF_DFATAL(condition) \
  SLUICE_INTERNAL_LOG_IF_ERROR(condition)
#else
#define SLUICE_INTERNAL_LOG_IF_DFATAL(condition) \
  SLUICE_INTERNAL_LOG_IF_FATAL(condition)
#endif

// Neither `condition` nor the streamed operands are evaluated when the
// severity is disabled; the operands are evaluated only when `condition`
// holds.
#define SLUICE_LOG_IF(severity, condition) \
  SLUICE_INTERNAL_LOG_IF_##severity(condition)
#define SLUICE_LOG(severity) SLUICE_LOG_IF(severity, true)

// The condition is always evaluated, exactly once.
#define SLUICE_CHECK(condition)                                     \
  __builtin_expect(static_cast<bool>(condition), 1)                 \
      ? static_cast<void>(0)                                        \
      : ::sluice::internal::LogMessageVoidify() &                   \
            ::sluice::internal::LogMessageFatal(__FILE__, __LINE__, \
                                                #condition)         \
                .stream()

// Debug-only forms. Under NDEBUG the `while (false)` keeps the statement
// compiled, so it still type-checks, but nothing in it runs.
#ifdef NDEBUG
#define SLUICE_DLOG(severity) \
  while (false) SLUICE_LOG(severity)
#define SLUICE_DCHECK(condition) \
  while (false) SLUICE_CHECK(condition)
#else
#define SLUICE_DLOG(severity) SLUICE_LOG(severity)
#define SLUICE_DCHECK(condition) SLUICE_CHECK(condition)
#endif

#endif  // SLUICE_SUPPORT_LOGGING_H_
