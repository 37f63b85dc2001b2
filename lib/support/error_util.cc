#include "sluice/support/error_util.h"

#include <vector>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace sluice {

std::string StatusCodeName(absl::StatusCode code) {
  return absl::StatusCodeToString(code);
}

namespace {

// `status`'s code and payload with `message`.
absl::Status WithMessage(const absl::Status& status, std::string message) {
  absl::Status replaced(status.code(), message);
  status.ForEachPayload(
      [&](absl::string_view type_url, const absl::Cord& payload) {
        replaced.SetPayload(type_url, payload);
      });
  return replaced;
}

}  // namespace

absl::Status WithMessagePrefix(const absl::Status& status,
                               std::string_view prefix) {
  return DerivedFrom(
      WithMessage(status, absl::StrCat(std::string(prefix), status.message())),
      status);
}

absl::Status WithMessageSuffix(const absl::Status& status,
                               std::string_view suffix) {
  return WithMessage(status,
                     absl::StrCat(status.message(), std::string(suffix)));
}

absl::Status DerivedFrom(absl::Status error, const absl::Status& from) {
  if (error.ok() || from.ok()) return error;
  ErrorContext cause;
  cause.cause = RootCause(from);
  return AddErrorContext(std::move(error), cause);
}

std::string RootCause(const absl::Status& status) {
  std::string cause = GetErrorContext(status).cause;
  return cause.empty() ? std::string(status.message()) : cause;
}

std::string DescribeError(const absl::Status& status) {
  std::string text(status.message());
  ErrorContext context = GetErrorContext(status);
  std::vector<std::string> parts;
  if (!context.kernel.empty()) parts.push_back("kernel " + context.kernel);
  if (!context.location.empty()) parts.push_back("at " + context.location);
  if (!context.task.empty()) parts.push_back("on task " + context.task);
  if (!parts.empty())
    absl::StrAppend(&text, " (", absl::StrJoin(parts, " "), ")");
  return text;
}

}  // namespace sluice
