#include "sluice/checkpoint/checkpoint.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/checkpoint/checkpoint_files.h"
#include "lib/checkpoint/checkpoint_format.h"
#include "lib/support/crc32.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/support/fault_point.h"
#include "sluice/support/logging.h"
#include "test/util/checkpoint_tensors.h"
#include "test/util/log_capture.h"

namespace sluice::checkpoint {
namespace {

using test_util::BitIdentical;
using test_util::CheckpointTestTensors;
using test_util::TensorMap;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;
using ::testing::UnorderedElementsAreArray;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteAll(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

absl::Span<const uint8_t> Bytes(const std::string& s) {
  return absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()),
                                   s.size());
}

CheckpointOptions Keep(int keep_last) {
  CheckpointOptions options;
  options.keep_last = keep_last;
  return options;
}

class CheckpointTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) const {
    return internal::JoinPath(dir_, name);
  }
  std::string ManifestPath(int64_t step) const {
    return Path(internal::ManifestFileName(step));
  }
  // The data file of `step`: the only one whose name carries the step.
  std::string DataPath(int64_t step) const {
    for (const std::string& name : Names()) {
      if (internal::StepOfDataFile(name) == step) return Path(name);
    }
    ADD_FAILURE() << "no data file for step " << step;
    return "";
  }
  std::vector<std::string> Names() const {
    absl::StatusOr<std::vector<std::string>> names =
        internal::ListDirectory(dir_);
    SLUICE_CHECK(names.ok()) << names.status();
    return *names;
  }

  void Save(int64_t step, uint32_t seed, CheckpointOptions options = {}) {
    absl::Status status =
        SaveCheckpoint(dir_, step, /*epoch=*/step / 10,
                       CheckpointTestTensors(seed, &allocator_), options);
    ASSERT_TRUE(status.ok()) << status;
  }

  // Restores and expects step `step` with the tensors of `seed`.
  void ExpectRestores(int64_t step, uint32_t seed) {
    absl::StatusOr<Checkpoint> restored = RestoreCheckpoint(dir_, &allocator_);
    ASSERT_TRUE(restored.ok()) << restored.status();
    EXPECT_EQ(restored->step, step);
    EXPECT_EQ(restored->epoch, step / 10);
    EXPECT_EQ(restored->manifest_path, ManifestPath(step));
    EXPECT_TRUE(BitIdentical(CheckpointTestTensors(seed, &allocator_),
                             restored->tensors));
  }

  // Saves steps 10 and 20, damages step 20 with `damage`, and checks that a
  // restore falls back to step 10 with one warning that names `file` and
  // holds `reason`.
  template <typename Damage>
  void ExpectFallbackAfter(Damage damage, const std::string& reason) {
    Save(10, 1);
    Save(20, 2);
    const std::string file = damage();
    test_util::ScopedLogCapture capture;
    ExpectRestores(10, 1);
    std::vector<test_util::ScopedLogCapture::Entry> entries = capture.entries();
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_EQ(entries[0].first, LogSeverity::kWarning);
    EXPECT_THAT(entries[0].second, HasSubstr("skipping checkpoint of step 20"));
    EXPECT_THAT(entries[0].second, HasSubstr("'" + file + "'"));
    EXPECT_THAT(entries[0].second, HasSubstr(reason));
  }

  LeakCheckAllocator allocator_{CreateMallocAllocator()};
  const std::string dir_ = test_util::MakeTempDirectory();
};

TEST_F(CheckpointTest, RoundTripIsBitIdenticalForEveryDtype) {
  const TensorMap tensors = CheckpointTestTensors(7, &allocator_);
  ASSERT_TRUE(SaveCheckpoint(dir_, 3, 1, tensors).ok());
  absl::StatusOr<Checkpoint> restored = RestoreCheckpoint(dir_, &allocator_);
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ(restored->step, 3);
  EXPECT_EQ(restored->epoch, 1);
  EXPECT_TRUE(BitIdentical(tensors, restored->tensors));
  // The check is not vacuous: another seed differs.
  EXPECT_FALSE(
      BitIdentical(CheckpointTestTensors(8, &allocator_), restored->tensors));
  for (const auto& [name, tensor] : restored->tensors) {
    EXPECT_EQ(
        reinterpret_cast<uintptr_t>(tensor.raw_data()) % HostBuffer::kAlignment,
        0u)
        << name;
  }
}

TEST_F(CheckpointTest, NoTensorsAndLargeStepsRoundTrip) {
  ASSERT_TRUE(SaveCheckpoint(dir_, INT64_MAX, -5, {}).ok());
  absl::StatusOr<Checkpoint> restored = RestoreCheckpoint(dir_, &allocator_);
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ(restored->step, INT64_MAX);
  EXPECT_EQ(restored->epoch, -5);
  EXPECT_THAT(restored->tensors, IsEmpty());
}

TEST_F(CheckpointTest, DataIsLittleEndianOnDisk) {
  std::vector<int32_t> values = {0x01020304, -2};
  TensorMap tensors;
  tensors["x"] = *DenseHostTensor::FromValues<int32_t>(TensorShape{2}, values,
                                                       &allocator_);
  ASSERT_TRUE(SaveCheckpoint(dir_, 1, 0, tensors).ok());
  EXPECT_EQ(ReadAll(DataPath(1)),
            std::string("SLCKDATA\x01\0\0\0\0\0\0\0"
                        "\x04\x03\x02\x01\xfe\xff\xff\xff",
                        24));
}

TEST_F(CheckpointTest, KeepsTheLastK) {
  for (int step = 1; step <= 5; ++step) Save(step, step, Keep(3));
  EXPECT_THAT(*ListCheckpointSteps(dir_), ElementsAre(5, 4, 3));
  // Three manifests, their three data files, the lock; nothing else.
  std::vector<std::string> names = Names();
  EXPECT_EQ(names.size(), 7u);
  for (int step = 3; step <= 5; ++step) {
    EXPECT_EQ(std::count(names.begin(), names.end(),
                         internal::ManifestFileName(step)),
              1);
    EXPECT_FALSE(DataPath(step).empty());
  }
  ExpectRestores(5, 5);
}

TEST_F(CheckpointTest, KeepLastOneLeavesOnlyTheNewest) {
  Save(1, 1, Keep(1));
  Save(2, 2, Keep(1));
  EXPECT_THAT(*ListCheckpointSteps(dir_), ElementsAre(2));
  ExpectRestores(2, 2);
}

TEST_F(CheckpointTest, SavingAStepAgainReplacesIt) {
  Save(4, 1);
  Save(4, 2);
  ExpectRestores(4, 2);
  int data_files = 0;
  for (const std::string& name : Names()) {
    data_files += internal::StepOfDataFile(name).has_value();
  }
  EXPECT_EQ(data_files, 1);
}

TEST_F(CheckpointTest, ASaveRemovesStaleTemporariesAndOrphans) {
  Save(1, 1);
  // What saves killed at different points leave: temporaries, and a data
  // file renamed into place whose manifest never was.
  WriteAll(Path(".ckpt-tmp-ckpt-00000000000000000002-0000000000000001.data"),
           "partial");
  WriteAll(Path(".ckpt-tmp-ckpt-00000000000000000002.manifest"), "partial");
  WriteAll(Path(internal::DataFileName(2, 1)), "orphan");
  WriteAll(Path("notes.txt"), "not ours");
  Save(3, 3);
  EXPECT_THAT(Names(),
              UnorderedElementsAre(".ckpt-lock", "notes.txt",
                                   internal::ManifestFileName(1),
                                   internal::ManifestFileName(3),
                                   DataPath(1).substr(dir_.size() + 1),
                                   DataPath(3).substr(dir_.size() + 1)));
}

TEST_F(CheckpointTest, ASaveRemovesDamagedCheckpoints) {
  Save(1, 1);
  Save(2, 2);
  WriteAll(ManifestPath(2), "garbage");
  test_util::ScopedLogCapture capture;
  Save(3, 3, Keep(5));
  EXPECT_THAT(*ListCheckpointSteps(dir_), ElementsAre(3, 1));
  ASSERT_EQ(capture.lines().size(), 1u);
  EXPECT_THAT(capture.lines()[0],
              HasSubstr("removing damaged checkpoint of step 2"));
}

TEST_F(CheckpointTest, MissingDirectoryIsNotFoundNamingIt) {
  absl::StatusOr<Checkpoint> restored =
      RestoreCheckpoint(dir_ + "/nothing", &allocator_);
  EXPECT_EQ(restored.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(restored.status().message(),
            "no checkpoint in '" + dir_ +
                "/nothing': the directory does not "
                "exist");
  restored = RestoreCheckpoint(dir_, &allocator_);
  EXPECT_EQ(restored.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(restored.status().message(), "no checkpoint in '" + dir_ + "'");
  EXPECT_THAT(*ListCheckpointSteps(dir_ + "/nothing"), IsEmpty());
}

TEST_F(CheckpointTest, SaveCreatesMissingDirectories) {
  const std::string nested = dir_ + "/a/b/c";
  ASSERT_TRUE(
      SaveCheckpoint(nested, 1, 0, CheckpointTestTensors(1, &allocator_)).ok());
  EXPECT_THAT(*ListCheckpointSteps(nested), ElementsAre(1));
}

TEST_F(CheckpointTest, AllDamagedIsNotFound) {
  Save(1, 1);
  WriteAll(ManifestPath(1), "garbage");
  test_util::ScopedLogCapture capture;
  absl::StatusOr<Checkpoint> restored = RestoreCheckpoint(dir_, &allocator_);
  EXPECT_EQ(restored.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(restored.status().message(),
            "no complete checkpoint in '" + dir_ +
                "': all 1 found are partial or corrupt");
  EXPECT_EQ(capture.lines().size(), 1u);
}

TEST_F(CheckpointTest, MissingDataFileFallsBack) {
  ExpectFallbackAfter(
      [&] {
        const std::string data = DataPath(20);
        unlink(data.c_str());
        return data;
      },
      "No such file or directory");
}

TEST_F(CheckpointTest, TruncatedDataFileFallsBack) {
  ExpectFallbackAfter(
      [&] {
        const std::string data = DataPath(20);
        truncate(data.c_str(), 100);
        return data;
      },
      "has 100 bytes, its manifest says");
}

TEST_F(CheckpointTest, TruncatedManifestFallsBack) {
  ExpectFallbackAfter(
      [&] {
        const std::string manifest = ManifestPath(20);
        truncate(manifest.c_str(), 60);
        return manifest;
      },
      "checksum mismatch");
}

TEST_F(CheckpointTest, EmptyManifestFallsBack) {
  ExpectFallbackAfter(
      [&] {
        const std::string manifest = ManifestPath(20);
        truncate(manifest.c_str(), 0);
        return manifest;
      },
      "0 bytes, shorter than any manifest");
}

TEST_F(CheckpointTest, BadVersionFallsBack) {
  ExpectFallbackAfter(
      [&] {
        const std::string manifest = ManifestPath(20);
        std::string bytes = ReadAll(manifest);
        bytes[8] = 9;
        WriteAll(manifest, bytes);
        return manifest;
      },
      "unsupported format version 9 (this build reads 1)");
}

TEST_F(CheckpointTest, DataHeaderDamageFallsBack) {
  ExpectFallbackAfter(
      [&] {
        const std::string data = DataPath(20);
        std::string bytes = ReadAll(data);
        bytes[3] ^= 0x10;
        WriteAll(data, bytes);
        return data;
      },
      "bad magic bytes");
}

// One bit flipped anywhere in either file makes the checkpoint corrupt.
// Bytes are sampled with a stride so the test stays quick; every manifest
// byte is covered by CheckpointFormatTest.EveryBitFlipIsDetected.
TEST_F(CheckpointTest, BitFlipsInDataAndManifestFallBack) {
  Save(10, 1);
  Save(20, 2);
  for (const bool in_manifest : {true, false}) {
    const std::string file = in_manifest ? ManifestPath(20) : DataPath(20);
    const std::string good = ReadAll(file);
    for (size_t byte = 0; byte < good.size(); byte += in_manifest ? 7 : 97) {
      SCOPED_TRACE(file + " byte " + std::to_string(byte));
      std::string bad = good;
      bad[byte] ^= static_cast<char>(1 << (byte % 8));
      WriteAll(file, bad);
      test_util::ScopedLogCapture capture;
      ExpectRestores(10, 1);
      ASSERT_EQ(capture.lines().size(), 1u);
      EXPECT_THAT(capture.lines()[0], HasSubstr("'" + file + "'"));
      WriteAll(file, good);
    }
  }
  ExpectRestores(20, 2);
}

TEST_F(CheckpointTest, AFlippedTensorIsNamed) {
  ExpectFallbackAfter(
      [&] {
        const std::string data = DataPath(20);
        std::string bytes = ReadAll(data);
        bytes.back() ^= 0x01;  // the last tensor in name order
        WriteAll(data, bytes);
        return data;
      },
      "tensor 'scalar/i64': checksum mismatch");
}

TEST_F(CheckpointTest, AnI1ByteOtherThanZeroOrOneIsRefused) {
  TensorMap tensors;
  tensors["flags"] =
      *DenseHostTensor::Create(DType::kI1, TensorShape{3}, &allocator_);
  tensors["flags"].mutable_values<bool>()[0] = false;
  tensors["flags"].mutable_values<bool>()[1] = true;
  tensors["flags"].mutable_values<bool>()[2] = true;
  ASSERT_TRUE(SaveCheckpoint(dir_, 1, 0, tensors).ok());
  // Make the third byte 2 and give the manifest the matching checksum, as
  // a hostile writer would.
  const std::string data = DataPath(1);
  std::string bytes = ReadAll(data);
  bytes[internal::kDataHeaderBytes + 2] = 2;
  WriteAll(data, bytes);
  const std::string manifest_bytes = ReadAll(ManifestPath(1));
  absl::StatusOr<internal::Manifest> manifest =
      internal::DecodeManifest(Bytes(manifest_bytes));
  ASSERT_TRUE(manifest.ok());
  manifest->tensors[0].crc32 =
      Crc32(Bytes(bytes).subspan(internal::kDataHeaderBytes, 3));
  WriteAll(ManifestPath(1), internal::EncodeManifest(*manifest));

  test_util::ScopedLogCapture capture;
  absl::StatusOr<Checkpoint> restored = RestoreCheckpoint(dir_, &allocator_);
  EXPECT_EQ(restored.status().code(), absl::StatusCode::kNotFound);
  ASSERT_EQ(capture.lines().size(), 1u);
  EXPECT_THAT(capture.lines()[0],
              HasSubstr("tensor 'flags': i1 element 2 is 2, not 0 or 1"));
}

TEST_F(CheckpointTest, HostileManifestsThroughRestoreNeverCrash) {
  Save(1, 1);
  const std::string good = ReadAll(ManifestPath(1));
  std::mt19937 random(99);
  for (int i = 0; i < 300; ++i) {
    std::string bad = good;
    // A few random bytes changed, the checksum made valid again.
    for (int j = 0; j < 3; ++j) {
      bad[random() % (bad.size() - 4)] = static_cast<char>(random());
    }
    bad.replace(bad.size() - 4, 4, std::string(4, '\0'));
    const uint32_t crc = Crc32(Bytes(bad).first(bad.size() - 4));
    for (int k = 0; k < 4; ++k) bad[bad.size() - 4 + k] = crc >> (8 * k);
    WriteAll(ManifestPath(2), bad);
    test_util::ScopedLogCapture capture;
    absl::StatusOr<Checkpoint> restored = RestoreCheckpoint(dir_, &allocator_);
    // The copy records step 1, not the 2 of its name: unless the damage
    // made that field 2 and left the rest readable, it is refused and step
    // 1 comes back.
    ASSERT_TRUE(restored.ok()) << restored.status();
    if (restored->step == 2) {
      EXPECT_THAT(capture.lines(), IsEmpty());
    } else {
      EXPECT_EQ(restored->step, 1);
      EXPECT_EQ(capture.lines().size(), 1u);
    }
  }
}

TEST_F(CheckpointTest, AnotherSaveInProgressIsUnavailable) {
  const int fd = open(Path(".ckpt-lock").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_EX), 0);
  absl::Status status =
      SaveCheckpoint(dir_, 1, 0, CheckpointTestTensors(1, &allocator_));
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(status.message(), "another save holds the lock on '" + dir_ + "'");
  close(fd);
  Save(1, 1);
}

// An injected error at each stage of a save fails it with that error and
// leaves no new file: the writer removes its temporary on the way out.
TEST_F(CheckpointTest, AFailedSaveLeavesNothingBehind) {
  Save(1, 1);
  const std::vector<std::string> before = Names();
  for (const char* spec : {"checkpoint.save.begin=error:INTERNAL",
                           "checkpoint.save.tensor=error:INTERNAL@nth=3",
                           "checkpoint.save.rename=error:INTERNAL@nth=1",
                           "checkpoint.save.rename=error:INTERNAL@nth=2"}) {
    SCOPED_TRACE(spec);
    ASSERT_TRUE(FaultInjector::Set(spec).ok());
    absl::Status status =
        SaveCheckpoint(dir_, 2, 0, CheckpointTestTensors(2, &allocator_));
    FaultInjector::Clear();
    EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
    std::vector<std::string> after = Names();
    // The second rename fails with the data file already in place; the
    // next save removes it, as no manifest names it.
    if (std::string(spec).find("nth=2") != std::string::npos) {
      EXPECT_EQ(after.size(), before.size() + 1);
    } else {
      EXPECT_THAT(after, UnorderedElementsAreArray(before));
    }
    ExpectRestores(1, 1);
  }
  Save(3, 3);
  EXPECT_EQ(Names().size(), before.size() + 2);
}

TEST_F(CheckpointTest, RefusesInvalidArguments) {
  TensorMap tensors = CheckpointTestTensors(1, &allocator_);
  auto message = [&](int64_t step, const TensorMap& t,
                     CheckpointOptions options = {}) {
    absl::Status status = SaveCheckpoint(dir_, step, 0, t, options);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    return std::string(status.message());
  };
  const std::string prefix = "cannot save checkpoint of step ";
  EXPECT_EQ(message(-1, tensors),
            prefix + "-1 in '" + dir_ + "': the step must be at least 0");
  EXPECT_THAT(message(1, tensors, Keep(0)),
              HasSubstr("keep_last is 0, must be at least 1"));
  TensorMap bad = {{"", tensors.begin()->second}};
  EXPECT_THAT(message(1, bad), HasSubstr("a tensor name of 0 bytes"));
  bad = {{std::string(1025, 'n'), tensors.begin()->second}};
  EXPECT_THAT(message(1, bad), HasSubstr("a tensor name of 1025 bytes"));
  bad = {{"unset", DenseHostTensor()}};
  EXPECT_THAT(message(1, bad),
              HasSubstr("tensor 'unset' has no buffer (never assigned)"));
  EXPECT_THAT(*ListCheckpointSteps(dir_), IsEmpty());
}

TEST_F(CheckpointTest, AManifestARestoreWouldRefuseIsNotWritten) {
  // 2^16 names of 1024 bytes: a manifest over 64 MiB.
  TensorMap tensors;
  const DenseHostTensor empty =
      *DenseHostTensor::Create(DType::kI1, TensorShape{0}, &allocator_);
  for (int i = 0; i < (1 << 16); ++i) {
    std::string name(1024, 'n');
    std::snprintf(name.data(), name.size(), "%08d", i);
    tensors.emplace(std::move(name), empty);
  }
  absl::Status status = SaveCheckpoint(dir_, 1, 0, tensors);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("its manifest would have 69206113 bytes, more than "
                        "the 67108864 a restore accepts"));
  EXPECT_THAT(Names(), IsEmpty());
}

TEST_F(CheckpointTest, ADirectoryThatIsAFileIsAnError) {
  WriteAll(Path("file"), "x");
  absl::Status status = SaveCheckpoint(Path("file"), 1, 0, {});
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("exists and is not a directory"));
}

}  // namespace
}  // namespace sluice::checkpoint
