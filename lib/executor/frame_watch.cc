#include "lib/executor/frame_watch.h"

#include <string>

#include "absl/time/clock.h"
#include "sluice/host_context/request_context.h"
#include "sluice/host_context/tracer.h"

namespace sluice {
namespace executor_internal {

std::unique_ptr<FrameWatch> FrameWatch::Create(
    const ExecutableFunction& function, const ExecutionContext& context) {
  const RequestObservers* observers = context.request_context()->observers();
  if (observers == nullptr ||
      (observers->tracer == nullptr && observers->activity == nullptr)) {
    return nullptr;
  }
  return std::unique_ptr<FrameWatch>(
      new FrameWatch(function, context, *observers));
}

FrameWatch::FrameWatch(const ExecutableFunction& function,
                       const ExecutionContext& context,
                       const RequestObservers& observers)
    : function_(&function),
      request_(context.request_context()),
      tracer_(observers.tracer),
      activity_(observers.activity),
      created_ns_(absl::GetCurrentTimeNanos()) {
  if (activity_ == nullptr) return;
  values_.reset(new std::atomic<AsyncValue*>[function.num_registers]);
  for (uint32_t i = 0; i < function.num_registers; ++i) {
    values_[i].store(nullptr, std::memory_order_relaxed);
  }
  kernel_states_.reset(new std::atomic<int64_t>[function.num_kernels()]);
  for (size_t i = 0; i < function.num_kernels(); ++i) {
    kernel_states_[i].store(0, std::memory_order_relaxed);
  }
  activity_->AddFrame(this);
}

FrameWatch::~FrameWatch() {
  if (activity_ == nullptr) return;
  activity_->RemoveFrame(this);
  for (uint32_t i = 0; i < function_->num_registers; ++i) {
    if (AsyncValue* value = values_[i].load(std::memory_order_relaxed)) {
      value->DropRef();
    }
  }
}

void FrameWatch::Keep(uint32_t reg, AsyncValue* value) {
  if (value == nullptr) return;
  value->AddRef();
  AsyncValue* previous =
      values_[reg].exchange(value, std::memory_order_acq_rel);
  if (previous != nullptr) previous->DropRef();
}

void FrameWatch::Started(absl::Span<AsyncValue* const> arguments) {
  if (tracer_ != nullptr) call_start_ns_ = TraceNowNanos();
  if (activity_ == nullptr) return;
  for (size_t i = 0; i < arguments.size(); ++i) {
    Keep(function_->argument_registers[i], arguments[i]);
  }
}

void FrameWatch::Returned() {
  if (tracer_ == nullptr) return;
  tracer_->AddSpan(function_->name(), "function", call_start_ns_,
                   TraceNowNanos());
}

void FrameWatch::MarkStarted(uint32_t index) {
  if (activity_ == nullptr) return;
  kernel_states_[index].store(absl::GetCurrentTimeNanos(),
                              std::memory_order_release);
}

void FrameWatch::MarkFinished(uint32_t index,
                              const RCReference<AsyncValue>* results) {
  if (activity_ == nullptr) return;
  const KernelRecord& kernel = function_->record(index);
  for (uint32_t i = 0; i < kernel.num_results; ++i) {
    Keep(kernel.result_register(i), results[i].get());
  }
  std::atomic<int64_t>& state = kernel_states_[index];
  const int64_t started = state.load(std::memory_order_relaxed);
  state.store(started > 0 ? -started : -absl::GetCurrentTimeNanos(),
              std::memory_order_release);
}

void FrameWatch::RunKernel(uint32_t index, KernelFrame* frame,
                           const RCReference<AsyncValue>* results) {
  const KernelDebugInfo& info = function_->debug_infos.Get(index);
  const RunningKernel running{this, index, info.name,
                              info.location ? &*info.location : nullptr};
  const int64_t start_ns = tracer_ != nullptr ? TraceNowNanos() : 0;
  MarkStarted(index);
  const RunningKernel* previous = SetRunningKernel(&running);
  function_->record(index).implementation(frame);
  SetRunningKernel(previous);
  MarkFinished(index, results);
  if (tracer_ != nullptr) {
    const std::string location =
        running.location != nullptr ? running.location->ToString() : "";
    tracer_->AddSpan(running.name, "kernel", start_ns, TraceNowNanos(),
                     {{"location", location}, {"function", function_->name()}});
  }
}

void FrameWatch::Skipped(uint32_t index,
                         const RCReference<AsyncValue>* results) {
  MarkFinished(index, results);
}

}  // namespace executor_internal
}  // namespace sluice
