// ToolObservers: how a tool (sluice_run, sluice_worker) watches the requests
// it runs: --trace writes a timeline, --explain_hangs prints what is still
// unresolved on SIGUSR1, and a request's deadline passing prints it too.
// See docs/tracing.md.
#ifndef SLUICE_LIB_EXECUTOR_TOOL_OBSERVERS_H_
#define SLUICE_LIB_EXECUTOR_TOOL_OBSERVERS_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sluice/executor/hang_explainer.h"
#include "sluice/host_context/request_context.h"
#include "sluice/host_context/trace_activity.h"
#include "sluice/host_context/tracer.h"

namespace sluice {

class ToolObservers {
 public:
  struct Options {
    std::string process_name;  // labels the trace and the explanations
    std::string trace_file;    // empty: no trace
    // Keep the requests' calls for the hang explainer (costs a little per
    // kernel); ExplainOnDeadline needs it.
    bool explain = false;
    // Also print the explanation on SIGUSR1 (implies `explain`).
    bool explain_on_signal = false;
  };

  // Fails when the trace file cannot be written.
  static absl::StatusOr<std::unique_ptr<ToolObservers>> Create(Options options);
  ~ToolObservers();

  // What to set on each request (RequestContext::set_observers); null when
  // nothing watches.
  const RequestObservers* observers() const {
    return observers_.tracer != nullptr || observers_.activity != nullptr
               ? &observers_
               : nullptr;
  }

  // Prints `header` and the hang explanation to stderr if `request`'s
  // deadline passes, before the cancellation reaches its remote calls.
  void ExplainOnDeadline(RequestContext& request, std::string header) const;

  // Writes the trace, if one was asked for.
  absl::Status WriteTrace() const;

 private:
  explicit ToolObservers(Options options);

  const Options options_;
  std::unique_ptr<Tracer> tracer_;
  std::unique_ptr<ActivityRegistry> activity_;
  RequestObservers observers_;
  std::unique_ptr<HangSignalWatcher> signal_watcher_;
};

}  // namespace sluice

#endif  // SLUICE_LIB_EXECUTOR_TOOL_OBSERVERS_H_
