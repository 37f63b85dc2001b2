#include "tools/common/flag_checks.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/numbers.h"

namespace sluice::tools {
namespace {

std::string& Tool() {
  static auto* const tool = new std::string(program_invocation_short_name);
  return *tool;
}

int& ExitCode() {
  static int code = 1;
  return code;
}

// Abseil's own string_view, which this Abseil does not alias to std's.
absl::string_view Absl(std::string_view text) {
  return absl::string_view(text.data(), text.size());
}

template <typename T>
absl::Status RangeError(std::string_view flag, std::string_view text,
                        std::string_view problem, T min, T max) {
  return absl::InvalidArgumentError(
      absl::StrCat("--", Absl(flag), "=", Absl(text), " ", Absl(problem),
                   ": expected ", min, " to ", max));
}

}  // namespace

absl::Status CheckFlagRange(std::string_view flag, std::string_view text,
                            int64_t value, int64_t min, int64_t max) {
  if (value < min || value > max) {
    return RangeError(flag, text, "is out of range", min, max);
  }
  return absl::OkStatus();
}

absl::Status CheckFlagRange(std::string_view flag, std::string_view text,
                            double value, double min, double max) {
  if (std::isnan(value)) {
    return RangeError(flag, text, "is not a number", min, max);
  }
  if (value < min || value > max) {
    return RangeError(flag, text, "is out of range", min, max);
  }
  return absl::OkStatus();
}

absl::StatusOr<double> ParseFlagNumber(std::string_view flag,
                                       std::string_view text,
                                       std::string_view number, double min,
                                       double max) {
  double value = 0;
  // SimpleAtod takes "inf" and "nan", and turns a number too large for a
  // double into an infinity: CheckFlagRange refuses all three.
  if (!absl::SimpleAtod(Absl(number), &value)) {
    return RangeError(flag, text, "is not a number", min, max);
  }
  if (absl::Status valid = CheckFlagRange(flag, text, value, min, max);
      !valid.ok()) {
    return valid;
  }
  return value;
}

absl::StatusOr<std::pair<std::string, double>> ParseNamedFlagNumber(
    std::string_view flag, std::string_view text, std::string_view form,
    double min, double max) {
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    // "KIND:SECONDS, SECONDS 0.001 to 604800".
    const std::string_view number_name = form.substr(form.rfind(':') + 1);
    return absl::InvalidArgumentError(absl::StrCat(
        "--", Absl(flag), "=", Absl(text), ": expected ", Absl(form), ", ",
        Absl(number_name), " ", min, " to ", max));
  }
  absl::StatusOr<double> number =
      ParseFlagNumber(flag, text, text.substr(colon + 1), min, max);
  if (!number.ok()) return number.status();
  return std::make_pair(std::string(text.substr(0, colon)), *number);
}

void SetFlagErrorTool(std::string tool) { Tool() = std::move(tool); }

void SetFlagErrorExitCode(int code) { ExitCode() = code; }

void ExitWithFlagError(const absl::Status& error) {
  std::fprintf(stderr, "%s: %s\n", Tool().c_str(),
               std::string(error.message()).c_str());
  std::exit(ExitCode());
}

}  // namespace sluice::tools
