#include "lib/checkpoint/checkpoint_format.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/config.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "lib/support/crc32.h"
#include "sluice/checkpoint/checkpoint.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "sluice/tensor/dtype.h"
#include "sluice/tensor/tensor_shape.h"

namespace sluice::checkpoint::internal {
namespace {

// The smallest tensor entry: a one-byte name, dtype, rank 0, offset, size
// and checksum.
constexpr uint64_t kMinTensorEntryBytes = 2 + 1 + 1 + 1 + 8 + 8 + 4;
// Magic, version, reserved, step, epoch, tensor count, data file name
// length; the name and the data file size follow.
constexpr uint64_t kManifestHeaderBytes = 8 + 4 + 4 + 8 + 8 + 4 + 2;
constexpr uint64_t kMaxDataFileNameBytes = 255;
// A header, a data file name of one byte, the data file size, no tensor,
// the checksum.
constexpr uint64_t kMinManifestBytes = kManifestHeaderBytes + 1 + 8 + 4;

#if defined(ABSL_IS_BIG_ENDIAN)
constexpr bool kBigEndianHost = true;
#elif defined(ABSL_IS_LITTLE_ENDIAN)
constexpr bool kBigEndianHost = false;
#else
#error "the checkpoint format needs to know the host's byte order"
#endif

void AppendLe(std::string* out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) {
    out->push_back(static_cast<char>(value >> (8 * i)));
  }
}

void AppendVersionAndReserved(std::string* out) {
  AppendLe(out, kCheckpointFormatVersion, 4);
  AppendLe(out, 0, 4);
}

uint64_t LoadLe(const uint8_t* bytes, int count) {
  uint64_t value = 0;
  for (int i = 0; i < count; ++i) {
    value |= static_cast<uint64_t>(bytes[i]) << (8 * i);
  }
  return value;
}

// A data file name is a plain name: no separator, no leading dot (which
// rules out "." and ".."), nothing a shell or a listing would mangle.
bool IsPlainFileName(const std::string& name) {
  if (name.empty() || name[0] == '.') return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
    if (!ok) return false;
  }
  return true;
}

// Reads little-endian fields from the manifest, never past its end.
class ManifestReader {
 public:
  explicit ManifestReader(absl::Span<const uint8_t> bytes) : bytes_(bytes) {}

  uint64_t offset() const { return position_; }
  uint64_t remaining() const { return bytes_.size() - position_; }

  absl::Status Read(const char* what, int count, uint64_t* value) {
    if (remaining() < static_cast<uint64_t>(count)) return Truncated(what);
    *value = LoadLe(bytes_.data() + position_, count);
    position_ += count;
    return absl::OkStatus();
  }

  absl::Status ReadString(const char* what, uint64_t size, std::string* out) {
    if (remaining() < size) return Truncated(what);
    out->assign(reinterpret_cast<const char*>(bytes_.data() + position_), size);
    position_ += size;
    return absl::OkStatus();
  }

  template <typename... Args>
  absl::Status Error(uint64_t offset, const absl::FormatSpec<Args...>& format,
                     const Args&... args) const {
    return absl::DataLossError(absl::StrCat("at byte ", offset, ": ",
                                            absl::StrFormat(format, args...)));
  }

 private:
  absl::Status Truncated(const char* what) const {
    return Error(position_, "%s runs past the end of the manifest (%d bytes)",
                 what, bytes_.size());
  }

  absl::Span<const uint8_t> bytes_;
  uint64_t position_ = 0;
};

// The step in `name` = "ckpt-" + 20 digits + `rest`, where `rest` matches
// `rest_ok`.
template <typename RestOk>
std::optional<int64_t> StepOfFile(std::string_view name, RestOk rest_ok) {
  constexpr std::string_view kPrefix = "ckpt-";
  constexpr size_t kDigits = 20;
  if (name.size() < kPrefix.size() + kDigits ||
      name.substr(0, kPrefix.size()) != kPrefix) {
    return std::nullopt;
  }
  uint64_t step = 0;
  for (char c : name.substr(kPrefix.size(), kDigits)) {
    if (c < '0' || c > '9') return std::nullopt;
    if (step > (static_cast<uint64_t>(INT64_MAX) - (c - '0')) / 10) {
      return std::nullopt;
    }
    step = step * 10 + (c - '0');
  }
  if (!rest_ok(name.substr(kPrefix.size() + kDigits))) return std::nullopt;
  return static_cast<int64_t>(step);
}

absl::Status ReadTensorEntry(ManifestReader& reader, TensorEntry* entry) {
  uint64_t name_size = 0, dtype_byte = 0, rank = 0;
  const uint64_t name_offset = reader.offset();
  absl::Status status = reader.Read("a tensor name's length", 2, &name_size);
  if (!status.ok()) return status;
  if (name_size == 0 ||
      name_size > static_cast<uint64_t>(kMaxCheckpointTensorNameBytes)) {
    return reader.Error(name_offset,
                        "tensor name of %d bytes (1 to %d allowed)", name_size,
                        kMaxCheckpointTensorNameBytes);
  }
  status = reader.ReadString("a tensor name", name_size, &entry->name);
  if (!status.ok()) return status;

  const uint64_t dtype_offset = reader.offset();
  status = reader.Read("a dtype", 1, &dtype_byte);
  if (!status.ok()) return status;
  std::optional<DType> dtype = DTypeFromByte(static_cast<uint8_t>(dtype_byte));
  if (!dtype) {
    return reader.Error(dtype_offset, "tensor '%s' has unknown dtype %d",
                        entry->name, dtype_byte);
  }
  entry->dtype = *dtype;

  const uint64_t rank_offset = reader.offset();
  status = reader.Read("a rank", 1, &rank);
  if (!status.ok()) return status;
  if (rank > static_cast<uint64_t>(TensorShape::kMaxRank)) {
    return reader.Error(rank_offset, "tensor '%s' has rank %d (at most %d)",
                        entry->name, rank, TensorShape::kMaxRank);
  }
  std::vector<int64_t> dims(rank);
  for (int64_t& dim : dims) {
    uint64_t value = 0;
    status = reader.Read("a dimension", 8, &value);
    if (!status.ok()) return status;
    dim = static_cast<int64_t>(value);
  }
  absl::StatusOr<TensorShape> shape = TensorShape::Create(dims);
  if (!shape.ok()) {
    return reader.Error(rank_offset, "tensor '%s': %s", entry->name,
                        std::string(shape.status().message()));
  }
  entry->shape = *std::move(shape);

  const uint64_t size_offset = reader.offset();
  uint64_t crc = 0;
  status = reader.Read("a tensor's offset", 8, &entry->offset);
  if (status.ok()) status = reader.Read("a tensor's size", 8, &entry->size);
  if (status.ok()) status = reader.Read("a tensor's checksum", 4, &crc);
  if (!status.ok()) return status;
  entry->crc32 = static_cast<uint32_t>(crc);

  // size / element size, so that a large element count cannot overflow.
  const uint64_t element_size = DTypeSize(entry->dtype);
  const uint64_t elements = static_cast<uint64_t>(entry->shape.num_elements());
  if (entry->size % element_size != 0 ||
      entry->size / element_size != elements) {
    return reader.Error(size_offset,
                        "tensor '%s' (%s %s) has %d bytes, not %d elements "
                        "of %d bytes",
                        entry->name, DTypeName(entry->dtype),
                        entry->shape.ToString(), entry->size, elements,
                        element_size);
  }
  return absl::OkStatus();
}

}  // namespace

std::string ManifestFileName(int64_t step) {
  return absl::StrFormat("ckpt-%020d.manifest", step);
}

std::string DataFileName(int64_t step, uint64_t nonce) {
  return absl::StrFormat("ckpt-%020d-%016x.data", step, nonce);
}

std::optional<int64_t> StepOfManifestFile(std::string_view name) {
  return StepOfFile(name,
                    [](std::string_view rest) { return rest == ".manifest"; });
}

std::optional<int64_t> StepOfDataFile(std::string_view name) {
  return StepOfFile(name, [](std::string_view rest) {
    constexpr size_t kHexDigits = 16;
    if (rest.size() != 1 + kHexDigits + 5 || rest[0] != '-' ||
        rest.substr(1 + kHexDigits) != ".data") {
      return false;
    }
    for (char c : rest.substr(1, kHexDigits)) {
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    }
    return true;
  });
}

std::string EncodeManifest(const Manifest& manifest) {
  std::string out(kManifestMagic, sizeof(kManifestMagic));
  AppendVersionAndReserved(&out);
  AppendLe(&out, static_cast<uint64_t>(manifest.step), 8);
  AppendLe(&out, static_cast<uint64_t>(manifest.epoch), 8);
  AppendLe(&out, manifest.tensors.size(), 4);
  AppendLe(&out, manifest.data_file.size(), 2);
  out += manifest.data_file;
  AppendLe(&out, manifest.data_file_size, 8);
  for (const TensorEntry& entry : manifest.tensors) {
    AppendLe(&out, entry.name.size(), 2);
    out += entry.name;
    AppendLe(&out, static_cast<uint8_t>(entry.dtype), 1);
    AppendLe(&out, entry.shape.rank(), 1);
    for (int64_t dim : entry.shape.dims()) {
      AppendLe(&out, static_cast<uint64_t>(dim), 8);
    }
    AppendLe(&out, entry.offset, 8);
    AppendLe(&out, entry.size, 8);
    AppendLe(&out, entry.crc32, 4);
  }
  const uint32_t crc = Crc32(absl::Span<const uint8_t>(
      reinterpret_cast<const uint8_t*>(out.data()), out.size()));
  AppendLe(&out, crc, 4);
  return out;
}

absl::StatusOr<Manifest> DecodeManifest(absl::Span<const uint8_t> bytes) {
  if (bytes.size() < kMinManifestBytes) {
    return absl::DataLossError(
        absl::StrFormat("%d bytes, shorter than any manifest (%d)",
                        bytes.size(), kMinManifestBytes));
  }
  if (std::memcmp(bytes.data(), kManifestMagic, sizeof(kManifestMagic)) != 0) {
    return absl::DataLossError("not a checkpoint manifest (bad magic bytes)");
  }
  // The version comes before the checksum so that a manifest from a newer
  // format is reported as such, not as damage.
  const uint64_t version = LoadLe(bytes.data() + 8, 4);
  if (version != kCheckpointFormatVersion) {
    return absl::DataLossError(
        absl::StrFormat("unsupported format version %d (this build reads %d)",
                        version, kCheckpointFormatVersion));
  }
  const size_t body_size = bytes.size() - 4;
  const uint32_t stored_crc =
      static_cast<uint32_t>(LoadLe(bytes.data() + body_size, 4));
  const uint32_t actual_crc = Crc32(bytes.first(body_size));
  if (stored_crc != actual_crc) {
    return absl::DataLossError(absl::StrFormat(
        "checksum mismatch: stored %08x, computed %08x over %d bytes",
        stored_crc, actual_crc, body_size));
  }

  ManifestReader reader(bytes.first(body_size));
  Manifest manifest;
  uint64_t skipped = 0, reserved = 0, step = 0, epoch = 0, count = 0;
  uint64_t name_size = 0;
  absl::Status status = reader.Read("the magic bytes", 8, &skipped);
  if (status.ok()) status = reader.Read("the version", 4, &skipped);
  if (status.ok()) status = reader.Read("the reserved word", 4, &reserved);
  if (status.ok() && reserved != 0) {
    status = reader.Error(12, "reserved word is %d, not 0", reserved);
  }
  if (status.ok()) status = reader.Read("the step", 8, &step);
  if (status.ok()) status = reader.Read("the epoch", 8, &epoch);
  if (status.ok()) status = reader.Read("the tensor count", 4, &count);
  if (status.ok()) {
    status = reader.Read("the data file name's length", 2, &name_size);
  }
  if (!status.ok()) return status;
  manifest.step = static_cast<int64_t>(step);
  manifest.epoch = static_cast<int64_t>(epoch);
  if (manifest.step < 0) {
    return reader.Error(16, "negative step %d", manifest.step);
  }
  const uint64_t name_offset = reader.offset();
  status =
      reader.ReadString("the data file name", name_size, &manifest.data_file);
  if (!status.ok()) return status;
  if (name_size > kMaxDataFileNameBytes ||
      !IsPlainFileName(manifest.data_file)) {
    return reader.Error(name_offset,
                        "data file name '%s' is not a plain file name",
                        manifest.data_file);
  }
  const uint64_t data_size_offset = reader.offset();
  status = reader.Read("the data file size", 8, &manifest.data_file_size);
  if (!status.ok()) return status;
  if (manifest.data_file_size < kDataHeaderBytes) {
    return reader.Error(data_size_offset,
                        "data file of %d bytes, shorter than its header",
                        manifest.data_file_size);
  }

  if (count > static_cast<uint64_t>(kMaxCheckpointTensors) ||
      count > reader.remaining() / kMinTensorEntryBytes) {
    return reader.Error(32, "%d tensors cannot fit in the %d bytes left", count,
                        reader.remaining());
  }
  manifest.tensors.resize(count);
  uint64_t expected_offset = kDataHeaderBytes;
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t entry_offset = reader.offset();
    TensorEntry& entry = manifest.tensors[i];
    status = ReadTensorEntry(reader, &entry);
    if (!status.ok()) return status;
    if (i > 0 && !(manifest.tensors[i - 1].name < entry.name)) {
      return reader.Error(entry_offset,
                          "tensor '%s' comes after '%s' (names must be "
                          "unique and ascending)",
                          entry.name, manifest.tensors[i - 1].name);
    }
    // Packed in order, each ending within the data file, so the running
    // offset never passes the data file's size.
    if (entry.offset != expected_offset) {
      return reader.Error(entry_offset,
                          "tensor '%s' at data offset %d, expected %d",
                          entry.name, entry.offset, expected_offset);
    }
    if (entry.size > manifest.data_file_size - expected_offset) {
      return reader.Error(entry_offset,
                          "tensor '%s' of %d bytes at data offset %d runs "
                          "past the data file's %d bytes",
                          entry.name, entry.size, entry.offset,
                          manifest.data_file_size);
    }
    expected_offset += entry.size;
  }
  if (reader.remaining() != 0) {
    return reader.Error(reader.offset(), "%d bytes after the last tensor",
                        reader.remaining());
  }
  if (expected_offset != manifest.data_file_size) {
    return reader.Error(0,
                        "the tensors cover %d bytes of a data file of %d bytes",
                        expected_offset, manifest.data_file_size);
  }
  return manifest;
}

std::string EncodeDataHeader() {
  std::string out(kDataMagic, sizeof(kDataMagic));
  AppendVersionAndReserved(&out);
  return out;
}

absl::Status CheckDataHeader(absl::Span<const uint8_t> header) {
  const std::string expected = EncodeDataHeader();
  if (header.size() < expected.size() ||
      std::memcmp(header.data(), kDataMagic, sizeof(kDataMagic)) != 0) {
    return absl::DataLossError("not a checkpoint data file (bad magic bytes)");
  }
  if (std::memcmp(header.data(), expected.data(), expected.size()) != 0) {
    return absl::DataLossError(absl::StrFormat(
        "data file header has version %d and reserved word %d, expected "
        "version %d and 0",
        LoadLe(header.data() + 8, 4), LoadLe(header.data() + 12, 4),
        kCheckpointFormatVersion));
  }
  return absl::OkStatus();
}

absl::Span<const uint8_t> StoredBytes(const DenseHostTensor& tensor,
                                      std::vector<uint8_t>* scratch) {
  const auto* data = static_cast<const uint8_t*>(tensor.raw_data());
  absl::Span<const uint8_t> bytes(data, tensor.num_bytes());
  if constexpr (!kBigEndianHost) {
    return bytes;
  }
  scratch->assign(bytes.begin(), bytes.end());
  const size_t element_size = DTypeSize(tensor.dtype());
  for (size_t i = 0; i < scratch->size(); i += element_size) {
    std::reverse(scratch->begin() + i, scratch->begin() + i + element_size);
  }
  return *scratch;
}

absl::Status StoredBytesToHost(DenseHostTensor* tensor) {
  auto* data = static_cast<uint8_t*>(tensor->raw_data());
  const size_t size = tensor->num_bytes();
  if (tensor->dtype() == DType::kI1) {
    for (size_t i = 0; i < size; ++i) {
      if (data[i] > 1) {
        return absl::DataLossError(
            absl::StrFormat("i1 element %d is %d, not 0 or 1", i, data[i]));
      }
    }
    return absl::OkStatus();
  }
  if constexpr (kBigEndianHost) {
    const size_t element_size = DTypeSize(tensor->dtype());
    for (size_t i = 0; i < size; i += element_size) {
      std::reverse(data + i, data + i + element_size);
    }
  }
  return absl::OkStatus();
}

}  // namespace sluice::checkpoint::internal
