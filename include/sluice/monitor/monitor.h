// MonitorServer: the step monitor (lib/monitor/monitor_service.proto). Ranks
// stream step signals to it through StepReporter
// (sluice/monitor/step_reporter.h); it says which ranks are stuck, silent, dead
// or finished, and a launcher reads its verdicts. See docs/monitor.md.
#ifndef SLUICE_MONITOR_MONITOR_H_
#define SLUICE_MONITOR_MONITOR_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace sluice::monitor {

struct MonitorOptions {
  int world_size = 1;
  // A step begun and not ended within this is stuck.
  absl::Duration stuck_timeout = absl::Seconds(10);
  // A rank that has reported once and then sends nothing, not even a
  // heartbeat, for this long is silent (stopped, or cut off).
  absl::Duration silent_timeout = absl::Seconds(30);
  // Stuck limits of declared step kinds, e.g. {"first", 120 s},
  // {"checkpoint", 300 s}; a step of another kind takes stuck_timeout.
  std::map<std::string, absl::Duration> step_kind_timeouts;
  // A rank that has begun no step for this long since its last step ended
  // (or a phase ended, or it first reported) is stuck between steps, though
  // its heartbeats go on. Zero: no such limit (phases with limits of their
  // own keep theirs).
  absl::Duration progress_timeout = absl::Seconds(60);
  // Limits of named phases between steps, e.g. {"checkpoint save", 300 s}:
  // a rank in one of them longer than this is stuck; a phase of another
  // name takes progress_timeout.
  std::map<std::string, absl::Duration> phase_timeouts;
  // A rank whose steps each take more than this many times its reference
  // (its peers' recent median step time; alone in its job, its own earlier
  // one) for straggler_steps consecutive steps straggles, until as many
  // consecutive steps are back under it. Above 1.
  double straggler_threshold = 1.5;
  // 0: step times are kept, no straggler verdict is made. At most 1000.
  int straggler_steps = 5;
};

// kStraggler is informational (JobState::stragglers), never a failure.
enum class VerdictKind { kStuck, kSilent, kDead, kFinished, kStraggler };

struct Verdict {
  int rank = 0;
  VerdictKind kind = VerdictKind::kStuck;
  // Who, what and why, e.g. "rank 2 stuck in step 1841 for 12.4 s (limit
  // 10 s)".
  std::string message;
  absl::Time time = absl::UnixEpoch();  // when it became true (monitor clock)
};

// A rank's normal steps (those begun without a kind), timed on its own
// clock from begin to end.
struct StepTimes {
  int64_t steps = 0;  // steps timed
  absl::Duration recent_median;  // of its last 16
  // Of its earlier healthy steps; zero while too few.
  absl::Duration baseline_median;
  // Relative score: recent median / the median of the other ranks' recent
  // medians; 0 while no peer has a pace.
  double relative = 0;
  // Individual score: recent median / baseline median; 0 without one.
  double individual = 0;
  bool straggling = false;
};

struct RankState {
  int rank = 0;
  bool connected = false;        // a report stream of the rank is open
  int64_t last_begin_step = -1;  // -1: none yet
  int64_t last_end_step = -1;    // -1: none yet
  // Epochs finished so far: the highest epoch it ended + 1.
  int64_t finished_epochs = 0;
  std::optional<absl::Time> last_contact;  // none: never heard from
  bool finished = false;                   // it sent its train end
  std::optional<int> exit_code;            // once a launcher reported its exit
  std::string phase;                       // the phase it is in; "": none
  StepTimes step_times;
  // What its last straggler verdict said as it cleared; "" when none
  // cleared since its process started.
  std::string straggler_recovered;
};

// The monitor's view of the job (what GetState answers).
struct JobState {
  std::vector<RankState> ranks;   // one per rank, by rank
  std::vector<Verdict> verdicts;  // at most one per rank, newest last
  // The minimum over all ranks of finished_epochs (0 while a rank never
  // reported one): the epoch a restarted job resumes from.
  int64_t min_finished_epoch = 0;
  // Straggler verdicts, at most one per rank and none for a rank with a
  // verdict above, newest last: what a launcher must not restart for.
  std::vector<Verdict> stragglers;

  // Every rank's progress and every verdict, one per line, for logs and
  // test failures.
  std::string ToString() const;
};

class MonitorServer {
 public:
  // Listens on `address` ("127.0.0.1:0" picks a free port). Errors: an
  // address that does not parse or cannot be bound, invalid options (a
  // world size below 1, a timeout that is not positive).
  static absl::StatusOr<std::unique_ptr<MonitorServer>> Start(
      std::string address, MonitorOptions options);

  // Shuts down.
  ~MonitorServer();
  MonitorServer(const MonitorServer&) = delete;
  MonitorServer& operator=(const MonitorServer&) = delete;

  int port() const;

  // What GetState answers now.
  JobState State() const;

  // Stops serving: open report streams are cancelled. Idempotent.
  void Shutdown();

  class Impl;

 private:
  explicit MonitorServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::monitor

#endif  // SLUICE_MONITOR_MONITOR_H_
