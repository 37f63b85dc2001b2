#include "tools/common/exit_watchdog.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

namespace sluice::tools {

ExitWatchdog::ExitWatchdog(absl::Time deadline, std::string message,
                           int exit_status)
    : thread_([this, deadline, message = std::move(message), exit_status] {
        if (disarmed_.WaitForNotificationWithDeadline(deadline)) return;
        std::fflush(stdout);
        std::fprintf(stderr, "%s\n", message.c_str());
        std::fflush(stderr);
        std::_Exit(exit_status);
      }) {}

ExitWatchdog::~ExitWatchdog() {
  disarmed_.Notify();
  thread_.join();
}

}  // namespace sluice::tools
