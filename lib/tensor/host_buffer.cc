#include "sluice/tensor/host_buffer.h"

#include <cstdio>
#include <utility>

namespace sluice {

RCReference<HostBuffer> HostBuffer::Allocate(size_t size,
                                             HostAllocator* allocator,
                                             size_t alignment) {
  void* data = allocator->AllocateBytes(size, alignment);
  if (data == nullptr) return nullptr;
  return TakeRef(new HostBuffer(data, size, allocator, nullptr));
}

RCReference<HostBuffer> HostBuffer::Slice(const RCReference<HostBuffer>& parent,
                                          size_t offset, size_t size) {
  if (offset > parent->size() || size > parent->size() - offset) {
    return nullptr;
  }
  // Slices of slices point at the owner, so chains of slices stay one deep.
  RCReference<HostBuffer> owner =
      parent->parent_ ? parent->parent_.CopyRef() : parent.CopyRef();
  return TakeRef(new HostBuffer(static_cast<char*>(parent->data_) + offset,
                                size, nullptr, std::move(owner)));
}

HostBuffer::~HostBuffer() {
  if (allocator_ != nullptr) allocator_->DeallocateBytes(data_, size_);
}

std::string HostBuffer::ToString() const {
  char text[80];
  std::snprintf(text, sizeof(text), "HostBuffer<pointer=%p, size=%zu>", data_,
                size_);
  return text;
}

}  // namespace sluice
