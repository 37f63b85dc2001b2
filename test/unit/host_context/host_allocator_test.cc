#include "sluice/host_context/host_allocator.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "sluice/support/logging.h"
#include "test/util/log_capture.h"

namespace sluice {
namespace {

bool IsAligned(const void* ptr, size_t alignment) {
  return reinterpret_cast<uintptr_t>(ptr) % alignment == 0;
}

// Captures the log for the lifetime of the test, with every level emitted.
class HostAllocatorTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }

  test_util::ScopedLogCapture sink_;
};

// Counts live instances so tests can see constructors and destructors run.
struct Tracked {
  explicit Tracked(std::string text) : text(std::move(text)) { ++live; }
  ~Tracked() { --live; }
  static int live;
  std::string text;
};
int Tracked::live = 0;

struct alignas(64) CacheLine {
  char bytes[64];
};

struct alignas(256) Page {
  char bytes[256];
};

TEST_F(HostAllocatorTest, MallocAllocatesUsableMemory) {
  auto allocator = CreateMallocAllocator();
  int64_t* values = allocator->Allocate<int64_t>(100);
  ASSERT_NE(values, nullptr);
  EXPECT_TRUE(IsAligned(values, alignof(int64_t)));
  for (int i = 0; i < 100; ++i) values[i] = i * i;
  EXPECT_EQ(values[99], 99 * 99);
  allocator->Deallocate(values, 100);
}

TEST_F(HostAllocatorTest, MallocHonoursAlignment) {
  MallocAllocator allocator;
  for (size_t alignment : {1, 8, 16, 64, 256, 4096}) {
    for (size_t size : {0, 1, 63, 64, 65, 1000}) {
      void* ptr = allocator.AllocateBytes(size, alignment);
      ASSERT_NE(ptr, nullptr) << "size " << size << " alignment " << alignment;
      EXPECT_TRUE(IsAligned(ptr, alignment))
          << "size " << size << " alignment " << alignment;
      std::memset(ptr, 0xab, size);
      allocator.DeallocateBytes(ptr, size);
    }
  }
  CacheLine* line = allocator.Allocate<CacheLine>();
  EXPECT_TRUE(IsAligned(line, 64));
  allocator.Deallocate(line);
  Page* pages = allocator.Allocate<Page>(3);
  EXPECT_TRUE(IsAligned(pages, 256));
  allocator.Deallocate(pages, 3);
}

TEST_F(HostAllocatorTest, ZeroSizedAllocationsAreDistinct) {
  MallocAllocator allocator;
  void* first = allocator.AllocateBytes(0, 8);
  void* second = allocator.AllocateBytes(0, 8);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_NE(first, second);
  allocator.DeallocateBytes(first, 0);
  allocator.DeallocateBytes(second, 0);
}

TEST_F(HostAllocatorTest, MallocFailsOnOverflowingRequests) {
  MallocAllocator allocator;
  EXPECT_EQ(allocator.Allocate<int64_t>(SIZE_MAX / 4), nullptr);
  EXPECT_EQ(allocator.AllocateBytes(SIZE_MAX - 10, 256), nullptr);
}

TEST_F(HostAllocatorTest, MallocRejectsAlignmentNotPowerOfTwo) {
  MallocAllocator allocator;
#ifdef NDEBUG
  EXPECT_EQ(allocator.AllocateBytes(8, 24), nullptr);
  ASSERT_EQ(sink_.entries().size(), 1u);
  EXPECT_EQ(sink_.entries()[0].first, LogSeverity::kError);
#else
  EXPECT_DEATH(allocator.AllocateBytes(8, 24),
               "alignment 24 is not a power of two");
#endif
}

TEST_F(HostAllocatorTest, NewAndDeleteRunConstructorAndDestructor) {
  LeakCheckAllocator allocator(CreateMallocAllocator());
  ASSERT_EQ(Tracked::live, 0);
  Tracked* first = allocator.New<Tracked>("first");
  Tracked* second = allocator.New<Tracked>(std::string(100, 'x'));
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(Tracked::live, 2);
  EXPECT_EQ(first->text, "first");
  EXPECT_EQ(second->text.size(), 100u);
  EXPECT_EQ(allocator.num_alive_allocations(), 2);
  EXPECT_EQ(allocator.num_alive_bytes(),
            static_cast<int64_t>(2 * sizeof(Tracked)));

  allocator.Delete(first);
  EXPECT_EQ(Tracked::live, 1);
  allocator.Delete(second);
  allocator.Delete<Tracked>(nullptr);
  EXPECT_EQ(Tracked::live, 0);
  EXPECT_EQ(allocator.num_alive_allocations(), 0);
}

TEST_F(HostAllocatorTest, NewHonoursOverAlignedTypes) {
  MallocAllocator allocator;
  CacheLine* line = allocator.New<CacheLine>();
  Page* page = allocator.New<Page>();
  EXPECT_TRUE(IsAligned(line, 64));
  EXPECT_TRUE(IsAligned(page, 256));
  allocator.Delete(line);
  allocator.Delete(page);
}

TEST_F(HostAllocatorTest, NewReturnsNullWithoutConstructingWhenOutOfMemory) {
  FixedBudgetAllocator allocator(sizeof(Tracked) - 1);
  EXPECT_EQ(allocator.New<Tracked>("nope"), nullptr);
  EXPECT_EQ(Tracked::live, 0);
  EXPECT_EQ(allocator.bytes_in_use(), 0u);
}

#if defined(__cpp_exceptions)
struct ThrowsOnConstruction {
  ThrowsOnConstruction() { throw std::runtime_error("constructor failed"); }
};

TEST_F(HostAllocatorTest, NewFreesStorageWhenConstructorThrows) {
  LeakCheckAllocator allocator(CreateMallocAllocator());
  EXPECT_THROW(allocator.New<ThrowsOnConstruction>(), std::runtime_error);
  EXPECT_EQ(allocator.num_alive_allocations(), 0);
}
#endif

TEST_F(HostAllocatorTest, LeakCheckCountsAliveAllocationsAndBytes) {
  LeakCheckAllocator allocator(CreateMallocAllocator());
  EXPECT_EQ(allocator.LeakReport(), "");
  void* a = allocator.AllocateBytes(8, 8);
  void* b = allocator.AllocateBytes(16, 16);
  void* c = allocator.AllocateBytes(24, 64);
  EXPECT_TRUE(IsAligned(c, 64));
  EXPECT_EQ(allocator.num_alive_allocations(), 3);
  EXPECT_EQ(allocator.num_alive_bytes(), 48);

  allocator.DeallocateBytes(b, 16);
  EXPECT_EQ(allocator.num_alive_allocations(), 2);
  EXPECT_EQ(allocator.num_alive_bytes(), 32);
  EXPECT_EQ(allocator.LeakReport(), "2 allocations (32 bytes) still alive");

  allocator.DeallocateBytes(c, 24);
  EXPECT_EQ(allocator.LeakReport(), "1 allocation (8 bytes) still alive");
  allocator.DeallocateBytes(a, 8);
  allocator.DeallocateBytes(nullptr, 8);
  EXPECT_EQ(allocator.num_alive_allocations(), 0);
  EXPECT_EQ(allocator.num_alive_bytes(), 0);
  EXPECT_EQ(allocator.LeakReport(), "");
  EXPECT_TRUE(sink_.entries().empty());
}

TEST_F(HostAllocatorTest, LeakCheckLogsReportWhenDestroyedWithLeaks) {
  auto allocator =
      std::make_unique<LeakCheckAllocator>(CreateMallocAllocator());
  void* leaked = allocator->AllocateBytes(12, 4);
  void* also_leaked = allocator->AllocateBytes(12, 4);
  allocator.reset();

  auto entries = sink_.entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].first, LogSeverity::kError);
  EXPECT_NE(entries[0].second.find(
                "] leak check allocator: 2 allocations (24 bytes) still alive"),
            std::string::npos)
      << entries[0].second;
  // The base was a MallocAllocator, so the leaked blocks are plain malloc
  // memory and can be freed here to keep the sanitizers quiet.
  std::free(leaked);
  std::free(also_leaked);
}

TEST_F(HostAllocatorTest, LeakCheckDestroyedCleanLogsNothing) {
  {
    LeakCheckAllocator allocator(CreateMallocAllocator());
    allocator.Deallocate(allocator.Allocate<int>(4), 4);
  }
  EXPECT_TRUE(sink_.entries().empty());
}

TEST_F(HostAllocatorTest, LeakCheckCatchesWrongDeallocationSize) {
  LeakCheckAllocator allocator(CreateMallocAllocator());
  void* ptr = allocator.AllocateBytes(8, 8);
#ifdef NDEBUG
  allocator.DeallocateBytes(ptr, 4);
  auto entries = sink_.entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].first, LogSeverity::kError);
  EXPECT_NE(
      entries[0].second.find("with size 4, but it was allocated with size 8"),
      std::string::npos)
      << entries[0].second;
  // The recorded size is what counts, so the books still balance.
  EXPECT_EQ(allocator.num_alive_allocations(), 0);
  EXPECT_EQ(allocator.num_alive_bytes(), 0);
#else
  EXPECT_DEATH(allocator.DeallocateBytes(ptr, 4),
               "with size 4, but it was allocated with size 8");
  allocator.DeallocateBytes(ptr, 8);
#endif
}

TEST_F(HostAllocatorTest, LeakCheckCatchesUnknownPointer) {
  LeakCheckAllocator allocator(CreateMallocAllocator());
  int64_t not_from_allocator = 0;
#ifdef NDEBUG
  allocator.DeallocateBytes(&not_from_allocator, 8);
  auto entries = sink_.entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_NE(entries[0].second.find("not a live allocation"), std::string::npos);
#else
  EXPECT_DEATH(allocator.DeallocateBytes(&not_from_allocator, 8),
               "not a live allocation of this allocator");
#endif
}

TEST_F(HostAllocatorTest, ProfilingTracksTotalsPeakAndLargest) {
  {
    ProfilingAllocator allocator(CreateMallocAllocator(), "test-pool");
    EXPECT_EQ(allocator.name(), "test-pool");
    void* a = allocator.AllocateBytes(100, 8);
    void* b = allocator.AllocateBytes(300, 64);
    EXPECT_TRUE(IsAligned(b, 64));
    allocator.DeallocateBytes(a, 100);
    void* c = allocator.AllocateBytes(50, 256);
    EXPECT_TRUE(IsAligned(c, 256));

    ProfilingAllocator::Stats stats = allocator.stats();
    EXPECT_EQ(stats.num_allocations, 3);
    EXPECT_EQ(stats.total_bytes, 450);
    EXPECT_EQ(stats.current_bytes, 350);
    EXPECT_EQ(stats.peak_bytes, 400);
    EXPECT_EQ(stats.max_allocation_bytes, 300);

    allocator.DeallocateBytes(b, 300);
    allocator.DeallocateBytes(c, 50);
    stats = allocator.stats();
    EXPECT_EQ(stats.current_bytes, 0);
    EXPECT_EQ(stats.peak_bytes, 400);
    EXPECT_EQ(stats.num_allocations, 3);
    EXPECT_TRUE(sink_.entries().empty());
  }
  auto entries = sink_.entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].first, LogSeverity::kInfo);
  EXPECT_NE(entries[0].second.find(
                "] allocator test-pool: 3 allocations, 450 bytes in total, "
                "peak 400 bytes, largest 300 bytes, 0 bytes still in use"),
            std::string::npos)
      << entries[0].second;
}

TEST_F(HostAllocatorTest, ProfilingIgnoresFailedAllocations) {
  ProfilingAllocator allocator(std::make_unique<FixedBudgetAllocator>(10),
                               "small");
  EXPECT_EQ(allocator.AllocateBytes(11, 1), nullptr);
  EXPECT_EQ(allocator.stats().num_allocations, 0);
  EXPECT_EQ(allocator.stats().peak_bytes, 0);
}

TEST_F(HostAllocatorTest, FixedBudgetFailsWhenExhaustedAndRecoversAfterFree) {
  FixedBudgetAllocator allocator(100);
  EXPECT_EQ(allocator.budget_bytes(), 100u);
  void* a = allocator.AllocateBytes(60, 8);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(allocator.AllocateBytes(50, 8), nullptr);
  EXPECT_EQ(allocator.bytes_in_use(), 60u);
  void* b = allocator.AllocateBytes(40, 8);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(allocator.bytes_in_use(), 100u);
  EXPECT_EQ(allocator.AllocateBytes(1, 1), nullptr);

  allocator.DeallocateBytes(a, 60);
  EXPECT_EQ(allocator.bytes_in_use(), 40u);
  void* c = allocator.AllocateBytes(50, 64);
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(IsAligned(c, 64));
  EXPECT_EQ(allocator.bytes_in_use(), 90u);

  allocator.DeallocateBytes(b, 40);
  allocator.DeallocateBytes(c, 50);
  EXPECT_EQ(allocator.bytes_in_use(), 0u);
}

TEST_F(HostAllocatorTest, FixedBudgetReturnsReservationWhenBaseFails) {
  // The outer budget allows the request but the inner one does not.
  FixedBudgetAllocator allocator(100,
                                 std::make_unique<FixedBudgetAllocator>(10));
  EXPECT_EQ(allocator.AllocateBytes(20, 8), nullptr);
  EXPECT_EQ(allocator.bytes_in_use(), 0u);
  void* ptr = allocator.AllocateBytes(10, 8);
  EXPECT_NE(ptr, nullptr);
  allocator.DeallocateBytes(ptr, 10);
}

TEST_F(HostAllocatorTest, ConcurrentUseLeavesCountsAtZero) {
  constexpr int kThreads = 4;
  constexpr int kIterations = 5000;
  constexpr size_t kBudget = 64 * 1024;

  auto budget_owner = std::make_unique<FixedBudgetAllocator>(kBudget);
  FixedBudgetAllocator* budget = budget_owner.get();
  auto profiling_owner =
      std::make_unique<ProfilingAllocator>(std::move(budget_owner), "shared");
  ProfilingAllocator* profiling = profiling_owner.get();
  LeakCheckAllocator allocator(std::move(profiling_owner));

  std::atomic<int64_t> successes{0};
  std::atomic<bool> over_budget{false};
  std::atomic<bool> misaligned{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // A small LCG per thread keeps runs reproducible.
      uint32_t state = 12345u + t;
      auto next = [&state] {
        state = state * 1664525u + 1013904223u;
        return state >> 8;
      };
      std::vector<std::pair<void*, size_t>> live;
      for (int i = 0; i < kIterations; ++i) {
        if (live.size() < 16 && next() % 3 != 0) {
          size_t size = 1 + next() % 2048;
          size_t alignment = size_t{1} << (next() % 9);
          void* ptr = allocator.AllocateBytes(size, alignment);
          if (budget->bytes_in_use() > kBudget) over_budget = true;
          if (ptr == nullptr) continue;
          if (!IsAligned(ptr, alignment)) misaligned = true;
          std::memset(ptr, t, size);
          live.emplace_back(ptr, size);
          ++successes;
        } else if (!live.empty()) {
          size_t index = next() % live.size();
          allocator.DeallocateBytes(live[index].first, live[index].second);
          live[index] = live.back();
          live.pop_back();
        }
      }
      for (auto& [ptr, size] : live) allocator.DeallocateBytes(ptr, size);
    });
  }
  for (auto& thread : threads) thread.join();

  EXPECT_FALSE(over_budget.load());
  EXPECT_FALSE(misaligned.load());
  EXPECT_GT(successes.load(), 0);
  EXPECT_EQ(allocator.num_alive_allocations(), 0);
  EXPECT_EQ(allocator.num_alive_bytes(), 0);
  EXPECT_EQ(allocator.LeakReport(), "");
  ProfilingAllocator::Stats stats = profiling->stats();
  EXPECT_EQ(stats.num_allocations, successes.load());
  EXPECT_EQ(stats.current_bytes, 0);
  EXPECT_LE(stats.peak_bytes, static_cast<int64_t>(kBudget));
  EXPECT_LE(stats.max_allocation_bytes, 2048);
  EXPECT_EQ(budget->bytes_in_use(), 0u);
}

}  // namespace
}  // namespace sluice
