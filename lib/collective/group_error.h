// The error that breaks a collective group, as every backend reports it.
#ifndef SLUICE_LIB_COLLECTIVE_GROUP_ERROR_H_
#define SLUICE_LIB_COLLECTIVE_GROUP_ERROR_H_

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"

namespace sluice::ccl {

// `prefix` + `cause`, classified and recording `generation`: a class the
// cause records wins; else DEADLINE_EXCEEDED and UNAVAILABLE (a peer or the
// transport failed, or did not answer in time) are retryable; else the
// class of the cause's code.
absl::Status GroupError(const absl::Status& cause, std::string_view prefix,
                        int64_t generation);

// The error of a call refused because the group broke with `broken`.
absl::Status RefusedError(const absl::Status& broken, std::string_view what);

// INVALID_ARGUMENT unless `peer` is another rank of a group of `size` seen
// from `rank`, and `tag` fits the 32 bits point-to-point calls carry.
absl::Status CheckPeer(int rank, int size, int peer, int64_t tag);

}  // namespace sluice::ccl

#endif  // SLUICE_LIB_COLLECTIVE_GROUP_ERROR_H_
