// LoggedProcess: a child process of a test whose stdout and stderr lines
// are collected, so the test can wait for a line and read them all.
//
// Built on launcher::ChildProcess: the child runs in its own process group,
// dies with the thread that started it (start it from the test's main thread)
// and is killed and reaped by the destructor.
#ifndef SLUICE_TEST_INTEGRATION_HA_LOGGED_PROCESS_H_
#define SLUICE_TEST_INTEGRATION_HA_LOGGED_PROCESS_H_

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/launcher/process.h"

namespace sluice::lighthouse::testing {

class LoggedProcess {
 public:
  // `name` is for messages, e.g. "lighthouse 1".
  static absl::StatusOr<std::unique_ptr<LoggedProcess>> Start(
      std::string name, std::vector<std::string> argv);

  ~LoggedProcess();  // SIGKILL to the group, reaps, joins the readers
  LoggedProcess(const LoggedProcess&) = delete;
  LoggedProcess& operator=(const LoggedProcess&) = delete;

  const std::string& name() const { return name_; }
  pid_t pid() const { return child_->pid(); }

  // Waits until some line contains `text`; the first such line, or
  // DEADLINE_EXCEEDED (with the output so far) after `timeout`, or
  // UNAVAILABLE once the process has exited without printing it.
  absl::StatusOr<std::string> WaitForLine(std::string_view text,
                                          absl::Duration timeout);
  // Waits up to `timeout` for the process to close its output (it exited);
  // returns whether it did.
  bool WaitForExit(absl::Duration timeout);
  // Every line so far (stdout and stderr interleaved as they came).
  std::vector<std::string> Lines();
  // Only the stdout lines.
  std::vector<std::string> StdoutLines();
  // The last lines, for failure messages.
  std::string Tail(int lines = 20);

  void Kill();      // SIGKILL, and waits until it is gone
  void Stop();      // SIGSTOP
  void Continue();  // SIGCONT

 private:
  LoggedProcess(std::string name,
                std::unique_ptr<launcher::ChildProcess> child);
  void Read(int fd, bool is_stdout);

  const std::string name_;
  std::unique_ptr<launcher::ChildProcess> child_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<std::string> lines_;
  std::vector<std::string> stdout_lines_;
  int open_streams_ = 2;
  std::thread stdout_reader_;
  std::thread stderr_reader_;
};

}  // namespace sluice::lighthouse::testing

#endif  // SLUICE_TEST_INTEGRATION_HA_LOGGED_PROCESS_H_
