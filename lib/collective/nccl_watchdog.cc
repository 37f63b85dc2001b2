#include "lib/collective/nccl_watchdog.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "absl/time/clock.h"

namespace sluice::ccl {

struct NcclWatchdog::Signal {
  std::mutex mu;
  std::condition_variable wake;
  bool woken = false;
  bool stopping = false;
  // Whether the thread sleeps for the idle interval. While it is busy it
  // polls soon anyway, and waking it at every collective submitted would
  // make it poll (and contend for the communicator's locks) once per
  // collective.
  bool idle = false;
  std::vector<std::shared_ptr<NcclCommWatch>> watches;

  void Wake() {
    std::lock_guard<std::mutex> lock(mu);
    woken = true;
    if (idle) wake.notify_all();
  }
};

NcclWatchdog::NcclWatchdog(NcclWatchdogOptions options)
    : options_(options),
      signal_(std::make_shared<Signal>()),
      thread_([this] { Run(); }) {}

NcclWatchdog::~NcclWatchdog() {
  {
    std::lock_guard<std::mutex> lock(signal_->mu);
    signal_->stopping = true;
    signal_->wake.notify_all();
  }
  thread_.join();
}

NcclWatchdog* NcclWatchdog::Process() {
  static NcclWatchdog* const watchdog = new NcclWatchdog();
  return watchdog;
}

void NcclWatchdog::DrainProcessAtExit() {
  static const bool registered = [] {
    return std::atexit([] { Process()->Drain(kExitDrainLimit); }) == 0;
  }();
  (void)registered;
}

bool NcclWatchdog::Drain(absl::Duration limit) {
  if (std::this_thread::get_id() == thread_.get_id()) return false;
  const absl::Time give_up = absl::Now() + limit;
  while (true) {
    std::vector<std::shared_ptr<NcclCommWatch>> watches;
    {
      std::lock_guard<std::mutex> lock(signal_->mu);
      watches = signal_->watches;
    }
    bool releasing = false;
    for (const auto& watch : watches) releasing |= watch->releasing();
    if (!releasing) return true;
    if (absl::Now() >= give_up) return false;
    // Releases take milliseconds to seconds: a short sleep costs nothing.
    absl::SleepFor(absl::Milliseconds(1));
  }
}

void NcclWatchdog::Watch(std::shared_ptr<NcclCommWatch> watch) {
  std::weak_ptr<Signal> signal = signal_;
  watch->SetWake([signal] {
    if (std::shared_ptr<Signal> live = signal.lock()) live->Wake();
  });
  std::lock_guard<std::mutex> lock(signal_->mu);
  signal_->watches.push_back(std::move(watch));
  signal_->woken = true;
  signal_->wake.notify_all();
}

int NcclWatchdog::watched() const {
  std::lock_guard<std::mutex> lock(signal_->mu);
  return static_cast<int>(signal_->watches.size());
}

void NcclWatchdog::Run() {
  std::vector<std::shared_ptr<NcclCommWatch>> watches;
  bool busy = false;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(signal_->mu);
      signal_->idle = !busy;
      signal_->wake.wait_for(
          lock,
          absl::ToChronoNanoseconds(busy ? options_.busy_interval
                                         : options_.idle_interval),
          [this] {
            return (signal_->idle && signal_->woken) || signal_->stopping;
          });
      signal_->idle = false;
      if (signal_->stopping) return;
      signal_->woken = false;
      // Finished watches are dropped here, outside any Poll.
      auto& all = signal_->watches;
      all.erase(
          std::remove_if(all.begin(), all.end(),
                         [](const auto& watch) { return watch->finished(); }),
          all.end());
      watches = signal_->watches;
    }
    const absl::Time now = absl::Now();
    busy = false;
    for (const auto& watch : watches) {
      watch->Poll(now);
      busy = busy || watch->busy();
    }
    watches.clear();
  }
}

}  // namespace sluice::ccl
