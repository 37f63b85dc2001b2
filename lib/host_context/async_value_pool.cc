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
      // go straight back: the list is closed.
      cache.room[c] = 0;
    }
  }
};

}  // namespace

void* AllocateNewBlock(size_t size) {
  // Every block of a class has the class's full size, so that it can serve
  // any request of the class later.
  return ::operator new((BlockClassOf(size) + 1) * kPoolGranule);
}

void FreeToFullOrClosedList(void* block, size_t size) {
  // Once per thread: the lists open, with a drain registered. A thread that
  // already drained (it is exiting) stays closed.
  thread_local bool opened = false;
  if (!opened) {
    opened = true;
    thread_local SmallBlockDrain drain;
    (void)drain;
    for (size_t c = 0; c < kNumBlockClasses; ++c) {
      small_block_cache.room[c] = MaxCachedBlocks(c);
    }
    FreeSmall(block, size);
    return;
  }
  ::operator delete(block);
}

}  // namespace internal
}  // namespace sluice
