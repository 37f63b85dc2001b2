#include "sluice/support/liveness.h"

#include <cstdlib>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace sluice {

absl::StatusOr<absl::Duration> LivenessTimeoutFromEnvironment() {
  const char* text = std::getenv("SLUICE_LIVENESS_TIMEOUT_MS");
  if (text == nullptr || *text == '\0') return kDefaultLivenessTimeout;
  int64_t ms = 0;
  if (!absl::SimpleAtoi(text, &ms) ||
      absl::Milliseconds(ms) < kMinLivenessTimeout ||
      ms > int64_t{7} * 24 * 3600 * 1000) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SLUICE_LIVENESS_TIMEOUT_MS='", text, "': expected milliseconds, ",
        absl::ToInt64Milliseconds(kMinLivenessTimeout), " to 604800000"));
  }
  return absl::Milliseconds(ms);
}

}  // namespace sluice
