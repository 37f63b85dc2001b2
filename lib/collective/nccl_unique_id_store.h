// The ncclUniqueId of a generation's communicator, through the rendezvous
// store: rank 0 makes it and sets gen/<generation>/nccl_unique_id; the
// other ranks wait for the key.
#ifndef SLUICE_LIB_COLLECTIVE_NCCL_UNIQUE_ID_STORE_H_
#define SLUICE_LIB_COLLECTIVE_NCCL_UNIQUE_ID_STORE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/collective/nccl_api.h"

namespace sluice::ccl {

// Errors: the store's (UNAVAILABLE or DEADLINE_EXCEEDED when it or rank 0
// did not answer by `deadline`; ABORTED, marked stale, when the store has
// dropped the generation; UNAVAILABLE marked fatal when it refused the TLS
// handshake), or ncclGetUniqueId's.
absl::StatusOr<ncclUniqueId> ExchangeUniqueId(NcclApi& api,
                                              const std::string& store_address,
                                              int64_t generation, int rank,
                                              absl::Time deadline);

}  // namespace sluice::ccl

#endif  // SLUICE_LIB_COLLECTIVE_NCCL_UNIQUE_ID_STORE_H_
