#include "sluice/tensor/i1_bytes.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace sluice {
namespace {

TEST(I1BytesTest, ZeroAndOneAreTheOnlyI1Bytes) {
  EXPECT_TRUE(CheckI1Bytes({}).ok());
  const std::vector<uint8_t> valid = {0, 1, 1, 0};
  EXPECT_TRUE(CheckI1Bytes(valid).ok());
  for (int byte = 2; byte < 256; ++byte) {
    const std::vector<uint8_t> bytes = {1, static_cast<uint8_t>(byte)};
    absl::Status status = CheckI1Bytes(bytes);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << byte;
  }
}

TEST(I1BytesTest, TheFirstOtherByteIsNamed) {
  const std::vector<uint8_t> bytes = {0, 1, 255, 2};
  EXPECT_EQ(CheckI1Bytes(bytes).message(),
            "i1 element 2 holds byte 255: an i1 element is 0 or 1");
}

}  // namespace
}  // namespace sluice
