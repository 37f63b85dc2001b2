// FrameWatch: what a call of an observed request (RequestContext::
// observers()) reports about itself: a span per kernel and one for the
// call's synchronous part to the Tracer, and, for the hang explainer, which
// kernels have run and every value the call produced, in a form other
// threads may read while the call runs. Private to lib/executor; the
// executor creates one per call only for observed requests, so unobserved
// calls pay one pointer test per kernel.
#ifndef SLUICE_LIB_EXECUTOR_FRAME_WATCH_H_
#define SLUICE_LIB_EXECUTOR_FRAME_WATCH_H_

#include <atomic>
#include <cstdint>
#include <memory>

#include "absl/types/span.h"
#include "lib/executor/executable_function.h"
#include "sluice/host_context/execution_context.h"
#include "sluice/host_context/trace_activity.h"

namespace sluice {
namespace executor_internal {

class FrameWatch final : public ActivityRegistry::Frame {
 public:
  // Null when `context`'s request is not observed.
  static std::unique_ptr<FrameWatch> Create(const ExecutableFunction& function,
                                            const ExecutionContext& context);
  ~FrameWatch() override;

  // The call started with `arguments` / its synchronous part returned.
  void Started(absl::Span<AsyncValue* const> arguments);
  void Returned();

  // Runs kernel `index` on `frame`, which sets `results`, reporting it.
  void RunKernel(uint32_t index, KernelFrame* frame,
                 const RCReference<AsyncValue>* results);
  // Kernel `index` was skipped (cancelled, or an error input) and its
  // `results` set to that error.
  void Skipped(uint32_t index, const RCReference<AsyncValue>* results);

  // --- For the hang explainer, with the registry locked -------------------
  const ExecutableFunction& function() const { return *function_; }
  const RequestContext* request() const { return request_; }
  int64_t created_ns() const { return created_ns_; }
  // 0: not started; > 0: running since then (ns since the epoch); < 0:
  // finished, started at minus that.
  int64_t kernel_state(uint32_t kernel) const {
    return kernel_states_[kernel].load(std::memory_order_acquire);
  }
  // The value in `reg`, kept alive by this watch; null while unset.
  AsyncValue* value(uint32_t reg) const {
    return values_[reg].load(std::memory_order_acquire);
  }

 private:
  FrameWatch(const ExecutableFunction& function,
             const ExecutionContext& context,
             const RequestObservers& observers);

  void Keep(uint32_t reg, AsyncValue* value);
  // Kernel `index` started / set its results.
  void MarkStarted(uint32_t index);
  void MarkFinished(uint32_t index, const RCReference<AsyncValue>* results);

  const ExecutableFunction* const function_;
  const RequestContext* const request_;
  Tracer* const tracer_;
  ActivityRegistry* const activity_;
  const int64_t created_ns_;
  int64_t call_start_ns_ = 0;
  // Only when activity_ is set.
  std::unique_ptr<std::atomic<AsyncValue*>[]> values_;
  std::unique_ptr<std::atomic<int64_t>[]> kernel_states_;
};

}  // namespace executor_internal
}  // namespace sluice

#endif  // SLUICE_LIB_EXECUTOR_FRAME_WATCH_H_
