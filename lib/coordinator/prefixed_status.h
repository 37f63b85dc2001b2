// Context in front of an error's message. Private to lib/coordinator.
#ifndef SLUICE_LIB_COORDINATOR_PREFIXED_STATUS_H_
#define SLUICE_LIB_COORDINATOR_PREFIXED_STATUS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace sluice::dist::internal {

// "<prefix>: <message>", with the code and every payload (the failure
// class and origin, sluice/support/failure.h) of `status` kept.
inline absl::Status Prefixed(const std::string& prefix,
                             const absl::Status& status) {
  absl::Status prefixed(status.code(),
                        absl::StrCat(prefix, ": ", status.message()));
  status.ForEachPayload(
      [&](absl::string_view type_url, const absl::Cord& payload) {
        prefixed.SetPayload(type_url, payload);
      });
  return prefixed;
}

}  // namespace sluice::dist::internal

#endif  // SLUICE_LIB_COORDINATOR_PREFIXED_STATUS_H_
