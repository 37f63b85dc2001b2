// KernelFrame: a kernel's view of one invocation: its arguments, attributes
// and result slots, and the context it runs in. The executor owns the
// storage; the frame only points at it.
#ifndef SLUICE_KERNEL_KERNEL_FRAME_H_
#define SLUICE_KERNEL_KERNEL_FRAME_H_

#include <cassert>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/base/attributes.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/diagnostic.h"
#include "sluice/host_context/execution_context.h"
#include "sluice/kernel/function.h"

namespace sluice {

// Where a kernel sits in the program, for error messages and diagnostics.
struct KernelDebugInfo {
  std::string_view name;  // "tfrt.add.i32"
  std::optional<KernelLocation> location;
  // The op's debug name from its location (a NameLoc's name, a fused
  // location's names joined), if it has one.
  std::optional<std::string_view> debug_name;
  // Identifies the program's location record the op points at: two ops
  // with equal records share one (null when unknown).
  const void* location_record = nullptr;
};

// Builds a kernel's debug info when it is first asked for. The executor keeps
// only indices into the program per kernel: most kernels never report an
// error, and built entries would cost more than the program's bytes.
class KernelDebugInfoSource {
 public:
  // The entry of kernel `kernel`; it stays at its address for as long as the
  // source lives, so callers may keep the reference.
  virtual const KernelDebugInfo& Get(uint32_t kernel) const = 0;

 protected:
  ~KernelDebugInfoSource() = default;
};

namespace internal {

// Which results a kernel allocated (bit i for result i). Results from the
// 64th on count as allocated whenever they are unavailable.
using AllocatedResults = uint64_t;

inline bool IsAllocated(AllocatedResults allocated, size_t index) {
  return index >= 64 || ((allocated >> index) & 1) != 0;
}
inline void MarkAllocated(AllocatedResults& allocated, size_t index,
                          bool value) {
  if (index >= 64) return;
  const AllocatedResults bit = AllocatedResults{1} << index;
  allocated = value ? (allocated | bit) : (allocated & ~bit);
}

// How the executor tells a kernel whether it is the last reader of an
// operand: `call` and `kernel` are what it passed to
// KernelFrame::SetLastReaderQuery.
using LastReaderQuery = bool (*)(const void* call, const void* kernel,
                                 size_t operand);

// Emits one diagnostic for `status` on the host, then sets each result slot
// that is empty, or that the kernel allocated and is still unavailable, to
// the error. Shared by KernelFrame and AsyncKernelFrame.
void ReportErrorOnResults(absl::Span<RCReference<AsyncValue>> results,
                          AllocatedResults allocated, absl::Status status,
                          const ExecutionContext& context,
                          const KernelDebugInfo& debug_info);

}  // namespace internal

class KernelFrame {
 public:
  // A frame for a kernel whose debug info is built already (frames built by
  // hand and by tests).
  KernelFrame(const ExecutionContext* context,
              const KernelDebugInfo* debug_info)
      : context_(context), debug_info_(debug_info) {}
  // A frame for kernel `kernel` of `debug_infos`, which builds its debug info
  // only if debug_info() is called (the executor's frames).
  KernelFrame(const ExecutionContext* context,
              const KernelDebugInfoSource* debug_infos, uint32_t kernel)
      : context_(context), debug_infos_(debug_infos), kernel_(kernel) {}
  KernelFrame(const KernelFrame&) = delete;
  KernelFrame& operator=(const KernelFrame&) = delete;

  // Points the frame at the invocation's storage (the executor does this
  // before each call of the kernel).
  void Reset(absl::Span<AsyncValue* const> arguments,
             absl::Span<const void* const> attributes,
             absl::Span<RCReference<AsyncValue>> results,
             absl::Span<const Function* const> functions = {}) {
    arguments_ = arguments;
    attributes_ = attributes;
    results_ = results;
    functions_ = functions;
    allocated_ = 0;
  }

  // --- Context -------------------------------------------------------------
  const ExecutionContext& exec_ctx() const { return *context_; }
  HostContext* host() const { return context_->host(); }
  const KernelDebugInfo& debug_info() const {
    return debug_info_ != nullptr ? *debug_info_ : debug_infos_->Get(kernel_);
  }

  // --- Arguments -----------------------------------------------------------
  size_t GetNumArgs() const { return arguments_.size(); }
  AsyncValue* GetArgAt(size_t index) const {
    assert(index < arguments_.size() && "argument index out of range");
    return arguments_[index];
  }
  absl::Span<AsyncValue* const> GetArguments() const { return arguments_; }

  // Whether no one but this kernel can observe argument `index`'s value, so
  // that the kernel may reuse its payload in place: the value has a single
  // reference (through indirection too), and this kernel is its last
  // reader. A value a later kernel of the call still reads (a constant read
  // again, say), a returned value, one of the call's arguments (the caller
  // holds it), or one this kernel takes twice is not unique, whatever its
  // reference count. Ask only while the kernel runs, before it returns.
  bool IsArgUnique(size_t index) const {
    assert(index < arguments_.size() && "argument index out of range");
    if (!arguments_[index]->IsUnique()) return false;
    // A frame built by hand: its builder holds the arguments, and knows
    // nothing of later readers.
    if (last_reader_ == nullptr) return true;
    return last_reader_(last_reader_call_, last_reader_kernel_, index);
  }
  // The executor's answer for IsArgUnique (see internal::LastReaderQuery).
  void SetLastReaderQuery(internal::LastReaderQuery query, const void* call,
                          const void* kernel) {
    last_reader_ = query;
    last_reader_call_ = call;
    last_reader_kernel_ = kernel;
  }

  // --- Attributes ----------------------------------------------------------
  size_t GetNumAttributes() const { return attributes_.size(); }
  const void* GetAttributeAt(size_t index) const {
    assert(index < attributes_.size() && "attribute index out of range");
    return attributes_[index];
  }

  // The program's attribute section, which array attributes' elements refer
  // into (see AggregateAttribute); empty for frames built by hand.
  absl::Span<const uint8_t> attribute_section() const {
    return attribute_section_;
  }
  void SetAttributeSection(absl::Span<const uint8_t> section) {
    attribute_section_ = section;
  }

  // --- Functions (regions and symbol references, in that order) ------------
  size_t GetNumFunctions() const { return functions_.size(); }
  const Function* GetFunctionAt(size_t index) const {
    assert(index < functions_.size() && "function index out of range");
    return functions_[index];
  }

  // --- Results -------------------------------------------------------------
  size_t GetNumResults() const { return results_.size(); }
  absl::Span<RCReference<AsyncValue>> GetResults() const { return results_; }
  const RCReference<AsyncValue>& GetResultAt(size_t index) const {
    assert(index < results_.size() && "result index out of range");
    return results_[index];
  }

  void SetResultAt(size_t index, RCReference<AsyncValue> value) {
    assert(index < results_.size() && "result index out of range");
    assert(!results_[index] && "result is already set");
    results_[index] = std::move(value);
  }

  template <typename T, typename... Args>
  ABSL_ATTRIBUTE_ALWAYS_INLINE void EmplaceResultAt(size_t index,
                                                    Args&&... args) {
    SetResultAt(index,
                MakeAvailableAsyncValueRef<T>(std::forward<Args>(args)...)
                    .ReleaseRCRef());
  }

  // An unavailable result of type `T` that the kernel fills later (from any
  // thread) with emplace() or SetError().
  template <typename T>
  AsyncValueRef<T> AllocateResultAt(size_t index) {
    AsyncValueRef<T> value = MakeUnconstructedAsyncValueRef<T>();
    SetResultAt(index, value.CopyRCRef());
    internal::MarkAllocated(allocated_, index, true);
    return value;
  }

  // An unavailable result whose type is not known yet: ForwardTo() it later.
  RCReference<IndirectAsyncValue> AllocateIndirectResultAt(size_t index) {
    RCReference<IndirectAsyncValue> value = MakeIndirectAsyncValue();
    SetResultAt(index, value.CopyRef());
    internal::MarkAllocated(allocated_, index, true);
    return value;
  }

  void MarkResultAllocated(size_t index) {
    internal::MarkAllocated(allocated_, index, true);
  }
  // Which results the kernel allocated (see ReportError()).
  internal::AllocatedResults allocated_results() const { return allocated_; }

  // Reports that the kernel failed: every result not yet set, or allocated
  // (AllocateResultAt) and still unavailable, becomes this error; results
  // already set stay as they are (a partial failure), including results set
  // to a pending value that another producer resolves. The error names this
  // kernel and its location, and is emitted once as a diagnostic. Reporting an
  // error when every result is already set is a programming error (debug builds
  // abort).
  void ReportError(absl::Status status) {
    internal::ReportErrorOnResults(results_, allocated_, std::move(status),
                                   *context_, debug_info());
  }

 private:
  const ExecutionContext* context_;
  // Either the built entry, or where to build kernel_'s.
  const KernelDebugInfo* debug_info_ = nullptr;
  const KernelDebugInfoSource* debug_infos_ = nullptr;
  uint32_t kernel_ = 0;
  absl::Span<AsyncValue* const> arguments_;
  absl::Span<const void* const> attributes_;
  absl::Span<RCReference<AsyncValue>> results_;
  absl::Span<const Function* const> functions_;
  absl::Span<const uint8_t> attribute_section_;
  internal::AllocatedResults allocated_ = 0;
  internal::LastReaderQuery last_reader_ = nullptr;
  const void* last_reader_call_ = nullptr;
  const void* last_reader_kernel_ = nullptr;
};

}  // namespace sluice

#endif  // SLUICE_KERNEL_KERNEL_FRAME_H_
