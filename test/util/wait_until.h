// WaitUntil: the one bounded poll of the tests. A condition that never
// holds fails the test at the bound instead of hanging it until Bazel's
// timeout, which says nothing about what was awaited.
#ifndef SLUICE_TEST_UTIL_WAIT_UNTIL_H_
#define SLUICE_TEST_UTIL_WAIT_UNTIL_H_

#include <functional>

#include "absl/time/time.h"

namespace sluice::testing {

// Calls `condition` every few milliseconds until it returns true (true) or
// `timeout` has passed (false). It is called at least once, and the last
// time about when the deadline passes, so a condition that comes true just
// as time runs out still counts.
bool WaitUntil(const std::function<bool()>& condition, absl::Duration timeout);

}  // namespace sluice::testing

#endif  // SLUICE_TEST_UTIL_WAIT_UNTIL_H_
