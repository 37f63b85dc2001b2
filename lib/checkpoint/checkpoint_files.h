// The file operations a checkpoint needs, over POSIX, with errors that name
// the file and the call: atomic replacement of a file, bounded reads, a
// directory lock. Private to lib/coordinator.
#ifndef SLUICE_LIB_CHECKPOINT_CHECKPOINT_FILES_H_
#define SLUICE_LIB_CHECKPOINT_CHECKPOINT_FILES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "sluice/support/file_reading.h"

namespace sluice::checkpoint::internal {

std::string JoinPath(const std::string& directory, const std::string& name);

// Creates `path` and its missing parents, as `mkdir -p` does.
absl::Status MakeDirectories(const std::string& path);

// The names in `directory`, without "." and "..". NOT_FOUND when it does
// not exist.
absl::StatusOr<std::vector<std::string>> ListDirectory(
    const std::string& directory);

// Makes the directory's entries (new, renamed and removed names) durable.
absl::Status SyncDirectory(const std::string& directory);

// Removes a file; a file already gone is not an error.
absl::Status RemoveFile(const std::string& path);

// A regular file opened for reading at offsets. A checkpoint directory is
// named by a program, so anything else in a file's place (a FIFO, a device)
// is refused at once rather than read.
class ReadOnlyFile {
 public:
  static absl::StatusOr<ReadOnlyFile> Open(const std::string& path);

  const std::string& path() const { return file_.path(); }
  // The size when the file was opened.
  uint64_t size() const { return file_.size(); }

  // Fills `out` from `offset`. DATA_LOSS when the file ends first (it
  // shrank since it was opened).
  absl::Status ReadAt(uint64_t offset, absl::Span<uint8_t> out) const;

 private:
  explicit ReadOnlyFile(RegularFile file) : file_(std::move(file)) {}

  RegularFile file_;
};

// Writes a file under a temporary name (kTemporaryPrefix + its name) in the
// same directory and, on Commit, syncs it, renames it to its name and syncs
// the directory, so that the name holds either the old file or the whole
// new one. Destroyed without Commit, it removes the temporary.
class AtomicFileWriter {
 public:
  static absl::StatusOr<AtomicFileWriter> Create(const std::string& directory,
                                                 const std::string& name);
  AtomicFileWriter(AtomicFileWriter&& other) noexcept;
  AtomicFileWriter& operator=(AtomicFileWriter&&) = delete;
  ~AtomicFileWriter();

  absl::Status Append(absl::Span<const uint8_t> bytes);
  absl::Status Append(const std::string& bytes);
  // The fault point "checkpoint.save.rename" comes just before the rename.
  absl::Status Commit();

 private:
  AtomicFileWriter(std::string directory, std::string name, int fd)
      : directory_(std::move(directory)), name_(std::move(name)), fd_(fd) {}

  std::string TemporaryPath() const;
  std::string FinalPath() const;

  std::string directory_;
  std::string name_;
  int fd_ = -1;
};

// An exclusive lock on a directory (flock on a file in it) held until
// destruction, against other processes and other threads alike.
class DirectoryLock {
 public:
  // UNAVAILABLE when another holder has it: waiting could take as long as
  // that holder's whole save.
  static absl::StatusOr<DirectoryLock> TryAcquire(const std::string& directory,
                                                  const std::string& name);
  DirectoryLock(DirectoryLock&& other) noexcept;
  DirectoryLock& operator=(DirectoryLock&&) = delete;
  ~DirectoryLock();

 private:
  explicit DirectoryLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace sluice::checkpoint::internal

#endif  // SLUICE_LIB_CHECKPOINT_CHECKPOINT_FILES_H_
