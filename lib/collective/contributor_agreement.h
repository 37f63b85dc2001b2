// How the live ranks of a group agree, through the rendezvous store, on who
// contributed to a partial collective (docs/collectives.md, "Partial
// collectives"). The store has no compare-and-set, so the agreement takes
// two rounds of keys under gen/<generation>/<prefix>:
//
//   alive/<rank>  each rank, once its part of the collective has ended:
//                 "ok" or "failed". It then waits up to the window for every
//                 rank's key and reads once more after it: the ranks it read
//                 are its view.
//   view/<rank>   its view. It waits up to the window for the view of every
//                 rank in its own, and agrees only when all are its own.
//
// Each round is one call to the store, which sets the rank's key and waits
// for the others' (GetRequest.set): two round trips when every rank is
// there.
//
// Two ranks that both agree hold the same view: if a rank B is in A's view,
// A read B's view and found it equal to its own. If B is not in A's view, B
// wrote its alive key after A's last read, which came a window after A's own
// alive key; so B's last read, a window after that, saw A's: A is in B's
// view, and B read A's different view and did not agree.
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
  // The ranks heard from, ascending.
  std::vector<int> contributors;
  // Every rank of the group was heard from, and each said its part of the
  // collective succeeded: the collective's result stands as it is.
  bool all_succeeded = false;
};

// Agrees, as `rank` of `size`, on who contributed, `succeeded` saying how
// this rank's part went. Fails (UNAVAILABLE) when the ranks this one heard
// from saw others, or did not say what they saw within the window, and
// with the store's error when the store fails.
absl::StatusOr<ContributorAgreement> AgreeOnContributors(
    proto::KeyValueStore::StubInterface& store, int64_t generation,
    const std::string& prefix, int rank, int size, bool succeeded,
    absl::Duration window);

}  // namespace sluice::ccl

#endif  // SLUICE_LIB_COLLECTIVE_CONTRIBUTOR_AGREEMENT_H_
