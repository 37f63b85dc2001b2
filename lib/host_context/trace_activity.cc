#include "sluice/host_context/trace_activity.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace sluice {

void ActivityRegistry::AddFrame(Frame* frame) {
  std::lock_guard<std::mutex> lock(mu_);
  frame->previous_ = last_;
  frame->next_ = nullptr;
  (last_ != nullptr ? last_->next_ : first_) = frame;
  last_ = frame;
}

void ActivityRegistry::RemoveFrame(Frame* frame) {
  std::lock_guard<std::mutex> lock(mu_);
  (frame->previous_ != nullptr ? frame->previous_->next_ : first_) =
      frame->next_;
  (frame->next_ != nullptr ? frame->next_->previous_ : last_) =
      frame->previous_;
  frame->previous_ = frame->next_ = nullptr;
}

std::shared_ptr<ActivityRegistry::RemoteCall> ActivityRegistry::AddRemoteCall(
    std::string task, std::string function, const RequestContext* request) {
  auto call = std::make_shared<RemoteCall>();
  call->task = std::move(task);
  call->function = std::move(function);
  call->request = request;
  call->made_ns = absl::GetCurrentTimeNanos();
  if (const RunningKernel* kernel = CurrentRunningKernel()) {
    call->caller = DescribeKernelAt(kernel->name, kernel->location);
    call->caller_frame = kernel->frame;
    call->caller_kernel = kernel->kernel;
  }
  std::lock_guard<std::mutex> lock(mu_);
  // Answered calls are dropped here, so the list stays as long as the
  // calls in flight (amortized).
  if (remote_calls_.size() >= 16) {
    std::vector<std::weak_ptr<RemoteCall>> live;
    for (auto& entry : remote_calls_) {
      if (!entry.expired()) live.push_back(std::move(entry));
    }
    remote_calls_ = std::move(live);
  }
  remote_calls_.push_back(call);
  return call;
}

void ActivityRegistry::Inspect(
    const std::function<void(const std::vector<const Frame*>&,
                             const std::vector<const RemoteCall*>&)>& inspect)
    const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<const Frame*> frames;
  for (const Frame* frame = first_; frame != nullptr; frame = frame->next_) {
    frames.push_back(frame);
  }
  std::vector<std::shared_ptr<RemoteCall>> held;
  std::vector<const RemoteCall*> calls;
  for (const auto& entry : remote_calls_) {
    if (std::shared_ptr<RemoteCall> call = entry.lock()) {
      calls.push_back(call.get());
      held.push_back(std::move(call));
    }
  }
  inspect(frames, calls);
}

namespace {
thread_local const RunningKernel* running_kernel = nullptr;
}  // namespace

const RunningKernel* CurrentRunningKernel() { return running_kernel; }

const RunningKernel* SetRunningKernel(const RunningKernel* kernel) {
  const RunningKernel* previous = running_kernel;
  running_kernel = kernel;
  return previous;
}

std::string DescribeKernelAt(std::string_view name,
                             const KernelLocation* location) {
  std::string text = absl::StrCat("'", std::string(name), "'");
  if (location != nullptr) absl::StrAppend(&text, " at ", location->ToString());
  return text;
}

}  // namespace sluice
