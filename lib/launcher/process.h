// ChildProcess: a process the launcher starts and owns.
//
// Every child runs in its own process group (so a signal to the group also
// reaches what the child started) and gets SIGKILL when the thread that
// spawned it dies (PR_SET_PDEATHSIG), so a launcher killed with SIGKILL
// leaves no child behind. Spawn children from a thread that lives as long
// as they should: a child spawned from a short-lived thread dies with it.
#ifndef SLUICE_LIB_LAUNCHER_PROCESS_H_
#define SLUICE_LIB_LAUNCHER_PROCESS_H_

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace sluice::launcher {

struct SpawnOptions {
  // argv[0] is looked up in $PATH when it holds no '/'.
  std::vector<std::string> argv;
  // "NAME=value" entries set on top of (replacing) the parent's environment.
  std::vector<std::string> environment;
};

class ChildProcess {
 public:
  // Starts the process with its stdout and stderr on pipes (read them with
  // stdout_fd and stderr_fd) and stdin on /dev/null. Fails, with the reason,
  // when the command cannot be found or is not executable.
  static absl::StatusOr<std::unique_ptr<ChildProcess>> Spawn(
      const SpawnOptions& options);

  // Kills the process group (SIGKILL) and reaps the child if it still runs.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }

  // The read ends of the child's stdout and stderr pipes; the caller takes
  // them (and closes them) with these calls, once.
  int TakeStdout();
  int TakeStderr();

  // Sends `signal` to the child's process group.
  void SignalGroup(int signal);

  // The child's wait status once it has exited (reaping it), else nullopt.
  std::optional<int> Poll();
  bool exited() const { return wait_status_.has_value(); }

 private:
  ChildProcess(pid_t pid, int stdout_fd, int stderr_fd)
      : pid_(pid), stdout_fd_(stdout_fd), stderr_fd_(stderr_fd) {}

  const pid_t pid_;
  int stdout_fd_;
  int stderr_fd_;
  std::optional<int> wait_status_;
};

// "exit code 3", "killed by signal 9 (Killed)".
std::string DescribeWaitStatus(int wait_status);

// The exit code a shell would report: the code, or 128 + the signal.
int ExitCodeOf(int wait_status);

}  // namespace sluice::launcher

#endif  // SLUICE_LIB_LAUNCHER_PROCESS_H_
