// ChildProcess: a binary a test starts, whose output it reads and which
// never outlives it.
//
// The child's stdout goes to a file under TEST_TMPDIR rather than a pipe:
// a chatty child then never blocks on a test that is busy elsewhere, and
// the test needs no reader thread. The child gets SIGKILL when the thread
// that started it exits (PR_SET_PDEATHSIG), so a crashed test leaves
// nothing behind; start children from the test's main thread, since one
// started from a short-lived thread dies with that thread. The destructor
// kills (a stopped child too) and reaps it.
//
// Not thread-safe, except that Output, Lines and the WaitForLine calls may
// run on several threads at once.
#ifndef SLUICE_TEST_UTIL_CHILD_PROCESS_H_
#define SLUICE_TEST_UTIL_CHILD_PROCESS_H_

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"

namespace sluice::testing {

// The path of `path` (e.g. "tools/sluice_worker/sluice_worker") among the
// test's runfiles.
std::string Runfile(std::string_view path);

struct ChildProcessOptions {
  // argv[0] is the binary's path, e.g. a Runfile.
  std::vector<std::string> argv;
  // "NAME=value" entries on top of the test's environment; each replaces
  // the test's own NAME.
  std::vector<std::string> environment;
  // Names of the test's variables the child does not get, e.g. a fault
  // meant for the test process alone.
  std::vector<std::string> unset_environment;
  // Names the output files, <TEST_TMPDIR>/<name>.<n>.out (and .err).
  std::string name = "child";

  enum class Stderr {
    kWithStdout,  // interleaved in the stdout file, as the child wrote them
    kOwnFile,     // a .err file of its own: see ChildProcess::Stderr
    kInherit,     // the test's stderr, i.e. the test log
  };
  Stderr stderr_to = Stderr::kWithStdout;
};

class ChildProcess {
 public:
  // Starts the child; see started() for whether that worked.
  explicit ChildProcess(ChildProcessOptions options);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  bool started() const { return pid_ > 0; }
  // Why the child did not start; "" when it did.
  const std::string& start_error() const { return start_error_; }
  pid_t pid() const { return pid_; }
  const std::string& stdout_path() const { return stdout_path_; }

  // SIGKILL, and returns once the child is gone (reaped).
  void Kill();
  // SIGSTOP, and returns once the child is stopped: the signal arrives
  // asynchronously, and a test's next step must meet a stopped child.
  void Stop();
  // SIGCONT.
  void Continue();
  // SIGTERM; WaitForExit tells how the child took it.
  void Terminate();

  // Whether the child has not exited yet (a stopped child is running);
  // reaps it once it has.
  bool Running();
  // Waits up to `timeout` for the child to exit. Its exit code, or -1 when
  // it still runs or died of a signal (see wait_status).
  int WaitForExit(absl::Duration timeout);
  // The status waitpid gave once the child has been reaped.
  std::optional<int> wait_status() const { return wait_status_; }
  // "exit code 3", "killed by signal 9 (Killed)", or "running".
  std::string DescribeExit() const;

  // All the child has written to its stdout file so far.
  std::string Output() const;
  // Its stderr, with Stderr::kOwnFile; "" otherwise.
  std::string Stderr() const;
  // The lines of Output so far. A last line without its newline comes only
  // once the child has exited: before that it may be half written.
  std::vector<std::string> Lines() const;
  // Waits up to `timeout` for a line that starts with `prefix`; the line,
  // or "" when none came (or the child exited without printing one).
  std::string WaitForLine(const std::string& prefix,
                          absl::Duration timeout) const;
  // Waits up to `timeout` for a line, at index `from` or later in Lines(),
  // that `matches`; none when none came (or the child exited first).
  std::optional<std::string> WaitForLineMatching(
      const std::function<bool(const std::string&)>& matches,
      absl::Duration timeout, size_t from = 0) const;

 private:
  // Reaps the child if it has exited (blocking when `wait`); returns
  // whether it is gone.
  bool Reap(bool wait);
  // Whether the child has exited, without reaping it, so that const
  // readers can tell that no more output will come.
  bool Exited() const;

  pid_t pid_ = 0;
  bool reaped_ = false;
  std::optional<int> wait_status_;
  std::string start_error_;
  std::string stdout_path_;
  std::string stderr_path_;  // "" unless Stderr::kOwnFile

  // What has been read of the stdout file, so that each poll reads only
  // what is new.
  mutable std::mutex output_mu_;
  mutable std::string output_;
};

}  // namespace sluice::testing

#endif  // SLUICE_TEST_UTIL_CHILD_PROCESS_H_
