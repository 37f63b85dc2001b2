// WorkerProcess: one sluice_worker child process for integration tests, and
// PortReservation: a loopback port kept from other processes.
//
// A worker is a ChildProcess, so it is tied to the test: it gets SIGKILL
// when the thread that started it exits, and the destructor always kills
// and reaps it. Start workers from the test's main thread: a worker started
// from a short-lived thread dies with that thread.
#ifndef SLUICE_TEST_INTEGRATION_WORKER_PROCESS_H_
#define SLUICE_TEST_INTEGRATION_WORKER_PROCESS_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "test/util/child_process.h"

namespace sluice::dist::testing {

// A free 127.0.0.1 port, held by a bound (not listening) socket until the
// reservation is destroyed. The socket has SO_REUSEPORT, as gRPC's listening
// sockets do, so a worker can listen on the port while the reservation
// keeps other tests (which bind port 0) from being handed it; connections
// to it are refused while no worker listens.
class PortReservation {
 public:
  static absl::StatusOr<PortReservation> Reserve();
  PortReservation(PortReservation&& other) noexcept;
  PortReservation& operator=(PortReservation&& other) noexcept;
  ~PortReservation();

  int port() const { return port_; }
  std::string address() const;  // "127.0.0.1:<port>"

 private:
  PortReservation(int fd, int port) : fd_(fd), port_(port) {}
  int fd_ = -1;
  int port_ = 0;
};

// The sluice_worker binary in the test's runfiles.
std::string WorkerBinaryPath();

struct WorkerProcessOptions {
  std::string task_name = "/job:worker/task:0";
  int port = 0;  // required: a reserved port
  // Whether to pass --enable_test_kernels: the programs of most tests use
  // tfrt_test kernels, which a worker serves only when asked to.
  bool enable_test_kernels = true;
  // Further flags, e.g. "--max_message_bytes=1048576".
  std::vector<std::string> flags = {"--work_queue_type=mstd:2"};
  // Environment variables set for the worker on top of the test's own, as
  // "NAME=value", e.g. "SLUICE_FAULTS=worker.call.begin=kill@nth=2".
  std::vector<std::string> environment;
  // Sends the worker's stderr where its stdout goes, so that a worker that
  // exits before it is ready says why in Start's error.
  bool stderr_to_stdout = false;
  // How long the worker may take to print its "listening on" line.
  absl::Duration ready_timeout = absl::Seconds(30);
};

class WorkerProcess {
 public:
  // Starts the worker and returns once it has printed its "listening on"
  // line; fails (and kills it) if it exits first or stays silent past
  // options.ready_timeout.
  static absl::StatusOr<std::unique_ptr<WorkerProcess>> Start(
      WorkerProcessOptions options);

  // Kills (SIGKILL) and reaps the worker if it still runs.
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  pid_t pid() const { return child_.pid(); }
  const std::string& task_name() const { return options_.task_name; }
  std::string address() const;

  // SIGKILL, and waits until the process is gone.
  void Kill();
  // SIGSTOP / SIGCONT: the process keeps its sockets but answers nothing.
  void Stop();
  void Continue();
  // SIGTERM, then waits up to `timeout` for the process to exit. Returns its
  // exit code; an error if it died of a signal or did not exit in time (it
  // is then killed).
  absl::StatusOr<int> Terminate(absl::Duration timeout = absl::Seconds(20));

  // Whether the process has not exited (a stopped process is running).
  bool IsRunning();

  // Waits up to `timeout` until the worker's stdout (after the ready line)
  // holds `count` lines containing `text`; returns whether it does.
  bool WaitForOutput(std::string_view text, int count, absl::Duration timeout);
  // How many lines of the worker's stdout contain `text` so far.
  int CountOutput(std::string_view text);

 private:
  WorkerProcess(WorkerProcessOptions options,
                ::sluice::testing::ChildProcessOptions child);
  // Waits (bounded) for the ready line.
  absl::Status AwaitReady();

  const WorkerProcessOptions options_;
  ::sluice::testing::ChildProcess child_;
  // Where the output after the ready line starts.
  size_t ready_end_ = 0;
};

}  // namespace sluice::dist::testing

#endif  // SLUICE_TEST_INTEGRATION_WORKER_PROCESS_H_
