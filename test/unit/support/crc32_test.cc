#include "lib/support/crc32.h"

#include <zlib.h>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>

#include "absl/types/span.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

absl::Span<const uint8_t> Bytes(std::string_view s) {
  return absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()),
                                   s.size());
}

TEST(Crc32Test, MatchesTheStandardCheckValues) {
  // The check value of CRC-32/ISO-HDLC (zlib, PNG, Ethernet), and values
  // zlib and Python's binascii.crc32 agree on. llvm::crc32, which the SBF
  // and checkpoint checksums used before, gives the same: files written
  // then must still verify.
  EXPECT_EQ(Crc32("123456789"), 0xCBF43926u);
  EXPECT_EQ(Crc32(Bytes("123456789")), 0xCBF43926u);
  EXPECT_EQ(Crc32("a"), 0xE8B7BE43u);
  EXPECT_EQ(Crc32("The quick brown fox jumps over the lazy dog"), 0x414FA339u);
  EXPECT_EQ(Crc32(std::string(32, '\0')), 0x190A55ADu);
  EXPECT_EQ(Crc32(std::string(32, '\xff')), 0xFF6CAB0Bu);
  EXPECT_EQ(Crc32(""), 0u);
}

TEST(Crc32Test, NothingMoreLeavesTheCrcAsItIs) {
  // zlib gives 0 for a null buffer whatever the CRC so far; an empty span
  // has a null one.
  EXPECT_EQ(Crc32(absl::Span<const uint8_t>(), 0xCBF43926u), 0xCBF43926u);
  EXPECT_EQ(Crc32(std::string_view(), 0x12345678u), 0x12345678u);
}

TEST(Crc32Test, InPiecesEqualsAtOnce) {
  std::mt19937 random(7);
  std::string bytes(10007, '\0');
  for (char& c : bytes) c = static_cast<char>(random());
  const std::string_view view = bytes;
  const uint32_t whole = Crc32(view);
  EXPECT_EQ(Crc32(Bytes(view)), whole);
  for (size_t split : {0u, 1u, 3u, 8u, 13u, 4096u, 10006u, 10007u}) {
    EXPECT_EQ(Crc32(view.substr(split), Crc32(view.substr(0, split))), whole)
        << "split at " << split;
    EXPECT_EQ(
        Crc32(Bytes(view.substr(split)), Crc32(Bytes(view.substr(0, split)))),
        whole)
        << "split at " << split;
  }
  uint32_t crc = 0;
  for (size_t offset = 0; offset < view.size(); offset += 1000) {
    crc = Crc32(view.substr(offset, 1000), crc);
  }
  EXPECT_EQ(crc, whole);
  bytes[5000] ^= 1;
  EXPECT_NE(Crc32(bytes), whole);
}

// Past 64 bytes the CPU's carry-less multiplication folds 16-byte blocks
// and zlib takes the rest: every length around the block edges, at every
// alignment, with a CRC so far, must give zlib's answer.
TEST(Crc32Test, FoldedEqualsZlibAtEveryLengthAndAlignment) {
  std::mt19937 random(11);
  std::string bytes(4096 + 64, '\0');
  for (char& c : bytes) c = static_cast<char>(random());
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  for (size_t offset = 0; offset < 16; ++offset) {
    for (size_t size = 0; size <= 300; ++size) {
      const uint32_t expected =
          static_cast<uint32_t>(crc32_z(0x9E3779B9u, data + offset, size));
      ASSERT_EQ(Crc32(absl::MakeConstSpan(data + offset, size), 0x9E3779B9u),
                size == 0 ? 0x9E3779B9u : expected)
          << "offset " << offset << ", size " << size;
    }
  }
  for (size_t size : {1023u, 1024u, 4095u, 4096u}) {
    EXPECT_EQ(Crc32(absl::MakeConstSpan(data + 3, size)),
              static_cast<uint32_t>(crc32_z(0, data + 3, size)))
        << "size " << size;
  }
}

}  // namespace
}  // namespace sluice
