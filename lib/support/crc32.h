// The CRC-32 of zlib, PNG and Ethernet (CRC-32/ISO-HDLC, the reflected IEEE
// 802.3 polynomial): the checksum of SBF files (docs/format.md), of
// checkpoint manifests and tensors (docs/checkpoints.md) and of the state a
// healing replica receives. One implementation, so that a file written by
// one part of Sluice verifies in every other.
#ifndef SLUICE_LIB_SUPPORT_CRC32_H_
#define SLUICE_LIB_SUPPORT_CRC32_H_

#include <cstdint>
#include <string_view>

#include "absl/types/span.h"

namespace sluice {

// The CRC-32 of the bytes whose CRC-32 is `crc` followed by `bytes`: with
// the default 0, the CRC-32 of `bytes` alone, and fed its own results, the
// CRC-32 of a byte string that arrives in pieces.
uint32_t Crc32(absl::Span<const uint8_t> bytes, uint32_t crc = 0);
uint32_t Crc32(std::string_view bytes, uint32_t crc = 0);

}  // namespace sluice

#endif  // SLUICE_LIB_SUPPORT_CRC32_H_
