#include "sluice/support/llvm_error.h"

#include "llvm/Support/raw_ostream.h"

namespace sluice {

char StatusError::ID = 0;

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

}  // namespace sluice
