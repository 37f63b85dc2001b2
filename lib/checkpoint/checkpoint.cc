#include "sluice/checkpoint/checkpoint.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "lib/checkpoint/checkpoint_files.h"
#include "lib/checkpoint/checkpoint_format.h"
#include "lib/support/crc32.h"
#include "sluice/support/error_util.h"
#include "sluice/support/fault_point.h"
#include "sluice/support/logging.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice::checkpoint {
namespace {

using internal::AtomicFileWriter;
using internal::Manifest;
using internal::ReadOnlyFile;
using internal::TensorEntry;

// A checkpoint that cannot be used because of what is (or is not) on disk,
// as opposed to a failure of this process (memory, permissions): only the
// former lets a restore fall back to an older checkpoint.
bool IsDamage(const absl::Status& status) {
  return absl::IsDataLoss(status) || absl::IsNotFound(status);
}

absl::Status CheckSaveArguments(
    const std::string& directory, int64_t step,
    const std::map<std::string, DenseHostTensor>& tensors,
    const CheckpointOptions& options) {
  auto invalid = [&](const std::string& what) {
    return absl::InvalidArgumentError(
        absl::StrFormat("cannot save checkpoint of step %d in '%s': %s", step,
                        directory, what));
  };
  if (directory.empty()) return invalid("no directory given");
  if (step < 0) return invalid("the step must be at least 0");
  if (options.keep_last < 1) {
    return invalid(absl::StrCat("keep_last is ", options.keep_last,
                                ", must be at least 1"));
  }
  if (static_cast<int64_t>(tensors.size()) > kMaxCheckpointTensors) {
    return invalid(absl::StrCat(tensors.size(), " tensors, at most ",
                                kMaxCheckpointTensors));
  }
  for (const auto& [name, tensor] : tensors) {
    if (name.empty() ||
        static_cast<int64_t>(name.size()) > kMaxCheckpointTensorNameBytes) {
      return invalid(absl::StrCat("a tensor name of ", name.size(),
                                  " bytes (1 to ",
                                  kMaxCheckpointTensorNameBytes, " allowed)"));
    }
    if (tensor.buffer() == nullptr && tensor.num_elements() != 0) {
      return invalid(
          absl::StrCat("tensor '", name, "' has no buffer (never assigned)"));
    }
  }
  return absl::OkStatus();
}

uint64_t RandomNonce() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) | device();
}

// The manifest of `tensors`, its checksums still zero: the data file's
// layout is known before a byte is written.
Manifest PlanManifest(int64_t step, int64_t epoch,
                      const std::map<std::string, DenseHostTensor>& tensors) {
  Manifest manifest;
  manifest.step = step;
  manifest.epoch = epoch;
  manifest.data_file = internal::DataFileName(step, RandomNonce());
  uint64_t offset = internal::kDataHeaderBytes;
  for (const auto& [name, tensor] : tensors) {
    TensorEntry entry;
    entry.name = name;
    entry.dtype = tensor.dtype();
    entry.shape = tensor.shape();
    entry.offset = offset;
    entry.size = tensor.num_bytes();
    offset += entry.size;
    manifest.tensors.push_back(std::move(entry));
  }
  manifest.data_file_size = offset;
  return manifest;
}

// Writes the data file `manifest` plans and fills in its checksums.
absl::Status WriteDataFile(
    const std::string& directory,
    const std::map<std::string, DenseHostTensor>& tensors, Manifest* manifest) {
  absl::StatusOr<AtomicFileWriter> file =
      AtomicFileWriter::Create(directory, manifest->data_file);
  if (!file.ok()) return file.status();
  absl::Status status = file->Append(internal::EncodeDataHeader());
  if (!status.ok()) return status;
  std::vector<uint8_t> scratch;
  auto entry = manifest->tensors.begin();
  for (const auto& [name, tensor] : tensors) {
    status = SLUICE_FAULT_POINT("checkpoint.save.tensor");
    if (!status.ok()) return status;
    absl::Span<const uint8_t> bytes = internal::StoredBytes(tensor, &scratch);
    (entry++)->crc32 = Crc32(bytes);
    status = file->Append(bytes);
    if (!status.ok()) return status;
  }
  return file->Commit();
}

// The manifest of `step`, decoded, and its data file opened and checked to
// have the size the manifest gives it. Errors name the file at fault.
struct OpenedCheckpoint {
  Manifest manifest;
  ReadOnlyFile data;
};

absl::StatusOr<OpenedCheckpoint> OpenCheckpoint(const std::string& directory,
                                                int64_t step) {
  const std::string manifest_path =
      internal::JoinPath(directory, internal::ManifestFileName(step));
  absl::StatusOr<ReadOnlyFile> manifest_file =
      ReadOnlyFile::Open(manifest_path);
  if (!manifest_file.ok()) return manifest_file.status();
  if (manifest_file->size() >
      static_cast<uint64_t>(kMaxCheckpointManifestBytes)) {
    return absl::DataLossError(absl::StrFormat(
        "manifest '%s' has %d bytes, more than the %d a manifest may have",
        manifest_path, manifest_file->size(), kMaxCheckpointManifestBytes));
  }
  std::vector<uint8_t> bytes(manifest_file->size());
  absl::Status status = manifest_file->ReadAt(0, absl::MakeSpan(bytes));
  if (!status.ok()) return status;
  absl::StatusOr<Manifest> manifest = internal::DecodeManifest(bytes);
  if (!manifest.ok()) {
    return WithMessagePrefix(manifest.status(),
                             absl::StrCat("manifest '", manifest_path, "': "));
  }
  if (manifest->step != step) {
    return absl::DataLossError(absl::StrFormat(
        "manifest '%s' records step %d, not the step its name gives",
        manifest_path, manifest->step));
  }

  const std::string data_path =
      internal::JoinPath(directory, manifest->data_file);
  absl::StatusOr<ReadOnlyFile> data = ReadOnlyFile::Open(data_path);
  if (!data.ok()) {
    return WithMessagePrefix(
        data.status(),
        absl::StrCat("data file of manifest '", manifest_path, "': "));
  }
  if (data->size() != manifest->data_file_size) {
    return absl::DataLossError(absl::StrFormat(
        "data file '%s' has %d bytes, its manifest says %d (%s)", data_path,
        data->size(), manifest->data_file_size,
        data->size() < manifest->data_file_size ? "truncated" : "extended"));
  }
  return OpenedCheckpoint{*std::move(manifest), *std::move(data)};
}

absl::StatusOr<Checkpoint> ReadCheckpoint(const std::string& directory,
                                          int64_t step,
                                          HostAllocator* allocator) {
  absl::StatusOr<OpenedCheckpoint> opened = OpenCheckpoint(directory, step);
  if (!opened.ok()) return opened.status();
  const ReadOnlyFile& data = opened->data;
  const std::string data_error = absl::StrCat("data file '", data.path(), "'");

  uint8_t header[internal::kDataHeaderBytes];
  absl::Status status = data.ReadAt(0, absl::MakeSpan(header));
  if (status.ok()) status = internal::CheckDataHeader(header);
  if (!status.ok()) {
    return WithMessagePrefix(status, absl::StrCat(data_error, ": "));
  }

  Checkpoint checkpoint;
  checkpoint.step = opened->manifest.step;
  checkpoint.epoch = opened->manifest.epoch;
  checkpoint.manifest_path =
      internal::JoinPath(directory, internal::ManifestFileName(step));
  for (TensorEntry& entry : opened->manifest.tensors) {
    const std::string tensor_error =
        absl::StrCat(data_error, ", tensor '", entry.name, "'");
    absl::StatusOr<DenseHostTensor> tensor =
        DenseHostTensor::Create(entry.dtype, entry.shape, allocator);
    if (!tensor.ok()) {
      return WithMessagePrefix(tensor.status(),
                               absl::StrCat(tensor_error, ": "));
    }
    absl::Span<uint8_t> bytes(static_cast<uint8_t*>(tensor->raw_data()),
                              entry.size);
    status = data.ReadAt(entry.offset, bytes);
    if (!status.ok()) {
      return WithMessagePrefix(status, absl::StrCat(tensor_error, ": "));
    }
    const uint32_t crc = Crc32(bytes);
    if (crc != entry.crc32) {
      return absl::DataLossError(absl::StrFormat(
          "%s: checksum mismatch: stored %08x, computed %08x over %d bytes at "
          "offset %d",
          tensor_error, entry.crc32, crc, entry.size, entry.offset));
    }
    status = internal::StoredBytesToHost(&*tensor);
    if (!status.ok()) {
      return WithMessagePrefix(status, absl::StrCat(tensor_error, ": "));
    }
    checkpoint.tensors.emplace(std::move(entry.name), *std::move(tensor));
  }
  return checkpoint;
}

// The steps of the manifests among `names`, newest first.
std::vector<int64_t> ManifestSteps(const std::vector<std::string>& names) {
  std::vector<int64_t> steps;
  for (const std::string& name : names) {
    if (std::optional<int64_t> step = internal::StepOfManifestFile(name)) {
      steps.push_back(*step);
    }
  }
  std::sort(steps.begin(), steps.end(), std::greater<>());
  return steps;
}

// What a save leaves: the checkpoint it wrote and the keep_last - 1 newest
// others that open cleanly (checking the data's checksums is a restore's
// job). It removes other checkpoints, old or damaged, data files that no
// kept manifest names, and temporaries. A checkpoint it cannot judge (an
// error that is not damage, such as a permission) keeps its files.
// Failures are warnings: the save itself is done.
void RemoveStaleFiles(const std::string& directory, int64_t saved_step,
                      const std::string& saved_data_file, int keep_last) {
  absl::StatusOr<std::vector<std::string>> names =
      internal::ListDirectory(directory);
  if (!names.ok()) {
    SLUICE_LOG(WARNING) << "not cleaning checkpoint directory: "
                        << names.status().message();
    return;
  }
  std::set<std::string> kept_data_files = {saved_data_file};
  std::set<int64_t> unjudged_steps;
  std::vector<std::string> doomed;
  int kept = 1;
  for (int64_t step : ManifestSteps(*names)) {
    if (step == saved_step) continue;
    absl::StatusOr<OpenedCheckpoint> opened = OpenCheckpoint(directory, step);
    if (opened.ok() && kept < keep_last) {
      ++kept;
      kept_data_files.insert(opened->manifest.data_file);
    } else if (opened.ok() || IsDamage(opened.status())) {
      SLUICE_LOG_IF(WARNING, !opened.ok())
          << "removing damaged checkpoint of step " << step << ": "
          << opened.status().message();
      doomed.push_back(internal::ManifestFileName(step));
    } else {
      SLUICE_LOG(WARNING) << "keeping checkpoint of step " << step
                          << ", which could not be checked: "
                          << opened.status().message();
      unjudged_steps.insert(step);
    }
  }
  for (const std::string& name : *names) {
    const bool temporary = name.compare(0, internal::kTemporaryPrefix.size(),
                                        internal::kTemporaryPrefix) == 0;
    const std::optional<int64_t> data_step = internal::StepOfDataFile(name);
    const bool unnamed_data = data_step.has_value() &&
                              kept_data_files.count(name) == 0 &&
                              unjudged_steps.count(*data_step) == 0;
    if (temporary || unnamed_data) doomed.push_back(name);
  }
  for (const std::string& name : doomed) {
    absl::Status status =
        internal::RemoveFile(internal::JoinPath(directory, name));
    SLUICE_LOG_IF(WARNING, !status.ok()) << status.message();
  }
}

}  // namespace

absl::Status SaveCheckpoint(
    const std::string& directory, int64_t step, int64_t epoch,
    const std::map<std::string, DenseHostTensor>& tensors,
    const CheckpointOptions& options) {
  absl::Status status = CheckSaveArguments(directory, step, tensors, options);
  if (!status.ok()) return status;
  Manifest manifest = PlanManifest(step, epoch, tensors);
  // Checked before anything is written, with zero checksums, which take as
  // many bytes as the real ones.
  const size_t manifest_size = internal::EncodeManifest(manifest).size();
  if (manifest_size > static_cast<uint64_t>(kMaxCheckpointManifestBytes)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "cannot save checkpoint of step %d in '%s': its manifest would have "
        "%d bytes, more than the %d a restore accepts",
        step, directory, manifest_size, kMaxCheckpointManifestBytes));
  }
  status = internal::MakeDirectories(directory);
  if (!status.ok()) return status;
  absl::StatusOr<internal::DirectoryLock> lock =
      internal::DirectoryLock::TryAcquire(directory, internal::kLockFileName);
  if (!lock.ok()) return lock.status();
  status = SLUICE_FAULT_POINT("checkpoint.save.begin");
  if (!status.ok()) return status;

  status = WriteDataFile(directory, tensors, &manifest);
  if (!status.ok()) return status;
  absl::StatusOr<AtomicFileWriter> file =
      AtomicFileWriter::Create(directory, internal::ManifestFileName(step));
  if (!file.ok()) return file.status();
  status = file->Append(internal::EncodeManifest(manifest));
  if (status.ok()) status = file->Commit();
  if (!status.ok()) return status;

  RemoveStaleFiles(directory, step, manifest.data_file, options.keep_last);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int64_t>> ListCheckpointSteps(
    const std::string& directory) {
  absl::StatusOr<std::vector<std::string>> names =
      internal::ListDirectory(directory);
  if (absl::IsNotFound(names.status())) return std::vector<int64_t>();
  if (!names.ok()) return names.status();
  return ManifestSteps(*names);
}

absl::StatusOr<Checkpoint> RestoreCheckpoint(const std::string& directory,
                                             HostAllocator* allocator) {
  absl::StatusOr<std::vector<std::string>> names =
      internal::ListDirectory(directory);
  if (absl::IsNotFound(names.status())) {
    return absl::NotFoundError(absl::StrCat("no checkpoint in '", directory,
                                            "': the directory does not exist"));
  }
  if (!names.ok()) return names.status();
  const std::vector<int64_t> steps = ManifestSteps(*names);
  for (int64_t step : steps) {
    absl::StatusOr<Checkpoint> checkpoint =
        ReadCheckpoint(directory, step, allocator);
    if (checkpoint.ok()) return checkpoint;
    if (!IsDamage(checkpoint.status())) {
      return WithMessagePrefix(
          checkpoint.status(),
          absl::StrFormat("cannot restore checkpoint of step %d: ", step));
    }
    SLUICE_LOG(WARNING) << "skipping checkpoint of step " << step
                        << ", using an older one if any: "
                        << checkpoint.status().message();
  }
  if (steps.empty()) {
    return absl::NotFoundError(
        absl::StrCat("no checkpoint in '", directory, "'"));
  }
  return absl::NotFoundError(absl::StrFormat(
      "no complete checkpoint in '%s': all %d found are partial or corrupt",
      directory, steps.size()));
}

}  // namespace sluice::checkpoint
