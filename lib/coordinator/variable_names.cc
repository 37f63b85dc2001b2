// The rules for variable names (sluice/coordinator/variables.h), shared by
// the client, which refuses a bad name before sending it, and the parameter
// server, which refuses it whatever the client checked.
#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "sluice/coordinator/variables.h"

namespace sluice::dist {
namespace {

// The bytes of a name that is too long to be one shown in a message: enough
// to recognize it, never the megabytes a hostile client may send.
constexpr size_t kShownBytesOfLongName = 64;

constexpr char kNameRule[] =
    "a variable name is 1 to 256 bytes of [A-Za-z0-9._/-]";

bool IsNameByte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '/' || c == '-';
}

// The index of the first byte outside the name set, or npos.
size_t FirstBadByte(std::string_view name) {
  for (size_t i = 0; i < name.size(); ++i) {
    if (!IsNameByte(name[i])) return i;
  }
  return std::string_view::npos;
}

// Debian's Abseil has a string_view of its own, not std's.
absl::string_view AbslView(std::string_view text) {
  return absl::string_view(text.data(), text.size());
}

}  // namespace

static_assert(kMaxVariableNameBytes == 256, "kNameRule states the bound");

std::string QuotedVariableName(std::string_view name) {
  if (name.size() > kMaxVariableNameBytes) {
    return absl::StrCat(
        "'", absl::CHexEscape(AbslView(name.substr(0, kShownBytesOfLongName))),
        "...' (", name.size(), " bytes)");
  }
  if (FirstBadByte(name) == std::string_view::npos) {
    return absl::StrCat("'", AbslView(name), "'");
  }
  return absl::StrCat("'", absl::CHexEscape(AbslView(name)), "'");
}

absl::Status CheckVariableName(std::string_view name) {
  if (name.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the name is empty: ", kNameRule));
  }
  if (name.size() > kMaxVariableNameBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("the name ", QuotedVariableName(name), " is longer than ",
                     kMaxVariableNameBytes, " bytes: ", kNameRule));
  }
  if (size_t bad = FirstBadByte(name); bad != std::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("the name ", QuotedVariableName(name), " has '",
                     absl::CHexEscape(AbslView(name.substr(bad, 1))),
                     "' at byte ", bad, ": ", kNameRule));
  }
  return absl::OkStatus();
}

}  // namespace sluice::dist
