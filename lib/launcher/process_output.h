// OutputPrefixer: copies the output of child processes to the launcher's
// stdout and stderr, each line prefixed with its source ("[2] epoch 3/10").
//
// One thread polls every pipe. A line is written with one write() once it
// is complete, so lines of different ranks never mix mid-line; a line
// longer than kMaxLineBytes is cut into several, and a last line without a
// newline gets one when its pipe closes.
#ifndef SLUICE_LIB_LAUNCHER_PROCESS_OUTPUT_H_
#define SLUICE_LIB_LAUNCHER_PROCESS_OUTPUT_H_

#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "absl/time/time.h"

namespace sluice::launcher {

class OutputPrefixer {
 public:
  static constexpr size_t kMaxLineBytes = 64 << 10;

  OutputPrefixer();
  // Stops the thread, flushing what it has; see Drain.
  ~OutputPrefixer();
  OutputPrefixer(const OutputPrefixer&) = delete;
  OutputPrefixer& operator=(const OutputPrefixer&) = delete;

  // Copies `fd` (taking it; closed at EOF) to `destination_fd`, each line
  // prefixed with `prefix`.
  void Add(int fd, std::string prefix, int destination_fd);

  // Waits until every pipe added so far has reached EOF, or `timeout` has
  // passed (a grandchild may hold a pipe open); then stops copying them.
  void Drain(absl::Duration timeout);

  // Writes a whole line to `destination_fd`, never in the middle of a
  // child's line.
  void WriteLine(int destination_fd, std::string_view line);

 private:
  struct Source {
    std::string prefix;
    int destination_fd;
    std::string pending;  // a partial line
  };

  void Loop();
  // Reads what `fd` has; returns false at EOF or on an error.
  bool ReadFrom(int fd, Source& source);
  void Flush(Source& source, bool all);
  void Wake();

  int wake_fds_[2];
  std::mutex write_mu_;  // one line at a time on the destinations

  std::mutex mu_;
  std::condition_variable drained_;
  std::map<int, Source> added_;  // by fd, waiting for the thread to take them
  int open_ = 0;                 // pipes added and not yet closed
  bool abandon_ = false;         // Drain timed out: close every pipe now
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace sluice::launcher

#endif  // SLUICE_LIB_LAUNCHER_PROCESS_OUTPUT_H_
