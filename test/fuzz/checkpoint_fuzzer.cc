// Fuzz target for checkpoints read back from disk (docs/checkpoints.md): the
// manifest's decoding (lib/checkpoint/checkpoint_format.h), the data
// file's header and tensors, and the file names a directory listing yields.
// A checkpoint directory may hold anything a crash, a bad disk or another
// program left there.
//
// The input is a manifest and a data file: a little-endian u32 giving the
// manifest's length, the manifest, then the data file. Each manifest is
// decoded as given, which exercises the checksum check, and with its
// checksum made right, which lets mutations reach the checks behind it. A
// manifest either fails with DataLoss or decodes into tensors that tile the
// data file, and encodes back to its own bytes. A manifest that decodes is
// written to a directory with the data file (its tensors' checksums made
// right too) and restored: RestoreCheckpoint either finds no intact
// checkpoint (NotFound) or returns exactly the tensors the manifest
// describes, with the data file's bytes.
//
// In the test suite, seeded_fuzz_driver.cc runs this target on checkpoints
// the format's encoders write and deterministic mutations of them; to fuzz
// it for real with libFuzzer, see build_libfuzzer_target.sh.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "lib/checkpoint/checkpoint_format.h"
#include "sluice/checkpoint/checkpoint.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/support/logging.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "sluice/tensor/dtype.h"
#include "sluice/tensor/tensor_shape.h"
#include "test/fuzz/fuzz_target.h"

namespace sluice {
namespace checkpoint {
namespace internal {
namespace {

using fuzz::Require;

absl::Span<const uint8_t> Bytes(std::string_view text) {
  return absl::Span<const uint8_t>(
      reinterpret_cast<const uint8_t*>(text.data()), text.size());
}

void PutLe32(std::string& bytes, size_t at, uint32_t value) {
  for (int i = 0; i < 4; ++i)
    bytes[at + i] = static_cast<char>(value >> (8 * i));
}

HostAllocator* Allocator() {
  static HostAllocator* const allocator = CreateMallocAllocator().release();
  return allocator;
}

// A directory of this process's own, emptied before each restore.
const std::string& Directory() {
  static const std::string* const path = [] {
    const char* dir = std::getenv("TEST_TMPDIR");
    auto* path = new std::string(absl::StrCat(dir != nullptr ? dir : "/tmp",
                                              "/checkpoint_fuzzer.", getpid()));
    std::filesystem::create_directories(*path);
    std::atexit([] {
      std::error_code error;
      std::filesystem::remove_all(Directory(), error);
    });
    return path;
  }();
  return *path;
}

void EmptyDirectory() {
  std::error_code error;
  for (const auto& entry :
       std::filesystem::directory_iterator(Directory(), error)) {
    std::filesystem::remove(entry.path(), error);
  }
}

void WriteFile(const std::string& name, std::string_view bytes) {
  std::ofstream out(absl::StrCat(Directory(), "/", name),
                    std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  Require(static_cast<bool>(out), "the fuzzer can write its checkpoint");
}

void CheckManifest(const Manifest& manifest, std::string_view bytes) {
  Require(EncodeManifest(manifest) == bytes,
          "a decoded manifest encodes back to its own bytes");
  Require(manifest.step >= 0, "a manifest's step is not negative");
  Require(!manifest.data_file.empty() && manifest.data_file[0] != '.' &&
              manifest.data_file.find('/') == std::string::npos,
          "a manifest's data file is a plain name in its directory");
  uint64_t offset = kDataHeaderBytes;
  for (size_t i = 0; i < manifest.tensors.size(); ++i) {
    const TensorEntry& entry = manifest.tensors[i];
    Require(!entry.name.empty() &&
                entry.name.size() <=
                    static_cast<size_t>(kMaxCheckpointTensorNameBytes),
            "a tensor's name has 1 to 1024 bytes");
    Require(i == 0 || manifest.tensors[i - 1].name < entry.name,
            "tensor names are unique and ascending");
    Require(entry.offset == offset, "tensors are packed in order");
    Require(entry.size == static_cast<uint64_t>(entry.shape.num_elements()) *
                              DTypeSize(entry.dtype),
            "a tensor's size is its elements'");
    offset += entry.size;
    Require(offset <= manifest.data_file_size,
            "a tensor ends inside the data file");
  }
  Require(offset == manifest.data_file_size, "the tensors tile the data file");
}

std::optional<Manifest> Decode(std::string_view bytes) {
  absl::StatusOr<Manifest> manifest = DecodeManifest(Bytes(bytes));
  if (!manifest.ok()) {
    Require(absl::IsDataLoss(manifest.status()), "a bad manifest is DataLoss");
    return std::nullopt;
  }
  CheckManifest(*manifest, bytes);
  return *std::move(manifest);
}

// Names of files in a checkpoint directory that say which step they hold
// are exactly the names the writer gives.
void CheckFileName(std::string_view name) {
  if (std::optional<int64_t> step = StepOfManifestFile(name)) {
    Require(*step >= 0 && ManifestFileName(*step) == name,
            "a manifest's file name is the one its step gets");
  }
  if (std::optional<int64_t> step = StepOfDataFile(name)) {
    Require(*step >= 0, "a data file's step is not negative");
    const uint64_t nonce = std::strtoull(
        std::string(name.substr(name.size() - 21, 16)).c_str(), nullptr, 16);
    Require(DataFileName(*step, nonce) == name,
            "a data file's name is the one its step and nonce get");
  }
}

void Restore(Manifest manifest, std::string_view data) {
  // The tensors' checksums made right where the data file has their bytes,
  // so that restores reach the checks behind them.
  for (TensorEntry& entry : manifest.tensors) {
    if (entry.offset <= data.size() &&
        entry.size <= data.size() - entry.offset) {
      entry.crc32 = Crc32(Bytes(data.substr(entry.offset, entry.size)));
    }
  }
  EmptyDirectory();
  WriteFile(ManifestFileName(manifest.step), EncodeManifest(manifest));
  WriteFile(manifest.data_file, data);
  absl::StatusOr<Checkpoint> restored =
      RestoreCheckpoint(Directory(), Allocator());
  if (!restored.ok()) {
    Require(absl::IsNotFound(restored.status()),
            "a damaged checkpoint is skipped, leaving none");
    return;
  }
  Require(restored->step == manifest.step && restored->epoch == manifest.epoch,
          "a restored checkpoint has its manifest's step and epoch");
  Require(restored->tensors.size() == manifest.tensors.size(),
          "a restored checkpoint has its manifest's tensors");
  Require(CheckDataHeader(Bytes(data)).ok(),
          "a restored checkpoint's data file has a good header");
  for (const TensorEntry& entry : manifest.tensors) {
    auto it = restored->tensors.find(entry.name);
    Require(it != restored->tensors.end(), "a restored tensor has its name");
    const DenseHostTensor& tensor = it->second;
    Require(tensor.dtype() == entry.dtype && tensor.shape() == entry.shape,
            "a restored tensor has its manifest's dtype and shape");
    Require(tensor.num_bytes() == entry.size &&
                (entry.size == 0 ||
                 std::memcmp(tensor.raw_data(), data.data() + entry.offset,
                             entry.size) == 0),
            "a restored tensor holds the data file's bytes");
  }
}

void CheckOneInput(std::string_view input) {
  static const bool quiet = [] {
    // Restores warn about every damaged checkpoint they skip.
    SetMinLogLevel(LogSeverity::kError);
    return true;
  }();
  (void)quiet;
  std::string manifest_bytes(input);
  std::string_view data;
  if (input.size() >= 4) {
    uint32_t length = 0;
    for (int i = 0; i < 4; ++i) {
      length |= static_cast<uint32_t>(static_cast<uint8_t>(input[i]))
                << (8 * i);
    }
    const size_t manifest_size = std::min<size_t>(length, input.size() - 4);
    manifest_bytes = std::string(input.substr(4, manifest_size));
    data = input.substr(4 + manifest_size);
  }

  std::optional<Manifest> manifest = Decode(manifest_bytes);
  if (!manifest && manifest_bytes.size() >= 4) {
    const std::string_view body(manifest_bytes.data(),
                                manifest_bytes.size() - 4);
    PutLe32(manifest_bytes, body.size(), Crc32(Bytes(body)));
    manifest = Decode(manifest_bytes);
  }
  if (data.size() >= kDataHeaderBytes) {
    absl::Status header = CheckDataHeader(Bytes(data));
    Require(header.ok() || absl::IsDataLoss(header),
            "a bad data file header is DataLoss");
  }
  CheckFileName(data.substr(0, 64));
  if (!manifest) return;
  CheckFileName(manifest->data_file);
  Restore(*std::move(manifest), data);
}

struct SeedTensor {
  std::string name;
  DType dtype;
  std::vector<int64_t> dims;
};

// A checkpoint as the writer lays it out, in the target's input format.
std::string SeedInput(int64_t step, int64_t epoch,
                      const std::vector<SeedTensor>& tensors) {
  Manifest manifest;
  manifest.step = step;
  manifest.epoch = epoch;
  manifest.data_file = DataFileName(step, 0x0123456789abcdefull + step);
  std::string data = EncodeDataHeader();
  for (const SeedTensor& seed : tensors) {
    TensorEntry entry;
    entry.name = seed.name;
    entry.dtype = seed.dtype;
    entry.shape = *TensorShape::Create(seed.dims);
    entry.offset = data.size();
    entry.size = static_cast<uint64_t>(entry.shape.num_elements()) *
                 DTypeSize(seed.dtype);
    for (uint64_t i = 0; i < entry.size; ++i) {
      data.push_back(static_cast<char>(
          seed.dtype == DType::kI1 ? i % 2 : (i * 29 + entry.offset) % 251));
    }
    entry.crc32 = Crc32(Bytes(std::string_view(data).substr(entry.offset)));
    manifest.tensors.push_back(std::move(entry));
  }
  manifest.data_file_size = data.size();
  const std::string encoded = EncodeManifest(manifest);
  std::string input(4, '\0');
  PutLe32(input, 0, static_cast<uint32_t>(encoded.size()));
  return input + encoded + data;
}

}  // namespace
}  // namespace internal
}  // namespace checkpoint

namespace fuzz {

TargetSeeds FuzzTargetSeeds() {
  using checkpoint::internal::SeedInput;
  TargetSeeds target;
  target.seeds = {
      SeedInput(0, 0, {}),
      SeedInput(7, 2, {{"w", DType::kF32, {2, 3}}}),
      SeedInput(123456789, 40,
                {{"bias", DType::kF64, {4}},
                 {"flags", DType::kI1, {5}},
                 {"kernel", DType::kI32, {2, 1, 2}},
                 {"scalar", DType::kI64, {}},
                 {"zero", DType::kF32, {0, 9}}}),
  };
  target.tokens = {"SLCKMANI",
                   "SLCKDATA",
                   "ckpt-",
                   ".manifest",
                   ".data",
                   "00000000000000000001",
                   std::string("\x01\0\0\0", 4),
                   std::string("\x10\0\0\0\0\0\0\0", 8)};
  return target;
}

}  // namespace fuzz
}  // namespace sluice

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sluice::checkpoint::internal::CheckOneInput(sluice::fuzz::AsText(data, size));
  return 0;
}
