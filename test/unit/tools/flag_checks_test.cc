// The range checks of numeric flags: their messages, the numbers tools read
// from text, and InRange on real flags, whose tools exit with the flag
// error status.
#include "tools/common/flag_checks.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/common/flags.h"
#include "tools/common/tool_flags.h"

namespace sluice::tools {
namespace {

using ::testing::ExitedWithCode;
using ::testing::Pair;

struct TestFlags {
  FlagSet set;
  Flag<int> ranks{set, "ranks", "ranks to start", 0, InRange(1, 8)};
  Flag<double> timeout{set, "timeout_s", "seconds to wait", 5.0,
                       InRange(kMinSeconds, 60.0)};
};

// Parses `args` as a tool's command line, as a tool does: exiting on an
// error.
void Parse(TestFlags& flags, std::vector<std::string> args) {
  args.insert(args.begin(), "flag_checks_test");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  ParseToolCommandLine(static_cast<int>(argv.size()), argv.data(), "my_tool",
                       "", flags.set);
}

TEST(CheckFlagRangeTest, NamesTheFlagTheValueAndTheRange) {
  EXPECT_TRUE(CheckFlagRange("nproc", "4096", int64_t{4096}, 1, 4096).ok());
  absl::Status wide =
      CheckFlagRange("nproc", "2147483647", int64_t{2147483647}, 1, 4096);
  EXPECT_EQ(wide.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(wide.message(),
            "--nproc=2147483647 is out of range: expected 1 to 4096");
  EXPECT_EQ(CheckFlagRange("http_port", "-1", int64_t{-1}, 0, 65535).message(),
            "--http_port=-1 is out of range: expected 0 to 65535");
}

TEST(CheckFlagRangeTest, RefusesNanAndInfinities) {
  EXPECT_TRUE(CheckFlagRange("silent_timeout_s", "0.001", 0.001, kMinSeconds,
                             kMaxSeconds)
                  .ok());
  EXPECT_EQ(CheckFlagRange("silent_timeout_s", "nan",
                           std::numeric_limits<double>::quiet_NaN(),
                           kMinSeconds, kMaxSeconds)
                .message(),
            "--silent_timeout_s=nan is not a number: expected 0.001 to 604800");
  EXPECT_EQ(CheckFlagRange("stuck_timeout_s", "inf",
                           std::numeric_limits<double>::infinity(), kMinSeconds,
                           kMaxSeconds)
                .message(),
            "--stuck_timeout_s=inf is out of range: expected 0.001 to 604800");
  EXPECT_FALSE(
      CheckFlagRange("stuck_timeout_s", "0", 0.0, kMinSeconds, kMaxSeconds)
          .ok());
}

TEST(ParseFlagNumberTest, ParsesAndChecks) {
  absl::StatusOr<double> seconds = ParseFlagNumber(
      "stuck_timeout_s", "2.5", "2.5", kMinSeconds, kMaxSeconds);
  ASSERT_TRUE(seconds.ok()) << seconds.status();
  EXPECT_EQ(*seconds, 2.5);
  EXPECT_EQ(
      ParseFlagNumber("stuck_timeout_s", "ten", "ten", kMinSeconds, kMaxSeconds)
          .status()
          .message(),
      "--stuck_timeout_s=ten is not a number: expected 0.001 to 604800");
  // Too large for a double: an infinity, out of range.
  EXPECT_EQ(ParseFlagNumber("stuck_timeout_s", "1e400", "1e400", kMinSeconds,
                            kMaxSeconds)
                .status()
                .message(),
            "--stuck_timeout_s=1e400 is out of range: expected 0.001 to "
            "604800");
}

TEST(ParseNamedFlagNumberTest, SplitsAtTheLastColon) {
  auto kind = ParseNamedFlagNumber("step_kind", "first:120", "KIND:SECONDS",
                                   kMinSeconds, kMaxSeconds);
  ASSERT_TRUE(kind.ok()) << kind.status();
  EXPECT_THAT(*kind, Pair("first", 120.0));
  for (const char* malformed : {"first", ":120"}) {
    EXPECT_EQ(ParseNamedFlagNumber("step_kind", malformed, "KIND:SECONDS",
                                   kMinSeconds, kMaxSeconds)
                  .status()
                  .message(),
              absl::StrCat("--step_kind=", malformed,
                           ": expected KIND:SECONDS, SECONDS 0.001 to 604800"));
  }
  EXPECT_EQ(ParseNamedFlagNumber("step_kind", "first:nan", "KIND:SECONDS",
                                 kMinSeconds, kMaxSeconds)
                .status()
                .message(),
            "--step_kind=first:nan is not a number: expected 0.001 to 604800");
}

TEST(InRangeTest, AcceptsValuesInRangeAndLeavesDefaultsAlone) {
  TestFlags given;
  Parse(given, {"--ranks=8", "--timeout_s=0.5"});
  EXPECT_EQ(*given.ranks, 8);
  EXPECT_EQ(*given.timeout, 0.5);
  // A default outside the range (0 here) is the tool's to interpret.
  TestFlags defaults;
  Parse(defaults, {});
  EXPECT_EQ(*defaults.ranks, 0);
}

TEST(InRangeTest, ShowsTheRangeInTheHelp) {
  TestFlags flags;
  EXPECT_EQ(flags.ranks.description(), "ranks to start (1 to 8)");
  EXPECT_EQ(flags.timeout.description(), "seconds to wait (0.001 to 60)");
}

TEST(WithRangeTest, AppendsTheRange) {
  EXPECT_EQ(WithRange("seconds", kMinSeconds, kMaxSeconds),
            "seconds (0.001 to 604800)");
  EXPECT_EQ(WithRange("", 1, 8), "1 to 8");
}

TEST(InRangeDeathTest, ExitsWithTheToolsMessage) {
  TestFlags flags;
  EXPECT_EXIT(Parse(flags, {"--ranks=2147483647"}), ExitedWithCode(1),
              "my_tool: --ranks=2147483647 is out of range: expected 1 to 8");
  EXPECT_EXIT(Parse(flags, {"--ranks=0"}), ExitedWithCode(1),
              "my_tool: --ranks=0 is out of range: expected 1 to 8");
  EXPECT_EXIT(Parse(flags, {"--timeout_s=nan"}), ExitedWithCode(1),
              "my_tool: --timeout_s=nan is not a number: expected 0.001 to 60");
  EXPECT_EXIT(Parse(flags, {"--timeout_s=-inf"}), ExitedWithCode(1),
              "--timeout_s=-inf is out of range");
}

TEST(InRangeDeathTest, ExitsWithTheStatusTheToolSet) {
  TestFlags flags;
  EXPECT_EXIT(
      {
        SetFlagErrorExitCode(2);
        Parse(flags, {"--ranks=9"});
      },
      ExitedWithCode(2), "--ranks=9 is out of range: expected 1 to 8");
}

}  // namespace
}  // namespace sluice::tools
