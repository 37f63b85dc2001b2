#include "lib/support/crc32.h"

#include <zlib.h>

namespace sluice {

uint32_t Crc32(absl::Span<const uint8_t> bytes, uint32_t crc) {
  // zlib answers 0 for a null buffer whatever the CRC so far (that is how
  // it hands out the initial value), and an empty span may be null.
  if (bytes.empty()) return crc;
  // crc32_z takes a size_t length: a tensor of 4 GiB or more is one call.
  return static_cast<uint32_t>(crc32_z(crc, bytes.data(), bytes.size()));
}

uint32_t Crc32(std::string_view bytes, uint32_t crc) {
  return Crc32(
      absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()),
                                bytes.size()),
      crc);
}

}  // namespace sluice
