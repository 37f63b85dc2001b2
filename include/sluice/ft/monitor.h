// MonitorServer: the step monitor's gRPC service (lib/ft/monitor_service.proto)
// over MonitorState. Ranks stream step signals to it through StepReporter
// (sluice/ft/step_reporter.h); a launcher reads its verdicts. See
// docs/monitor.md.
#ifndef SLUICE_FT_MONITOR_H_
#define SLUICE_FT_MONITOR_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "lib/ft/monitor_service.pb.h"
#include "sluice/ft/monitor_state.h"

namespace sluice::ft {

class MonitorServer {
 public:
  // Listens on `address` ("127.0.0.1:0" picks a free port). Errors: an
  // address that does not parse or cannot be bound, invalid options.
  static absl::StatusOr<std::unique_ptr<MonitorServer>> Start(
      std::string address, MonitorOptions options);

  // Shuts down.
  ~MonitorServer();
  MonitorServer(const MonitorServer&) = delete;
  MonitorServer& operator=(const MonitorServer&) = delete;

  int port() const;

  // What GetState answers now.
  proto::JobState State() const;

  // Stops serving: open report streams are cancelled. Idempotent.
  void Shutdown();

  class Impl;

 private:
  explicit MonitorServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::ft

#endif  // SLUICE_FT_MONITOR_H_
