#include "lib/distributed/resource_table.h"

#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "sluice/host_context/async_value_ref.h"

namespace sluice::dist {
namespace {

Resource I32Resource(int32_t value, std::shared_ptr<const void> owner = {}) {
  return Resource{std::move(owner),
                  MakeAvailableAsyncValueRef<int32_t>(value).ReleaseRCRef(),
                  "i32"};
}

TEST(ResourceTableTest, KeepsFindsReplacesAndReleases) {
  ResourceTable table;
  EXPECT_FALSE(table.Find(1).has_value());
  table.Keep(1, I32Resource(10));
  table.Keep(2, I32Resource(20));
  EXPECT_EQ(table.size(), 2);
  std::optional<Resource> found = table.Find(1);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->value->get<int32_t>(), 10);
  EXPECT_EQ(found->type, "i32");

  table.Keep(1, I32Resource(11));
  EXPECT_EQ(table.size(), 2);
  EXPECT_EQ(table.Find(1)->value->get<int32_t>(), 11);
  // The copy found before still holds the value it had.
  EXPECT_EQ(found->value->get<int32_t>(), 10);

  const uint64_t ids[] = {1, 3, 1};
  EXPECT_EQ(table.Release(ids), 1);  // 3 is unknown, 1 goes once
  EXPECT_FALSE(table.Find(1).has_value());
  EXPECT_EQ(table.Find(2)->value->get<int32_t>(), 20);
  EXPECT_EQ(table.size(), 1);
}

TEST(ResourceTableTest, AValueKeepsItsOwnerAliveUntilReleased) {
  ResourceTable table;
  auto owner = std::make_shared<int>(5);
  std::weak_ptr<int> watched = owner;
  table.Keep(7, I32Resource(1, std::move(owner)));
  EXPECT_FALSE(watched.expired());
  std::optional<Resource> found = table.Find(7);
  const uint64_t ids[] = {7};
  EXPECT_EQ(table.Release(ids), 1);
  EXPECT_FALSE(watched.expired());  // the copy found holds it too
  found.reset();
  EXPECT_TRUE(watched.expired());
}

TEST(ResourceTableTest, ConcurrentKeepsFindsAndReleasesAgree) {
  ResourceTable table;
  constexpr int kThreads = 4;
  constexpr int kIds = 500;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&table, t] {
      for (int i = 0; i < kIds; ++i) {
        const uint64_t id = static_cast<uint64_t>(t) * kIds + i;
        table.Keep(id, I32Resource(i));
        std::optional<Resource> found = table.Find(id);
        ASSERT_TRUE(found.has_value());
        ASSERT_EQ(found->value->get<int32_t>(), i);
        if (i % 2 == 0) {
          const uint64_t ids[] = {id};
          ASSERT_EQ(table.Release(ids), 1);
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(table.size(), kThreads * kIds / 2);
}

}  // namespace
}  // namespace sluice::dist
