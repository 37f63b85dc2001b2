// The kernel groups RegisterTestKernels() registers, one per file, and the
// payload types that tests need to see.
#ifndef SLUICE_KERNELS_TEST_TEST_KERNELS_INTERNAL_H_
#define SLUICE_KERNELS_TEST_TEST_KERNELS_INTERNAL_H_

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/support/print.h"

namespace sluice {
namespace test_kernels {

// fail, partial_fail, report_error_*async, cancel.
absl::Status RegisterFailureKernels(KernelRegistry* registry);
// async_*, copy.with_delay.*, usleep, blocking.usleep.
absl::Status RegisterAsyncKernels(KernelRegistry* registry);
// Strings, prints, count3, test_cost, logging, debug info, thread ids, leaks.
absl::Status RegisterValueKernels(KernelRegistry* registry);
// as_chain, identity, multi_arg_result, share_to_two, make_indirect,
// get_uniqueness.
absl::Status RegisterForwardingKernels(KernelRegistry* registry);
// async_value_get, async_value_ref.
absl::Status RegisterAsyncValueKernels(KernelRegistry* registry);
// allocate/deallocate_resource, use_sample_shared_context, atomic.*.
absl::Status RegisterResourceKernels(KernelRegistry* registry);
// do.async, benchmark.
absl::Status RegisterRegionKernels(KernelRegistry* registry);
// vt.*.
absl::Status RegisterVtKernels(KernelRegistry* registry);
// tfrt_tutorial.*.
absl::Status RegisterTutorialKernels(KernelRegistry* registry);
// native_add, native_async_add, native_error, native_sink, native_async_sink.
absl::Status RegisterNativeFunctions(KernelRegistry* registry);
// tfrt_test.flat, tfrt_test.unique_loc.
absl::Status RegisterAttributeKernels(KernelRegistry* registry);

// The payload of `!vt.value`: announces every construction, copy, move and
// destruction, so a program's output shows exactly when the runtime creates,
// copies and frees values. A moved-from object has handed its value on, so
// its destruction is not announced: each announced value is destroyed
// exactly once. Declared here rather than in vt_kernels.cc so that tests can
// copy and move one.
class VtValue {
 public:
  explicit VtValue(int32_t value) : value_(value) {
    PrintLine(absl::StrCat("constructed vt.value(", value_, ")"));
  }
  VtValue(const VtValue& other) : value_(other.value_) {
    PrintLine(absl::StrCat("copy constructed vt.value(", value_, ")"));
  }
  VtValue(VtValue&& other) noexcept : value_(other.value_) {
    other.moved_from_ = true;
    PrintLine(absl::StrCat("move constructed vt.value(", value_, ")"));
  }
  VtValue& operator=(const VtValue&) = delete;
  VtValue& operator=(VtValue&&) = delete;
  ~VtValue() {
    if (!moved_from_) {
      PrintLine(absl::StrCat("destroyed vt.value(", value_, ")"));
    }
  }

  int32_t value() const { return value_; }

 private:
  int32_t value_;
  bool moved_from_ = false;
};

}  // namespace test_kernels
}  // namespace sluice

#endif  // SLUICE_KERNELS_TEST_TEST_KERNELS_INTERNAL_H_
