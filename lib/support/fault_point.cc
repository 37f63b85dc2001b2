#include "sluice/support/fault_point.h"

#include <signal.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "lib/support/fault_spec.h"
#include "sluice/support/failure.h"
#include "sluice/support/logging.h"

namespace sluice {
namespace fault_internal {

std::atomic<int> state{kUnread};

namespace {

// splitmix64: a small generator whose sequence is the same on every
// platform, so a seeded spec replays the same faults anywhere.
uint64_t NextRandom(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

// FNV-1a: a hash of a point's name that does not change between builds.
uint64_t NameHash(std::string_view name) {
  uint64_t hash = 0xcbf29ce484222325u;
  for (char c : name) {
    hash = (hash ^ static_cast<uint8_t>(c)) * 0x100000001b3u;
  }
  return hash;
}

// A fault and its own generator, seeded from the spec's seed, the point
// and the fault's place among the point's faults: its draws depend on the
// hits of its point only, however other points are reached.
struct ArmedFault {
  Fault fault;
  uint64_t random_state = 0;

  bool Fires(int64_t hit) {
    switch (fault.trigger) {
      case Trigger::kEveryHit:
        return true;
      case Trigger::kNth:
        return hit == fault.n;
      case Trigger::kEveryNth:
        return hit % fault.n == 0;
      case Trigger::kFrom:
        return hit >= fault.n;
      case Trigger::kProbability:
        // The top 53 bits as a double in [0, 1).
        return static_cast<double>(NextRandom(random_state) >> 11) * 0x1.0p-53 <
               fault.probability;
    }
    return false;
  }
};

class Injector {
 public:
  // Never destroyed: fault points may be reached while the process exits.
  static Injector& Get() {
    static Injector* const injector = new Injector();
    return *injector;
  }

  void Configure(FaultSpec spec) {
    std::lock_guard<std::mutex> lock(mu_);
    environment_read_ = true;
    ConfigureLocked(std::move(spec));
  }

  absl::Status ReadEnvironment() {
    std::lock_guard<std::mutex> lock(mu_);
    if (environment_read_) return environment_status_;
    environment_read_ = true;
    const char* text = std::getenv("SLUICE_FAULTS");
    absl::StatusOr<FaultSpec> spec =
        ParseFaultSpec(text != nullptr ? text : "");
    if (spec.ok()) {
      ConfigureLocked(*std::move(spec));
      return absl::OkStatus();
    }
    environment_status_ = absl::InvalidArgumentError(
        absl::StrCat("SLUICE_FAULTS: ", spec.status().message()));
    broken_ = MarkFailureClass(
        absl::FailedPreconditionError(absl::StrCat(
            "no fault point runs: ", environment_status_.message())),
        FailureClass::kFatal);
    state.store(kBroken, std::memory_order_release);
    return environment_status_;
  }

  absl::Status Hit(std::string_view point) {
    if (state.load(std::memory_order_acquire) == kUnread) {
      if (!ReadEnvironment().ok()) {
        bool first = false;
        {
          std::lock_guard<std::mutex> lock(mu_);
          first = !std::exchange(broken_logged_, true);
        }
        if (first) SLUICE_LOG(ERROR) << broken_.message();
      }
    }
    Fault fired;
    int64_t hit = 0;
    uint64_t epoch = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      const int now = state.load(std::memory_order_relaxed);
      if (now == kBroken) return broken_;
      if (now != kArmed) return absl::OkStatus();
      auto counted = hits_.find(point);
      if (counted == hits_.end()) {
        counted = hits_.emplace(std::string(point), 0).first;
      }
      hit = ++counted->second;
      auto armed = faults_.find(point);
      if (armed == faults_.end()) return absl::OkStatus();
      bool fires = false;
      for (ArmedFault& fault : armed->second) {
        if (fault.Fires(hit)) {
          fired = fault.fault;
          fires = true;
          break;
        }
      }
      if (!fires) return absl::OkStatus();
      epoch = epoch_;
    }
    SLUICE_LOG(WARNING) << "fault point " << point << " fired on hit " << hit
                        << ": " << fired.entry;
    return Act(fired, epoch);
  }

  int64_t Hits(std::string_view point) {
    std::lock_guard<std::mutex> lock(mu_);
    auto counted = hits_.find(point);
    return counted == hits_.end() ? 0 : counted->second;
  }

 private:
  void ConfigureLocked(FaultSpec spec) {
    faults_.clear();
    hits_.clear();
    for (Fault& fault : spec.faults) {
      std::vector<ArmedFault>& faults = faults_[fault.point];
      ArmedFault armed;
      armed.random_state =
          spec.seed ^ NameHash(fault.point) ^ (faults.size() << 32);
      armed.fault = std::move(fault);
      faults.push_back(std::move(armed));
    }
    ++epoch_;
    released_.notify_all();
    state.store(faults_.empty() ? kOff : kArmed, std::memory_order_release);
  }

  absl::Status Act(const Fault& fault, uint64_t epoch) {
    switch (fault.action) {
      case FaultAction::kError: {
        absl::Status error(fault.code,
                           absl::StrCat("fault injected at ", fault.point));
        return MarkFailureClass(
            std::move(error),
            fault.failure_class.value_or(ClassOfCode(
                fault.code, /*from_peer=*/true, /*has_generation=*/false)));
      }
      case FaultAction::kDelay:
        absl::SleepFor(fault.duration);
        return absl::OkStatus();
      case FaultAction::kHang: {
        std::unique_lock<std::mutex> lock(mu_);
        released_.wait_for(lock, absl::ToChronoNanoseconds(fault.duration),
                           [&] { return epoch_ != epoch; });
        return absl::OkStatus();
      }
      case FaultAction::kKill:
        SLUICE_LOG(ERROR) << "fault point " << fault.point
                          << " kills the process";
        ::kill(::getpid(), SIGKILL);
        _exit(128 + SIGKILL);  // not reached: SIGKILL cannot be caught
    }
    return absl::OkStatus();
  }

  std::mutex mu_;
  std::condition_variable released_;
  // Changes with every configuration, which ends the hangs of the last one.
  uint64_t epoch_ = 0;
  std::map<std::string, std::vector<ArmedFault>, std::less<>> faults_;
  std::map<std::string, int64_t, std::less<>> hits_;
  bool environment_read_ = false;
  absl::Status environment_status_;
  absl::Status broken_;  // what every fault point returns when kBroken
  bool broken_logged_ = false;
};

}  // namespace

absl::Status Hit(std::string_view point) { return Injector::Get().Hit(point); }

}  // namespace fault_internal

absl::Status FaultInjector::Set(std::string_view spec) {
  absl::StatusOr<fault_internal::FaultSpec> parsed =
      fault_internal::ParseFaultSpec(spec);
  if (!parsed.ok()) return parsed.status();
  fault_internal::Injector::Get().Configure(*std::move(parsed));
  return absl::OkStatus();
}

void FaultInjector::Clear() {
  fault_internal::Injector::Get().Configure(fault_internal::FaultSpec());
}

absl::Status FaultInjector::InitFromEnvironment() {
  return fault_internal::Injector::Get().ReadEnvironment();
}

int64_t FaultInjector::Hits(std::string_view point) {
  return fault_internal::Injector::Get().Hits(point);
}

}  // namespace sluice
