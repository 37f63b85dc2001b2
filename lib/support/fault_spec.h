// The parsed form of a SLUICE_FAULTS spec (grammar: docs/faults.md).
#ifndef SLUICE_LIB_SUPPORT_FAULT_SPEC_H_
#define SLUICE_LIB_SUPPORT_FAULT_SPEC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "sluice/support/failure.h"

namespace sluice::fault_internal {

enum class FaultAction { kError, kDelay, kHang, kKill };

enum class Trigger {
  kEveryHit,
  kNth,          // the n-th hit only
  kEveryNth,     // hits n, 2n, 3n, ...
  kFrom,         // hit n and every one after it
  kProbability,  // each hit with `probability`, from the seeded generator
};

// How long a hang lasts unless its spec says: long enough for any test to
// kill the process first, short enough that nothing hangs for good.
inline constexpr absl::Duration kDefaultHangBound = absl::Minutes(10);

// One `point=action[:arg]...[@trigger]` entry.
struct Fault {
  std::string entry;  // as written, for messages
  std::string point;
  FaultAction action = FaultAction::kError;
  absl::StatusCode code = absl::StatusCode::kUnavailable;  // kError
  std::optional<FailureClass> failure_class;  // kError: none, the code's
  absl::Duration duration;                    // kDelay, kHang
  Trigger trigger = Trigger::kEveryHit;
  int64_t n = 0;
  double probability = 0;
};

struct FaultSpec {
  uint64_t seed = 1;
  std::vector<Fault> faults;  // in the order written
};

// The spec, or InvalidArgument naming the entry and the part of it that is
// wrong. Points must be in KnownFaultPoints().
absl::StatusOr<FaultSpec> ParseFaultSpec(std::string_view spec);

}  // namespace sluice::fault_internal

#endif  // SLUICE_LIB_SUPPORT_FAULT_SPEC_H_
