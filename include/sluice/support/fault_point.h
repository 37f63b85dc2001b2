// Fault points: named places in the runtime where a test can make a
// failure happen on purpose, to replay a failure scenario exactly.
//
//   if (absl::Status fault = SLUICE_FAULT_POINT("worker.call.begin");
//       !fault.ok()) {
//     return Refuse(fault);  // the place's own error path
//   }
//
// A fault point returns OK unless the injector, configured by the
// SLUICE_FAULTS environment variable or by FaultInjector::Set, has a fault
// for it that fires on this hit: it then returns an error, sleeps, blocks
// or kills the process. Off, a fault point costs one relaxed atomic load.
// docs/faults.md has the grammar and every fault point; a point's name must
// be in KnownFaultPoints(), which that table lists.
#ifndef SLUICE_SUPPORT_FAULT_POINT_H_
#define SLUICE_SUPPORT_FAULT_POINT_H_

#include <atomic>
#include <cstdint>
#include <string_view>

#include "absl/base/optimization.h"
#include "absl/status/status.h"
#include "absl/types/span.h"

namespace sluice {

// One fault point of the runtime, for the catalogue below.
struct FaultPointInfo {
  std::string_view name;       // "worker.call.begin"
  std::string_view where;      // the code it sits in
  std::string_view simulates;  // what a fault there stands for
};

// Every fault point the runtime has. A spec that names another is refused,
// so that a misspelt point is an error, not a fault that never fires.
absl::Span<const FaultPointInfo> KnownFaultPoints();

class FaultInjector {
 public:
  // Replaces the configuration with `spec` (the SLUICE_FAULTS grammar of
  // docs/faults.md), resetting every point's hit count and releasing the
  // points that hang. InvalidArgument naming the bad part of the spec
  // leaves the configuration as it was. An empty spec turns faults off.
  static absl::Status Set(std::string_view spec);

  // Turns every fault point off and releases the ones that hang.
  static void Clear();

  // Reads SLUICE_FAULTS, once per process, unless Set or Clear came first;
  // later calls return the first one's result. A binary calls it at
  // startup and refuses to run when it fails. Without that call the first
  // fault point reached reads the variable, and if it is malformed, logs
  // why and fails every fault point with FailedPrecondition from then on.
  static absl::Status InitFromEnvironment();

  // How often `point` was reached since the configuration was set (counted
  // only while faults are on).
  static int64_t Hits(std::string_view point);
};

namespace fault_internal {

enum State : int {
  kUnread = 0,  // SLUICE_FAULTS not read yet
  kOff = 1,
  kArmed = 2,
  kBroken = 3,  // SLUICE_FAULTS is malformed
};

// The only thing a fault point reads while faults are off.
extern std::atomic<int> state;

// The slow path: reads the environment if need be, counts the hit, and
// acts if a fault fires.
absl::Status Hit(std::string_view point);

}  // namespace fault_internal
}  // namespace sluice

// An absl::Status: OK, or the error the injector made at `point` (a string
// literal in KnownFaultPoints()).
#define SLUICE_FAULT_POINT(point)                                         \
  (ABSL_PREDICT_TRUE(                                                     \
       ::sluice::fault_internal::state.load(std::memory_order_relaxed) == \
       ::sluice::fault_internal::kOff)                                    \
       ? ::absl::OkStatus()                                               \
       : ::sluice::fault_internal::Hit(point))

#endif  // SLUICE_SUPPORT_FAULT_POINT_H_
