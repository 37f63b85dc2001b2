#include "sluice/support/file_reading.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace sluice {
namespace {

absl::Status ErrnoError(int error, const std::string& what,
                        const std::string& path) {
  return absl::ErrnoToStatus(error, absl::StrCat(what, " '", path, "'"));
}

int OpenRetrying(const std::string& path, int flags) {
  int fd;
  do {
    fd = ::open(path.c_str(), flags | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

const char* KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return nullptr;
}

// `size` is empty when the input has no size to tell (a pipe, a device).
absl::Status TooLarge(const std::string& path, const std::string& size,
                      uint64_t max_bytes) {
  const std::string limit =
      absl::StrCat("the ", FormatByteSize(max_bytes), " an input may hold");
  return absl::ResourceExhaustedError(
      size.empty()
          ? absl::StrCat("'", path, "' goes on past ", limit)
          : absl::StrCat("'", path, "' holds ", size, ", more than ", limit));
}

// Reads `fd` to its end, giving up once more than `max_bytes` arrived.
absl::StatusOr<std::string> ReadBounded(int fd, const std::string& path,
                                        uint64_t max_bytes,
                                        uint64_t expected_size) {
  std::string bytes;
  if (expected_size <= max_bytes) bytes.reserve(expected_size);
  char chunk[1 << 16];
  while (true) {
    const ssize_t got = ::read(fd, chunk, sizeof(chunk));
    if (got < 0) {
      if (errno == EINTR) continue;
      return ErrnoError(errno, "cannot read", path);
    }
    if (got == 0) return bytes;
    if (bytes.size() + static_cast<uint64_t>(got) > max_bytes) {
      return TooLarge(path, "", max_bytes);
    }
    bytes.append(chunk, static_cast<size_t>(got));
  }
}

}  // namespace

absl::StatusOr<RegularFile> RegularFile::Open(const std::string& path) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
  // writer, before fstat could tell what it is.
  const int fd = OpenRetrying(path, O_RDONLY | O_NONBLOCK);
  if (fd < 0) return ErrnoError(errno, "cannot open", path);
  struct stat info;
  if (::fstat(fd, &info) != 0) {
    const int error = errno;
    ::close(fd);
    return ErrnoError(error, "cannot stat", path);
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    const char* kind = KindOf(info.st_mode);
    return absl::FailedPreconditionError(
        kind == nullptr
            ? absl::StrCat("'", path, "' is not a regular file")
            : absl::StrCat("'", path, "' is ", kind, ", not a regular file"));
  }
  // Reads of a regular file never return EAGAIN, but the flag would stay
  // visible to whoever is handed the descriptor.
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
    const int error = errno;
    ::close(fd);
    return ErrnoError(error, "cannot set flags of", path);
  }
  return RegularFile(path, fd, static_cast<uint64_t>(info.st_size));
}

RegularFile::RegularFile(RegularFile&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(std::exchange(other.fd_, -1)),
      size_(other.size_) {}

RegularFile& RegularFile::operator=(RegularFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    size_ = other.size_;
  }
  return *this;
}

RegularFile::~RegularFile() {
  if (fd_ >= 0) ::close(fd_);
}

absl::StatusOr<std::string> ReadRegularFile(const std::string& path,
                                            uint64_t max_bytes) {
  absl::StatusOr<RegularFile> file = RegularFile::Open(path);
  if (!file.ok()) return file.status();
  if (file->size() > max_bytes) {
    return TooLarge(path, FormatByteSize(file->size()), max_bytes);
  }
  // Bounded again: the file may grow while it is read.
  return ReadBounded(file->fd(), path, max_bytes, file->size());
}

absl::StatusOr<std::string> ReadToolInput(const std::string& path,
                                          uint64_t max_bytes) {
  if (path == "-") return ReadBounded(STDIN_FILENO, "<stdin>", max_bytes, 0);
  // A blocking open: a FIFO the user named has its writer on the way.
  const int fd = OpenRetrying(path, O_RDONLY);
  if (fd < 0) return ErrnoError(errno, "cannot open", path);
  uint64_t size = 0;
  struct stat info;
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) {
    size = static_cast<uint64_t>(info.st_size);
    if (size > max_bytes) {
      ::close(fd);
      return TooLarge(path, FormatByteSize(size), max_bytes);
    }
  }
  absl::StatusOr<std::string> bytes = ReadBounded(fd, path, max_bytes, size);
  ::close(fd);
  return bytes;
}

std::string FormatByteSize(uint64_t bytes) {
  // Exact sizes only: a limit is a round number of some unit, and a size
  // that is not is shown in bytes.
  constexpr const char* kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (unit < 4 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  if (unit == 0 && bytes == 1) return "1 byte";
  return absl::StrCat(bytes, " ", kUnits[unit]);
}

}  // namespace sluice
