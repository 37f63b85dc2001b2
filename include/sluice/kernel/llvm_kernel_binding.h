// Kernels that return llvm::Error or llvm::Expected<X>: include this header
// instead of (or after) sluice/kernel/kernel_binding.h, and depend on
// //lib/kernel:llvm_kernel_binding. They bind as absl::Status and
// absl::StatusOr<X> do; build the error from a status with MakeLlvmError
// (sluice/support/llvm_error.h) to keep its code.
//
//   llvm::Expected<double> SqrtF64(double x);
//   registry->AddKernel("tfrt.sqrt.f64", SLUICE_KERNEL(SqrtF64));
//
// Without this header such a kernel does not compile: kernel_binding.h
// refuses LLVM's error types rather than bind one as a plain result.
#ifndef SLUICE_KERNEL_LLVM_KERNEL_BINDING_H_
#define SLUICE_KERNEL_LLVM_KERNEL_BINDING_H_

#include <cstddef>
#include <type_traits>
#include <utility>

#include "llvm/Support/Error.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernel/kernel_frame.h"
#include "sluice/support/llvm_error.h"

namespace sluice::internal {

template <>
struct ReturnCount<llvm::Error> : std::integral_constant<size_t, 0> {};
template <typename T>
struct ReturnCount<llvm::Expected<T>> : ReturnCount<T> {};

template <>
struct ReturnHandler<llvm::Error> {
  static void Handle(KernelFrame* frame, size_t, llvm::Error&& error) {
    if (error) frame->ReportError(StatusFromLlvmError(std::move(error)));
  }
};

template <typename T>
struct ReturnHandler<llvm::Expected<T>> {
  static void Handle(KernelFrame* frame, size_t index,
                     llvm::Expected<T>&& value) {
    if (value) {
      ReturnHandler<T>::Handle(frame, index, std::move(*value));
    } else {
      frame->ReportError(StatusFromLlvmError(value.takeError()));
    }
  }
};

}  // namespace sluice::internal

#endif  // SLUICE_KERNEL_LLVM_KERNEL_BINDING_H_
