#include "lib/gpu/pinned_host_allocator.h"

#include <cuda_runtime_api.h>

namespace sluice {
namespace gpu {

PinnedHostAllocator* PinnedHostAllocator::Process() {
  static PinnedHostAllocator* allocator = new PinnedHostAllocator;
  return allocator;
}

void* PinnedHostAllocator::AllocateBytes(size_t size, size_t /*alignment*/) {
  void* ptr = nullptr;
  // A zero-byte request still needs a distinct pointer.
  if (cudaHostAlloc(&ptr, size == 0 ? 1 : size, cudaHostAllocDefault) !=
      cudaSuccess) {
    return nullptr;
  }
  return ptr;
}

void PinnedHostAllocator::DeallocateBytes(void* ptr, size_t /*size*/) {
  if (ptr != nullptr) cudaFreeHost(ptr);
}

}  // namespace gpu
}  // namespace sluice
