// Headless Chromium (/usr/bin/chromium) for the status page's tests: the
// DOM of a page after its scripts ran, and a screenshot. Each run has its
// own profile directory and a deadline; a Chromium that overruns it is
// killed.
#ifndef SLUICE_TEST_INTEGRATION_HA_CHROMIUM_H_
#define SLUICE_TEST_INTEGRATION_HA_CHROMIUM_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace sluice::lighthouse::testing {

// The serialized DOM of `url` once `budget` of virtual time has passed
// (timers and fetches included).
absl::StatusOr<std::string> DumpDom(const std::string& url,
                                    absl::Duration budget);

// Writes a PNG of `url` (1200x800) to `path`.
absl::Status Screenshot(const std::string& url, const std::string& path,
                        absl::Duration budget);

// The status page's member rows in a dumped DOM: data-replica-id → the
// row's class attribute ("replica", "replica stale", ...).
std::map<std::string, std::string> ReplicaRowClasses(const std::string& dom);

// The text of the element with `id` (no nested elements), or "".
std::string ElementText(const std::string& dom, const std::string& id);

}  // namespace sluice::lighthouse::testing

#endif  // SLUICE_TEST_INTEGRATION_HA_CHROMIUM_H_
