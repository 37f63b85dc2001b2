// Checkpoints of named tensors in a directory, safe against crashes.
//
//   std::map<std::string, DenseHostTensor> tensors = ...;
//   absl::Status saved = SaveCheckpoint("/ckpt/run1", step, epoch, tensors);
//   absl::StatusOr<Checkpoint> restored =
//       RestoreCheckpoint("/ckpt/run1", allocator);
//
// A save writes the tensors' bytes to a data file and then a manifest that
// describes them; each file is written under a temporary name, synced, and
// renamed into place. A checkpoint exists only once its manifest does, so a
// process killed in the middle of a save leaves the previous checkpoints as
// they were. Restore takes the newest checkpoint that reads back intact and
// skips, with a warning, any that is partial or corrupt. The format is
// little-endian on every host and documented byte by byte in
// docs/checkpoints.md.
#ifndef SLUICE_CHECKPOINT_CHECKPOINT_H_
#define SLUICE_CHECKPOINT_CHECKPOINT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice::checkpoint {

// Limits a reader enforces on any file, so a hostile or damaged one costs
// an error and never more memory than its own size. A save refuses what a
// restore would refuse.
inline constexpr int64_t kMaxCheckpointTensors = 1 << 20;
inline constexpr int64_t kMaxCheckpointTensorNameBytes = 1024;
inline constexpr int64_t kMaxCheckpointManifestBytes = 64 << 20;

struct CheckpointOptions {
  // How many complete checkpoints a save leaves in the directory, counting
  // the one it wrote; older ones are deleted. At least 1.
  int keep_last = 5;
};

// A checkpoint read back from disk.
struct Checkpoint {
  int64_t step = 0;
  int64_t epoch = 0;
  std::map<std::string, DenseHostTensor> tensors;
  std::string manifest_path;  // the file it was read from
};

// Writes `tensors` as the checkpoint of `step` (at least 0) in `directory`,
// creating the directory if needed, and then deletes what `options` does not
// keep: older checkpoints, temporaries a crashed save left, and data files
// no manifest names. Saving a step that already has a checkpoint replaces
// it atomically. One save at a time per directory: a save that finds
// another under way in any process fails with UNAVAILABLE. Errors name the
// file and the system call that failed.
absl::Status SaveCheckpoint(
    const std::string& directory, int64_t step, int64_t epoch,
    const std::map<std::string, DenseHostTensor>& tensors,
    const CheckpointOptions& options = {});

// The newest checkpoint in `directory` that reads back intact, its tensors
// in buffers from `allocator`. Each newer one that is partial or corrupt (a
// missing or truncated file, a checksum that does not match, an unsupported
// version, a value out of range) is skipped with a WARNING that names the
// file and the reason. NOT_FOUND, naming the directory, when there is no
// intact checkpoint.
absl::StatusOr<Checkpoint> RestoreCheckpoint(const std::string& directory,
                                             HostAllocator* allocator);

// The steps that have a manifest in `directory`, newest first, without
// reading the manifests. Empty when the directory does not exist.
absl::StatusOr<std::vector<int64_t>> ListCheckpointSteps(
    const std::string& directory);

}  // namespace sluice::checkpoint

#endif  // SLUICE_CHECKPOINT_CHECKPOINT_H_
