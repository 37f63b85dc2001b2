// What Gloo's exceptions mean for a collective, and how to break a Gloo
// context's connections from another thread.
#ifndef SLUICE_LIB_COLLECTIVE_GLOO_FAILURE_H_
#define SLUICE_LIB_COLLECTIVE_GLOO_FAILURE_H_

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "gloo/context.h"

namespace sluice::ccl {

// The status of an exception Gloo threw: DEADLINE_EXCEEDED for its own
// timeout, UNAVAILABLE for a connection that failed or that a peer closed,
// INTERNAL for anything else it raised.
absl::Status GlooExceptionStatus(const std::exception& exception);

// Runs `fn`, turning any exception it throws into a status.
template <typename F>
absl::Status CatchGloo(F&& fn) {
  try {
    std::forward<F>(fn)();
    return absl::OkStatus();
  } catch (const std::exception& exception) {
    return GlooExceptionStatus(exception);
  } catch (...) {
    return absl::InternalError("gloo threw an unknown exception");
  }
}

// Fails every operation pending on `context`'s connections with `reason`
// and closes them, so that a thread blocked in a collective on it returns
// at once and its peers see the connections close. Thread-safe.
void BreakConnections(gloo::Context& context, const std::string& reason);

}  // namespace sluice::ccl

#endif  // SLUICE_LIB_COLLECTIVE_GLOO_FAILURE_H_
