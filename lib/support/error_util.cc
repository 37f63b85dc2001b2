#include "sluice/support/error_util.h"

#include <vector>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "llvm/Support/raw_ostream.h"

namespace sluice {

char StatusError::ID = 0;

std::string StatusCodeName(absl::StatusCode code) {
  return absl::StatusCodeToString(code);
}

void StatusError::log(llvm::raw_ostream& os) const {
  os << llvm::StringRef(status_.message().data(), status_.message().size());
}

std::error_code StatusError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

llvm::Error MakeLlvmError(absl::Status status) {
  if (status.ok()) return llvm::Error::success();
  return llvm::make_error<StatusError>(std::move(status));
}

absl::Status StatusFromLlvmError(llvm::Error error) {
  absl::Status result;
  llvm::handleAllErrors(
      std::move(error),
      [&](const StatusError& status_error) { result = status_error.status(); },
      [&](const llvm::ErrorInfoBase& other) {
        result = absl::InternalError(other.message());
      });
  return result;
}

absl::Status WithMessagePrefix(const absl::Status& status,
                               std::string_view prefix) {
  absl::Status prefixed(status.code(),
                        absl::StrCat(std::string(prefix), status.message()));
  status.ForEachPayload(
      [&](absl::string_view type_url, const absl::Cord& payload) {
        prefixed.SetPayload(type_url, payload);
      });
  return prefixed;
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
