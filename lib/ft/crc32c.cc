#include "lib/ft/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace sluice::ft {
namespace {

// The reflected Castagnoli polynomial.
constexpr uint32_t kPolynomial = 0x82F63B78u;

// tables[k][b]: the CRC of byte b followed by k zero bytes, so that eight
// bytes are folded in with eight lookups and no dependency between them.
struct Tables {
  std::array<std::array<uint32_t, 256>, 8> t;
  Tables() {
    for (uint32_t b = 0; b < 256; ++b) {
      uint32_t crc = b;
      for (int bit = 0; bit < 8; ++bit) {
        crc = (crc >> 1) ^ ((crc & 1) ? kPolynomial : 0);
      }
      t[0][b] = crc;
    }
    for (int k = 1; k < 8; ++k) {
      for (uint32_t b = 0; b < 256; ++b) {
        t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFF];
      }
    }
  }
};

const Tables& GetTables() {
  static const Tables* const tables = new Tables();
  return *tables;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t ExtendHardware(
    uint32_t crc, const unsigned char* p, size_t n) {
  uint64_t c = crc;
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    c = _mm_crc32_u64(c, word);
  }
  uint32_t c32 = static_cast<uint32_t>(c);
  for (; n > 0; --n, ++p) c32 = _mm_crc32_u8(c32, *p);
  return c32;
}

bool HasHardwareCrc() {
  static const bool has = __builtin_cpu_supports("sse4.2");
  return has;
}
#endif

// Works on the complemented register, as the hardware instruction does.
uint32_t ExtendTables(uint32_t c, const unsigned char* p, size_t n) {
  const auto& t = GetTables().t;
  for (; n >= 8; n -= 8, p += 8) {
    // Little-endian: the first four bytes fold into the register.
    uint32_t low = static_cast<uint32_t>(p[0]) | (uint32_t{p[1]} << 8) |
                   (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
    low ^= c;
    c = t[7][low & 0xFF] ^ t[6][(low >> 8) & 0xFF] ^ t[5][(low >> 16) & 0xFF] ^
        t[4][low >> 24] ^ t[3][p[4]] ^ t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]];
  }
  for (; n > 0; --n, ++p) c = (c >> 8) ^ t[0][(c ^ *p) & 0xFF];
  return c;
}

}  // namespace

uint32_t Crc32cExtendPortable(uint32_t crc, std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  return ~ExtendTables(~crc, p, bytes.size());
}

uint32_t Crc32cExtend(uint32_t crc, std::string_view bytes) {
#if defined(__x86_64__)
  if (HasHardwareCrc()) {
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    return ~ExtendHardware(~crc, p, bytes.size());
  }
#endif
  return Crc32cExtendPortable(crc, bytes);
}

}  // namespace sluice::ft
