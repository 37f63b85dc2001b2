#include "sluice/support/utf8.h"

#include <cstdint>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_format.h"

namespace sluice {
namespace {

bool IsContinuation(uint8_t byte) { return (byte & 0xC0) == 0x80; }

// The length of the well-formed sequence at text[i], or 0 if there is none.
// Unicode's table of well-formed sequences: the lead byte fixes the length
// and the range of the second byte, which is where overlong forms (E0, F0),
// surrogates (ED) and code points above U+10FFFF (F4) are cut off.
size_t SequenceLength(std::string_view text, size_t i) {
  const uint8_t lead = static_cast<uint8_t>(text[i]);
  if (lead < 0x80) return 1;
  size_t length = 0;
  uint8_t second_low = 0x80;
  uint8_t second_high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) second_low = 0xA0;
    if (lead == 0xED) second_high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) second_low = 0x90;
    if (lead == 0xF4) second_high = 0x8F;
  } else {
    return 0;  // 80..C1 (a continuation, or an overlong 2-byte lead), F5..FF
  }
  if (text.size() - i < length) return 0;
  const uint8_t second = static_cast<uint8_t>(text[i + 1]);
  if (second < second_low || second > second_high) return 0;
  for (size_t k = 2; k < length; ++k) {
    if (!IsContinuation(static_cast<uint8_t>(text[i + k]))) return 0;
  }
  return length;
}

}  // namespace

std::optional<size_t> FindInvalidUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t length = SequenceLength(text, i);
    if (length == 0) return i;
    i += length;
  }
  return std::nullopt;
}

absl::Status CheckUtf8(std::string_view what, std::string_view text) {
  const std::optional<size_t> bad = FindInvalidUtf8(text);
  if (!bad.has_value()) return absl::OkStatus();
  // This absl's string_view is its own type, not std::string_view.
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s \"%s\" is not valid UTF-8 (byte 0x%02x at offset %d)",
      absl::string_view(what.data(), what.size()),
      absl::CHexEscape(absl::string_view(text.data(), text.size())),
      static_cast<uint8_t>(text[*bad]), *bad));
}

}  // namespace sluice
