#include "lib/checkpoint/checkpoint_format.h"

#include <cctype>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/support/crc32.h"
#include "sluice/tensor/dtype.h"
#include "sluice/tensor/tensor_shape.h"

namespace sluice::checkpoint::internal {
namespace {

using ::testing::HasSubstr;

absl::Span<const uint8_t> Bytes(const std::string& s) {
  return absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()),
                                   s.size());
}

void PutLe(std::string* bytes, size_t offset, uint64_t value, int count) {
  for (int i = 0; i < count; ++i) {
    (*bytes)[offset + i] = static_cast<char>(value >> (8 * i));
  }
}

// Replaces the trailing checksum with the one the bytes before it have, so
// that a test reaches the checks behind the checksum.
std::string Sealed(std::string bytes) {
  const size_t body = bytes.size() - 4;
  PutLe(&bytes, body, Crc32(Bytes(bytes).first(body)), 4);
  return bytes;
}

Manifest TwoTensors() {
  Manifest manifest;
  manifest.step = 7;
  manifest.epoch = 3;
  manifest.data_file = DataFileName(7, 0xabcdef0123456789);
  TensorEntry a;
  a.name = "a";
  a.dtype = DType::kI32;
  a.shape = TensorShape{2};
  a.offset = kDataHeaderBytes;
  a.size = 8;
  a.crc32 = 0x11223344;
  TensorEntry b;
  b.name = "b";
  b.dtype = DType::kF64;
  b.shape = TensorShape{};
  b.offset = kDataHeaderBytes + 8;
  b.size = 8;
  b.crc32 = 0x55667788;
  manifest.tensors = {a, b};
  manifest.data_file_size = kDataHeaderBytes + 16;
  return manifest;
}

// Offsets in TwoTensors' encoding (docs/checkpoints.md gives the layout).
constexpr size_t kCountOffset = 32;
constexpr size_t kDataNameOffset = 38;
constexpr size_t kDataNameLength = 47;  // "ckpt-" 20 digits "-" 16 ".data"
constexpr size_t kDataSizeOffset = kDataNameOffset + kDataNameLength;
constexpr size_t kFirstTensorOffset = kDataSizeOffset + 8;

TEST(CheckpointFormatTest, Crc32IsTheIeeeCrc) {
  // The check value of CRC-32/ISO-HDLC, the CRC of zlib and PNG.
  EXPECT_EQ(Crc32(Bytes("123456789")), 0xcbf43926u);
  EXPECT_EQ(Crc32(absl::Span<const uint8_t>()), 0u);
}

TEST(CheckpointFormatTest, ManifestBytesAreAsDocumented) {
  Manifest manifest = TwoTensors();
  manifest.tensors.resize(1);
  manifest.data_file_size = kDataHeaderBytes + 8;
  const std::string bytes = EncodeManifest(manifest);

  std::string expected("SLCKMANI", 8);
  expected += std::string(
      "\x01\0\0\0"
      "\0\0\0\0",
      8);                                            // version
  expected += std::string("\x07\0\0\0\0\0\0\0", 8);  // step
  expected += std::string("\x03\0\0\0\0\0\0\0", 8);  // epoch
  expected += std::string("\x01\0\0\0", 4);          // count
  expected += std::string("\x2f\0", 2);              // 47
  expected += "ckpt-00000000000000000007-abcdef0123456789.data";
  expected += std::string("\x18\0\0\0\0\0\0\0", 8);  // data file size 24
  expected += std::string("\x01\0", 2);              // name length
  expected += "a";
  expected += std::string("\x01\x01", 2);            // i32, rank 1
  expected += std::string("\x02\0\0\0\0\0\0\0", 8);  // dim 2
  expected += std::string("\x10\0\0\0\0\0\0\0", 8);  // offset 16
  expected += std::string("\x08\0\0\0\0\0\0\0", 8);  // size 8
  expected += std::string("\x44\x33\x22\x11", 4);    // tensor crc
  const uint32_t crc = Crc32(Bytes(expected));
  for (int i = 0; i < 4; ++i)
    expected.push_back(static_cast<char>(crc >> (8 * i)));
  EXPECT_EQ(bytes, expected);
}

// Bytes from hex digit pairs; spaces are ignored.
std::string FromHex(std::string_view hex) {
  std::string digits;
  for (char c : hex) {
    if (c != ' ') digits.push_back(c);
  }
  std::string bytes;
  for (size_t i = 0; i + 1 < digits.size(); i += 2) {
    bytes.push_back(
        static_cast<char>(std::stoi(digits.substr(i, 2), nullptr, 16)));
  }
  return bytes;
}

// The example in docs/checkpoints.md, byte for byte, final checksum
// included: step 7, epoch 3, one i32 tensor "w" = [1, -2].
TEST(CheckpointFormatTest, TheDocumentedExample) {
  const std::string data = FromHex(
      "53 4c 43 4b 44 41 54 41 01 00 00 00 00 00 00 00"
      "01 00 00 00 fe ff ff ff");
  const std::string manifest_bytes = FromHex(
      "53 4c 43 4b 4d 41 4e 49 01 00 00 00 00 00 00 00"
      "07 00 00 00 00 00 00 00 03 00 00 00 00 00 00 00"
      "01 00 00 00 2f 00 63 6b 70 74 2d 30 30 30 30 30"
      "30 30 30 30 30 30 30 30 30 30 30 30 30 30 37 2d"
      "35 66 30 65 33 61 39 62 31 63 32 64 34 65 36 66"
      "2e 64 61 74 61 18 00 00 00 00 00 00 00 01 00 77"
      "01 01 02 00 00 00 00 00 00 00 10 00 00 00 00 00"
      "00 00 08 00 00 00 00 00 00 00 71 98 8f cf 6c 8d"
      "90 c4");
  ASSERT_EQ(data.size(), 24u);
  ASSERT_EQ(manifest_bytes.size(), 130u);
  EXPECT_EQ(data.substr(0, kDataHeaderBytes), EncodeDataHeader());

  Manifest manifest;
  manifest.step = 7;
  manifest.epoch = 3;
  manifest.data_file = DataFileName(7, 0x5f0e3a9b1c2d4e6f);
  manifest.data_file_size = 24;
  TensorEntry w;
  w.name = "w";
  w.dtype = DType::kI32;
  w.shape = TensorShape{2};
  w.offset = 16;
  w.size = 8;
  w.crc32 = Crc32(Bytes(data).subspan(16));
  manifest.tensors = {w};
  EXPECT_EQ(EncodeManifest(manifest), manifest_bytes);
  EXPECT_TRUE(DecodeManifest(Bytes(manifest_bytes)).ok());
}

TEST(CheckpointFormatTest, DataHeaderIsMagicVersionAndZero) {
  EXPECT_EQ(EncodeDataHeader(), std::string("SLCKDATA\x01\0\0\0\0\0\0\0", 16));
  EXPECT_TRUE(CheckDataHeader(Bytes(EncodeDataHeader())).ok());
  std::string bad = EncodeDataHeader();
  bad[8] = 2;
  EXPECT_THAT(CheckDataHeader(Bytes(bad)).message(), HasSubstr("version 2"));
  bad = EncodeDataHeader();
  bad[0] = 'X';
  EXPECT_THAT(CheckDataHeader(Bytes(bad)).message(), HasSubstr("magic"));
}

TEST(CheckpointFormatTest, RoundTripsAManifest) {
  const Manifest manifest = TwoTensors();
  absl::StatusOr<Manifest> decoded =
      DecodeManifest(Bytes(EncodeManifest(manifest)));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->step, 7);
  EXPECT_EQ(decoded->epoch, 3);
  EXPECT_EQ(decoded->data_file, manifest.data_file);
  EXPECT_EQ(decoded->data_file_size, manifest.data_file_size);
  ASSERT_EQ(decoded->tensors.size(), 2u);
  EXPECT_EQ(decoded->tensors[1].name, "b");
  EXPECT_EQ(decoded->tensors[1].dtype, DType::kF64);
  EXPECT_EQ(decoded->tensors[1].shape, TensorShape{});
  EXPECT_EQ(decoded->tensors[1].offset, kDataHeaderBytes + 8);
  EXPECT_EQ(decoded->tensors[1].crc32, 0x55667788u);
}

TEST(CheckpointFormatTest, EveryBitFlipIsDetected) {
  const std::string good = EncodeManifest(TwoTensors());
  for (size_t byte = 0; byte < good.size(); ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = good;
      bad[byte] ^= static_cast<char>(1 << bit);
      absl::StatusOr<Manifest> decoded = DecodeManifest(Bytes(bad));
      ASSERT_FALSE(decoded.ok()) << "byte " << byte << " bit " << bit;
      EXPECT_EQ(decoded.status().code(), absl::StatusCode::kDataLoss);
    }
  }
}

TEST(CheckpointFormatTest, EveryTruncationIsDetected) {
  const std::string good = EncodeManifest(TwoTensors());
  for (size_t size = 0; size < good.size(); ++size) {
    absl::StatusOr<Manifest> decoded =
        DecodeManifest(Bytes(good.substr(0, size)));
    EXPECT_FALSE(decoded.ok()) << size << " bytes";
    // The same bytes resealed reach the structural checks instead.
    if (size > 4) {
      decoded = DecodeManifest(Bytes(Sealed(good.substr(0, size))));
      EXPECT_FALSE(decoded.ok()) << size << " bytes, resealed";
    }
  }
}

TEST(CheckpointFormatTest, RefusesAnotherVersionBeforeTheChecksum) {
  std::string bytes = EncodeManifest(TwoTensors());
  PutLe(&bytes, 8, 2, 4);
  EXPECT_EQ(DecodeManifest(Bytes(bytes)).status().message(),
            "unsupported format version 2 (this build reads 1)");
}

TEST(CheckpointFormatTest, ReportsAChecksumMismatch) {
  std::string bytes = EncodeManifest(TwoTensors());
  bytes[kDataNameOffset + 2] ^= 1;
  EXPECT_THAT(DecodeManifest(Bytes(bytes)).status().message(),
              HasSubstr("checksum mismatch"));
}

// A checksum proves no intent: each hostile field below comes with a
// valid checksum, and each is refused with what is wrong.
struct HostileCase {
  const char* what;
  size_t offset;
  uint64_t value;
  int size;
  const char* message;
};

class HostileManifestTest : public ::testing::TestWithParam<HostileCase> {};

TEST_P(HostileManifestTest, IsRefusedWithAReason) {
  const HostileCase& c = GetParam();
  std::string bytes = EncodeManifest(TwoTensors());
  PutLe(&bytes, c.offset, c.value, c.size);
  absl::StatusOr<Manifest> decoded = DecodeManifest(Bytes(Sealed(bytes)));
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(decoded.status().message(), HasSubstr(c.message));
}

constexpr size_t kDtypeOffset = kFirstTensorOffset + 2 + 1;
constexpr size_t kRankOffset = kDtypeOffset + 1;
constexpr size_t kDimOffset = kRankOffset + 1;
constexpr size_t kTensorOffsetOffset = kDimOffset + 8;
constexpr size_t kTensorSizeOffset = kTensorOffsetOffset + 8;
constexpr size_t kSecondNameOffset = kTensorSizeOffset + 8 + 4 + 2;

INSTANTIATE_TEST_SUITE_P(
    Fields, HostileManifestTest,
    ::testing::Values(
        HostileCase{"reserved", 12, 1, 4, "reserved word is 1"},
        HostileCase{"negative step", 16, ~0ull, 8, "negative step -1"},
        HostileCase{"huge count", kCountOffset, 0xffffffff, 4,
                    "4294967295 tensors cannot fit"},
        HostileCase{"count one too many", kCountOffset, 3, 4,
                    "3 tensors cannot fit in the 58 bytes left"},
        HostileCase{"data name too long", kDataNameOffset - 2, 0xffff, 2,
                    "the data file name runs past the end"},
        HostileCase{"data name with a slash", kDataNameOffset, '/', 1,
                    "not a plain file name"},
        HostileCase{"data name starting with a dot", kDataNameOffset, '.', 1,
                    "not a plain file name"},
        HostileCase{"data file size below its header", kDataSizeOffset, 3, 8,
                    "shorter than its header"},
        HostileCase{"data file size too large", kDataSizeOffset, 1000, 8,
                    "cover 32 bytes of a data file of 1000 bytes"},
        HostileCase{"empty name", kFirstTensorOffset, 0, 2,
                    "tensor name of 0 bytes"},
        HostileCase{"name longer than allowed", kFirstTensorOffset, 1025, 2,
                    "tensor name of 1025 bytes (1 to 1024 allowed)"},
        HostileCase{"unknown dtype", kDtypeOffset, 9, 1, "unknown dtype 9"},
        HostileCase{"rank too high", kRankOffset, 200, 1, "rank 200"},
        HostileCase{"negative dimension", kDimOffset, ~0ull, 8,
                    "tensor 'a': shape [-1] has a negative dimension"},
        HostileCase{"dimension too large", kDimOffset, 1ull << 62, 8,
                    "has 8 bytes, not 4611686018427387904 elements"},
        HostileCase{"offset elsewhere", kTensorOffsetOffset, 0, 8,
                    "tensor 'a' at data offset 0, expected 16"},
        HostileCase{"size too large", kTensorSizeOffset, 1ull << 40, 8,
                    "has 1099511627776 bytes"},
        HostileCase{"names out of order", kSecondNameOffset, 'a', 1,
                    "tensor 'a' comes after 'a'"}),
    [](const ::testing::TestParamInfo<HostileCase>& info) {
      std::string name;
      for (const char* p = info.param.what; *p; ++p) {
        name.push_back(std::isalnum(static_cast<unsigned char>(*p)) ? *p : '_');
      }
      return name;
    });

TEST(CheckpointFormatTest, RandomBytesNeverDecode) {
  std::mt19937 random(1234);
  for (int i = 0; i < 2000; ++i) {
    std::string bytes(random() % 300, '\0');
    for (char& c : bytes) c = static_cast<char>(random());
    // Half start like a manifest and carry a valid checksum.
    if (i % 2 == 0 && bytes.size() >= 16) {
      bytes.replace(0, 8, "SLCKMANI");
      PutLe(&bytes, 8, kCheckpointFormatVersion, 4);
      bytes = Sealed(bytes);
    }
    EXPECT_FALSE(DecodeManifest(Bytes(bytes)).ok()) << "case " << i;
  }
}

TEST(CheckpointFormatTest, FileNamesCarryTheStep) {
  EXPECT_EQ(ManifestFileName(12), "ckpt-00000000000000000012.manifest");
  EXPECT_EQ(StepOfManifestFile("ckpt-00000000000000000012.manifest"), 12);
  EXPECT_EQ(StepOfManifestFile(ManifestFileName(INT64_MAX)), INT64_MAX);
  EXPECT_EQ(DataFileName(5, 0xff),
            "ckpt-00000000000000000005-00000000000000ff.data");
  EXPECT_EQ(StepOfDataFile(DataFileName(5, 0xff)), 5);
  for (const char* other :
       {"ckpt-00000000000000000012.manifest.tmp", "ckpt-12.manifest",
        "ckpt-0000000000000000001x.manifest",
        "ckpt-99999999999999999999.manifest",
        ".ckpt-tmp-ckpt-00000000000000000012.manifest", "notes.txt"}) {
    EXPECT_FALSE(StepOfManifestFile(other).has_value()) << other;
  }
  for (const char* other : {"ckpt-00000000000000000005-00000000000000FF.data",
                            "ckpt-00000000000000000005-ff.data",
                            "ckpt-00000000000000000005.manifest"}) {
    EXPECT_FALSE(StepOfDataFile(other).has_value()) << other;
  }
}

}  // namespace
}  // namespace sluice::checkpoint::internal
