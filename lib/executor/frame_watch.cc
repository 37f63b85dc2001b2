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
  kernel_states_.reset(new std::atomic<int64_t>[function.kernels.size()]);
  for (size_t i = 0; i < function.kernels.size(); ++i) {
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
  if (tracer_ != nullptr) call_start_us_ = TraceNowMicros();
  if (activity_ == nullptr) return;
  for (size_t i = 0; i < arguments.size(); ++i) {
    Keep(function_->argument_registers[i], arguments[i]);
  }
}

void FrameWatch::Returned() {
  if (tracer_ == nullptr) return;
  tracer_->AddSpan(function_->name(), "function", call_start_us_,
                   TraceNowMicros());
}

FrameWatch::KernelRun::KernelRun(FrameWatch* watch, uint32_t index)
    : watch_(watch),
      index_(index),
      start_us_(watch->tracer_ != nullptr ? TraceNowMicros() : 0),
      running_{watch, index, watch->function_->debug_infos[index].name,
               watch->function_->debug_infos[index].location
                   ? &*watch->function_->debug_infos[index].location
                   : nullptr},
      scope_(&running_) {
  if (watch_->activity_ != nullptr) {
    watch_->kernel_states_[index].store(absl::GetCurrentTimeNanos(),
                                        std::memory_order_release);
  }
}

FrameWatch::KernelRun::~KernelRun() = default;

void FrameWatch::KernelRun::Finished(const RCReference<AsyncValue>* results,
                                     uint32_t count) {
  if (watch_->activity_ != nullptr) {
    const uint32_t* result_registers =
        watch_->function_->indices.data() +
        watch_->function_->kernels[index_].results;
    for (uint32_t i = 0; i < count; ++i) {
      watch_->Keep(result_registers[i], results[i].get());
    }
    std::atomic<int64_t>& state = watch_->kernel_states_[index_];
    state.store(-state.load(std::memory_order_relaxed),
                std::memory_order_release);
  }
  if (watch_->tracer_ != nullptr) {
    const std::string location =
        running_.location != nullptr ? running_.location->ToString() : "";
    watch_->tracer_->AddSpan(
        running_.name, "kernel", start_us_, TraceNowMicros(),
        {{"location", location}, {"function", watch_->function_->name()}});
  }
}

}  // namespace executor_internal
}  // namespace sluice
