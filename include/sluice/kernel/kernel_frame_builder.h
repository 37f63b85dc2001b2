// KernelFrameBuilder: a KernelFrame with storage of its own, for calling a
// kernel outside the executor (unit tests, embedders probing a kernel).
#ifndef SLUICE_KERNEL_KERNEL_FRAME_BUILDER_H_
#define SLUICE_KERNEL_KERNEL_FRAME_BUILDER_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/execution_context.h"
#include "sluice/kernel/attribute_buffer.h"
#include "sluice/kernel/kernel_frame.h"
#include "sluice/kernel/kernel_registry.h"

namespace sluice {

class KernelFrameBuilder {
 public:
  KernelFrameBuilder(ExecutionContext context, std::string kernel_name,
                     std::optional<DecodedLocation> location = std::nullopt)
      : context_(std::move(context)),
        name_(std::move(kernel_name)),
        location_(std::move(location)) {
    debug_info_.name = name_;
    if (location_) {
      debug_info_.location = KernelLocation{location_->filename,
                                            location_->line, location_->column};
    }
  }
  // The frame's debug info points into this object: it stays where it is.
  KernelFrameBuilder(const KernelFrameBuilder&) = delete;
  KernelFrameBuilder& operator=(const KernelFrameBuilder&) = delete;

  KernelFrameBuilder& AddArg(RCReference<AsyncValue> value) {
    arguments_.push_back(std::move(value));
    return *this;
  }
  template <typename T, typename... Args>
  KernelFrameBuilder& AddAvailableArg(Args&&... args) {
    return AddArg(MakeAvailableAsyncValueRef<T>(std::forward<Args>(args)...)
                      .ReleaseRCRef());
  }
  KernelFrameBuilder& AddAttribute(const void* attribute) {
    attributes_.push_back(attribute);
    return *this;
  }
  // The attribute section array attributes refer into (AggregateAttribute).
  KernelFrameBuilder& SetAttributeSection(absl::Span<const uint8_t> section) {
    attribute_section_ = section;
    return *this;
  }
  // Identifies the op's location record (KernelDebugInfo::location_record).
  KernelFrameBuilder& SetLocationRecord(const void* record) {
    debug_info_.location_record = record;
    return *this;
  }
  // Storage for attribute values (see AddAttribute()).
  AttributeBuffer& attribute_buffer() { return attribute_buffer_; }
  KernelFrameBuilder& AddFunction(const Function* function) {
    functions_.push_back(function);
    return *this;
  }
  KernelFrameBuilder& SetNumResults(size_t count) {
    results_.clear();
    results_.resize(count);
    return *this;
  }

  // Calls `kernel` on the frame built so far. Frames built by hand skip the
  // load-time signature check: the test supplies what the kernel takes.
  void Invoke(const KernelDefinition& kernel) {
    argument_pointers_.clear();
    for (const auto& argument : arguments_)
      argument_pointers_.push_back(argument.get());
    KernelFrame frame(&context_, &debug_info_);
    frame.Reset(argument_pointers_, attributes_, absl::MakeSpan(results_),
                functions_);
    frame.SetAttributeSection(attribute_section_);
    kernel.implementation()(&frame);
  }

  const RCReference<AsyncValue>& result(size_t index) const {
    return results_[index];
  }
  std::vector<RCReference<AsyncValue>>& results() { return results_; }

 private:
  ExecutionContext context_;
  std::string name_;
  std::optional<DecodedLocation> location_;
  KernelDebugInfo debug_info_;
  AttributeBuffer attribute_buffer_;
  std::vector<RCReference<AsyncValue>> arguments_;
  std::vector<AsyncValue*> argument_pointers_;
  std::vector<const void*> attributes_;
  std::vector<const Function*> functions_;
  absl::Span<const uint8_t> attribute_section_;
  std::vector<RCReference<AsyncValue>> results_;
};

}  // namespace sluice

#endif  // SLUICE_KERNEL_KERNEL_FRAME_BUILDER_H_
