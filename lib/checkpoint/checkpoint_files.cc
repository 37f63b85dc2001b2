#include "lib/checkpoint/checkpoint_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "lib/checkpoint/checkpoint_format.h"
#include "sluice/support/fault_point.h"

namespace sluice::checkpoint::internal {
namespace {

absl::Status ErrnoError(int error, const std::string& what,
                        const std::string& path) {
  return absl::ErrnoToStatus(error, absl::StrCat(what, " '", path, "'"));
}

// Closes `fd`; the caller keeps the first error it saw.
void CloseQuietly(int fd) {
  if (fd >= 0) ::close(fd);
}

// open(2), retried when a signal interrupts it.
int OpenRetrying(const std::string& path, int flags, mode_t mode = 0) {
  int fd;
  do {
    fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

absl::Status SyncFd(int fd, const std::string& path) {
  int result;
  do {
    result = ::fsync(fd);
  } while (result != 0 && errno == EINTR);
  if (result != 0) return ErrnoError(errno, "cannot sync", path);
  return absl::OkStatus();
}

}  // namespace

std::string JoinPath(const std::string& directory, const std::string& name) {
  if (directory.empty() || directory.back() == '/') {
    return absl::StrCat(directory, name);
  }
  return absl::StrCat(directory, "/", name);
}

absl::Status MakeDirectories(const std::string& path) {
  // Each prefix that ends before a '/', then the whole path.
  for (size_t end = path.find('/', 1);; end = path.find('/', end + 1)) {
    const std::string prefix = path.substr(0, end);
    if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
      return ErrnoError(errno, "cannot create directory", prefix);
    }
    if (end == std::string::npos) break;
  }
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) {
    return ErrnoError(errno, "cannot stat", path);
  }
  if (!S_ISDIR(info.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat("'", path, "' exists and is not a directory"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> ListDirectory(
    const std::string& directory) {
  DIR* dir = ::opendir(directory.c_str());
  if (dir == nullptr) {
    return ErrnoError(errno, "cannot list directory", directory);
  }
  std::vector<std::string> names;
  errno = 0;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  const int error = errno;
  ::closedir(dir);
  if (error != 0) return ErrnoError(error, "cannot list directory", directory);
  return names;
}

absl::Status SyncDirectory(const std::string& directory) {
  const int fd = OpenRetrying(directory, O_RDONLY | O_DIRECTORY);
  if (fd < 0) return ErrnoError(errno, "cannot open directory", directory);
  absl::Status status = SyncFd(fd, directory);
  CloseQuietly(fd);
  return status;
}

absl::Status RemoveFile(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return ErrnoError(errno, "cannot remove", path);
  }
  return absl::OkStatus();
}

absl::StatusOr<ReadOnlyFile> ReadOnlyFile::Open(const std::string& path) {
  absl::StatusOr<RegularFile> file = RegularFile::Open(path);
  // Something other than a file where a checkpoint's file belongs is damage
  // on disk, which lets a restore fall back to an older checkpoint.
  if (absl::IsFailedPrecondition(file.status())) {
    return absl::DataLossError(file.status().message());
  }
  if (!file.ok()) return file.status();
  return ReadOnlyFile(*std::move(file));
}

absl::Status ReadOnlyFile::ReadAt(uint64_t offset,
                                  absl::Span<uint8_t> out) const {
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t got =
        ::pread(file_.fd(), out.data() + done, out.size() - done,
                static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      return ErrnoError(errno, "cannot read", path());
    }
    if (got == 0) {
      return absl::DataLossError(absl::StrCat("'", path(), "' ends at byte ",
                                              offset + done, " of the ",
                                              offset + out.size(), " read"));
    }
    done += static_cast<size_t>(got);
  }
  return absl::OkStatus();
}

absl::StatusOr<AtomicFileWriter> AtomicFileWriter::Create(
    const std::string& directory, const std::string& name) {
  AtomicFileWriter writer(directory, name, -1);
  const std::string path = writer.TemporaryPath();
  writer.fd_ = OpenRetrying(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (writer.fd_ < 0) return ErrnoError(errno, "cannot create", path);
  return writer;
}

AtomicFileWriter::AtomicFileWriter(AtomicFileWriter&& other) noexcept
    : directory_(std::move(other.directory_)),
      name_(std::move(other.name_)),
      fd_(std::exchange(other.fd_, -1)) {}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ < 0) return;
  CloseQuietly(fd_);
  // Best effort: a temporary left behind is removed by the next save.
  ::unlink(TemporaryPath().c_str());
}

std::string AtomicFileWriter::TemporaryPath() const {
  return JoinPath(directory_,
                  absl::StrCat(std::string(kTemporaryPrefix), name_));
}

std::string AtomicFileWriter::FinalPath() const {
  return JoinPath(directory_, name_);
}

absl::Status AtomicFileWriter::Append(absl::Span<const uint8_t> bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t wrote =
        ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (wrote < 0) {
      if (errno == EINTR) continue;
      return ErrnoError(errno, "cannot write", TemporaryPath());
    }
    done += static_cast<size_t>(wrote);
  }
  return absl::OkStatus();
}

absl::Status AtomicFileWriter::Append(const std::string& bytes) {
  return Append(absl::Span<const uint8_t>(
      reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
}

absl::Status AtomicFileWriter::Commit() {
  const std::string temporary = TemporaryPath();
  absl::Status status = SyncFd(fd_, temporary);
  if (!status.ok()) return status;
  // close(2) can report a write the file system deferred.
  if (::close(std::exchange(fd_, -1)) != 0) {
    status = ErrnoError(errno, "cannot close", temporary);
    ::unlink(temporary.c_str());
    return status;
  }
  if (absl::Status fault = SLUICE_FAULT_POINT("checkpoint.save.rename");
      !fault.ok()) {
    ::unlink(temporary.c_str());
    return fault;
  }
  const std::string final_path = FinalPath();
  if (::rename(temporary.c_str(), final_path.c_str()) != 0) {
    status = ErrnoError(
        errno, absl::StrCat("cannot rename '", temporary, "' to"), final_path);
    ::unlink(temporary.c_str());
    return status;
  }
  return SyncDirectory(directory_);
}

absl::StatusOr<DirectoryLock> DirectoryLock::TryAcquire(
    const std::string& directory, const std::string& name) {
  const std::string path = JoinPath(directory, name);
  const int fd = OpenRetrying(path, O_RDWR | O_CREAT, 0644);
  if (fd < 0) return ErrnoError(errno, "cannot open lock file", path);
  int result;
  do {
    result = ::flock(fd, LOCK_EX | LOCK_NB);
  } while (result != 0 && errno == EINTR);
  if (result != 0) {
    const int error = errno;
    CloseQuietly(fd);
    if (error == EWOULDBLOCK) {
      return absl::UnavailableError(
          absl::StrCat("another save holds the lock on '", directory, "'"));
    }
    return ErrnoError(error, "cannot lock", path);
  }
  return DirectoryLock(fd);
}

DirectoryLock::DirectoryLock(DirectoryLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)) {}

DirectoryLock::~DirectoryLock() { CloseQuietly(fd_); }

}  // namespace sluice::checkpoint::internal
