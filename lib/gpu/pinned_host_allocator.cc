#include "lib/gpu/pinned_host_allocator.h"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace sluice {
namespace gpu {

PinnedHostAllocator* PinnedHostAllocator::Process() {
  static PinnedHostAllocator* allocator = new PinnedHostAllocator;
  return allocator;
}

int PinnedHostAllocator::SizeClass(size_t size) {
  int size_class = 0;
  while ((kMinBlock << size_class) < size) ++size_class;
  return size_class;
}

void* PinnedHostAllocator::AllocateBytes(size_t size, size_t /*alignment*/) {
  if (size > SIZE_MAX / 2) return nullptr;
  const int size_class = SizeClass(size);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (static_cast<size_t>(size_class) < free_.size() &&
        !free_[size_class].empty()) {
      void* block = free_[size_class].back();
      free_[size_class].pop_back();
      return block;
    }
  }
  void* block = nullptr;
  if (cudaHostAlloc(&block, kMinBlock << size_class, cudaHostAllocDefault) !=
      cudaSuccess) {
    return nullptr;
  }
  return block;
}

void PinnedHostAllocator::DeallocateBytes(void* ptr, size_t size) {
  if (ptr == nullptr) return;
  const size_t size_class = static_cast<size_t>(SizeClass(size));
  std::lock_guard<std::mutex> lock(mutex_);
  if (free_.size() <= size_class) free_.resize(size_class + 1);
  free_[size_class].push_back(ptr);
}

}  // namespace gpu
}  // namespace sluice
