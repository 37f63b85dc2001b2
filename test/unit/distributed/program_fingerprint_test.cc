#include "lib/distributed/program_fingerprint.h"

#include <cstdint>
#include <string>

#include "absl/types/span.h"
#include "gtest/gtest.h"

namespace sluice::dist {
namespace {

absl::Span<const uint8_t> Bytes(const std::string& s, size_t size) {
  return absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()),
                                   size);
}

// A client and a worker of different builds meet on the wire, so the
// fingerprint may never change: these are the values of llvm::xxh3_64bits,
// which computed it before libxxhash did. The sizes reach each of XXH3's
// code paths (0, 1-3, 4-8, 9-16, 17-128, 129-240 and longer inputs).
TEST(ProgramFingerprintTest, IsXxh3WithSeedZero) {
  std::string bytes;
  for (int i = 0; i < 1000; ++i) bytes.push_back(static_cast<char>(i * 7 + 3));
  const struct {
    size_t size;
    uint64_t fingerprint;
  } cases[] = {
      {0, 0x2d06800538d394c2u},   {3, 0xa9088dda485b481cu},
      {6, 0xf9f1d99ef1edd356u},   {12, 0x6829454be0cc3199u},
      {26, 0xd36e899a806d00bau},  {100, 0xb5937857f0d78c9fu},
      {200, 0x746cd0025327bf5bu}, {1000, 0x6c4f14bd97bd9e82u},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(ProgramFingerprint(Bytes(bytes, c.size)), c.fingerprint)
        << c.size << " bytes";
  }
  const std::string text = "sluice program fingerprint";
  EXPECT_EQ(ProgramFingerprint(Bytes(text, text.size())), 0xf025e4aa93d9c458u);
}

}  // namespace
}  // namespace sluice::dist
