#include "my_kernels.h"

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "sluice/kernel/kernel_binding.h"

namespace my {
namespace {

using sluice::Attribute;

// [START my_kernels]
// The n-th Fibonacci number; n past 92 does not fit an i64.
absl::StatusOr<int64_t> Fib(int64_t n) {
  if (n < 0 || n > 92) {
    return absl::InvalidArgumentError(
        absl::StrCat("fib of ", n, ": n must be in [0, 92]"));
  }
  int64_t current = 0;
  int64_t next = 1;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t sum = current + next;
    current = next;
    next = sum;
  }
  return current;
}

int32_t Clamp(int32_t x, Attribute<int32_t> low, Attribute<int32_t> high) {
  return x < *low ? *low : (x > *high ? *high : x);
}

}  // namespace

absl::Status RegisterMyKernels(sluice::KernelRegistry* registry) {
  return registry->AddKernels({
      {"my.fib.i64", SLUICE_KERNEL(Fib)},
      {"my.clamp.i32",
       SLUICE_KERNEL(Clamp).WithAttributeNames({"low", "high"})},
  });
}
// [END my_kernels]

}  // namespace my
