// Reference-counted bytes from a HostAllocator. Tensors, slices of tensors,
// remote transfers and variables hold references to one buffer instead of
// copying its bytes; a slice keeps its parent alive.
#ifndef SLUICE_TENSOR_HOST_BUFFER_H_
#define SLUICE_TENSOR_HOST_BUFFER_H_

#include <cstddef>
#include <string>

#include "sluice/host_context/host_allocator.h"
#include "sluice/support/ref_count.h"

namespace sluice {

class HostBuffer : public ReferenceCounted<HostBuffer> {
 public:
  // A cache line: every element type and Eigen's vectorized loads are
  // aligned on it.
  static constexpr size_t kAlignment = 64;

  // Uninitialized bytes; nullptr when the allocator refuses. `allocator`
  // must outlive the buffer. `alignment` must be a power of two.
  static RCReference<HostBuffer> Allocate(size_t size, HostAllocator* allocator,
                                          size_t alignment = kAlignment);

  // Bytes [offset, offset + size) of `parent`, shared with it; nullptr when
  // the range does not lie inside the parent.
  static RCReference<HostBuffer> Slice(const RCReference<HostBuffer>& parent,
                                       size_t offset, size_t size);

  void* data() { return data_; }
  const void* data() const { return data_; }
  size_t size() const { return size_; }

  // "HostBuffer<pointer=0x..., size=24>", as TFRT prints one.
  std::string ToString() const;

 private:
  friend class ReferenceCounted<HostBuffer>;

  HostBuffer(void* data, size_t size, HostAllocator* allocator,
             RCReference<HostBuffer> parent)
      : data_(data),
        size_(size),
        allocator_(allocator),
        parent_(std::move(parent)) {}
  ~HostBuffer();

  void* data_;
  size_t size_;
  // Set when this buffer owns its bytes; a slice has a parent instead.
  HostAllocator* allocator_;
  RCReference<HostBuffer> parent_;
};

}  // namespace sluice

#endif  // SLUICE_TENSOR_HOST_BUFFER_H_
