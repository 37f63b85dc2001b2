// ExecutableFunction: a function of a loaded program, and how a call of it
// runs. Private to lib/executor.
#ifndef SLUICE_LIB_EXECUTOR_EXECUTABLE_FUNCTION_H_
#define SLUICE_LIB_EXECUTOR_EXECUTABLE_FUNCTION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "lib/executor/kernel_debug_infos.h"
#include "sluice/kernel/function.h"
#include "sluice/kernel/kernel_frame.h"
#include "sluice/kernel/kernel_registry.h"

namespace sluice {
namespace executor_internal {

// A kernel as the executor runs it: everything resolved at load time. The
// index lists live in the function's `indices` array.
struct LoadedKernel {
  KernelImplementation implementation = nullptr;
  bool strict = true;
  uint32_t num_operands = 0;
  uint32_t num_results = 0;
  uint32_t operands = 0;      // offset of the operand registers
  uint32_t results = 0;       // offset of the result registers
  uint32_t user_offsets = 0;  // offset of num_results + 1 offsets into users
  // Operand registers this kernel is the only user of (and that are not
  // returned): dropped once it ran, so a long chain keeps few values alive.
  uint32_t drops = 0;
  uint32_t num_drops = 0;
  absl::Span<const void* const> attributes;
  absl::Span<const Function* const> functions;
};

// What a value's users need to know to count an input: the operand count,
// and bit 31 set for strict kernels. Kept apart from LoadedKernel so that
// notifying users touches 4 bytes per user, not a whole kernel.
inline constexpr uint32_t kStrictBit = 0x80000000u;

// How deep calls that run synchronously may nest on one thread before a call
// fails instead of running: each level takes native stack, and a program
// that recurses without end must get an error value, not a stack overflow.
// Worker threads have 8 MiB of stack; a level takes under 2 KiB (more
// under sanitizers).
inline constexpr int kMaxCallDepth = 1000;

class ExecutableFunction final : public Function {
 public:
  ExecutableFunction(std::string name, size_t num_arguments, size_t num_results)
      : Function(std::move(name), num_arguments, num_results) {}

  void Execute(const ExecutionContext& context,
               absl::Span<AsyncValue* const> arguments,
               absl::Span<RCReference<AsyncValue>> results) const override;

  // The body, filled by the loader.
  uint32_t num_registers = 0;
  std::vector<uint32_t> argument_registers;
  std::vector<uint32_t> result_registers;
  // Users of each argument: argument i's users are
  // users[argument_user_offsets[i] .. argument_user_offsets[i + 1]).
  std::vector<uint32_t> argument_user_offsets;
  std::vector<LoadedKernel> kernels;
  std::vector<uint32_t> kernel_inputs;  // per kernel, see kStrictBit
  // Per kernel, built when an error, a trace or a hang report asks.
  KernelDebugInfos debug_infos;
  // Kernels with no operands: ready as soon as a call starts.
  std::vector<uint32_t> initially_ready;
  // 1 for registers that are returned (their kernels hand them to the
  // caller, possibly after Execute() returned).
  std::vector<uint8_t> register_is_result;
  // The program's attribute section (for AggregateAttribute).
  absl::Span<const uint8_t> attribute_section;
  // Every index list of the kernels and of the argument users.
  std::vector<uint32_t> indices;
  std::vector<uint32_t> argument_users;
};

}  // namespace executor_internal
}  // namespace sluice

#endif  // SLUICE_LIB_EXECUTOR_EXECUTABLE_FUNCTION_H_
