#include "sluice/bef/checksum.h"

#include <cstdint>

#include "absl/types/span.h"
#include "lib/bef/format_internal.h"
#include "lib/support/crc32.h"
#include "sluice/bef/format.h"
#include "sluice/support/logging.h"

namespace sluice {
namespace bef {

uint32_t ComputeSbfChecksum(absl::Span<const uint8_t> bytes) {
  SLUICE_CHECK(bytes.size() >= kHeaderSize)
      << "an sbf checksum covers a header of " << kHeaderSize
      << " bytes, but the file has " << bytes.size();
  // The field counts as zero, so a file can carry the checksum of itself.
  static constexpr uint8_t kZeroField[4] = {0, 0, 0, 0};
  uint32_t crc = Crc32(bytes.first(kChecksumOffset));
  crc = Crc32(absl::MakeConstSpan(kZeroField), crc);
  return Crc32(bytes.subspan(kChecksumOffset + 4), crc);
}

uint32_t StoredSbfChecksum(absl::Span<const uint8_t> bytes) {
  SLUICE_CHECK(bytes.size() >= kHeaderSize)
      << "an sbf file of " << bytes.size() << " bytes has no checksum field";
  return internal::LoadLe32(bytes.data() + kChecksumOffset);
}

void UpdateSbfChecksum(absl::Span<uint8_t> bytes) {
  if (bytes.size() < kHeaderSize) return;
  const uint32_t checksum = ComputeSbfChecksum(bytes);
  for (int i = 0; i < 4; ++i) {
    bytes[kChecksumOffset + i] = static_cast<uint8_t>(checksum >> (8 * i));
  }
}

}  // namespace bef
}  // namespace sluice
