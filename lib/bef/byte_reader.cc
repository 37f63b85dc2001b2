#include "lib/bef/byte_reader.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "lib/bef/format_internal.h"
#include "sluice/support/logging.h"

namespace sluice {
namespace bef {
namespace internal {

absl::Status SbfError(std::string_view section, uint64_t offset,
                      std::string_view what) {
  return absl::InvalidArgumentError(absl::StrFormat(
      "invalid sbf file: %s at offset %d: %s", section, offset, what));
}

ByteReader::ByteReader(absl::Span<const uint8_t> file, std::string_view section,
                       uint32_t begin, uint32_t end, std::string scope)
    : file_(file),
      section_(section),
      scope_(std::move(scope)),
      position_(begin),
      end_(end) {
  SLUICE_CHECK(begin <= end && end <= file.size())
      << "reader range [" << begin << ", " << end << ") outside a "
      << file.size() << "-byte file";
}

absl::Status ByteReader::ReadU32(const char* what, uint32_t* value) {
  if (remaining() < 4) {
    return Error(position_,
                 "%s runs past the end of the %s (4 bytes needed, %d left)",
                 what, scope_, remaining());
  }
  *value = LoadLe32(file_.data() + position_);
  position_ += 4;
  return absl::OkStatus();
}

absl::Span<const uint8_t> ByteReader::PeekBytes(uint32_t size) const {
  SLUICE_CHECK(size <= remaining());
  return file_.subspan(position_, size);
}

void ByteReader::Skip(uint32_t size) {
  SLUICE_CHECK(size <= remaining());
  position_ += size;
}

absl::Status ByteReader::ReadU32Array(const char* what, uint32_t count,
                                      std::vector<uint32_t>* values) {
  SLUICE_BEF_RETURN_IF_ERROR(CheckCountFits(what, count, 4));
  values->resize(count);
  const uint8_t* data = file_.data() + position_;
  for (uint32_t i = 0; i < count; ++i) (*values)[i] = LoadLe32(data + 4 * i);
  position_ += 4 * count;
  return absl::OkStatus();
}

absl::Status ByteReader::ReadU32Span(const char* what, uint32_t count,
                                     absl::Span<const uint32_t>* values) {
  SLUICE_BEF_RETURN_IF_ERROR(CheckCountFits(what, count, 4));
  // Every field of the format is 4-aligned within its 8-aligned section.
  *values = absl::MakeConstSpan(
      reinterpret_cast<const uint32_t*>(file_.data() + position_), count);
  position_ += 4 * count;
  return absl::OkStatus();
}

absl::Status ByteReader::CheckCountFits(const char* what, uint64_t count,
                                        uint64_t min_item_size) const {
  // Both factors are below 2^32, so the product cannot overflow 64 bits.
  if (count * min_item_size > remaining()) {
    return Error(position_,
                 "%d %s need at least %d bytes but the %s has %d left", count,
                 what, count * min_item_size, scope_, remaining());
  }
  return absl::OkStatus();
}

absl::Status ByteReader::CheckAtEnd(const char* after_what) const {
  if (remaining() != 0) {
    return Error(position_, "%d unexpected bytes after %s at the end of the %s",
                 remaining(), after_what, scope_);
  }
  return absl::OkStatus();
}

std::string FormatList(absl::Span<const uint32_t> values) {
  constexpr size_t kShown = 8;
  std::string out = "[";
  for (size_t i = 0; i < values.size() && i < kShown; ++i) {
    if (i != 0) out += ", ";
    absl::StrAppendFormat(&out, "%d", values[i]);
  }
  if (values.size() > kShown) {
    absl::StrAppendFormat(&out, ", ... (%d in all)", values.size());
  }
  out += "]";
  return out;
}

}  // namespace internal
}  // namespace bef
}  // namespace sluice
