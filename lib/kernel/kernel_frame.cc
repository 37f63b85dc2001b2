#include "sluice/kernel/kernel_frame.h"

#include <algorithm>
#include <string>

#include "sluice/support/error_util.h"

namespace sluice {
namespace internal {

void ReportErrorOnResults(absl::Span<RCReference<AsyncValue>> results,
                          absl::Span<AsyncValue* const> arguments,
                          absl::Status status, const ExecutionContext& context,
                          const KernelDebugInfo& debug_info) {
  assert(!status.ok() && "ReportError() needs a non-OK status");
  ErrorContext where;
  where.kernel = std::string(debug_info.name);
  if (debug_info.location) where.location = debug_info.location->ToString();
  status = AddErrorContext(std::move(status), where);
  // The diagnostic goes out before any result turns into the error, so
  // whoever sees the error value sees its diagnostic too.
  context.host()->EmitError(DecodedDiagnostic{debug_info.location, status});

  RCReference<AsyncValue> error;
  bool set_any = false;
  for (RCReference<AsyncValue>& result : results) {
    if (!result) {
      if (!error) error = MakeErrorAsyncValueRef(status);
      result = error.CopyRef();
      set_any = true;
    } else if (result->IsUnavailable()) {
      // Fail the value that will resolve this result: for a placeholder
      // already forwarded to an allocated value, that value.
      AsyncValue* pending = result.get();
      while (pending->IsIndirect() &&
             static_cast<IndirectAsyncValue*>(pending)->target() != nullptr) {
        pending = static_cast<IndirectAsyncValue*>(pending)->target();
      }
      // Only values the kernel allocated may be failed here; an argument
      // passed through is someone else's to resolve.
      assert(std::find(arguments.begin(), arguments.end(), pending) ==
                 arguments.end() &&
             "ReportError() on a result that forwards a pending argument");
      if (pending->IsUnavailable()) pending->SetError(status);
      set_any = true;
    }
  }
  (void)set_any;
  assert((set_any || results.empty()) &&
         "ReportError() after every result was set");
}

}  // namespace internal
}  // namespace sluice
