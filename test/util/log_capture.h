// Captures log lines for tests.
//
//   TEST(FooTest, WarnsOnRetry) {
//     test_util::ScopedLogCapture capture;
//     Foo();
//     ASSERT_EQ(capture.entries().size(), 1u);
//     EXPECT_EQ(capture.entries()[0].first, LogSeverity::kWarning);
//   }
//
// As a fixture member it captures for the whole test, SetUp and TearDown
// included. Captures nest: each restores what it found, so they must end in
// the reverse order of their construction, as locals and members do.

#ifndef SLUICE_TEST_UTIL_LOG_CAPTURE_H_
#define SLUICE_TEST_UTIL_LOG_CAPTURE_H_

#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/support/logging.h"

namespace sluice {
// Not `testing`: inside namespace sluice that name would hide ::testing.
namespace test_util {

class ScopedLogCapture : public LogSink {
 public:
  // A captured line's severity and its formatted text, without the trailing
  // newline.
  using Entry = std::pair<LogSeverity, std::string>;

  // Saves the minimum log level and the installed sink, then sets the level
  // to INFO and installs this capture.
  ScopedLogCapture();
  ScopedLogCapture(const ScopedLogCapture&) = delete;
  ScopedLogCapture& operator=(const ScopedLogCapture&) = delete;
  // Reinstalls the saved sink, then restores the saved level.
  ~ScopedLogCapture() override;

  void Send(LogSeverity severity, std::string_view formatted_line) override;

  // Snapshots of what has been captured so far, in order; safe to call while
  // other threads log.
  std::vector<Entry> entries() const;
  std::vector<std::string> lines() const;

 private:
  LogSeverity saved_level_;
  LogSink* previous_sink_ = nullptr;
  mutable std::mutex mutex_;
  std::vector<Entry> entries_;
};

}  // namespace test_util
}  // namespace sluice

#endif  // SLUICE_TEST_UTIL_LOG_CAPTURE_H_
