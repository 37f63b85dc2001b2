#include "lib/collective/contributor_agreement.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "grpcpp/grpcpp.h"
#include "lib/collective/store_keys.h"
#include "sluice/support/failure.h"

namespace sluice::ccl {
namespace {

// Past the window, what the call may take to reach the store and come back.
constexpr absl::Duration kCallSlack = absl::Seconds(10);

}  // namespace

absl::StatusOr<ContributorAgreement> AgreeOnContributors(
    proto::KeyValueStore::StubInterface& store, int64_t generation,
    const std::string& prefix, int rank, int size, bool succeeded,
    absl::Duration window) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + window + kCallSlack));
  proto::AgreeRequest request;
  request.set_key(GenerationKey(generation, absl::StrCat(prefix, "agreement")));
  request.set_rank(rank);
  request.set_size(size);
  request.set_succeeded(succeeded);
  request.set_window_ms(
      std::max<int64_t>(1, absl::ToInt64Milliseconds(window)));
  proto::AgreeResponse response;
  grpc::Status status = store.Agree(&context, request, &response);
  if (!status.ok()) {
    return absl::Status(
        static_cast<absl::StatusCode>(status.error_code()),
        absl::StrCat("rendezvous store: agreeing on ", request.key(),
                     " failed: ", status.error_message()));
  }
  ContributorAgreement agreement;
  agreement.contributors.assign(response.contributors().begin(),
                                response.contributors().end());
  agreement.all_succeeded = response.all_succeeded();
  if (!std::binary_search(agreement.contributors.begin(),
                          agreement.contributors.end(), rank)) {
    return MarkFailureClass(
        absl::UnavailableError(
            absl::StrCat("rank ", rank,
                         " came after the store had decided on the "
                         "contributors [",
                         absl::StrJoin(agreement.contributors, ", "),
                         "]: the window of ", absl::FormatDuration(window),
                         " after the first rank's call had passed")),
        FailureClass::kRetryable);
  }
  return agreement;
}

}  // namespace sluice::ccl
