// Range checks of numeric flags, the same for every tool and example: a
// value out of range stops the program while it parses its command line,
// before it starts anything, with exit status 1 (see SetFlagErrorExitCode)
// and one line such as
//   sluice_launch: --nproc=2147483647 is out of range: expected 1 to 4096
// nan and the infinities are out of every range (a nan timeout would
// otherwise compare false against everything and never expire).
//
// A flag declares its range where it is declared (flags.h):
//   tools::Flag<int> nproc{set, "nproc", "ranks to start", 0,
//                          tools::InRange(1, kMaxLocalRanks)};
// Only a value given on the command line is checked, so a default that
// means "off" (-1 for no status page) may lie outside the range.
#ifndef SLUICE_TOOLS_COMMON_FLAG_CHECKS_H_
#define SLUICE_TOOLS_COMMON_FLAG_CHECKS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace sluice::tools {

// Ranks one host starts (--nproc, --jobs): past the cores of any machine,
// far below the processes one may fork.
inline constexpr int kMaxLocalRanks = 4096;
// Ranks of a whole job, over all its hosts (--world_size, --nnodes x
// --nproc, --min_replicas).
inline constexpr int kMaxWorldSize = 65536;
// The longest timeout, wait or period: a week. It fits an absl::Duration
// many times over and, in milliseconds, an int (2^31 ms is 24.8 days).
inline constexpr double kMaxSeconds = 7 * 24 * 3600;
inline constexpr int kMaxMilliseconds = 7 * 24 * 3600 * 1000;
// The shortest timeout that must be positive: waits resolve milliseconds.
inline constexpr double kMinSeconds = 0.001;

// OK when min <= value <= max, otherwise InvalidArgument
// "--FLAG=TEXT is out of range: expected MIN to MAX" ("is not a number"
// for nan). `text` is the value as the error shows it.
absl::Status CheckFlagRange(std::string_view flag, std::string_view text,
                            int64_t value, int64_t min, int64_t max);
absl::Status CheckFlagRange(std::string_view flag, std::string_view text,
                            double value, double min, double max);

// Parses `number` as a decimal number and checks it as CheckFlagRange does,
// for numbers a tool reads from text: a flag it passes on as written, or
// the number inside a value (`text`, the whole value, is what errors show).
absl::StatusOr<double> ParseFlagNumber(std::string_view flag,
                                       std::string_view text,
                                       std::string_view number, double min,
                                       double max);

// A value NAME:NUMBER (--step_kind=first:120): the name, which must not be
// empty, and the number after the last ':', checked as ParseFlagNumber does.
// `form` names the two parts for the error of a value without them
// ("KIND:SECONDS").
absl::StatusOr<std::pair<std::string, double>> ParseNamedFlagNumber(
    std::string_view flag, std::string_view text, std::string_view form,
    double min, double max);

// The name flag errors start with. ParseToolCommandLine sets it; until then
// it is the program's file name.
void SetFlagErrorTool(std::string tool);

// The exit status of every flag error (a flag out of range, unknown, or
// whose value does not parse): 1, unless a tool whose flag errors have a
// status of their own sets it before parsing (sluice_launch: 2).
void SetFlagErrorExitCode(int code);

// Prints "TOOL: MESSAGE" on stderr and exits with the flag error status.
[[noreturn]] void ExitWithFlagError(const absl::Status& error);

// `description` followed by " (MIN to MAX)": the help of a flag whose
// number the tool reads from text, as InRange writes it for numeric flags.
template <typename T>
std::string WithRange(std::string_view description, T min, T max) {
  std::string range = absl::StrCat(min, " to ", max);
  if (description.empty()) return range;
  return absl::StrCat(absl::string_view(description.data(), description.size()),
                      " (", range, ")");
}

// A modifier of a numeric Flag (flags.h): the flag refuses, as it parses,
// a value outside [min, max] (nan included) with CheckFlagRange's message,
// and its --help text ends with " (MIN to MAX)".
template <typename T>
struct InRange {
  static_assert(std::is_arithmetic_v<T> && std::is_signed_v<T>,
                "a range of signed integers or of floating point");

  constexpr InRange(T min, T max) : min(min), max(max) {}

  T min;
  T max;
};

}  // namespace sluice::tools

#endif  // SLUICE_TOOLS_COMMON_FLAG_CHECKS_H_
