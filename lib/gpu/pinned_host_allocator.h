// Page-locked host memory (cudaHostAlloc), which the device reads and writes
// asynchronously: a copy between the device and pageable memory makes the
// calling thread wait for the stream. Allocating and freeing page-locked
// memory is slow and cudaFreeHost may wait for the device, so freed blocks
// are kept for reuse rather than returned to CUDA.
#ifndef SLUICE_LIB_GPU_PINNED_HOST_ALLOCATOR_H_
#define SLUICE_LIB_GPU_PINNED_HOST_ALLOCATOR_H_

#include <cstddef>
#include <mutex>
#include <vector>

#include "sluice/host_context/host_allocator.h"

namespace sluice {
namespace gpu {

class PinnedHostAllocator : public HostAllocator {
 public:
  // The process's instance; never destroyed, since host buffers that keep
  // a pointer to it may outlive any scope. It holds on to the most
  // page-locked memory the process had in use at once.
  static PinnedHostAllocator* Process();

  // Sizes are rounded up to a power of two of at least kMinBlock bytes, the
  // size class a freed block is kept in. Blocks are page-aligned, more than
  // any `alignment` asked for.
  void* AllocateBytes(size_t size, size_t alignment) override;
  void DeallocateBytes(void* ptr, size_t size) override;

  static constexpr size_t kMinBlock = 4096;

 private:
  // The size class of `size`: blocks of kMinBlock << class bytes.
  static int SizeClass(size_t size);

  std::mutex mutex_;
  // Freed blocks by size class.
  std::vector<std::vector<void*>> free_;
};

}  // namespace gpu
}  // namespace sluice

#endif  // SLUICE_LIB_GPU_PINNED_HOST_ALLOCATOR_H_
