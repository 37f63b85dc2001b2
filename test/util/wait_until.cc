#include "test/util/wait_until.h"

#include "absl/time/clock.h"

namespace sluice::testing {

bool WaitUntil(const std::function<bool()>& condition, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  for (;;) {
    if (condition()) return true;
    if (absl::Now() >= deadline) return false;
    // Short enough for the latency tests that measure how soon something
    // happened; long enough that a condition making an RPC does not load
    // the 2-core test machines.
    absl::SleepFor(absl::Milliseconds(5));
  }
}

}  // namespace sluice::testing
