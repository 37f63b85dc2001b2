// Reading files whose names come from outside: a program's attributes, a
// peer's request, a command line. Two rules hold for every such read:
//   - A file a kernel or library reads must be a regular file. It is checked
//     without blocking, so a FIFO, a socket or a device named where a file
//     belongs is an error at once instead of a read that waits for a writer
//     forever (or, for /dev/zero, never ends).
//   - A whole-file read is bounded: a file larger than its limit is refused
//     before it is read, and an input whose size cannot be known beforehand
//     (standard input, a pipe) is refused as soon as it passes the limit.
#ifndef SLUICE_SUPPORT_FILE_READING_H_
#define SLUICE_SUPPORT_FILE_READING_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace sluice {

// The default limit of a whole-file read: programs (.mlir and .sbf), cluster
// specs and diagnostics sources. A larger input is almost surely a mistake
// (or /dev/zero), and reading it would only end when memory does.
inline constexpr uint64_t kMaxInputFileBytes = uint64_t{256} << 20;

// An open regular file: its descriptor (close-on-exec) and its size when it
// was opened. Closes the descriptor when destroyed.
class RegularFile {
 public:
  // FAILED_PRECONDITION when `path` names anything but a regular file (the
  // message says what it is); the errno's code when it cannot be opened.
  // Never blocks on a FIFO: it is opened without waiting for a writer.
  static absl::StatusOr<RegularFile> Open(const std::string& path);

  RegularFile(RegularFile&& other) noexcept;
  RegularFile& operator=(RegularFile&& other) noexcept;
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;
  ~RegularFile();

  int fd() const { return fd_; }
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  RegularFile(std::string path, int fd, uint64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {}

  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

// The whole of the regular file `path`. RESOURCE_EXHAUSTED, naming the file,
// its size and the limit, when it holds more than `max_bytes`.
absl::StatusOr<std::string> ReadRegularFile(
    const std::string& path, uint64_t max_bytes = kMaxInputFileBytes);

// The whole of a tool's input: "-" is standard input; any other name may be
// a regular file or something the user named on purpose (a pipe from a
// shell's process substitution, /dev/stdin). Whatever it is, reading stops
// with RESOURCE_EXHAUSTED as soon as it passes `max_bytes`.
absl::StatusOr<std::string> ReadToolInput(
    const std::string& path, uint64_t max_bytes = kMaxInputFileBytes);

// "256 MiB", "3 KiB", "17 bytes": a size for a message.
std::string FormatByteSize(uint64_t bytes);

}  // namespace sluice

#endif  // SLUICE_SUPPORT_FILE_READING_H_
