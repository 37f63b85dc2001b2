// Headless Chromium driven over the DevTools protocol on a pipe
// (--remote-debugging-pipe), for a status page test that must act on the
// page (click a button) rather than only read its DOM.
#ifndef SLUICE_TEST_INTEGRATION_HA_CHROMIUM_DEVTOOLS_H_
#define SLUICE_TEST_INTEGRATION_HA_CHROMIUM_DEVTOOLS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace sluice::lighthouse::testing {

struct PageScript {
  std::string url;
  // A JavaScript expression: a promise of a string, which Evaluate
  // returns once it settles.
  std::string expression;
  // Where to write a PNG (1200x800) of the page after the expression
  // settled; "" for none.
  std::string screenshot_path;
  // Further Chromium flags, e.g. --ignore-certificate-errors.
  std::vector<std::string> flags;
  // The whole run, Chromium's start included.
  absl::Duration deadline = absl::Seconds(90);
};

// Opens the page in a fresh headless Chromium (a profile of its own under
// TEST_TMPDIR), evaluates the expression and returns its value. Chromium
// is killed whatever happens.
absl::StatusOr<std::string> Evaluate(const PageScript& script);

}  // namespace sluice::lighthouse::testing

#endif  // SLUICE_TEST_INTEGRATION_HA_CHROMIUM_DEVTOOLS_H_
