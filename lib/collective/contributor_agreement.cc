#include "lib/collective/contributor_agreement.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "grpcpp/grpcpp.h"
#include "lib/collective/store_keys.h"
#include "sluice/support/failure.h"

namespace sluice::ccl {
namespace {

constexpr char kSucceeded[] = "ok";
constexpr char kFailed[] = "failed";

absl::Status FromGrpc(const grpc::Status& status, std::string_view what) {
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      absl::StrCat("rendezvous store: ", std::string(what),
                                   " failed: ", status.error_message()));
}

absl::Status NoAgreement(std::string message) {
  return MarkFailureClass(absl::UnavailableError(std::move(message)),
                          FailureClass::kRetryable);
}

class AgreementKeys {
 public:
  AgreementKeys(proto::KeyValueStore::StubInterface& store, int64_t generation,
                const std::string& prefix)
      : store_(store), generation_(generation), prefix_(prefix) {}

  std::string Key(const char* round, int rank) const {
    return GenerationKey(generation_, absl::StrCat(prefix_, round, "/", rank));
  }

  absl::Status Set(const char* round, int rank, std::string value) {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
    proto::SetRequest request;
    request.set_key(Key(round, rank));
    request.set_value(std::move(value));
    proto::SetResponse response;
    grpc::Status status = store_.Set(&context, request, &response);
    if (!status.ok()) return FromGrpc(status, "setting " + request.key());
    return absl::OkStatus();
  }

  // Sets `round` of `rank` to `value`, then the values of `round` of
  // `ranks`, waiting until `deadline` for them; DEADLINE_EXCEEDED when some
  // are missing then.
  absl::StatusOr<std::vector<std::string>> SetAndWaitFor(
      const char* round, int rank, std::string value,
      const std::vector<int>& ranks, absl::Time deadline) {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(deadline));
    proto::GetRequest request;
    for (int r : ranks) request.add_keys(Key(round, r));
    request.set_wait(true);
    request.mutable_set()->set_key(Key(round, rank));
    request.mutable_set()->set_value(std::move(value));
    proto::GetResponse response;
    grpc::Status status = store_.Get(&context, request, &response);
    if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
      return absl::DeadlineExceededError("");
    }
    if (!status.ok()) {
      return FromGrpc(status, absl::StrCat("waiting for ", round, " keys"));
    }
    return std::vector<std::string>(response.values().begin(),
                                    response.values().end());
  }

  // The value of one key as it is now; none when it is not set.
  absl::StatusOr<std::optional<std::string>> Read(const char* round, int rank) {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
    proto::GetRequest request;
    request.add_keys(Key(round, rank));
    proto::GetResponse response;
    grpc::Status status = store_.Get(&context, request, &response);
    if (status.error_code() == grpc::StatusCode::NOT_FOUND) {
      return std::optional<std::string>();
    }
    if (!status.ok()) return FromGrpc(status, "reading " + request.keys(0));
    return std::optional<std::string>(response.values(0));
  }

 private:
  proto::KeyValueStore::StubInterface& store_;
  const int64_t generation_;
  const std::string& prefix_;
};

std::string EncodeView(const ContributorAgreement& view) {
  return absl::StrCat(absl::StrJoin(view.contributors, ","), ";",
                      view.all_succeeded ? kSucceeded : kFailed);
}

std::string DescribeView(const std::string& encoded) {
  size_t separator = encoded.find(';');
  return absl::StrCat(
      "[", absl::StrReplaceAll(encoded.substr(0, separator), {{",", ", "}}),
      "]",
      separator != std::string::npos &&
              encoded.substr(separator + 1) == kSucceeded
          ? ""
          : " (some failed)");
}

}  // namespace

absl::StatusOr<ContributorAgreement> AgreeOnContributors(
    proto::KeyValueStore::StubInterface& store, int64_t generation,
    const std::string& prefix, int rank, int size, bool succeeded,
    absl::Duration window) {
  AgreementKeys keys(store, generation, prefix);
  std::vector<int> everyone(size);
  for (int r = 0; r < size; ++r) everyone[r] = r;

  ContributorAgreement view;
  const char* said = succeeded ? kSucceeded : kFailed;
  absl::StatusOr<std::vector<std::string>> alive =
      keys.SetAndWaitFor("alive", rank, said, everyone, absl::Now() + window);
  if (alive.ok()) {
    view.contributors = everyone;
    view.all_succeeded = true;
    for (const std::string& value : *alive) {
      if (value != kSucceeded) view.all_succeeded = false;
    }
  } else if (absl::IsDeadlineExceeded(alive.status())) {
    // The call may have ended before the store set this rank's key. Then
    // the read after the window that the argument in the header needs.
    if (absl::Status set = keys.Set("alive", rank, said); !set.ok()) {
      return set;
    }
    for (int r = 0; r < size; ++r) {
      absl::StatusOr<std::optional<std::string>> value = keys.Read("alive", r);
      if (!value.ok()) return value.status();
      if (value->has_value()) view.contributors.push_back(r);
    }
  } else {
    return alive.status();
  }

  const std::string mine = EncodeView(view);
  absl::StatusOr<std::vector<std::string>> views = keys.SetAndWaitFor(
      "view", rank, mine, view.contributors, absl::Now() + window);
  if (absl::IsDeadlineExceeded(views.status())) {
    return NoAgreement(
        absl::StrCat("rank ", rank, " heard from ranks ", DescribeView(mine),
                     " but not all of them said whom they heard from within ",
                     absl::FormatDuration(window)));
  }
  if (!views.ok()) return views.status();
  for (size_t i = 0; i < views->size(); ++i) {
    if ((*views)[i] != mine) {
      return NoAgreement(absl::StrCat(
          "rank ", rank, " heard from ranks ", DescribeView(mine), " but rank ",
          view.contributors[i], " heard from ", DescribeView((*views)[i])));
    }
  }
  return view;
}

}  // namespace sluice::ccl
