// ExitWatchdog: the last resort of a tool's time bounds. A kernel blocked in
// a system call or an endless loop cannot be stopped from outside its
// thread, and cancellation only reaches kernels that have not started or
// that look for it. So each bound a tool promises (sluice_run's --timeout,
// sluice_worker's shutdown grace) is backed by a watchdog that ends the
// whole process, and with it the stuck thread, when the tool has not
// finished by then.
#ifndef SLUICE_TOOLS_COMMON_EXIT_WATCHDOG_H_
#define SLUICE_TOOLS_COMMON_EXIT_WATCHDOG_H_

#include <string>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

namespace sluice::tools {

// How long past a bound a tool waits for stopped work to unwind before its
// watchdog ends the process.
inline constexpr absl::Duration kStuckWorkMargin = absl::Seconds(1);

class ExitWatchdog {
 public:
  // Unless destroyed before `deadline`, prints `message` (a line, to
  // stderr), flushes standard output and exits with `exit_status` without
  // running destructors, which would wait for the stuck thread.
  ExitWatchdog(absl::Time deadline, std::string message, int exit_status = 1);
  // Disarms the watchdog.
  ~ExitWatchdog();
  ExitWatchdog(const ExitWatchdog&) = delete;
  ExitWatchdog& operator=(const ExitWatchdog&) = delete;

 private:
  absl::Notification disarmed_;
  std::thread thread_;
};

}  // namespace sluice::tools

#endif  // SLUICE_TOOLS_COMMON_EXIT_WATCHDOG_H_
