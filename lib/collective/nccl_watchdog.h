// The NCCL watchdog: one thread per process, off the hot path, that polls
// every communicator's watch (nccl_comm_watch.h): it moves collectives on,
// finds them done, reads async errors and deadlines, aborts broken
// communicators and escalates aborts that hang. It polls every
// `busy_interval` while any communicator has work, and sleeps otherwise
// until a collective is submitted.
#ifndef SLUICE_LIB_COLLECTIVE_NCCL_WATCHDOG_H_
#define SLUICE_LIB_COLLECTIVE_NCCL_WATCHDOG_H_

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "lib/collective/nccl_comm_watch.h"

namespace sluice::ccl {

struct NcclWatchdogOptions {
  // Between polls while collectives are in flight: what a collective's
  // completion may wait past the event, and what the thread costs.
  absl::Duration busy_interval = absl::Microseconds(50);
  // Between polls with nothing in flight (async errors of idle
  // communicators are found this late).
  absl::Duration idle_interval = absl::Milliseconds(100);
};

class NcclWatchdog {
 public:
  explicit NcclWatchdog(NcclWatchdogOptions options = {});
  // Stops the thread; the watches still held are polled no more.
  ~NcclWatchdog();

  // The process's watchdog, started on first use and never destroyed.
  static NcclWatchdog* Process();
  // How long exit waits for Process() to drain (DrainProcessAtExit).
  static constexpr absl::Duration kExitDrainLimit = absl::Seconds(60);
  // Makes exit drain Process() (below) first, so that a process that drops
  // its groups and returns from main does not tear the CUDA runtime down
  // under a communicator still being finalized or aborted. Exit runs its
  // handlers in reverse order and the CUDA runtime registers its teardown
  // at its first call: call this after one. Idempotent.
  static void DrainProcessAtExit();

  // Waits until no watch it holds is being released (closed or aborted),
  // for up to `limit`; false when some still was. Returns at once on the
  // watchdog's own thread, which does the releasing.
  bool Drain(absl::Duration limit);

  // Polls `watch` until it is finished().
  void Watch(std::shared_ptr<NcclCommWatch> watch);
  // How many watches it holds.
  int watched() const;

 private:
  struct Signal;
  void Run();

  const NcclWatchdogOptions options_;
  // Shared with the watches, which may outlive a watchdog made by a test.
  const std::shared_ptr<Signal> signal_;
  std::thread thread_;
};

}  // namespace sluice::ccl

#endif  // SLUICE_LIB_COLLECTIVE_NCCL_WATCHDOG_H_
