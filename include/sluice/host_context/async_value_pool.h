// Memory for AsyncValues and call frames: small blocks recycled through
// per-thread free lists.
//
// A dataflow program makes one value per kernel result and drops most of
// them a few kernels later, so these allocations come and go by the million
// at a handful of sizes. A thread-local list per size class serves them
// without locks or the general allocator's bookkeeping. A block freed on
// another thread than the one that made it simply joins that thread's list.
// Each list keeps a bounded number of blocks; the rest, and every list of a
// thread that exits, go back to the general allocator.
//
// Under AddressSanitizer and ThreadSanitizer every block goes straight to
// the general allocator, so that use-after-free and races on a value's
// memory stay visible.
#ifndef SLUICE_HOST_CONTEXT_ASYNC_VALUE_POOL_H_
#define SLUICE_HOST_CONTEXT_ASYNC_VALUE_POOL_H_

#include <cstddef>
#include <cstdint>
#include <new>

namespace sluice {
namespace internal {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kPoolsSmallBlocks = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kPoolsSmallBlocks = false;
#else
inline constexpr bool kPoolsSmallBlocks = true;
#endif
#else
inline constexpr bool kPoolsSmallBlocks = true;
#endif

// Sizes are rounded up to kPoolGranule; blocks above kMaxPooledBytes are
// not pooled. A thread keeps up to kMaxCachedBytesPerClass of free blocks
// per class: enough for the values of a 200,000-wide fan-out to come back
// from the lists on the next run.
inline constexpr size_t kPoolGranule = 16;
inline constexpr size_t kMaxPooledBytes = 512;
inline constexpr size_t kMaxCachedBytesPerClass = size_t{8} << 20;
inline constexpr size_t kNumBlockClasses = kMaxPooledBytes / kPoolGranule;

// How many free blocks class `c` keeps at most.
constexpr uint32_t MaxCachedBlocks(size_t c) {
  return static_cast<uint32_t>(kMaxCachedBytesPerClass /
                               ((c + 1) * kPoolGranule));
}

struct FreeBlock {
  FreeBlock* next;
};

// One thread's lists and how many more blocks each may take. Constant-
// initialized (all zero: closed) and trivially destructible, so reaching it
// costs no guard. A thread's first free takes the slow path, which
// registers a drain for thread exit (closing the lists again) and opens
// them.
struct SmallBlockCache {
  FreeBlock* heads[kNumBlockClasses];
  uint32_t room[kNumBlockClasses];
};
inline thread_local SmallBlockCache small_block_cache{};

// Slow paths, out of line.
void* AllocateNewBlock(size_t size);
void FreeToFullOrClosedList(void* block, size_t size);

// The class that serves `size` (sizes 0 and 1..16 share class 0).
inline size_t BlockClassOf(size_t size) {
  return size == 0 ? 0 : (size - 1) / kPoolGranule;
}

// A block of at least `size` bytes, aligned like ::operator new's.
inline void* AllocateSmall(size_t size) {
  if (!kPoolsSmallBlocks || size > kMaxPooledBytes) {
    return ::operator new(size);
  }
  SmallBlockCache& cache = small_block_cache;
  const size_t c = BlockClassOf(size);
  FreeBlock* block = cache.heads[c];
  if (block == nullptr) return AllocateNewBlock(size);
  cache.heads[c] = block->next;
  ++cache.room[c];
  return block;
}

// Frees a block from AllocateSmall(size), with that same size.
inline void FreeSmall(void* block, size_t size) {
  if (!kPoolsSmallBlocks || size > kMaxPooledBytes) {
    ::operator delete(block);
    return;
  }
  SmallBlockCache& cache = small_block_cache;
  const size_t c = BlockClassOf(size);
  if (cache.room[c] == 0) {
    FreeToFullOrClosedList(block, size);
    return;
  }
  auto* node = static_cast<FreeBlock*>(block);
  node->next = cache.heads[c];
  cache.heads[c] = node;
  --cache.room[c];
}

}  // namespace internal
}  // namespace sluice

#endif  // SLUICE_HOST_CONTEXT_ASYNC_VALUE_POOL_H_
