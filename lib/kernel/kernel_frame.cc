#include "sluice/kernel/kernel_frame.h"

#include <string>

#include "sluice/support/error_util.h"

namespace sluice {
namespace internal {

void ReportErrorOnResults(absl::Span<RCReference<AsyncValue>> results,
                          AllocatedResults allocated, absl::Status status,
                          const ExecutionContext& context,
                          const KernelDebugInfo& debug_info) {
  assert(!status.ok() && "ReportError() needs a non-OK status");
  ErrorContext where;
  where.kernel = std::string(debug_info.name);
  std::optional<DecodedLocation> location;
  if (debug_info.location) {
    location = debug_info.location->Decode();
    where.location = location->ToString();
  }
  status = AddErrorContext(std::move(status), where);
  // The diagnostic goes out before any result turns into the error, so
  // whoever sees the error value sees its diagnostic too.
  context.host()->EmitError(DecodedDiagnostic{std::move(location), status});

  RCReference<AsyncValue> error;
  bool failed_any = false;
  for (size_t i = 0; i < results.size(); ++i) {
    RCReference<AsyncValue>& result = results[i];
    if (!result) {
      if (!error) error = MakeErrorAsyncValueRef(status);
      result = error.CopyRef();
      failed_any = true;
    } else if (IsAllocated(allocated, i) && result->IsUnavailable()) {
      // Fail the value that will resolve this result: for a placeholder
      // already forwarded to an allocated value, that value.
      AsyncValue* pending = result.get();
      while (pending->IsIndirect() &&
             static_cast<IndirectAsyncValue*>(pending)->target() != nullptr) {
        pending = static_cast<IndirectAsyncValue*>(pending)->target();
      }
      if (pending->IsUnavailable()) pending->SetError(status);
      failed_any = true;
    }
  }
  (void)failed_any;
  assert((failed_any || results.empty()) &&
         "ReportError() after every result was set");
}

}  // namespace internal
}  // namespace sluice
