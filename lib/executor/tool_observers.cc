#include "lib/executor/tool_observers.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace sluice {

absl::StatusOr<std::unique_ptr<ToolObservers>> ToolObservers::Create(
    Options options) {
  if (!options.trace_file.empty()) {
    // Checked now, not when the run is over.
    std::FILE* file = std::fopen(options.trace_file.c_str(), "w");
    if (file == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("couldn't write the trace to '", options.trace_file,
                       "': ", std::strerror(errno)));
    }
    std::fclose(file);
  }
  std::unique_ptr<ToolObservers> tool(new ToolObservers(std::move(options)));
  if (tool->options_.explain_on_signal) {
    auto watcher = HangSignalWatcher::Start(
        tool->activity_.get(),
        absl::StrCat(tool->options_.process_name,
                     ": SIGUSR1: what is still unresolved:"));
    if (!watcher.ok()) return watcher.status();
    tool->signal_watcher_ = *std::move(watcher);
  }
  return tool;
}

ToolObservers::ToolObservers(Options options) : options_(std::move(options)) {
  if (!options_.trace_file.empty()) {
    tracer_ = std::make_unique<Tracer>(options_.process_name);
    observers_.tracer = tracer_.get();
  }
  if (options_.explain || options_.explain_on_signal) {
    activity_ = std::make_unique<ActivityRegistry>();
    observers_.activity = activity_.get();
  }
}

ToolObservers::~ToolObservers() = default;

void ToolObservers::ExplainOnDeadline(RequestContext& request,
                                      std::string header) const {
  if (activity_ == nullptr) return;
  // Registered before any remote call's own callback, so it runs first:
  // the calls still in flight are there to see.
  request.OnCancel([activity = activity_.get(),
                    header = std::move(header)](const absl::Status& status) {
    if (status.code() != absl::StatusCode::kDeadlineExceeded) return;
    const std::string text = absl::StrCat(header, "\n", ExplainHang(*activity));
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fflush(stderr);
  });
}

absl::Status ToolObservers::WriteTrace() const {
  if (tracer_ == nullptr) return absl::OkStatus();
  return tracer_->WriteFile(options_.trace_file);
}

}  // namespace sluice
