// The built-in native functions (as in TFRT): C++ functions that programs
// declare with `tfrt.native` and call like any other function.
//
// Unlike strict kernels, native functions are called with arguments that may
// still be pending, or errors: each waits for its arguments before reading
// them. An error argument makes every result that error. Errors are set
// directly on the result values, so they travel silently, with no
// diagnostic (the spec's rule for native functions).
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "kernels/test/test_kernels_internal.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/execution_context.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/run_when_ready.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/support/ref_count.h"

namespace sluice {
namespace test_kernels {
namespace {

using Arguments = absl::Span<AsyncValue* const>;
using Results = absl::Span<RCReference<AsyncValue>>;
using HeldArguments = std::vector<RCReference<AsyncValue>>;

// The compiler checks calls against the declaration, but nothing checks the
// declaration against the C++ function: a mismatch fails every result
// instead of reading past the spans.
bool CheckSignature(absl::string_view name, Arguments arguments,
                    Results results, size_t num_arguments, size_t num_results) {
  if (arguments.size() == num_arguments && results.size() == num_results) {
    return true;
  }
  RCReference<AsyncValue> error =
      MakeErrorAsyncValueRef(absl::InvalidArgumentError(absl::StrCat(
          name, " takes ", num_arguments, " argument(s) and returns ",
          num_results, " result(s), but was called with ", arguments.size(),
          " and ", results.size())));
  for (RCReference<AsyncValue>& result : results) result = error.CopyRef();
  return false;
}

// Runs `then(arguments)` once every argument is available: at once if they
// all are. The arguments are only lent for the call, so the callback holds
// references of its own.
template <typename F>
void WhenReady(Arguments arguments, F then) {
  HeldArguments held;
  held.reserve(arguments.size());
  for (AsyncValue* argument : arguments) held.push_back(FormRef(argument));
  RunWhenReady(arguments, [held = std::move(held),
                           then = std::move(then)]() mutable { then(held); });
}

const absl::Status* FirstError(const HeldArguments& arguments) {
  for (const RCReference<AsyncValue>& argument : arguments) {
    if (argument->IsError()) return &argument->GetError();
  }
  return nullptr;
}

// Wraps around on overflow instead of being undefined.
int32_t Sum(const HeldArguments& arguments) {
  return static_cast<int32_t>(
      static_cast<uint32_t>(arguments[0]->get<int32_t>()) +
      static_cast<uint32_t>(arguments[1]->get<int32_t>()));
}

void NativeAdd(const ExecutionContext&, Arguments arguments, Results results) {
  if (!CheckSignature("native_add", arguments, results, 2, 1)) return;
  AsyncValueRef<int32_t> sum = MakeUnconstructedAsyncValueRef<int32_t>();
  results[0] = sum.CopyRCRef();
  WhenReady(arguments, [sum = std::move(sum)](const HeldArguments& held) {
    if (const absl::Status* error = FirstError(held)) {
      sum.SetError(*error);
      return;
    }
    sum.emplace(Sum(held));
  });
}

// As native_add, but the sum is computed and published by a work-queue
// task, so the result is still unavailable when the function returns.
void NativeAsyncAdd(const ExecutionContext& context, Arguments arguments,
                    Results results) {
  if (!CheckSignature("native_async_add", arguments, results, 2, 1)) return;
  AsyncValueRef<int32_t> sum = MakeUnconstructedAsyncValueRef<int32_t>();
  results[0] = sum.CopyRCRef();
  HostContext* host = context.host();
  WhenReady(arguments,
            [host, sum = std::move(sum)](HeldArguments& held) mutable {
              host->EnqueueWork([sum = std::move(sum), held = std::move(held)] {
                if (const absl::Status* error = FirstError(held)) {
                  sum.SetError(*error);
                  return;
                }
                sum.emplace(Sum(held));
              });
            });
}

void NativeError(const ExecutionContext&, Arguments arguments,
                 Results results) {
  if (!CheckSignature("native_error", arguments, results, 0, 1)) return;
  results[0] =
      MakeErrorAsyncValueRef(absl::InternalError("something bad happened"));
}

// Takes its arguments and does nothing with them; there is no result to
// wait on, so it does not wait either.
void NativeSink(const ExecutionContext&, Arguments arguments, Results results) {
  CheckSignature("native_sink", arguments, results, 2, 0);
}

// The chain resolves from a work-queue task once both arguments are
// available.
void NativeAsyncSink(const ExecutionContext& context, Arguments arguments,
                     Results results) {
  if (!CheckSignature("native_async_sink", arguments, results, 2, 1)) return;
  AsyncValueRef<Chain> done = MakeUnconstructedAsyncValueRef<Chain>();
  results[0] = done.CopyRCRef();
  HostContext* host = context.host();
  WhenReady(
      arguments, [host, done = std::move(done)](HeldArguments& held) mutable {
        host->EnqueueWork([done = std::move(done), held = std::move(held)] {
          if (const absl::Status* error = FirstError(held)) {
            done.SetError(*error);
            return;
          }
          done.emplace();
        });
      });
}

}  // namespace

absl::Status RegisterNativeFunctions(KernelRegistry* registry) {
  const std::pair<const char*, NativeFunction> functions[] = {
      {"native_add", NativeAdd},
      {"native_async_add", NativeAsyncAdd},
      {"native_error", NativeError},
      {"native_sink", NativeSink},
      {"native_async_sink", NativeAsyncSink},
  };
  for (const auto& [name, function] : functions) {
    if (absl::Status status = registry->AddNativeFunction(name, function);
        !status.ok()) {
      return status;
    }
  }
  return absl::OkStatus();
}

}  // namespace test_kernels
}  // namespace sluice
