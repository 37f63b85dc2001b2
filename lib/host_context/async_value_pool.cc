#include "sluice/host_context/async_value_pool.h"

namespace sluice {
namespace internal {
namespace {

// Returns a thread's cached blocks to the general allocator when the thread
// exits.
struct SmallBlockDrain {
  ~SmallBlockDrain() {
    SmallBlockCache& cache = small_block_cache;
    for (size_t c = 0; c < kNumBlockClasses; ++c) {
      while (cache.heads[c] != nullptr) {
        FreeBlock* next = cache.heads[c]->next;
        ::operator delete(cache.heads[c]);
        cache.heads[c] = next;
      }
      // Blocks freed by thread-exit destructors that run after this one
      // go straight back: the list counts as full.
      cache.counts[c] = kMaxCachedBlocks;
    }
  }
};

}  // namespace

void RegisterSmallBlockDrain() {
  thread_local SmallBlockDrain drain;
  (void)drain;
  small_block_cache.drain_registered = true;
}

void* AllocateLargeOrNewBlock(size_t size) {
  // Every block of a class has the class's full size, so that it can serve
  // any request of the class later.
  return ::operator new((BlockClassOf(size) + 1) * kPoolGranule);
}

}  // namespace internal
}  // namespace sluice
