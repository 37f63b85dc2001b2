// Function: something a kernel can call: a function of a loaded program, a
// region body, or a native C++ function. Control-flow kernels (tfrt.call,
// tfrt.if, tfrt.while, ...) receive the functions they run through their
// frame (KernelFrame::GetFunctionAt).
#ifndef SLUICE_KERNEL_FUNCTION_H_
#define SLUICE_KERNEL_FUNCTION_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/execution_context.h"
#include "sluice/support/ref_count.h"

namespace sluice {

class Function {
 public:
  Function(std::string name, size_t num_arguments, size_t num_results)
      : name_(std::move(name)),
        num_arguments_(num_arguments),
        num_results_(num_results) {}
  virtual ~Function() = default;
  Function(const Function&) = delete;
  Function& operator=(const Function&) = delete;

  const std::string& name() const { return name_; }
  size_t num_arguments() const { return num_arguments_; }
  size_t num_results() const { return num_results_; }

  // The encoded program (SBF) this function belongs to, so that it can be
  // sent to another process (tfrt_dist.register_function). Empty for a
  // function that no loaded program holds.
  absl::Span<const uint8_t> program_bytes() const { return program_bytes_; }
  void set_program_bytes(absl::Span<const uint8_t> bytes) {
    program_bytes_ = bytes;
  }

  // Starts a call. Arguments may still be unavailable or errors: the
  // function's own kernels wait for what they need. Sets every slot of
  // `results` (size num_results()) before returning, to values that may
  // resolve later.
  virtual void Execute(const ExecutionContext& context,
                       absl::Span<AsyncValue* const> arguments,
                       absl::Span<RCReference<AsyncValue>> results) const = 0;

 private:
  std::string name_;
  size_t num_arguments_;
  size_t num_results_;
  absl::Span<const uint8_t> program_bytes_;
};

}  // namespace sluice

#endif  // SLUICE_KERNEL_FUNCTION_H_
