// The hang explainer: what the calls of observed requests (those whose
// RequestObservers name an ActivityRegistry) still wait for, and why. See
// docs/tracing.md.
#ifndef SLUICE_EXECUTOR_HANG_EXPLAINER_H_
#define SLUICE_EXECUTOR_HANG_EXPLAINER_H_

#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "sluice/host_context/trace_activity.h"

namespace sluice {

// Describes, as lines of text, everything still unresolved in the calls
// `activity` holds now: first the root causes (values nothing else
// explains: an asynchronous kernel that has not resolved its results, a
// remote call with no answer, a kernel still running), then each pending
// kernel with its location, the inputs it waits for and what produces them,
// and the remote calls in flight with their task, function and elapsed time.
// Safe to call while the calls run; it reads a snapshot.
std::string ExplainHang(const ActivityRegistry& activity);

// While alive, prints `header` and ExplainHang(*activity) to stderr each time
// the process receives SIGUSR1. The signal handler only writes to a pipe; a
// thread of the watcher does the rest. One watcher per process at a time.
class HangSignalWatcher {
 public:
  static absl::StatusOr<std::unique_ptr<HangSignalWatcher>> Start(
      const ActivityRegistry* activity, std::string header);
  ~HangSignalWatcher();
  HangSignalWatcher(const HangSignalWatcher&) = delete;
  HangSignalWatcher& operator=(const HangSignalWatcher&) = delete;

 private:
  HangSignalWatcher(const ActivityRegistry* activity, std::string header,
                    int read_fd, int write_fd);
  void Watch();

  const ActivityRegistry* const activity_;
  const std::string header_;
  const int read_fd_;
  const int write_fd_;
  std::thread thread_;
};

}  // namespace sluice

#endif  // SLUICE_EXECUTOR_HANG_EXPLAINER_H_
