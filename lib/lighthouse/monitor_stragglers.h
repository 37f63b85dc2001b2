// MonitorStragglers: the straggler verdicts of the replica groups' step
// monitors, for the lighthouse's status page (docs/lighthouse.md,
// "Stragglers"). A monitor watches the ranks of one replica group and
// names the ones slower than their peers; the lighthouse, which sees whole
// replica groups only, asks each monitor for its verdicts once a period,
// on a thread of its own, and the page shows the last answers.
#ifndef SLUICE_LIB_LIGHTHOUSE_MONITOR_STRAGGLERS_H_
#define SLUICE_LIB_LIGHTHOUSE_MONITOR_STRAGGLERS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "lib/lighthouse/lighthouse_service.pb.h"

namespace sluice::lighthouse {

class MonitorStragglers {
 public:
  // Asks every monitor in `addresses` ("host:port") for its state every
  // `period` (each call bounded by it too), with the process's TLS
  // settings, until destroyed.
  MonitorStragglers(std::vector<std::string> addresses,
                    absl::Duration period = absl::Seconds(1));
  ~MonitorStragglers();  // stops and joins the thread
  MonitorStragglers(const MonitorStragglers&) = delete;
  MonitorStragglers& operator=(const MonitorStragglers&) = delete;

  // What each monitor said last, in the order of `addresses`, into
  // `status.monitors`. Thread-safe.
  void AddTo(proto::LighthouseStatus& status) const;

 private:
  class Poller;
  std::unique_ptr<Poller> poller_;
};

}  // namespace sluice::lighthouse

#endif  // SLUICE_LIB_LIGHTHOUSE_MONITOR_STRAGGLERS_H_
