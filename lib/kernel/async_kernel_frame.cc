#include "sluice/kernel/async_kernel_frame.h"

#include <cassert>

namespace sluice {

struct AsyncKernelFrame::Shared : ReferenceCounted<Shared> {
  Shared(const ExecutionContext& context, const KernelDebugInfo& info)
      : context(context), name(info.name) {
    debug_info.name = name;
    if (info.location) {
      filename = std::string(info.location->filename);
      debug_info.location =
          KernelLocation{filename, info.location->line, info.location->column};
    }
    if (info.debug_name) {
      debug_name = std::string(*info.debug_name);
      debug_info.debug_name = debug_name;
    }
  }

  ExecutionContext context;
  // Owned copies: the program may go before the frame.
  std::string name;
  std::string debug_name;
  std::string filename;
  KernelDebugInfo debug_info;
  std::vector<RCReference<AsyncValue>> arguments;
  // Results; a slot whose value is an IndirectAsyncValue not yet forwarded
  // is a placeholder the kernel has not set.
  std::vector<RCReference<AsyncValue>> results;
  internal::AllocatedResults allocated = 0;
};

AsyncKernelFrame::AsyncKernelFrame(const AsyncKernelFrame& other)
    : frame_(nullptr), shared_(other.Detach()) {
  shared_->AddRef();
}

AsyncKernelFrame& AsyncKernelFrame::operator=(const AsyncKernelFrame& other) {
  if (this == &other) return *this;
  Shared* shared = other.Detach();
  shared->AddRef();
  if (shared_ != nullptr) shared_->DropRef();
  shared_ = shared;
  frame_ = nullptr;
  return *this;
}

AsyncKernelFrame::AsyncKernelFrame(AsyncKernelFrame&& other) noexcept
    : frame_(other.frame_), shared_(other.shared_) {
  other.shared_ = nullptr;
}

AsyncKernelFrame& AsyncKernelFrame::operator=(
    AsyncKernelFrame&& other) noexcept {
  if (this == &other) return *this;
  if (shared_ != nullptr) shared_->DropRef();
  frame_ = other.frame_;
  shared_ = other.shared_;
  other.shared_ = nullptr;
  return *this;
}

void AsyncKernelFrame::MarkAllocated(size_t index) {
  if (frame_ != nullptr) {
    // KernelFrame::AllocateResultAt marks its own; this path set the
    // result through SetResultAt, so mark it here.
    frame_->MarkResultAllocated(index);
  } else {
    internal::MarkAllocated(shared_->allocated, index, true);
  }
}

AsyncKernelFrame::~AsyncKernelFrame() {
  if (shared_ != nullptr) shared_->DropRef();
}

AsyncKernelFrame::Shared* AsyncKernelFrame::Detach() const {
  if (shared_ != nullptr) return shared_;
  assert(frame_ != nullptr);
  auto* shared = new Shared(frame_->exec_ctx(), frame_->debug_info());
  for (AsyncValue* argument : frame_->GetArguments()) {
    shared->arguments.push_back(FormRef(argument));
  }
  shared->allocated = frame_->allocated_results();
  absl::Span<RCReference<AsyncValue>> slots = frame_->GetResults();
  for (size_t i = 0; i < slots.size(); ++i) {
    if (!slots[i]) {
      slots[i] = MakeIndirectAsyncValue();
      internal::MarkAllocated(shared->allocated, i, true);
    }
    shared->results.push_back(slots[i].CopyRef());
  }
  shared_ = shared;
  frame_ = nullptr;
  return shared;
}

const ExecutionContext& AsyncKernelFrame::exec_ctx() const {
  return frame_ != nullptr ? frame_->exec_ctx() : shared_->context;
}

size_t AsyncKernelFrame::GetNumArgs() const {
  return frame_ != nullptr ? frame_->GetNumArgs() : shared_->arguments.size();
}

AsyncValue* AsyncKernelFrame::GetArgAt(size_t index) const {
  if (frame_ != nullptr) return frame_->GetArgAt(index);
  assert(index < shared_->arguments.size());
  return shared_->arguments[index].get();
}

size_t AsyncKernelFrame::GetNumResults() const {
  return frame_ != nullptr ? frame_->GetNumResults() : shared_->results.size();
}

void AsyncKernelFrame::SetResultAt(size_t index,
                                   RCReference<AsyncValue> value) {
  if (frame_ != nullptr) {
    frame_->SetResultAt(index, std::move(value));
    return;
  }
  assert(index < shared_->results.size());
  AsyncValue* slot = shared_->results[index].get();
  assert(slot->IsIndirect() && slot->IsUnavailable() &&
         "result is already set");
  static_cast<IndirectAsyncValue*>(slot)->ForwardTo(std::move(value));
  // The placeholder now stands for the value given: someone else's to
  // resolve, unless AllocateResultAt() marks it again.
  internal::MarkAllocated(shared_->allocated, index, false);
}

void AsyncKernelFrame::ReportError(absl::Status status) {
  if (frame_ != nullptr) {
    frame_->ReportError(std::move(status));
    return;
  }
  internal::ReportErrorOnResults(absl::MakeSpan(shared_->results),
                                 shared_->allocated, std::move(status),
                                 shared_->context, shared_->debug_info);
}

}  // namespace sluice
