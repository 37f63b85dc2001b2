// Page-locked host memory (cudaHostAlloc): the device copies into it
// asynchronously, where a copy into pageable memory would block the calling
// thread until the stream reaches it.
#ifndef SLUICE_LIB_GPU_PINNED_HOST_ALLOCATOR_H_
#define SLUICE_LIB_GPU_PINNED_HOST_ALLOCATOR_H_

#include <cstddef>

#include "sluice/host_context/host_allocator.h"

namespace sluice {
namespace gpu {

class PinnedHostAllocator : public HostAllocator {
 public:
  // The process's instance; never destroyed, since host buffers that keep
  // a pointer to it may outlive any scope.
  static PinnedHostAllocator* Process();

  // cudaHostAlloc aligns to pages, more than any `alignment` asked for.
  void* AllocateBytes(size_t size, size_t alignment) override;
  void DeallocateBytes(void* ptr, size_t size) override;
};

}  // namespace gpu
}  // namespace sluice

#endif  // SLUICE_LIB_GPU_PINNED_HOST_ALLOCATOR_H_
