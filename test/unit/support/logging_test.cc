#include "sluice/support/logging.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <ctime>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "test/util/log_capture.h"

namespace sluice {
namespace {

// Group 1: level letter, 2-7: date and time fields, 8: microseconds,
// 9: tid, 10: line number, 11: message.
const char kLinePattern[] =
    R"(([IWEF])(\d{4})(\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2})\.(\d{6}) )"
    R"((\d+) logging_test\.cc:(\d+)\] (.*))";

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// Checks `line` against kLinePattern, that its timestamp is close to now and
// its tid is the calling thread's. Returns the message part.
std::string CheckPrefix(const std::string& line, char letter,
                        int expected_line) {
  static const std::regex pattern(kLinePattern);
  std::smatch match;
  if (!std::regex_match(line, match, pattern)) {
    ADD_FAILURE() << "malformed line: " << line;
    return "";
  }
  EXPECT_EQ(match[1].str(), std::string(1, letter));
  tm fields = {};
  fields.tm_year = std::stoi(match[2].str()) - 1900;
  fields.tm_mon = std::stoi(match[3].str()) - 1;
  fields.tm_mday = std::stoi(match[4].str());
  fields.tm_hour = std::stoi(match[5].str());
  fields.tm_min = std::stoi(match[6].str());
  fields.tm_sec = std::stoi(match[7].str());
  fields.tm_isdst = -1;
  double skew = std::difftime(std::time(nullptr), std::mktime(&fields));
  EXPECT_GE(skew, -2.0) << line;
  EXPECT_LE(skew, 60.0) << line;
  EXPECT_EQ(std::stol(match[9].str()), ::syscall(SYS_gettid));
  EXPECT_EQ(std::stoi(match[10].str()), expected_line);
  return match[11].str();
}

class LoggingTest : public ::testing::Test {
 protected:
  test_util::ScopedLogCapture sink_;
};

TEST_F(LoggingTest, PrefixForEachLevel) {
  // clang-format off
  const int info_line = __LINE__; SLUICE_LOG(INFO) << "info " << 1;
  const int warning_line = __LINE__; SLUICE_LOG(WARNING) << "warning " << 2;
  const int error_line = __LINE__; SLUICE_LOG(ERROR) << "error " << 3;
  // clang-format on

  auto entries = sink_.entries();
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].first, LogSeverity::kInfo);
  EXPECT_EQ(entries[1].first, LogSeverity::kWarning);
  EXPECT_EQ(entries[2].first, LogSeverity::kError);
  EXPECT_EQ(CheckPrefix(entries[0].second, 'I', info_line), "info 1");
  EXPECT_EQ(CheckPrefix(entries[1].second, 'W', warning_line), "warning 2");
  EXPECT_EQ(CheckPrefix(entries[2].second, 'E', error_line), "error 3");
}

TEST_F(LoggingTest, StderrGetsOneTerminatedLine) {
  SetLogSink(nullptr);
  testing::internal::CaptureStderr();
  // clang-format off
  const int line = __LINE__; SLUICE_LOG(WARNING) << "to stderr " << 4.5;
  // clang-format on
  std::string output = testing::internal::GetCapturedStderr();

  ASSERT_FALSE(output.empty());
  EXPECT_EQ(output.back(), '\n');
  output.pop_back();
  EXPECT_EQ(output.find('\n'), std::string::npos) << output;
  EXPECT_EQ(CheckPrefix(output, 'W', line), "to stderr 4.5");
}

TEST_F(LoggingTest, SetLogSinkReturnsPreviousAndNullRestoresStderr) {
  EXPECT_EQ(SetLogSink(nullptr), &sink_);
  testing::internal::CaptureStderr();
  SLUICE_LOG(INFO) << "back on stderr";
  std::string output = testing::internal::GetCapturedStderr();
  EXPECT_NE(output.find("] back on stderr\n"), std::string::npos) << output;
  EXPECT_TRUE(sink_.entries().empty());
}

TEST_F(LoggingTest, LogIfEvaluatesOperandsOnlyWhenTrue) {
  int evaluated = 0;
  auto bump = [&evaluated] { return ++evaluated; };

  SLUICE_LOG_IF(INFO, false) << "never " << bump();
  EXPECT_EQ(evaluated, 0);
  EXPECT_TRUE(sink_.entries().empty());

  SLUICE_LOG_IF(INFO, 2 > 1) << "counted " << bump();
  EXPECT_EQ(evaluated, 1);
  ASSERT_EQ(sink_.lines().size(), 1u);
  EXPECT_NE(sink_.lines()[0].find("] counted 1"), std::string::npos);
}

TEST_F(LoggingTest, LogsInsideIfElseWithoutBraces) {
  bool flag = false;
  if (flag)
    SLUICE_LOG(INFO) << "then";
  else
    SLUICE_LOG(INFO) << "else";
  ASSERT_EQ(sink_.lines().size(), 1u);
  EXPECT_NE(sink_.lines()[0].find("] else"), std::string::npos);
}

TEST_F(LoggingTest, MinLevelFilters) {
  int evaluated = 0;
  auto bump = [&evaluated] { return ++evaluated; };

  SetMinLogLevel(LogSeverity::kWarning);
  EXPECT_EQ(MinLogLevel(), LogSeverity::kWarning);
  SLUICE_LOG(INFO) << bump();
  SLUICE_LOG_IF(INFO, bump() > 0) << "condition skipped too";
  EXPECT_EQ(evaluated, 0);
  SLUICE_LOG(WARNING) << "warning " << bump();
  SLUICE_LOG(ERROR) << "error " << bump();
  EXPECT_EQ(evaluated, 2);

  SetMinLogLevel(LogSeverity::kFatal);
  SLUICE_LOG(ERROR) << bump();
  EXPECT_EQ(evaluated, 2);

  auto entries = sink_.entries();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].first, LogSeverity::kWarning);
  EXPECT_EQ(entries[1].first, LogSeverity::kError);
}

TEST(ParseMinLogLevelTest, ClampsAndRejectsMalformedText) {
  EXPECT_EQ(internal::ParseMinLogLevel(nullptr), 0);
  EXPECT_EQ(internal::ParseMinLogLevel(""), 0);
  EXPECT_EQ(internal::ParseMinLogLevel("0"), 0);
  EXPECT_EQ(internal::ParseMinLogLevel("2"), 2);
  EXPECT_EQ(internal::ParseMinLogLevel("3"), 3);
  EXPECT_EQ(internal::ParseMinLogLevel("9"), 3);
  EXPECT_EQ(internal::ParseMinLogLevel("-4"), 0);
  EXPECT_EQ(internal::ParseMinLogLevel("warning"), 0);
  EXPECT_EQ(internal::ParseMinLogLevel("1x"), 0);
}

TEST_F(LoggingTest, DlogFollowsNdebug) {
  int evaluated = 0;
  auto bump = [&evaluated] { return ++evaluated; };
  SLUICE_DLOG(INFO) << "debug " << bump();
  SLUICE_DCHECK(bump() > 0) << "debug check";
#ifdef NDEBUG
  EXPECT_EQ(evaluated, 0);
  EXPECT_TRUE(sink_.entries().empty());
#else
  EXPECT_EQ(evaluated, 2);
  ASSERT_EQ(sink_.lines().size(), 1u);
  EXPECT_NE(sink_.lines()[0].find("] debug 1"), std::string::npos);
#endif
}

TEST_F(LoggingTest, CheckEvaluatesConditionOnceAndPasses) {
  int evaluated = 0;
  SLUICE_CHECK(++evaluated == 1) << "unused";
  EXPECT_EQ(evaluated, 1);
  EXPECT_TRUE(sink_.entries().empty());
}

// A sink that logs must not deadlock; its nested line goes to stderr.
class ReentrantSink : public LogSink {
 public:
  void Send(LogSeverity, std::string_view) override {
    ++calls_;
    SLUICE_LOG(INFO) << "nested from sink";
  }
  int calls_ = 0;
};

TEST_F(LoggingTest, SinkThatLogsWritesNestedLineToStderr) {
  ReentrantSink reentrant;
  SetLogSink(&reentrant);
  testing::internal::CaptureStderr();
  SLUICE_LOG(INFO) << "outer";
  std::string output = testing::internal::GetCapturedStderr();
  SetLogSink(&sink_);
  EXPECT_EQ(reentrant.calls_, 1);
  EXPECT_NE(output.find("] nested from sink\n"), std::string::npos) << output;
}

TEST_F(LoggingTest, ConcurrentLinesStayWhole) {
  constexpr int kThreads = 8;
  constexpr int kLinesPerThread = 300;
  const std::string payload(200, 'x');

  SetLogSink(nullptr);
  testing::internal::CaptureStderr();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &payload] {
      for (int i = 0; i < kLinesPerThread; ++i) {
        SLUICE_LOG(INFO) << "t" << t << " i" << i << " " << payload;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  std::string output = testing::internal::GetCapturedStderr();

  const std::regex pattern(kLinePattern);
  const std::regex message(R"(t(\d+) i(\d+) x{200})");
  std::set<std::pair<int, int>> seen;
  for (const std::string& line : SplitLines(output)) {
    std::smatch match;
    ASSERT_TRUE(std::regex_match(line, match, pattern)) << line;
    std::string text = match[11].str();
    std::smatch parts;
    ASSERT_TRUE(std::regex_match(text, parts, message)) << line;
    seen.emplace(std::stoi(parts[1].str()), std::stoi(parts[2].str()));
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(kThreads * kLinesPerThread));
}

TEST_F(LoggingTest, SwappingSinksWhileLoggingLosesNoLines) {
  constexpr int kThreads = 4;
  constexpr int kLinesPerThread = 500;
  // Installs itself in place of sink_; the swapper alternates from here on.
  test_util::ScopedLogCapture other;
  std::atomic<bool> done{false};

  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([] {
      for (int i = 0; i < kLinesPerThread; ++i) SLUICE_LOG(INFO) << i;
    });
  }
  std::thread swapper([&] {
    bool use_other = true;
    while (!done.load()) {
      SetLogSink(use_other ? &other : &sink_);
      use_other = !use_other;
    }
  });
  for (auto& thread : threads) thread.join();
  done = true;
  swapper.join();
  SetLogSink(&sink_);

  EXPECT_EQ(sink_.entries().size() + other.entries().size(),
            static_cast<size_t>(kThreads * kLinesPerThread));
}

class LoggingDeathTest : public LoggingTest {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(LoggingDeathTest, CheckFailureDiesWithConditionAndMessage) {
  int value = 2;
  EXPECT_DEATH(SLUICE_CHECK(value + 1 == 4) << "value was " << value,
               "check failed: value \\+ 1 == 4 value was 2");
  EXPECT_DEATH(SLUICE_CHECK(value == 3), "check failed: value == 3");
}

TEST_F(LoggingDeathTest, FatalWritesPrefixedLineToStderrEvenWithSink) {
  EXPECT_DEATH(SLUICE_LOG(FATAL) << "fatal " << 42,
               "F[0-9]{8} [0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6} [0-9]+ "
               "logging_test\\.cc:[0-9]+\\] fatal 42");
}

TEST_F(LoggingDeathTest, DcheckAndDfatalFollowNdebug) {
#ifdef NDEBUG
  SLUICE_DCHECK(1 == 2) << "ignored";
  SLUICE_LOG(DFATAL) << "downgraded";
  auto entries = sink_.entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].first, LogSeverity::kError);
  EXPECT_NE(entries[0].second.find("] downgraded"), std::string::npos);
#else
  EXPECT_DEATH(SLUICE_DCHECK(1 == 2) << "debug", "check failed: 1 == 2 debug");
  EXPECT_DEATH(SLUICE_LOG(DFATAL) << "dfatal", "F[0-9]{8} .*\\] dfatal");
#endif
}

// A function whose last statement is a FATAL log needs no return: the
// compiler must see that it does not return.
int NeverReturns() { SLUICE_LOG(FATAL) << "unreachable"; }

TEST_F(LoggingDeathTest, FatalIsNoreturn) {
  EXPECT_DEATH(NeverReturns(), "unreachable");
}

}  // namespace
}  // namespace sluice
