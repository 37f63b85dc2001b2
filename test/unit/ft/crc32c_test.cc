#include "lib/ft/crc32c.h"

#include <random>
#include <string>

#include "gtest/gtest.h"

namespace sluice::ft {
namespace {

TEST(Crc32cTest, MatchesTheStandardCheckValues) {
  // The check value of CRC-32C and the iSCSI test vectors (RFC 3720 B.4).
  EXPECT_EQ(Crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(Crc32cExtendPortable(0, "123456789"), 0xE3069283u);
  EXPECT_EQ(Crc32c(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(Crc32c(std::string(32, '\xff')), 0x62A8AB43u);
  EXPECT_EQ(Crc32c(""), 0u);
}

TEST(Crc32cTest, PiecesAndBothImplementationsAgree) {
  std::mt19937 random(7);
  std::string bytes(10007, '\0');
  for (char& c : bytes) c = static_cast<char>(random());
  const uint32_t whole = Crc32cExtendPortable(0, bytes);
  EXPECT_EQ(Crc32c(bytes), whole);
  for (size_t split : {1u, 3u, 8u, 13u, 4096u, 10006u}) {
    const std::string_view view = bytes;
    EXPECT_EQ(Crc32cExtend(Crc32c(view.substr(0, split)), view.substr(split)),
              whole)
        << "split at " << split;
  }
  // Unaligned starts.
  for (size_t start = 1; start < 8; ++start) {
    const std::string_view view = std::string_view(bytes).substr(start);
    EXPECT_EQ(Crc32c(view), Crc32cExtendPortable(0, view));
  }
  bytes[5000] ^= 1;
  EXPECT_NE(Crc32c(bytes), whole);
}

}  // namespace
}  // namespace sluice::ft
