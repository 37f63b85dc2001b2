// HostContext: what every kernel on one host shares: the work queue, the
// host allocator, the diagnostic handler, a timer, and per-host shared
// objects (the kernel registry among them, see sluice/kernel).
#ifndef SLUICE_HOST_CONTEXT_HOST_CONTEXT_H_
#define SLUICE_HOST_CONTEXT_HOST_CONTEXT_H_

#include <functional>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>

#include "absl/types/span.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/diagnostic.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/host_context/shared_context.h"
#include "sluice/host_context/timer_queue.h"

namespace sluice {

class HostContext {
 public:
  using DiagnosticHandler = std::function<void(const DecodedDiagnostic&)>;

  HostContext(DiagnosticHandler diagnostic_handler,
              std::unique_ptr<HostAllocator> allocator,
              std::unique_ptr<ConcurrentWorkQueue> work_queue);
  // Finishes all queued work, then destroys shared objects (newest first),
  // then finishes the work their destructors queued.
  ~HostContext();
  HostContext(const HostContext&) = delete;
  HostContext& operator=(const HostContext&) = delete;

  HostAllocator* allocator() const { return allocator_.get(); }
  ConcurrentWorkQueue& work_queue() const { return *work_queue_; }

  void EnqueueWork(TaskFunction task) { work_queue_->AddTask(std::move(task)); }
  void EnqueueBlockingWork(TaskFunction task) {
    work_queue_->AddBlockingTask(std::move(task));
  }
  // Blocks until every value is available (see ConcurrentWorkQueue::Await).
  void Await(absl::Span<const RCReference<AsyncValue>> values) {
    work_queue_->Await(values);
  }
  void Await(const RCReference<AsyncValue>& value) {
    work_queue_->Await(absl::MakeConstSpan(&value, 1));
  }
  void Quiesce() { work_queue_->Quiesce(); }

  // Reports a runtime error to the embedder (the runner prints it).
  void EmitError(const DecodedDiagnostic& diagnostic) const {
    diagnostic_handler_(diagnostic);
  }

  TimerQueue& timer_queue() { return timer_queue_; }

  // The host's one instance of `T` (see SharedContextRegistry).
  template <typename T>
  T& GetOrCreateSharedContext() {
    return shared_contexts_.GetOrCreate<T>();
  }

 private:
  DiagnosticHandler diagnostic_handler_;
  std::unique_ptr<HostAllocator> allocator_;
  // Declared before the work queue, and the timer so that its callbacks
  // stop first. The destructor clears the shared objects explicitly.
  SharedContextRegistry shared_contexts_;
  std::unique_ptr<ConcurrentWorkQueue> work_queue_;
  TimerQueue timer_queue_;
};

// Runs `work` on the host's work queue; the returned value resolves to its
// result. `work` returns a T, or an absl::StatusOr<T> whose error becomes the
// value's error.
template <typename F>
auto EnqueueWork(HostContext* host, F&& work) {
  using R = std::invoke_result_t<F>;
  using T = typename internal::UnwrapStatusOr<R>::type;
  AsyncValueRef<T> result = MakeUnconstructedAsyncValueRef<T>();
  host->EnqueueWork(
      [result = result.CopyRef(), work = std::forward<F>(work)]() mutable {
        internal::UnwrapStatusOr<R>::Fill(result, work());
      });
  return result;
}

}  // namespace sluice

#endif  // SLUICE_HOST_CONTEXT_HOST_CONTEXT_H_
