// The launcher's side of the step monitor: a client of its Monitor service
// and, unless the job names an external monitor, the sluice_monitor child
// process, restarted on the same port whenever it dies.
#ifndef SLUICE_LIB_LAUNCHER_LAUNCHER_MONITOR_H_
#define SLUICE_LIB_LAUNCHER_LAUNCHER_MONITOR_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/launcher/process.h"
#include "lib/launcher/process_output.h"

namespace sluice::launcher {

// A verdict that calls for a restart: stuck, silent or dead.
struct FailureVerdict {
  int rank = 0;
  std::string kind;     // "stuck", "silent", "dead"
  std::string message;  // the monitor's who, what and why
  absl::Time time;      // when it became true, on the monitor's clock
};

struct MonitorSnapshot {
  std::vector<FailureVerdict> failures;
  int64_t min_finished_epoch = 0;
};

class MonitorClient {
 public:
  explicit MonitorClient(const std::string& address);
  ~MonitorClient();

  const std::string& address() const { return address_; }

  // Every call fails (with the address) when the monitor does not answer
  // within `timeout`, marked fatal when it refuses the TLS handshake.
  absl::StatusOr<MonitorSnapshot> GetState(absl::Duration timeout);
  absl::Status ReportExit(int rank, int wait_status, absl::Duration timeout);
  absl::Status Reset(int64_t min_finished_epoch_floor, absl::Duration timeout);
  // Waits up to `timeout` for the monitor to answer at all.
  absl::Status WaitUntilServing(absl::Duration timeout);

 private:
  struct Stub;
  const std::string address_;
  std::unique_ptr<Stub> stub_;
};

struct MonitorProcessOptions {
  std::string binary;  // sluice_monitor
  std::string host;    // where it listens
  int world_size = 1;
  // Passed through: --stuck_timeout_s=..., --step_kind=NAME:SECONDS, ...
  std::vector<std::string> flags;
};

// A sluice_monitor child. Its output goes to `output` prefixed "[monitor]".
class MonitorProcess {
 public:
  static absl::StatusOr<std::unique_ptr<MonitorProcess>> Start(
      MonitorProcessOptions options, OutputPrefixer* output);

  const std::string& address() const { return address_; }
  pid_t pid() const { return child_->pid(); }

  // When the child has exited: starts it again on the same port and returns
  // how the old one ended ("exit code 1"). nullopt while it runs.
  std::optional<std::string> RestartIfExited();

 private:
  MonitorProcess(MonitorProcessOptions options, OutputPrefixer* output,
                 std::string address)
      : options_(std::move(options)),
        output_(output),
        address_(std::move(address)) {}
  absl::Status Spawn();

  const MonitorProcessOptions options_;
  OutputPrefixer* const output_;
  const std::string address_;
  std::unique_ptr<ChildProcess> child_;
};

}  // namespace sluice::launcher

#endif  // SLUICE_LIB_LAUNCHER_LAUNCHER_MONITOR_H_
