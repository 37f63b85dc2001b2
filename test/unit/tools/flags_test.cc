// The tools' flag parser: the spellings LLVM's parser took (which scripts
// and tests still use), lists, aliases, positional arguments, its errors
// and the layout of --help.
#include "tools/common/flags.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice::tools {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

struct ToolFlags {
  FlagSet set;
  Flag<std::string> name{set, "name", "a string"};
  Flag<std::string> queue{set, "work_queue_type", "a string with an alias",
                          "mstd", Alias("work_queue")};
  Flag<std::string> address{set, "address", "a deprecated spelling",
                            "127.0.0.1:0", DeprecatedAlias("bind")};
  Flag<bool> verbose{set, "verbose", "a bool"};
  Flag<int> count{set, "count", "an int", 3, InRange(1, 8)};
  Flag<int> plain{set, "plain", "an int without a range", 0};
  Flag<int64_t> bytes{set, "bytes", "an int64", int64_t{1} << 40};
  Flag<uint64_t> seed{set, "seed", "an unsigned", 1};
  Flag<double> seconds{set, "seconds", "a double", 5.0, InRange(0.0, 60.0)};
  Flag<std::vector<std::string>> plugins{
      set, "plugin", "a list", {}, ValueName("path.so")};
  Flag<std::vector<std::string>> functions{
      set, "functions", "a comma-separated list", {}, CommaSeparated()};
};

absl::StatusOr<FlagSet::Parsed> Parse(FlagSet& set,
                                      std::vector<std::string> args) {
  return set.Parse("my_tool", args);
}

// The message of the error Parse returns, or "" when it parsed.
std::string ErrorOf(FlagSet& set, std::vector<std::string> args) {
  absl::StatusOr<FlagSet::Parsed> parsed = Parse(set, std::move(args));
  if (parsed.ok()) return "";
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(parsed.status().message());
}

// The error of `args` on a fresh ToolFlags.
std::string ToolError(std::vector<std::string> args) {
  ToolFlags flags;
  return ErrorOf(flags.set, std::move(args));
}

TEST(FlagsTest, DefaultsStandUntilGiven) {
  ToolFlags flags;
  ASSERT_TRUE(Parse(flags.set, {}).ok());
  EXPECT_EQ(*flags.name, "");
  EXPECT_EQ(*flags.queue, "mstd");
  EXPECT_FALSE(*flags.verbose);
  EXPECT_EQ(*flags.count, 3);
  EXPECT_EQ(*flags.bytes, int64_t{1} << 40);
  EXPECT_EQ(*flags.seconds, 5.0);
  EXPECT_THAT(*flags.plugins, IsEmpty());
  EXPECT_FALSE(flags.name.given());
  EXPECT_FALSE(flags.count.given());
}

TEST(FlagsTest, TakesEverySpellingOfAValue) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{
           {"-name=x"}, {"--name=x"}, {"--name", "x"}, {"-name", "x"}}) {
    ToolFlags flags;
    ASSERT_TRUE(Parse(flags.set, args).ok()) << args[0];
    EXPECT_EQ(*flags.name, "x") << args[0];
    EXPECT_TRUE(flags.name.given());
    EXPECT_EQ(flags.name.occurrences(), 1);
  }
}

TEST(FlagsTest, ASeparateValueIsTakenWhateverItLooksLike) {
  ToolFlags flags;
  ASSERT_TRUE(Parse(flags.set, {"--plain", "-1", "--name", "--verbose"}).ok());
  EXPECT_EQ(*flags.plain, -1);
  EXPECT_EQ(*flags.name, "--verbose");
  EXPECT_FALSE(*flags.verbose);
}

TEST(FlagsTest, ValuesMayBeEmptyOrHoldEqualsSigns) {
  ToolFlags flags;
  ASSERT_TRUE(Parse(flags.set, {"--name=a=b", "--work_queue_type="}).ok());
  EXPECT_EQ(*flags.name, "a=b");
  EXPECT_EQ(*flags.queue, "");
}

TEST(FlagsTest, BooleansAreBareOrTrueOrFalse) {
  {
    ToolFlags flags;
    ASSERT_TRUE(Parse(flags.set, {"--verbose"}).ok());
    EXPECT_TRUE(*flags.verbose);
  }
  for (const char* yes : {"true", "True", "TRUE", "1"}) {
    ToolFlags flags;
    ASSERT_TRUE(Parse(flags.set, {std::string("-verbose=") + yes}).ok());
    EXPECT_TRUE(*flags.verbose) << yes;
  }
  for (const char* no : {"false", "False", "FALSE", "0"}) {
    ToolFlags flags;
    ASSERT_TRUE(Parse(flags.set, {std::string("--verbose=") + no}).ok());
    EXPECT_FALSE(*flags.verbose) << no;
  }
  // A boolean takes no separate value: the next argument is positional.
  EXPECT_EQ(ToolError({"--verbose", "false"}), "unexpected argument 'false'");
  EXPECT_EQ(ToolError({"--verbose=maybe"}),
            "--verbose=maybe is neither true nor false");
}

TEST(FlagsTest, ParsesNumbers) {
  ToolFlags flags;
  ASSERT_TRUE(
      Parse(flags.set, {"--count=8", "--bytes=-9000000000",
                        "--seed=18446744073709551615", "--seconds=1e-3"})
          .ok());
  EXPECT_EQ(*flags.count, 8);
  EXPECT_EQ(*flags.bytes, -9000000000);
  EXPECT_EQ(*flags.seed, UINT64_MAX);
  EXPECT_EQ(*flags.seconds, 0.001);
}

TEST(FlagsTest, RefusesValuesOfTheWrongType) {
  EXPECT_EQ(ToolError({"--plain=two"}), "--plain=two is not an integer");
  EXPECT_EQ(ToolError({"--plain=1.5"}), "--plain=1.5 is not an integer");
  EXPECT_EQ(ToolError({"--plain="}), "--plain= is not an integer");
  EXPECT_EQ(ToolError({"--plain=2147483648"}),
            "--plain=2147483648 is out of range: expected -2147483648 to "
            "2147483647");
  EXPECT_EQ(ToolError({"--bytes=99999999999999999999"}),
            "--bytes=99999999999999999999 is out of range: expected "
            "-9223372036854775808 to 9223372036854775807");
  EXPECT_EQ(ToolError({"--seed=-1"}),
            "--seed=-1 is out of range: expected 0 to 18446744073709551615");
  EXPECT_EQ(ToolError({"--seconds=soon"}),
            "--seconds=soon is not a number: expected 0 to 60");
  // A range adds itself to the message of a value that is no number.
  EXPECT_EQ(ToolError({"--count=many"}),
            "--count=many is not an integer: expected 1 to 8");
}

TEST(FlagsTest, RefusesValuesOutOfRange) {
  EXPECT_EQ(ToolError({"--count=0"}),
            "--count=0 is out of range: expected 1 to 8");
  EXPECT_EQ(ToolError({"--count=2147483647"}),
            "--count=2147483647 is out of range: expected 1 to 8");
  EXPECT_EQ(ToolError({"--count=99999999999999999999"}),
            "--count=99999999999999999999 is out of range: expected 1 to 8");
  EXPECT_EQ(ToolError({"--seconds=nan"}),
            "--seconds=nan is not a number: expected 0 to 60");
  EXPECT_EQ(ToolError({"--seconds=inf"}),
            "--seconds=inf is out of range: expected 0 to 60");
  EXPECT_EQ(ToolError({"--seconds=1e400"}),
            "--seconds=inf is out of range: expected 0 to 60");
  EXPECT_EQ(ToolError({"--seconds=-0.5"}),
            "--seconds=-0.5 is out of range: expected 0 to 60");
}

TEST(FlagsTest, TheLastValueWinsAndAListTakesEveryValue) {
  ToolFlags flags;
  ASSERT_TRUE(Parse(flags.set, {"--name=a", "--name=b", "--work_queue=s",
                                "--work_queue_type=mstd:2"})
                  .ok());
  EXPECT_EQ(*flags.name, "b");
  EXPECT_EQ(flags.name.occurrences(), 2);
  EXPECT_EQ(*flags.queue, "mstd:2");
  // Each value is checked, the first too.
  EXPECT_EQ(ToolError({"--count=0", "--count=2"}),
            "--count=0 is out of range: expected 1 to 8");
  ToolFlags lists;
  ASSERT_TRUE(Parse(lists.set, {"--plugin=a.so", "--plugin", "b,c.so",
                                "--functions=f,g", "--functions", "h"})
                  .ok());
  EXPECT_THAT(*lists.plugins, ElementsAre("a.so", "b,c.so"));
  EXPECT_THAT(*lists.functions, ElementsAre("f", "g", "h"));
  EXPECT_EQ(lists.plugins.occurrences(), 2);
}

TEST(FlagsTest, AliasesSetTheirFlag) {
  ToolFlags flags;
  absl::StatusOr<FlagSet::Parsed> parsed =
      Parse(flags.set, {"--work_queue=mstd:2"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*flags.queue, "mstd:2");
  EXPECT_TRUE(flags.queue.given());
  EXPECT_THAT(parsed->warnings, IsEmpty());
}

TEST(FlagsTest, ADeprecatedAliasWarns) {
  ToolFlags flags;
  absl::StatusOr<FlagSet::Parsed> parsed =
      Parse(flags.set, {"-bind", "127.0.0.1:1"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*flags.address, "127.0.0.1:1");
  EXPECT_THAT(parsed->warnings,
              ElementsAre("--bind is deprecated; use --address"));
}

TEST(FlagsTest, RefusesUnknownFlagsAndMissingValues) {
  EXPECT_EQ(ToolError({"--foo"}),
            "unknown flag '--foo' (try 'my_tool --help')");
  EXPECT_EQ(ToolError({"-no_such_flag=3"}),
            "unknown flag '-no_such_flag' (try 'my_tool --help')");
  EXPECT_EQ(ToolError({"--=3"}), "unknown flag '--' (try 'my_tool --help')");
  // Only whole names: no prefixes, no other case.
  EXPECT_THAT(ToolError({"--nam=x"}), HasSubstr("unknown flag"));
  EXPECT_THAT(ToolError({"--Name=x"}), HasSubstr("unknown flag"));
  EXPECT_EQ(ToolError({"--name"}), "--name needs a value");
  EXPECT_EQ(ToolError({"--work_queue"}), "--work_queue needs a value");
}

TEST(FlagsTest, TakesOnePositionalArgument) {
  struct RunFlags {
    FlagSet set;
    PositionalArg input{set, "<program.mlir>", "-"};
    Flag<bool> verbose{set, "verbose", "a bool"};
  };
  RunFlags defaults;
  ASSERT_TRUE(Parse(defaults.set, {"--verbose"}).ok());
  EXPECT_EQ(*defaults.input, "-");
  EXPECT_FALSE(defaults.input.given());

  RunFlags given;
  ASSERT_TRUE(Parse(given.set, {"a.mlir", "--verbose"}).ok());
  EXPECT_EQ(*given.input, "a.mlir");
  EXPECT_TRUE(given.input.given());
  EXPECT_TRUE(*given.verbose);

  // "-" is standard input, not a flag.
  RunFlags stdin_input;
  ASSERT_TRUE(Parse(stdin_input.set, {"-"}).ok());
  EXPECT_EQ(*stdin_input.input, "-");
  EXPECT_TRUE(stdin_input.input.given());

  // After "--", an argument that looks like a flag is positional.
  RunFlags dashes;
  ASSERT_TRUE(Parse(dashes.set, {"--", "--verbose"}).ok());
  EXPECT_EQ(*dashes.input, "--verbose");
  EXPECT_FALSE(*dashes.verbose);

  RunFlags two;
  EXPECT_EQ(ErrorOf(two.set, {"a.mlir", "b.mlir"}),
            "unexpected argument 'b.mlir'");
  EXPECT_EQ(ToolError({"a.mlir"}), "unexpected argument 'a.mlir'");
}

TEST(FlagsTest, TrailingArgsTakeEverythingAfterTheDashes) {
  struct LaunchFlags {
    FlagSet set;
    Flag<int> nproc{set, "nproc", "ranks", 0};
    TrailingArgs command{set, "command args..."};
  };
  LaunchFlags flags;
  ASSERT_TRUE(
      Parse(flags.set, {"--nproc=2", "--", "./train", "--nproc=9", "--", "-x"})
          .ok());
  EXPECT_EQ(*flags.nproc, 2);
  EXPECT_THAT(*flags.command, ElementsAre("./train", "--nproc=9", "--", "-x"));

  LaunchFlags empty;
  ASSERT_TRUE(Parse(empty.set, {"--nproc=2"}).ok());
  EXPECT_THAT(*empty.command, IsEmpty());
  // Before "--", a word is no command.
  LaunchFlags early;
  EXPECT_EQ(ErrorOf(early.set, {"./train", "--", "x"}),
            "unexpected argument './train'");
}

TEST(FlagsTest, StopsAtHelpAndVersion) {
  for (const char* help : {"--help", "-help"}) {
    ToolFlags flags;
    absl::StatusOr<FlagSet::Parsed> parsed =
        Parse(flags.set, {"--name=x", help, "--no_such_flag"});
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(parsed->action, FlagSet::Action::kHelp);
  }
  ToolFlags flags;
  absl::StatusOr<FlagSet::Parsed> parsed = Parse(flags.set, {"--version"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->action, FlagSet::Action::kVersion);
  ToolFlags run;
  parsed = Parse(run.set, {"--name=x"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->action, FlagSet::Action::kRun);
}

TEST(FlagsTest, HelpListsOneFlagALineSortedAndAligned) {
  struct HelpFlags {
    FlagSet set;
    PositionalArg input{set, "<program.mlir>", "-"};
    Flag<std::string> queue{set, "work_queue_type", "the queue", "s",
                            Alias("work_queue")};
    Flag<bool> list{set, "list_kernels", "print the kernels"};
    Flag<int> count{set, "count", "how many", 1, InRange(1, 8)};
    Flag<double> timeout{set, "timeout", "seconds", 0.0};
    Flag<std::vector<std::string>> plugins{
        set, "kernel_plugin", "load it", {}, ValueName("path.so")};
  };
  HelpFlags flags;
  const std::string help = flags.set.Help("my_tool", "my_tool: does things\n");
  EXPECT_EQ(help,
            "OVERVIEW: my_tool: does things\n"
            "\n"
            "USAGE: my_tool [options] <program.mlir>\n"
            "\n"
            "OPTIONS:\n"
            "\n"
            "  --count=<int>              - how many (1 to 8)\n"
            "  --help                     - Display available options\n"
            "  --kernel_plugin=<path.so>  - load it\n"
            "  --list_kernels             - print the kernels\n"
            "  --timeout=<number>         - seconds\n"
            "  --version                  - Display the version of this "
            "program\n"
            "  --work_queue_type=<string> - the queue\n");
  EXPECT_THAT(help, Not(HasSubstr("--work_queue=")));

  struct LaunchFlags {
    FlagSet set;
    TrailingArgs command{set, "command args..."};
  };
  LaunchFlags launch;
  const std::vector<std::string> lines =
      absl::StrSplit(launch.set.Help("launch", ""), '\n');
  EXPECT_EQ(lines[0], "USAGE: launch [options] -- command args...");
}

TEST(FlagsDeathTest, RefusesTwoFlagsOfOneName) {
  EXPECT_DEATH(
      {
        FlagSet set;
        Flag<int> first(set, "n", "first");
        Flag<int> second(set, "n", "second");
      },
      "flag 'n' is empty, taken or reserved");
  EXPECT_DEATH(
      {
        FlagSet set;
        Flag<bool> help(set, "help", "mine");
      },
      "flag 'help' is empty, taken or reserved");
}

}  // namespace
}  // namespace sluice::tools
