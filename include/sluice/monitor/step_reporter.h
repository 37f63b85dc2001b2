// StepReporter: a training rank's side of the step monitor. The training
// thread records step signals into a small buffer; a background thread
// streams them to the monitor (sluice_monitor) in batches, with a heartbeat
// when there is nothing to send. Recording never waits on the network: a
// monitor that is down or restarting costs the rank nothing but buffered
// signals (the oldest are dropped past a bound). See docs/monitor.md.
//
//   sluice::monitor::StepReporter* reporter =
//       sluice::monitor::StepReporter::FromEnvironment();  // null: no monitor
//   if (reporter) reporter->StepBegin(step);
//   ...
//   if (reporter) reporter->StepEnd(step);
#ifndef SLUICE_MONITOR_STEP_REPORTER_H_
#define SLUICE_MONITOR_STEP_REPORTER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/time/time.h"

namespace sluice::monitor {

struct StepReporterOptions {
  // How often the background thread sends a batch (or a heartbeat).
  absl::Duration interval = absl::Milliseconds(50);
  // Signals kept while the monitor cannot be reached; past it the oldest
  // are dropped (and counted).
  int max_buffered = 4096;
  // Backoff between reconnection attempts: doubles from the first to the
  // last.
  absl::Duration min_backoff = absl::Milliseconds(100);
  absl::Duration max_backoff = absl::Seconds(2);
  // How long TrainEnd waits for the monitor to receive it.
  absl::Duration train_end_wait = absl::Seconds(2);
};

class StepReporter {
 public:
  // Starts reporting as `rank` to the monitor at `monitor_address`
  // (host:port). Never fails: an unreachable monitor is retried in the
  // background.
  static std::unique_ptr<StepReporter> Connect(
      std::string monitor_address, int rank,
      StepReporterOptions options = StepReporterOptions());

  // The process's reporter, made on first use from SLUICE_MONITOR (the
  // monitor's host:port) and SLUICE_RANK; null when SLUICE_MONITOR is unset
  // or empty, or (with a warning) when SLUICE_RANK is not a rank. Lives
  // until the process exits.
  static StepReporter* FromEnvironment();

  // Stops the background thread; signals not yet sent are lost.
  ~StepReporter();
  StepReporter(const StepReporter&) = delete;
  StepReporter& operator=(const StepReporter&) = delete;

  // `kind` "" takes the monitor's normal stuck limit; another kind
  // ("first", "checkpoint") the limit the monitor was given for it.
  void StepBegin(int64_t step, std::string_view kind = "");
  void StepEnd(int64_t step);
  // `epoch` (counted from 0) has just finished.
  void EpochEnd(int64_t epoch);
  // The rank entered a named phase of work outside its steps ("checkpoint
  // save"), or left the one it is in. Between steps the monitor bounds a
  // phase by the limit given for its name, else by its progress limit, and
  // a stuck verdict names the phase; inside a step the step's limit
  // applies. A phase begun while another is open replaces it.
  void PhaseBegin(std::string_view name);
  void PhaseEnd();
  // Training is over: sends what is buffered and waits, at most
  // options.train_end_wait, for the monitor to receive it.
  void TrainEnd();

  int rank() const;
  uint64_t incarnation() const;
  // Signals dropped because the buffer was full.
  int64_t dropped() const;
  // Report streams opened so far (1 once connected; more after the monitor
  // restarted or the connection broke).
  int64_t connections() const;

  class Impl;

 private:
  explicit StepReporter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::monitor

#endif  // SLUICE_MONITOR_STEP_REPORTER_H_
