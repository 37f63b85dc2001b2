// Kernels that pass values through without looking at their payloads
// (TFRT's tfrt_test ops): they make the executor's
// handling of values (sharing, indirection, reference counts) observable.
// They work for any payload type, so they take their operands untyped.
#include <cstddef>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "kernels/test/test_kernels_internal.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernel/kernel_frame.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/support/ref_count.h"

namespace sluice {
namespace test_kernels {
namespace {

// The compiler checks operand and result counts; a hand-built frame can
// still get them wrong, and an error value is kinder than a crash. Reports
// the mismatch and returns false.
bool CountsMatch(KernelFrame& frame, size_t num_operands, size_t num_results) {
  if (num_operands == num_results) return true;
  const std::string_view name = frame.debug_info().name;
  frame.ReportError(absl::InvalidArgumentError(absl::StrCat(
      absl::string_view(name.data(), name.size()), " forwards ", num_operands,
      " operand(s) to ", num_results, " result(s)")));
  return false;
}

// Strict, so every operand is available; their payloads do not matter.
Chain AsChain(RemainingArguments) { return Chain(); }

// Result i is operand i, for every operand.
void Forward(RemainingArguments operands, RemainingResults results,
             KernelFrame* frame) {
  if (!CountsMatch(*frame, operands.size(), results.size())) return;
  for (size_t i = 0; i < operands.size(); ++i) {
    results.SetAt(i, FormRef(operands[i]));
  }
}

// Operand 0 is a chain that only orders the kernel; it is never read, so its
// payload type is not checked.
void Identity(Argument<Chain>, RemainingArguments operands,
              RemainingResults results, KernelFrame* frame) {
  Forward(operands, results, frame);
}

// Both results are the operand's own value: two more references, no copy.
void ShareToTwo(RemainingArguments operands, RemainingResults results,
                KernelFrame* frame) {
  if (operands.size() != 1 || results.size() != 2) {
    frame->ReportError(absl::InvalidArgumentError(absl::StrCat(
        "tfrt_test.share_to_two takes 1 operand and has 2 results, got ",
        operands.size(), " and ", results.size())));
    return;
  }
  results.SetAt(0, FormRef(operands[0]));
  results.SetAt(1, FormRef(operands[0]));
}

// Each result is a new IndirectAsyncValue forwarded to the operand, so later
// kernels read the payload through one level of indirection.
void MakeIndirect(RemainingArguments operands, RemainingResults results,
                  KernelFrame* frame) {
  if (!CountsMatch(*frame, operands.size(), results.size())) return;
  for (size_t i = 0; i < operands.size(); ++i) {
    results.AllocateIndirectAt(i)->ForwardTo(FormRef(operands[i]));
  }
}

// Whether no one but this kernel could observe each operand's value: what a
// kernel that reuses a payload in place relies on. One reference is not
// enough: the call's register may still hold the value for a later reader
// (see KernelFrame::IsArgUnique).
void GetUniqueness(RemainingArguments operands, RemainingResults results,
                   KernelFrame* frame) {
  if (!CountsMatch(*frame, operands.size(), results.size())) return;
  const size_t first = frame->GetNumArgs() - operands.size();
  for (size_t i = 0; i < operands.size(); ++i) {
    results.EmplaceAt<bool>(i, frame->IsArgUnique(first + i));
  }
}

}  // namespace

absl::Status RegisterForwardingKernels(KernelRegistry* registry) {
  return registry->AddKernels({
      {"tfrt_test.as_chain", SLUICE_KERNEL(AsChain)},
      {"tfrt_test.identity", SLUICE_KERNEL(Identity)},
      {"tfrt_test.multi_arg_result", SLUICE_KERNEL(Forward)},
      {"tfrt_test.share_to_two", SLUICE_KERNEL(ShareToTwo)},
      {"tfrt_test.make_indirect", SLUICE_KERNEL(MakeIndirect)},
      {"tfrt_test.get_uniqueness", SLUICE_KERNEL(GetUniqueness)},
  });
}

}  // namespace test_kernels
}  // namespace sluice
