#include "lib/collective/group_error.h"

#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "sluice/support/error_util.h"
#include "sluice/support/failure.h"

namespace sluice::ccl {

absl::Status GroupError(const absl::Status& cause, std::string_view prefix,
                        int64_t generation) {
  absl::Status error = WithMessagePrefix(cause, prefix);
  FailureClass failure_class = Classify(cause);
  if (cause.code() == absl::StatusCode::kDeadlineExceeded ||
      cause.code() == absl::StatusCode::kUnavailable) {
    failure_class = FailureClass::kRetryable;
  }
  if (GetErrorContext(cause).failure_class.has_value()) {
    failure_class = *GetErrorContext(cause).failure_class;
  }
  error = MarkFailureClass(error, failure_class);
  ErrorContext context;
  context.generation = generation;
  return AddErrorContext(error, context);
}

absl::Status RefusedError(const absl::Status& broken, std::string_view what) {
  return WithMessagePrefix(
      broken,
      absl::StrCat(std::string(what), " refused: the group is broken: "));
}

absl::Status CheckPeer(int rank, int size, int peer, int64_t tag) {
  if (peer < 0 || peer >= size || peer == rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("peer ", peer, " is not another rank of the group"));
  }
  if (tag < 0 || tag > std::numeric_limits<uint32_t>::max()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tag ", tag, " is not in [0, 2^32)"));
  }
  return absl::OkStatus();
}

}  // namespace sluice::ccl
