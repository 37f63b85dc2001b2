#include "lib/support/crc32.h"

#include <zlib.h>

#include <cstddef>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace sluice {
namespace {

#if defined(__x86_64__)
// Carry-less multiplication folds 64 bytes at a time, four 16-byte lanes in
// parallel, then reduces the lanes to the 32-bit remainder: the method of
// Gopal et al., "Fast CRC Computation for Generic Polynomials Using
// PCLMULQDQ Instruction" (Intel, 2009), whose constants for the reflected
// polynomial 0x104C11DB7 these are: remainders of the powers of x that a
// fold spans, and the Barrett reduction's polynomial and quotient.
constexpr uint64_t kFold512Low = 0x154442bd4;  // lanes 64 bytes apart
constexpr uint64_t kFold512High = 0x1c6e41596;
constexpr uint64_t kFold128Low = 0x1751997d0;  // 16 bytes apart
constexpr uint64_t kFold128High = 0x0ccaa009e;
constexpr uint64_t kFold64 = 0x163cd6124;      // 64 bits to 32
constexpr uint64_t kPolynomial = 0x1db710641;  // P, reflected
constexpr uint64_t kBarrettMu = 0x1f7011641;   // floor(x^64 / P), reflected
// Below this zlib's tables are as fast, and the fold needs 64 bytes.
constexpr size_t kFoldMinimum = 64;

bool CpuFolds() {
  static const bool folds = [] {
    // Also right when the first checksum runs before the constructors
    // that would have set the CPU model up.
    __builtin_cpu_init();
    return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
  }();
  return folds;
}

#define SLUICE_FOLD_TARGET __attribute__((target("pclmul,sse4.1")))

SLUICE_FOLD_TARGET inline __m128i Load(const uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

// `lane` moved `k`'s distance ahead, plus `next`.
SLUICE_FOLD_TARGET inline __m128i Fold(__m128i lane, __m128i next, __m128i k) {
  const __m128i low = _mm_clmulepi64_si128(lane, k, 0x00);
  const __m128i high = _mm_clmulepi64_si128(lane, k, 0x11);
  return _mm_xor_si128(_mm_xor_si128(low, high), next);
}

// The CRC register (not inverted) after `size` bytes that follow a
// register `crc`; `size` is a multiple of 16, at least kFoldMinimum.
SLUICE_FOLD_TARGET uint32_t FoldedCrc(const uint8_t* data, size_t size,
                                      uint32_t crc) {
  __m128i lanes[4];
  for (int i = 0; i < 4; ++i) lanes[i] = Load(data + 16 * i);
  lanes[0] = _mm_xor_si128(lanes[0], _mm_cvtsi32_si128(static_cast<int>(crc)));
  data += 64;
  size -= 64;
  const __m128i k512 = _mm_set_epi64x(kFold512High, kFold512Low);
  for (; size >= 64; data += 64, size -= 64) {
    for (int i = 0; i < 4; ++i)
      lanes[i] = Fold(lanes[i], Load(data + 16 * i), k512);
  }
  const __m128i k128 = _mm_set_epi64x(kFold128High, kFold128Low);
  __m128i folded = lanes[0];
  for (int i = 1; i < 4; ++i) folded = Fold(folded, lanes[i], k128);
  for (; size >= 16; data += 16, size -= 16) {
    folded = Fold(folded, Load(data), k128);
  }

  // 128 bits to 64: the low half moved across the high one.
  const __m128i low32 = _mm_setr_epi32(-1, 0, -1, 0);
  folded = _mm_xor_si128(_mm_srli_si128(folded, 8),
                         _mm_clmulepi64_si128(folded, k128, 0x10));
  // 64 bits to 32.
  const __m128i upper = _mm_srli_si128(folded, 4);
  folded = _mm_clmulepi64_si128(_mm_and_si128(folded, low32),
                                _mm_set_epi64x(0, kFold64), 0x00);
  folded = _mm_xor_si128(folded, upper);
  // Barrett reduction to the 32-bit remainder.
  const __m128i barrett = _mm_set_epi64x(kBarrettMu, kPolynomial);
  __m128i quotient =
      _mm_clmulepi64_si128(_mm_and_si128(folded, low32), barrett, 0x10);
  quotient =
      _mm_clmulepi64_si128(_mm_and_si128(quotient, low32), barrett, 0x00);
  return static_cast<uint32_t>(
      _mm_extract_epi32(_mm_xor_si128(folded, quotient), 1));
}

#undef SLUICE_FOLD_TARGET
#endif  // defined(__x86_64__)

}  // namespace

uint32_t Crc32(absl::Span<const uint8_t> bytes, uint32_t crc) {
  // zlib answers 0 for a null buffer whatever the CRC so far (that is how
  // it hands out the initial value), and an empty span may be null.
  if (bytes.empty()) return crc;
  const uint8_t* data = bytes.data();
  size_t size = bytes.size();
#if defined(__x86_64__)
  // zlib's tables run at about 2.8 GiB/s here, the fold at several times
  // that: it is what keeps a replica's heal and a large checkpoint's load
  // from waiting on their checksum.
  if (size >= kFoldMinimum && CpuFolds()) {
    const size_t folded = size & ~size_t{15};
    crc = ~FoldedCrc(data, folded, ~crc);
    data += folded;
    size -= folded;
    if (size == 0) return crc;
  }
#endif
  // crc32_z takes a size_t length: a tensor of 4 GiB or more is one call.
  return static_cast<uint32_t>(crc32_z(crc, data, size));
}

uint32_t Crc32(std::string_view bytes, uint32_t crc) {
  return Crc32(
      absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()),
                                bytes.size()),
      crc);
}

}  // namespace sluice
