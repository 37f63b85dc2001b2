// The bytes of a checkpoint's manifest and data file (docs/checkpoints.md):
// encoding, and decoding that trusts nothing it reads. Private to
// lib/coordinator.
#ifndef SLUICE_LIB_CHECKPOINT_CHECKPOINT_FORMAT_H_
#define SLUICE_LIB_CHECKPOINT_CHECKPOINT_FORMAT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "lib/support/crc32.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "sluice/tensor/dtype.h"
#include "sluice/tensor/tensor_shape.h"

namespace sluice::checkpoint::internal {

inline constexpr uint32_t kCheckpointFormatVersion = 1;
inline constexpr char kManifestMagic[8] = {'S', 'L', 'C', 'K',
                                           'M', 'A', 'N', 'I'};
inline constexpr char kDataMagic[8] = {'S', 'L', 'C', 'K', 'D', 'A', 'T', 'A'};
// Magic, version and a reserved zero word; the tensors follow.
inline constexpr uint64_t kDataHeaderBytes = 16;

// File names in a checkpoint directory. The step is written with 20 digits
// so that names sort as steps do; a data file's name adds a random nonce, so
// that saving a step again never overwrites the data its old manifest names.
std::string ManifestFileName(int64_t step);
std::string DataFileName(int64_t step, uint64_t nonce);
// The step in a name of the form above; nullopt for any other name.
std::optional<int64_t> StepOfManifestFile(std::string_view name);
std::optional<int64_t> StepOfDataFile(std::string_view name);
// Files being written start with this prefix; any found by a save that
// holds the directory's lock were left by a save that died.
inline constexpr std::string_view kTemporaryPrefix = ".ckpt-tmp-";
inline constexpr char kLockFileName[] = ".ckpt-lock";

struct TensorEntry {
  std::string name;
  DType dtype = DType::kI32;
  TensorShape shape;
  uint64_t offset = 0;  // from the start of the data file
  uint64_t size = 0;    // bytes
  uint32_t crc32 = 0;   // of the bytes as stored (little-endian)
};

struct Manifest {
  int64_t step = 0;
  int64_t epoch = 0;
  std::string data_file;  // a name in the checkpoint's directory
  uint64_t data_file_size = 0;
  std::vector<TensorEntry> tensors;  // in data file order, names ascending
};

// The manifest's bytes, its checksum last.
std::string EncodeManifest(const Manifest& manifest);

// The manifest in `bytes`, checked: magic, version, checksum, every count
// and size against the bytes left, names (length, uniqueness, order),
// dtypes, shapes, and that the tensors tile the data file exactly. The
// message says what is wrong and where, without the file's name.
absl::StatusOr<Manifest> DecodeManifest(absl::Span<const uint8_t> bytes);

// The data file's first kDataHeaderBytes bytes, and their check.
std::string EncodeDataHeader();
absl::Status CheckDataHeader(absl::Span<const uint8_t> header);

// The tensor's elements as stored: little-endian, i1 as bytes 0 and 1. On a
// little-endian host this is the tensor's own memory and `scratch` is not
// touched; elsewhere the bytes are swapped into `scratch`.
absl::Span<const uint8_t> StoredBytes(const DenseHostTensor& tensor,
                                      std::vector<uint8_t>* scratch);

// Turns stored bytes, read into `tensor`'s buffer, into the host's element
// order, and refuses an i1 byte other than 0 or 1 (which is no bool).
absl::Status StoredBytesToHost(DenseHostTensor* tensor);

// Manifests and tensors carry the Crc32 of lib/support/crc32.h (IEEE 802.3,
// as zlib computes it); this header includes it for whoever writes or
// checks them.

}  // namespace sluice::checkpoint::internal

#endif  // SLUICE_LIB_CHECKPOINT_CHECKPOINT_FORMAT_H_
