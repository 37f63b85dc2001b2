// ExecutableFunction: a function of a loaded program, and how a call of it
// runs. Private to lib/executor.
#ifndef SLUICE_LIB_EXECUTOR_EXECUTABLE_FUNCTION_H_
#define SLUICE_LIB_EXECUTOR_EXECUTABLE_FUNCTION_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/types/span.h"
#include "lib/executor/kernel_debug_infos.h"
#include "lib/executor/split_plan.h"
#include "sluice/kernel/function.h"
#include "sluice/kernel/kernel_frame.h"
#include "sluice/kernel/kernel_registry.h"

namespace sluice {
namespace executor_internal {

// What a kernel uses besides registers: most kernels have neither, and
// share entry 0 of ExecutableFunction::extras.
struct KernelExtras {
  absl::Span<const void* const> attributes;
  absl::Span<const Function* const> functions;
};

// One user of a value: the kernel to count an input of, and where its
// record starts, so that a ready kernel is queued without a lookup.
struct UserRef {
  // Bits 0-29: the kernel's index; kStrictUser, kSingleInputUser.
  uint32_t kernel_and_flags;
  uint32_t record;  // offset in ExecutableFunction::code
};
// A strict kernel counts a value once it is available; others (calls,
// control flow) as soon as it is stored.
inline constexpr uint32_t kStrictUser = 1u << 31;
// The kernel waits for this one input only: no count to touch.
inline constexpr uint32_t kSingleInputUser = 1u << 30;
inline constexpr uint32_t kUserKernelMask = kSingleInputUser - 1;

// A result register the function returns (its kernel hands it to the
// caller, possibly after Execute() returned).
inline constexpr uint32_t kReturnedRegister = 1u << 31;
// A register that holds its value's payload in place of an AsyncValue
// (see Register): every reader is a direct kernel of the producer's type.
inline constexpr uint32_t kInlineRegister = 1u << 30;
inline constexpr uint32_t kRegisterMask = kInlineRegister - 1;
// Direct kernels with more operands run through their frame.
inline constexpr uint32_t kMaxDirectOperands = 16;
// Calls and branches with more operands or results run through their frame.
inline constexpr uint32_t kMaxControlValues = 16;
// Kernel indices take 29 bits of a record.
inline constexpr uint32_t kMaxKernels = (1u << 29) - 1;

// The control-flow kernels the executor runs itself, without a KernelFrame,
// when their functions were checked at load time: the call of a function
// is the executor's own business, and a KernelFrame per call is most of a
// small call's cost. Their registered kernels (kernels/basic) still run
// whatever this path leaves (a pending or invalid condition, a cancelled
// or observed call) and define the behavior this path matches.
enum class ControlKind : uint32_t {
  kNone = 0,
  kCall = 1,  // tfrt.call: function 0 with the leading operands
  kIf = 2,    // tfrt.if, tfrt.cond: function 0 or 1 by operand 0, an i1
  // As kIf, and a call running in order runs the chosen function's kernels
  // in its own frame (see ExecutableFunction::frame_registers): a small
  // region's frame of its own costs more than its kernels.
  kInlineIf = 3,
};

// A kernel as the executor runs it: everything resolved at load time, in
// one record of the function's `code` that its lists follow. Kernels run in
// dataflow order, which in wide programs (a wavefront) is far from program
// order: each separate table read per kernel would be another cache miss.
//
// After the header, in 32-bit words:
//   operands[num_operands]          registers
//   results[num_results]            registers, kReturnedRegister if
//                                   returned, kInlineRegister if in place
//   drops[num_drops]                operand registers only this kernel reads
//   countdowns[2 * num_countdowns]  (register, slot) of operands others read
//                                   too: the last reader to count its slot
//                                   down drops the value
//   per result: a user count, then that many UserRefs
// and padding to 8 bytes.
struct KernelRecord {
  KernelImplementation implementation;
  // Null unless the kernel has a frameless entry.
  const DirectKernel* direct;
  uint32_t kernel : 29;  // index in the function
  uint32_t strict : 1;
  uint32_t control : 2;  // a ControlKind
  uint32_t num_operands;
  uint32_t num_results;
  uint32_t num_drops;
  uint32_t num_countdowns;
  uint32_t extras;  // index in ExecutableFunction::extras

  const uint32_t* operands() const {
    return reinterpret_cast<const uint32_t*>(this + 1);
  }
  const uint32_t* results() const { return operands() + num_operands; }
  const uint32_t* drops() const { return results() + num_results; }
  const uint32_t* countdowns() const { return drops() + num_drops; }
  const uint32_t* users() const { return countdowns() + 2 * num_countdowns; }
  uint32_t result_register(uint32_t i) const {
    return results()[i] & kRegisterMask;
  }
};
static_assert(sizeof(KernelRecord) % 8 == 0, "records stay 8-aligned");

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
  // What a call's frame holds: the function's registers and counts, then an
  // area where the regions of its kInlineIf kernels run, one at a time, as
  // if their frames were there (see PlanInlineRegions).
  uint32_t frame_registers = 0;
  uint32_t frame_counts = 0;
  std::vector<uint32_t> argument_registers;
  std::vector<uint32_t> result_registers;
  // Whether a call that ends with its frame to itself may move its results
  // out of their registers: no register is returned twice or is an
  // argument's.
  bool results_move = false;
  // The registers that may still hold a value once every kernel ran:
  // arguments aside, those no kernel drops (returned and unread results,
  // values kept in place that hold an error).
  std::vector<uint32_t> end_registers;
  // In a body without kernels, which argument each result is.
  std::vector<uint32_t> returned_arguments;
  // Users of each argument: argument i's users are
  // argument_users[argument_user_offsets[i] .. argument_user_offsets[i + 1]).
  std::vector<uint32_t> argument_user_offsets;
  std::vector<UserRef> argument_users;
  // Every kernel's record, 8-aligned (see KernelRecord).
  std::vector<uint64_t> code;
  // Where each kernel's record starts in `code`, in 32-bit words: for the
  // tools that look kernels up by index (tracing, hang explaining).
  std::vector<uint32_t> record_offsets;
  std::vector<KernelExtras> extras;
  // What a call's counts start at: per kernel, how many inputs it waits
  // for; then per slot (see KernelRecord), how many kernels read the slot's
  // register (those read by more than one kernel and not kept to the end).
  std::vector<int32_t> initial_counts;
  // Per kernel, built when an error, a trace or a hang report asks.
  KernelDebugInfos debug_infos;
  // Records of the kernels with no operands: ready as soon as a call starts.
  std::vector<uint32_t> initially_ready;
  // Every kernel's record in run order: the order the dataflow worklist
  // runs them in when each completes as it runs. A kernel's operands all
  // come from kernels before it, and kernels ready at once keep program
  // order, so running them one after another in this order is running
  // them as dataflow, minus the counting.
  std::vector<uint32_t> run_order;
  // Per register, one past the run position of the kernel that makes it;
  // 0 for arguments.
  std::vector<uint32_t> produced_at;
  // Null unless a call may run on two threads (see SplitPlan).
  std::unique_ptr<const SplitPlan> split;
  // The program's attribute section (for AggregateAttribute).
  absl::Span<const uint8_t> attribute_section;

  ~ExecutableFunction() override;

  // A large call frame's memory, kept from one call for the next: fresh
  // memory of that size comes from the system each time, and faulting its
  // pages in costs as much as running a wide call on two threads saves.
  // Null when none is kept (or another call holds it).
  void* TakeSpareFrame() const {
    return spare_frame_.exchange(nullptr, std::memory_order_acquire);
  }
  // Keeps `memory` for the next call; false if one is kept already.
  bool KeepSpareFrame(void* memory) const {
    void* none = nullptr;
    return spare_frame_.compare_exchange_strong(none, memory,
                                                std::memory_order_release);
  }

  size_t num_kernels() const { return record_offsets.size(); }
  const KernelRecord& record_at(uint32_t offset) const {
    return *reinterpret_cast<const KernelRecord*>(
        reinterpret_cast<const uint32_t*>(code.data()) + offset);
  }
  const KernelRecord& record(uint32_t kernel) const {
    return record_at(record_offsets[kernel]);
  }

 private:
  // Every result is the error for a call nested past kMaxCallDepth.
  ABSL_ATTRIBUTE_NOINLINE void FailNestedTooDeep(
      absl::Span<RCReference<AsyncValue>> results) const;

  mutable std::atomic<void*> spare_frame_{nullptr};
};

}  // namespace executor_internal
}  // namespace sluice

#endif  // SLUICE_LIB_EXECUTOR_EXECUTABLE_FUNCTION_H_
