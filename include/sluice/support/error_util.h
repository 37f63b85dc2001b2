// Error helpers: building statuses and the context an error picks up as it
// travels. Converting to and from llvm::Error is in
// sluice/support/llvm_error.h, which only code that uses LLVM includes.
//
// Messages follow the project's style: lower-case start, no trailing period,
// specific. Context (the kernel and `.mlir` location that produced an error,
// the remote task that sent it, its failure class) travels as the status
// payload of sluice/support/failure.h, so the message itself stays exactly
// what the kernel said.
#ifndef SLUICE_SUPPORT_ERROR_UTIL_H_
#define SLUICE_SUPPORT_ERROR_UTIL_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "sluice/support/failure.h"

namespace sluice {

// A status with a printf-style message: MakeStatus(kInvalidArgument,
// "unknown kernel '%s'", name).
template <typename... Args>
absl::Status MakeStatus(absl::StatusCode code,
                        const absl::FormatSpec<Args...>& format,
                        const Args&... args) {
  return absl::Status(code, absl::StrFormat(format, args...));
}

// The code's canonical name: "INTERNAL", "CANCELLED", ...
std::string StatusCodeName(absl::StatusCode code);

// `status` with `prefix` before its message, keeping its code and its
// payload (the context and class it carries): "cannot register 'f': " +
// what the task said. The result is derived from `status` (DerivedFrom).
absl::Status WithMessagePrefix(const absl::Status& status,
                               std::string_view prefix);

// `status` with `suffix` after its message, keeping its code and payload:
// the same error, with more said about it.
absl::Status WithMessageSuffix(const absl::Status& status,
                               std::string_view suffix);

// Root causes: one failure often fans out into many errors (a dead task
// fails every call in flight to it, and each caller's error wraps the one
// it got). Each derived error records the root of the chain it came from
// (ErrorContext::cause), so that whoever reports many errors reports the
// root once, first, with how many errors it explains.

// `error` recorded as derived from `from`: its cause becomes `from`'s root
// cause, unless it records one already. OK statuses are returned unchanged.
absl::Status DerivedFrom(absl::Status error, const absl::Status& from);

// The message of the error at the root of `status`'s chain: its recorded
// cause, or its own message when it is a root.
std::string RootCause(const absl::Status& status);

// The message with its context for people to read:
// "something bad happened (kernel tfrt_test.fail at prog.mlir:3:8)".
std::string DescribeError(const absl::Status& status);

}  // namespace sluice

#endif  // SLUICE_SUPPORT_ERROR_UTIL_H_
