// How the live ranks of a group agree on who contributed to a partial
// collective (docs/collectives.md, "Partial collectives"): each asks the
// rendezvous store (the Agree call of store_service.proto) once its part of
// the collective has ended, saying whether it succeeded; the store decides
// once, when every rank has asked or the window after the first one's call
// has passed, and gives every rank the same answer. One round trip each,
// and one decider: no two ranks can hold different answers.
#ifndef SLUICE_LIB_COLLECTIVE_CONTRIBUTOR_AGREEMENT_H_
#define SLUICE_LIB_COLLECTIVE_CONTRIBUTOR_AGREEMENT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/collective/store_service.grpc.pb.h"

namespace sluice::ccl {

struct ContributorAgreement {
  // The ranks that asked in time, ascending; this rank among them.
  std::vector<int> contributors;
  // Every rank of the group asked, and each said its part of the
  // collective succeeded: the collective's result stands as it is.
  bool all_succeeded = false;
};

// Agrees, as `rank` of `size`, on who contributed, `succeeded` saying how
// this rank's part went; the agreement's key is gen/<generation>/<prefix>
// agreement. Fails (UNAVAILABLE, retryable) when the store decided without
// this rank, and with the store's error when the store fails.
absl::StatusOr<ContributorAgreement> AgreeOnContributors(
    proto::KeyValueStore::StubInterface& store, int64_t generation,
    const std::string& prefix, int rank, int size, bool succeeded,
    absl::Duration window);

}  // namespace sluice::ccl

#endif  // SLUICE_LIB_COLLECTIVE_CONTRIBUTOR_AGREEMENT_H_
