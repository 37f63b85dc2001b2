#include "tools/sluice_run/load_diagnostics.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "sluice/support/error_util.h"

namespace sluice {
namespace {

constexpr absl::string_view kErrorMarker = ": error: ";

// `file:line:col`, split at its last two colons (file names may hold
// colons); nullopt when it is not of that form.
std::optional<DecodedLocation> ParseLocation(absl::string_view text) {
  const size_t column_colon = text.rfind(':');
  if (column_colon == absl::string_view::npos || column_colon == 0) {
    return std::nullopt;
  }
  const size_t line_colon = text.rfind(':', column_colon - 1);
  if (line_colon == absl::string_view::npos) return std::nullopt;
  DecodedLocation location;
  location.filename = std::string(text.substr(0, line_colon));
  if (!absl::SimpleAtoi(
          text.substr(line_colon + 1, column_colon - line_colon - 1),
          &location.line) ||
      !absl::SimpleAtoi(text.substr(column_colon + 1), &location.column)) {
    return std::nullopt;
  }
  return location;
}

LoadDiagnostic MakeDiagnostic(absl::StatusCode code, absl::string_view location,
                              absl::string_view message) {
  LoadDiagnostic result;
  result.diagnostic.location = ParseLocation(location);
  result.diagnostic.status = absl::Status(code, message);
  result.text = absl::StrCat(
      location.empty() ? absl::string_view("sluice_run") : location,
      ": error: ", message);
  return result;
}

}  // namespace

std::vector<LoadDiagnostic> LoadErrorDiagnostics(const absl::Status& status) {
  std::vector<LoadDiagnostic> diagnostics;
  const std::vector<absl::string_view> lines =
      absl::StrSplit(status.message(), '\n');
  const ErrorContext context = GetErrorContext(status);
  diagnostics.push_back(
      MakeDiagnostic(status.code(), context.location, lines.front()));
  for (size_t i = 1; i < lines.size(); ++i) {
    const size_t marker = lines[i].find(kErrorMarker);
    if (marker == absl::string_view::npos) {
      // The count of problems past the listed ones.
      diagnostics.push_back(MakeDiagnostic(status.code(), "", lines[i]));
      continue;
    }
    diagnostics.push_back(
        MakeDiagnostic(status.code(), lines[i].substr(0, marker),
                       lines[i].substr(marker + kErrorMarker.size())));
  }
  return diagnostics;
}

}  // namespace sluice
