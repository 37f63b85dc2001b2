#include "sluice/support/file_reading.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;

std::string TempPath(const std::string& name) {
  const std::string path = ::testing::TempDir() + "/" + name;
  ::unlink(path.c_str());
  return path;
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), file), bytes.size());
  std::fclose(file);
}

TEST(FileReadingTest, ReadsARegularFileWhole) {
  const std::string path = TempPath("whole.txt");
  WriteFile(path, "twelve bytes");
  absl::StatusOr<std::string> text = ReadRegularFile(path);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "twelve bytes");
}

TEST(FileReadingTest, RefusesAFifoAtOnceInsteadOfWaitingForAWriter) {
  const std::string path = TempPath("never_written.fifo");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  // Without the non-blocking open this call would wait for a writer that
  // never comes, and the test would time out.
  absl::StatusOr<std::string> text = ReadRegularFile(path);
  EXPECT_EQ(text.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(text.status().message(),
              HasSubstr("'" + path + "' is a FIFO, not a regular file"));
  ::unlink(path.c_str());
}

TEST(FileReadingTest, RefusesDevicesAndDirectories) {
  absl::StatusOr<std::string> zero = ReadRegularFile("/dev/zero");
  EXPECT_EQ(zero.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(zero.status().message(),
              HasSubstr("'/dev/zero' is a character device"));
  absl::StatusOr<RegularFile> directory = RegularFile::Open("/");
  EXPECT_THAT(directory.status().message(), HasSubstr("'/' is a directory"));
}

TEST(FileReadingTest, MissingFileIsNotFoundAndNamesThePath) {
  absl::StatusOr<std::string> text = ReadRegularFile(TempPath("absent"));
  EXPECT_EQ(text.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(text.status().message(), HasSubstr("cannot open '"));
}

TEST(FileReadingTest, RefusesAFileOverTheLimitBeforeReadingIt) {
  const std::string path = TempPath("eleven.txt");
  WriteFile(path, "eleven byte");
  EXPECT_TRUE(ReadRegularFile(path, 11).ok());
  absl::StatusOr<std::string> text = ReadRegularFile(path, 10);
  EXPECT_EQ(text.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(text.status().message(),
              HasSubstr("holds 11 bytes, more than the 10 bytes an input may "
                        "hold"));
}

TEST(FileReadingTest, ToolInputStopsAnEndlessDeviceAtTheLimit) {
  absl::StatusOr<std::string> text = ReadToolInput("/dev/zero", 1 << 20);
  EXPECT_EQ(text.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(
      text.status().message(),
      HasSubstr("'/dev/zero' goes on past the 1 MiB an input may hold"));
}

TEST(FileReadingTest, ToolInputReadsAFifoItsUserNamed) {
  const std::string path = TempPath("named_on_purpose.fifo");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  std::thread writer([&] {
    const int fd = ::open(path.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::write(fd, "piped", 5), 5);
    ::close(fd);
  });
  absl::StatusOr<std::string> text = ReadToolInput(path);
  writer.join();
  ::unlink(path.c_str());
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "piped");
}

TEST(FileReadingTest, FormatsSizesExactly) {
  EXPECT_EQ(FormatByteSize(1), "1 byte");
  EXPECT_EQ(FormatByteSize(1000), "1000 bytes");
  EXPECT_EQ(FormatByteSize(3 << 10), "3 KiB");
  EXPECT_EQ(FormatByteSize(uint64_t{256} << 20), "256 MiB");
  EXPECT_EQ(FormatByteSize((uint64_t{1} << 30) + 1), "1073741825 bytes");
}

}  // namespace
}  // namespace sluice
