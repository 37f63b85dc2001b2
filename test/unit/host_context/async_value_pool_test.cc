// Tests of the per-thread free lists behind AsyncValue memory.
#include "sluice/host_context/async_value_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"

namespace sluice {
namespace {

using internal::AllocateSmall;
using internal::FreeSmall;
using internal::kMaxPooledBytes;
using internal::kPoolsSmallBlocks;

TEST(AsyncValuePoolTest, FreedBlockServesTheNextRequestOfItsClass) {
  if (!kPoolsSmallBlocks)
    GTEST_SKIP() << "blocks are not pooled under sanitizers";
  void* first = AllocateSmall(40);
  FreeSmall(first, 40);
  // 33..48 bytes share one class: the freed block comes back.
  void* second = AllocateSmall(48);
  EXPECT_EQ(second, first);
  FreeSmall(second, 48);
  // Another class does not get it.
  void* other = AllocateSmall(64);
  EXPECT_NE(other, first);
  FreeSmall(other, 64);
}

TEST(AsyncValuePoolTest, BlocksAreWritableAndAligned) {
  std::vector<void*> blocks;
  for (size_t size = 1; size <= kMaxPooledBytes + 64; size += 7) {
    void* block = AllocateSmall(size);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % 16, 0u) << size;
    std::memset(block, 0xab, size);
    blocks.push_back(block);
  }
  size_t size = 1;
  for (void* block : blocks) {
    EXPECT_EQ(static_cast<unsigned char*>(block)[size - 1], 0xab) << size;
    FreeSmall(block, size);
    size += 7;
  }
}

// Values made on one thread and dropped on another: the block joins the
// dropping thread's list, and a thread that exits with cached blocks gives
// them back (LeakSanitizer would flag them otherwise; here the payloads'
// destructors are counted).
struct Counted {
  explicit Counted(std::atomic<int>* live) : live(live) { ++*live; }
  ~Counted() { --*live; }
  std::atomic<int>* live;
};

TEST(AsyncValuePoolTest, ValuesDroppedOnOtherThreadsDestroyTheirPayloads) {
  std::atomic<int> live{0};
  constexpr int kValues = 10000;
  std::vector<AsyncValueRef<Counted>> values;
  for (int i = 0; i < kValues; ++i) {
    values.push_back(MakeAvailableAsyncValueRef<Counted>(&live));
  }
  EXPECT_EQ(live.load(), kValues);
  std::thread dropper([&values] {
    values.clear();
    // Reuse on this thread what it just freed.
    for (int i = 0; i < 100; ++i) {
      AsyncValueRef<int> v = MakeAvailableAsyncValueRef<int>(i);
      EXPECT_EQ(v.get(), i);
    }
  });
  dropper.join();
  EXPECT_EQ(live.load(), 0);
  // This thread's lists still serve new values.
  AsyncValueRef<int> again = MakeAvailableAsyncValueRef<int>(7);
  EXPECT_EQ(again.get(), 7);
}

TEST(AsyncValuePoolTest, OverAlignedPayloadsKeepTheirAlignment) {
  struct alignas(64) Wide {
    int x;
  };
  for (int i = 0; i < 100; ++i) {
    AsyncValueRef<Wide> value = MakeAvailableAsyncValueRef<Wide>(Wide{i});
    EXPECT_EQ(reinterpret_cast<uintptr_t>(&value.get()) % 64, 0u);
    EXPECT_EQ(value.get().x, i);
  }
}

}  // namespace
}  // namespace sluice
