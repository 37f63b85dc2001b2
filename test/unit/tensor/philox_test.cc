#include "lib/tensor/philox.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace tensor_internal {
namespace {

using ::testing::ElementsAre;

// The known-answer vectors Random123 publishes for Philox4x32-10.
TEST(PhiloxTest, MatchesThePublishedKnownAnswers) {
  EXPECT_THAT(Philox4x32x10({0, 0, 0, 0}, {0, 0}),
              ElementsAre(0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8));
  EXPECT_THAT(Philox4x32x10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                            {0xffffffff, 0xffffffff}),
              ElementsAre(0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd));
  EXPECT_THAT(Philox4x32x10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                            {0xa4093822, 0x299f31d0}),
              ElementsAre(0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1));
}

TEST(PhiloxTest, BlockAtSplitsTheSeedAndIndexIntoWords) {
  const uint64_t seed = 0x0123456789abcdef;
  const uint64_t index = 0xfedcba9876543210;
  EXPECT_EQ(
      PhiloxBlockAt(seed, index),
      Philox4x32x10({0x76543210, 0xfedcba98, 0, 0}, {0x89abcdef, 0x01234567}));
}

}  // namespace
}  // namespace tensor_internal
}  // namespace sluice
