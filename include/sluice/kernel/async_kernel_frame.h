// AsyncKernelFrame: a kernel's frame that it may keep past its return and
// finish from any thread.
//
// A kernel asks for one with an `AsyncKernelFrame*` parameter. Used in
// place, it is the kernel's own frame at no extra cost. Copying it detaches:
// every result not yet set gets a placeholder (an IndirectAsyncValue the
// caller sees at once), and the copies share the arguments, results and
// context until the last copy goes. Setting a result through a copy
// resolves its placeholder.
#ifndef SLUICE_KERNEL_ASYNC_KERNEL_FRAME_H_
#define SLUICE_KERNEL_ASYNC_KERNEL_FRAME_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/execution_context.h"
#include "sluice/kernel/kernel_frame.h"
#include "sluice/support/ref_count.h"

namespace sluice {

class AsyncKernelFrame {
 public:
  explicit AsyncKernelFrame(KernelFrame* frame) : frame_(frame) {}
  AsyncKernelFrame(const AsyncKernelFrame& other);
  AsyncKernelFrame& operator=(const AsyncKernelFrame& other);
  AsyncKernelFrame(AsyncKernelFrame&& other) noexcept;
  AsyncKernelFrame& operator=(AsyncKernelFrame&& other) noexcept;
  ~AsyncKernelFrame();

  const ExecutionContext& exec_ctx() const;
  HostContext* host() const { return exec_ctx().host(); }

  size_t GetNumArgs() const;
  AsyncValue* GetArgAt(size_t index) const;
  template <typename T>
  T& GetArgValueAt(size_t index) const {
    return GetArgAt(index)->get<T>();
  }

  size_t GetNumResults() const;
  void SetResultAt(size_t index, RCReference<AsyncValue> value);
  template <typename T, typename... Args>
  void EmplaceResultAt(size_t index, Args&&... args) {
    SetResultAt(index,
                MakeAvailableAsyncValueRef<T>(std::forward<Args>(args)...)
                    .ReleaseRCRef());
  }
  // An unavailable result of type `T`, filled later with emplace() or
  // SetError().
  template <typename T>
  AsyncValueRef<T> AllocateResultAt(size_t index) {
    AsyncValueRef<T> value = MakeUnconstructedAsyncValueRef<T>();
    SetResultAt(index, value.CopyRCRef());
    MarkAllocated(index);
    return value;
  }

  // As KernelFrame::ReportError: results not yet set (placeholders
  // included) become the error; set ones stay.
  void ReportError(absl::Status status);

 private:
  struct Shared;

  // Moves the frame into shared storage (once), giving unset results
  // placeholders.
  Shared* Detach() const;
  void MarkAllocated(size_t index);

  // Before the first copy: the kernel's own frame. After: nullptr.
  mutable KernelFrame* frame_;
  mutable Shared* shared_ = nullptr;
};

}  // namespace sluice

#endif  // SLUICE_KERNEL_ASYNC_KERNEL_FRAME_H_
