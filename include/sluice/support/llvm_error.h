// absl::Status to llvm::Error and back, for code that uses LLVM's error
// handling: kernels that return llvm::Error or llvm::Expected (with
// sluice/kernel/llvm_kernel_binding.h), and code built on LLVM. Kept out of
// sluice/support/error_util.h so that the runtime and its embedders need no
// LLVM headers; a target that includes this one depends on
// //lib/support:llvm_error.
#ifndef SLUICE_SUPPORT_LLVM_ERROR_H_
#define SLUICE_SUPPORT_LLVM_ERROR_H_

#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "llvm/Support/Error.h"

namespace sluice {

// An llvm::Error that carries an absl::Status, so a status survives a trip
// through LLVM's error handling with its code intact.
class StatusError : public llvm::ErrorInfo<StatusError> {
 public:
  static char ID;
  explicit StatusError(absl::Status status) : status_(std::move(status)) {}
  void log(llvm::raw_ostream& os) const override;
  std::error_code convertToErrorCode() const override;
  const absl::Status& status() const { return status_; }

 private:
  absl::Status status_;
};

// Converts a status to an llvm::Error (success for OK).
llvm::Error MakeLlvmError(absl::Status status);

// Converts an llvm::Error to a status, consuming it. A StatusError gives its
// status back; any other error (a plain message, as TFRT's MakeStringError
// makes) becomes kInternal with LLVM's message, the code TFRT gives it.
absl::Status StatusFromLlvmError(llvm::Error error);

}  // namespace sluice

#endif  // SLUICE_SUPPORT_LLVM_ERROR_H_
