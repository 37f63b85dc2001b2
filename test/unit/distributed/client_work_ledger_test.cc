// ClientWorkLedger: blocking tasks attributed to the client a thread runs
// for, at most the bound of them at once per client.
#include "sluice/distributed/client_work_ledger.h"

#include <atomic>
#include <functional>
#include <memory>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "sluice/host_context/concurrent_work_queue.h"

namespace sluice::dist {
namespace {

// Counts the blocking tasks running at once, and the most there were.
struct Concurrency {
  std::atomic<int> running{0};
  std::atomic<int> most{0};
  std::atomic<int> done{0};

  TaskFunction Task(absl::Notification* release) {
    return [this, release] {
      const int now = running.fetch_add(1) + 1;
      int seen = most.load();
      while (now > seen && !most.compare_exchange_weak(seen, now)) {
      }
      release->WaitForNotification();
      running.fetch_sub(1);
      done.fetch_add(1);
    };
  }
};

std::unique_ptr<ConcurrentWorkQueue> MakeQueue(ClientWorkLedger& ledger) {
  absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> queue =
      CreateWorkQueue("mstd:2,16");
  EXPECT_TRUE(queue.ok()) << queue.status();
  return ledger.Wrap(*std::move(queue));
}

bool WaitUntil(const std::function<bool()>& condition) {
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (!condition()) {
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(1));
  }
  return true;
}

TEST(ClientWorkLedgerTest, AClientRunsAtMostItsBoundOfBlockingTasks) {
  ClientWorkLedger ledger(/*max_blocking_tasks_per_client=*/2);
  std::unique_ptr<ConcurrentWorkQueue> queue = MakeQueue(ledger);
  std::shared_ptr<ClientWorkLedger::Account> client =
      ledger.AccountOf("ipv4:10.0.0.7");
  Concurrency concurrency;
  absl::Notification release;
  {
    ClientWorkLedger::ScopedClient running_for(client);
    for (int i = 0; i < 6; ++i) {
      queue->AddBlockingTask(concurrency.Task(&release));
    }
  }
  ASSERT_TRUE(WaitUntil([&] { return concurrency.running.load() == 2; }));
  ClientWorkLedger::BlockingUse use = ClientWorkLedger::UseOf(*client);
  EXPECT_EQ(use.running, 2);
  EXPECT_EQ(use.waiting, 4);
  // Another client, and work for no client, are not held up.
  Concurrency others;
  absl::Notification release_others;
  {
    ClientWorkLedger::ScopedClient running_for(
        ledger.AccountOf("ipv4:10.0.0.8"));
    queue->AddBlockingTask(others.Task(&release_others));
  }
  queue->AddBlockingTask(others.Task(&release_others));
  ASSERT_TRUE(WaitUntil([&] { return others.running.load() == 2; }));
  release_others.Notify();

  release.Notify();
  queue->Quiesce();
  EXPECT_EQ(concurrency.done.load(), 6);
  EXPECT_EQ(concurrency.most.load(), 2);
  use = ClientWorkLedger::UseOf(*client);
  EXPECT_EQ(use.running, 0);
  EXPECT_EQ(use.waiting, 0);
}

TEST(ClientWorkLedgerTest, TasksQueuedByATaskRunForTheSameClient) {
  ClientWorkLedger ledger(/*max_blocking_tasks_per_client=*/1);
  std::unique_ptr<ConcurrentWorkQueue> queue = MakeQueue(ledger);
  std::shared_ptr<ClientWorkLedger::Account> client =
      ledger.AccountOf("ipv4:10.0.0.7");
  absl::Notification release;
  absl::Notification second_queued;
  {
    ClientWorkLedger::ScopedClient running_for(client);
    // A non-blocking task that queues blocking work, as a kernel
    // continuing on the host's threads does.
    queue->AddTask([&] {
      queue->AddBlockingTask([&] { release.WaitForNotification(); });
      queue->AddBlockingTask([] {});
      second_queued.Notify();
    });
  }
  second_queued.WaitForNotification();
  ClientWorkLedger::BlockingUse use = ClientWorkLedger::UseOf(*client);
  EXPECT_EQ(use.running, 1);
  EXPECT_EQ(use.waiting, 1);
  release.Notify();
  queue->Quiesce();
  EXPECT_EQ(ClientWorkLedger::UseOf(*client).running, 0);
}

}  // namespace
}  // namespace sluice::dist
