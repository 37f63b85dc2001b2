// CRC-32C (Castagnoli, the polynomial iSCSI and ext4 use) of a byte string,
// computed in pieces: the checksum of the state a healing replica receives
// (heal_service.proto). Uses the CPU's crc32 instruction where there is one.
#ifndef SLUICE_LIB_FT_CRC32C_H_
#define SLUICE_LIB_FT_CRC32C_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sluice::ft {

// The CRC-32C of the bytes whose CRC-32C is `crc` followed by `bytes`;
// Crc32cExtend(0, s) is the CRC-32C of s.
uint32_t Crc32cExtend(uint32_t crc, std::string_view bytes);

inline uint32_t Crc32c(std::string_view bytes) {
  return Crc32cExtend(0, bytes);
}

// The table-driven computation alone, to test the hardware one against.
uint32_t Crc32cExtendPortable(uint32_t crc, std::string_view bytes);

}  // namespace sluice::ft

#endif  // SLUICE_LIB_FT_CRC32C_H_
