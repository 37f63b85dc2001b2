#include "sluice/support/liveness.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace sluice {
namespace {

// Milliseconds; 0 until set or first read from the environment.
std::atomic<int64_t> process_timeout_ms{0};

}  // namespace

absl::StatusOr<absl::Duration> LivenessTimeoutFromEnvironment() {
  const char* text = std::getenv("SLUICE_LIVENESS_TIMEOUT_MS");
  if (text == nullptr || *text == '\0') return kDefaultLivenessTimeout;
  int64_t ms = 0;
  if (!absl::SimpleAtoi(text, &ms) ||
      absl::Milliseconds(ms) < kMinLivenessTimeout ||
      absl::Milliseconds(ms) > kMaxLivenessTimeout) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SLUICE_LIVENESS_TIMEOUT_MS='", text, "': expected milliseconds, ",
        absl::ToInt64Milliseconds(kMinLivenessTimeout), " to ",
        absl::ToInt64Milliseconds(kMaxLivenessTimeout)));
  }
  return absl::Milliseconds(ms);
}

absl::Duration LivenessTimeout() {
  if (int64_t ms = process_timeout_ms.load(); ms > 0) {
    return absl::Milliseconds(ms);
  }
  // Read, and a bad variable reported, once per process.
  static const int64_t from_environment = [] {
    absl::StatusOr<absl::Duration> timeout = LivenessTimeoutFromEnvironment();
    if (!timeout.ok()) {
      std::fprintf(stderr,
                   "warning: %s; using the default liveness timeout of %s\n",
                   std::string(timeout.status().message()).c_str(),
                   absl::FormatDuration(kDefaultLivenessTimeout).c_str());
      timeout = kDefaultLivenessTimeout;
    }
    return absl::ToInt64Milliseconds(*timeout);
  }();
  int64_t unset = 0;
  process_timeout_ms.compare_exchange_strong(unset, from_environment);
  return absl::Milliseconds(process_timeout_ms.load());
}

void SetLivenessTimeout(absl::Duration timeout) {
  timeout = std::clamp(timeout, kMinLivenessTimeout, kMaxLivenessTimeout);
  process_timeout_ms.store(absl::ToInt64Milliseconds(timeout));
}

}  // namespace sluice
