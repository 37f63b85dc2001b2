// BlockingPool, spinning as a worker's execution threads do: every task
// runs, never inline; a task that blocks does not hold up the others while
// the pool may grow; the pool never grows past its maximum; destruction runs
// what is queued.
#include "lib/host_context/blocking_pool.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace sluice::internal {
namespace {

constexpr absl::Duration kBound = absl::Seconds(30);
constexpr std::chrono::milliseconds kIdleTimeout(10000);

TEST(BlockingPoolTest, RunsEveryTaskOffTheCallersThread) {
  std::atomic<int> ran{0};
  std::atomic<int> inline_runs{0};
  const std::thread::id caller = std::this_thread::get_id();
  {
    BlockingPool executor(4, kIdleTimeout, nullptr,
                          std::chrono::microseconds(50));
    for (int i = 0; i < 100; ++i) {
      executor.Add([&] {
        if (std::this_thread::get_id() == caller) ++inline_runs;
        ++ran;
      });
    }
  }
  EXPECT_EQ(ran.load(), 100);
  EXPECT_EQ(inline_runs.load(), 0);
}

TEST(BlockingPoolTest, ABlockedTaskDoesNotHoldUpTheNext) {
  BlockingPool executor(2, kIdleTimeout, nullptr);
  absl::Notification release;
  absl::Notification second_ran;
  executor.Add([&] { release.WaitForNotificationWithTimeout(kBound); });
  executor.Add([&] { second_ran.Notify(); });
  EXPECT_TRUE(second_ran.WaitForNotificationWithTimeout(kBound));
  release.Notify();
}

TEST(BlockingPoolTest, NeverRunsMoreTasksAtOnceThanItsMaximum) {
  std::atomic<int> running{0};
  std::atomic<int> most{0};
  {
    BlockingPool executor(2, kIdleTimeout, nullptr,
                          std::chrono::microseconds(20));
    for (int i = 0; i < 20; ++i) {
      executor.Add([&] {
        const int now = ++running;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        --running;
      });
    }
  }
  EXPECT_GE(most.load(), 1);
  EXPECT_LE(most.load(), 2);
}

TEST(BlockingPoolTest, ATaskMayAddTasks) {
  std::atomic<int> ran{0};
  absl::Notification done;
  BlockingPool executor(1, kIdleTimeout, nullptr,
                        std::chrono::microseconds(20));
  executor.Add([&] {
    ++ran;
    executor.Add([&] {
      ++ran;
      done.Notify();
    });
  });
  EXPECT_TRUE(done.WaitForNotificationWithTimeout(kBound));
  EXPECT_EQ(ran.load(), 2);
}

}  // namespace
}  // namespace sluice::internal
