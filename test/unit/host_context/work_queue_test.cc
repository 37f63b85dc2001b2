#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/concurrent_work_queue.h"

namespace sluice {
namespace {

using std::chrono::steady_clock;

struct QueueParam {
  std::string spec;
  int workers;
  int blocking_threads;
};

std::string ParamName(const ::testing::TestParamInfo<QueueParam>& info) {
  std::string name = info.param.spec;
  std::replace_if(
      name.begin(), name.end(), [](char c) { return c == ':' || c == ','; },
      '_');
  return name;
}

std::unique_ptr<ConcurrentWorkQueue> MakeQueue(const std::string& spec) {
  absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> queue =
      CreateWorkQueue(spec);
  EXPECT_TRUE(queue.ok()) << queue.status();
  return queue.ok() ? std::move(*queue) : nullptr;
}

// Busy-waits, so that a task holds its worker the way real work would.
void Spin(std::chrono::microseconds duration) {
  const auto end = steady_clock::now() + duration;
  while (steady_clock::now() < end) {
  }
}

// Waits for `condition` for at most 10 s so that a broken queue fails the
// test instead of hanging it. Returns the final value of `condition`.
template <typename F>
bool WaitFor(F condition) {
  const auto deadline = steady_clock::now() + std::chrono::seconds(10);
  while (!condition()) {
    if (steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return true;
}

std::vector<RCReference<AsyncValue>> Untyped(
    const std::vector<AsyncValueRef<int>>& values) {
  std::vector<RCReference<AsyncValue>> result;
  for (const AsyncValueRef<int>& value : values) {
    result.push_back(value.CopyRCRef());
  }
  return result;
}

class WorkQueueTest : public ::testing::TestWithParam<QueueParam> {
 protected:
  void SetUp() override {
    queue_ = MakeQueue(GetParam().spec);
    ASSERT_NE(queue_, nullptr);
  }

  std::unique_ptr<ConcurrentWorkQueue> queue_;
};

INSTANTIATE_TEST_SUITE_P(AllQueues, WorkQueueTest,
                         ::testing::Values(QueueParam{"s", 1, 0},
                                           QueueParam{"mstd:2,4", 2, 4},
                                           QueueParam{"mstd:4,2", 4, 2}),
                         ParamName);

TEST_P(WorkQueueTest, ReportsItsShape) {
  EXPECT_EQ(queue_->name(), GetParam().spec);
  EXPECT_EQ(queue_->GetParallelismLevel(), GetParam().workers);
  EXPECT_FALSE(queue_->IsInWorkerThread());
  std::atomic<bool> in_worker{false};
  queue_->AddTask([&] { in_worker = queue_->IsInWorkerThread(); });
  queue_->Quiesce();
  EXPECT_TRUE(in_worker);
  EXPECT_FALSE(queue_->IsInWorkerThread());
}

// The idle-worker hint: true while a worker waits for work, false once
// every worker is busy, never on the single-threaded queue.
TEST_P(WorkQueueTest, ReportsIdleWorkers) {
  if (GetParam().spec == "s") {
    EXPECT_FALSE(queue_->HasIdleWorker());
    return;
  }
  EXPECT_TRUE(WaitFor([&] { return queue_->HasIdleWorker(); }));
  std::atomic<int> started{0};
  std::atomic<bool> release{false};
  for (int i = 0; i < GetParam().workers; ++i) {
    queue_->AddTask([&] {
      ++started;
      while (!release.load()) std::this_thread::yield();
    });
  }
  EXPECT_TRUE(WaitFor([&] { return started.load() == GetParam().workers; }));
  EXPECT_TRUE(WaitFor([&] { return !queue_->HasIdleWorker(); }));
  release = true;
  queue_->Quiesce();
  EXPECT_TRUE(WaitFor([&] { return queue_->HasIdleWorker(); }));
}

TEST_P(WorkQueueTest, EveryTaskRunsExactlyOnce) {
  constexpr int kTasks = 100000;
  std::vector<std::atomic<int>> runs(kTasks);
  for (int i = 0; i < kTasks; ++i) {
    queue_->AddTask([&runs, i] { runs[i].fetch_add(1); });
  }
  queue_->Quiesce();
  int wrong = 0;
  for (int i = 0; i < kTasks; ++i) wrong += runs[i].load() != 1;
  EXPECT_EQ(wrong, 0);
}

TEST_P(WorkQueueTest, EveryTaskFromManyThreadsRunsExactlyOnce) {
  constexpr int kThreads = 4;
  constexpr int kTasksPerThread = 10000;
  std::vector<std::atomic<int>> runs(kThreads * kTasksPerThread);
  std::vector<std::thread> producers;
  for (int t = 0; t < kThreads; ++t) {
    producers.emplace_back([&, t] {
      for (int i = t * kTasksPerThread; i < (t + 1) * kTasksPerThread; ++i) {
        queue_->AddTask([&runs, i] { runs[i].fetch_add(1); });
      }
    });
  }
  for (std::thread& producer : producers) producer.join();
  queue_->Quiesce();
  int wrong = 0;
  for (const std::atomic<int>& count : runs) wrong += count.load() != 1;
  EXPECT_EQ(wrong, 0);
}

// Each node adds its two children until `depth` reaches zero.
void SpawnTree(ConcurrentWorkQueue* queue, std::atomic<int>* nodes, int depth) {
  nodes->fetch_add(1);
  if (depth == 0) return;
  for (int child = 0; child < 2; ++child) {
    queue->AddTask([=] { SpawnTree(queue, nodes, depth - 1); });
  }
}

TEST_P(WorkQueueTest, TasksAddTasksRecursively) {
  constexpr int kDepth = 14;
  std::atomic<int> nodes{0};
  queue_->AddTask([&] { SpawnTree(queue_.get(), &nodes, kDepth); });
  queue_->Quiesce();
  EXPECT_EQ(nodes.load(), (1 << (kDepth + 1)) - 1);
}

TEST_P(WorkQueueTest, QuiesceWaitsForBlockingTasksAndWhatTheyAdd) {
  std::atomic<int> blocking_done{0};
  std::atomic<int> normal_done{0};
  for (int i = 0; i < 8; ++i) {
    queue_->AddBlockingTask([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      queue_->AddTask([&] { normal_done.fetch_add(1); });
      blocking_done.fetch_add(1);
    });
    // And the other way round: normal tasks that add blocking ones.
    queue_->AddTask([&] {
      queue_->AddBlockingTask([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        blocking_done.fetch_add(1);
      });
    });
  }
  queue_->Quiesce();
  EXPECT_EQ(blocking_done.load(), 16);
  EXPECT_EQ(normal_done.load(), 8);
}

TEST_P(WorkQueueTest, QuiesceTwiceAndOnAnEmptyQueue) {
  queue_->Quiesce();
  std::atomic<int> runs{0};
  queue_->AddTask([&] { runs.fetch_add(1); });
  queue_->Quiesce();
  queue_->Quiesce();
  EXPECT_EQ(runs.load(), 1);
}

TEST_P(WorkQueueTest, AwaitReturnsAtOnceForAvailableValues) {
  queue_->Await({});
  std::vector<RCReference<AsyncValue>> values;
  values.push_back(MakeAvailableAsyncValueRef<int>(1).ReleaseRCRef());
  values.push_back(MakeErrorAsyncValueRef(absl::InternalError("boom")));
  queue_->Await(values);
  EXPECT_TRUE(values[0]->IsConcrete());
  EXPECT_TRUE(values[1]->IsError());
}

TEST_P(WorkQueueTest, AwaitValuesResolvedByTasks) {
  constexpr int kValues = 100;
  std::vector<AsyncValueRef<int>> values;
  for (int i = 0; i < kValues; ++i) {
    values.push_back(MakeUnconstructedAsyncValueRef<int>());
  }
  for (int i = 0; i < kValues; ++i) {
    // Two hops, so that some values resolve from tasks added by tasks.
    queue_->AddTask([this, value = values[i].CopyRef(), i]() mutable {
      queue_->AddTask([value = std::move(value), i] {
        if (i % 10 == 0) {
          value.SetError(absl::InternalError("failed"));
        } else {
          value.emplace(i);
        }
      });
    });
  }
  queue_->Await(Untyped(values));
  for (int i = 0; i < kValues; ++i) {
    ASSERT_TRUE(values[i].IsAvailable());
    if (i % 10 == 0) {
      EXPECT_TRUE(values[i].IsError());
    } else {
      EXPECT_EQ(values[i].get(), i);
    }
  }
  queue_->Quiesce();
}

TEST_P(WorkQueueTest, AwaitValuesResolvedByAnOutsideThread) {
  AsyncValueRef<int> direct = MakeUnconstructedAsyncValueRef<int>();
  AsyncValueRef<int> through_task = MakeUnconstructedAsyncValueRef<int>();
  std::thread outside([&, direct = direct.CopyRef(),
                       through_task = through_task.CopyRef()]() mutable {
    // Late enough that Await() is asleep by then: the single-threaded queue
    // must wake for a new task, and every queue for the value itself.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    queue_->AddTask([value = std::move(through_task)] { value.emplace(2); });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    direct.emplace(1);
  });
  std::vector<AsyncValueRef<int>> values;
  values.push_back(direct.CopyRef());
  values.push_back(through_task.CopyRef());
  queue_->Await(Untyped(values));
  EXPECT_EQ(direct.get(), 1);
  EXPECT_EQ(through_task.get(), 2);
  outside.join();
  queue_->Quiesce();
}

// Values resolve on another thread at about the moment Await() registers its
// waiter; a waiter firing after Await() returned must not touch its frame.
TEST_P(WorkQueueTest, AwaitRacesWithResolution) {
  constexpr int kRounds = 500;
  std::vector<AsyncValueRef<int>> values;
  for (int i = 0; i < kRounds; ++i) {
    values.push_back(MakeUnconstructedAsyncValueRef<int>());
  }
  std::atomic<int> next{0};
  std::thread resolver([&] {
    for (int i = 0; i < kRounds; ++i) {
      while (next.load() < i) std::this_thread::yield();
      values[i].emplace(i);
    }
  });
  for (int i = 0; i < kRounds; ++i) {
    next.store(i);
    std::vector<RCReference<AsyncValue>> one;
    one.push_back(values[i].CopyRCRef());
    queue_->Await(one);
    ASSERT_EQ(values[i].get(), i);
  }
  resolver.join();
}

TEST_P(WorkQueueTest, DestructionRunsPendingTasks) {
  std::atomic<int> normal{0};
  std::atomic<int> blocking{0};
  {
    std::unique_ptr<ConcurrentWorkQueue> queue = MakeQueue(GetParam().spec);
    ConcurrentWorkQueue* q = queue.get();
    for (int i = 0; i < 1000; ++i) {
      q->AddTask([&, q, i] {
        Spin(std::chrono::microseconds(5));
        normal.fetch_add(1);
        if (i % 100 == 0) q->AddTask([&] { normal.fetch_add(1); });
      });
    }
    for (int i = 0; i < 4; ++i) {
      q->AddBlockingTask([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        blocking.fetch_add(1);
      });
    }
  }
  EXPECT_EQ(normal.load(), 1010);
  EXPECT_EQ(blocking.load(), 4);
}

TEST(SingleThreadedWorkQueueTest, RunsTasksInFifoOrder) {
  std::unique_ptr<ConcurrentWorkQueue> queue = MakeQueue("s");
  std::vector<int> order;
  for (int i = 0; i < 1000; ++i) {
    auto task = [&, i] {
      order.push_back(i);
      if (i % 10 == 0) queue->AddTask([&, i] { order.push_back(1000 + i); });
    };
    // Blocking tasks share the one FIFO.
    if (i % 7 == 0) {
      queue->AddBlockingTask(task);
    } else {
      queue->AddTask(task);
    }
  }
  queue->Quiesce();
  std::vector<int> expected;
  for (int i = 0; i < 1000; ++i) expected.push_back(i);
  for (int i = 0; i < 1000; i += 10) expected.push_back(1000 + i);
  EXPECT_EQ(order, expected);
}

TEST(SingleThreadedWorkQueueTest, AwaitRunsTasksOnTheCallingThread) {
  std::unique_ptr<ConcurrentWorkQueue> queue = MakeQueue("s");
  const std::thread::id self = std::this_thread::get_id();
  std::thread::id ran_on;
  AsyncValueRef<int> value = MakeUnconstructedAsyncValueRef<int>();
  queue->AddTask([&] {
    ran_on = std::this_thread::get_id();
    value.emplace(7);
  });
  std::vector<AsyncValueRef<int>> values;
  values.push_back(value.CopyRef());
  queue->Await(Untyped(values));
  EXPECT_EQ(ran_on, self);
  EXPECT_EQ(value.get(), 7);
}

TEST(SingleThreadedWorkQueueTest, AwaitStopsOnceValuesAreAvailable) {
  std::unique_ptr<ConcurrentWorkQueue> queue = MakeQueue("s");
  AsyncValueRef<int> value = MakeUnconstructedAsyncValueRef<int>();
  std::vector<int> order;
  queue->AddTask([&] { order.push_back(0); });
  queue->AddTask([&] {
    order.push_back(1);
    value.emplace(1);
  });
  queue->AddTask([&] { order.push_back(2); });
  std::vector<AsyncValueRef<int>> values;
  values.push_back(value.CopyRef());
  queue->Await(Untyped(values));
  EXPECT_EQ(order, (std::vector<int>{0, 1}));
  // The task left over keeps its place ahead of later ones.
  queue->AddTask([&] { order.push_back(3); });
  queue->Quiesce();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
}

class MultiThreadedWorkQueueTest : public WorkQueueTest {};

INSTANTIATE_TEST_SUITE_P(MultiThreaded, MultiThreadedWorkQueueTest,
                         ::testing::Values(QueueParam{"mstd:2,4", 2, 4},
                                           QueueParam{"mstd:4,2", 4, 2}),
                         ParamName);

TEST_P(MultiThreadedWorkQueueTest, IdleWorkersStealFromABusyOne) {
  constexpr int kTasks = 5000;
  std::vector<std::thread::id> ran_on(kTasks);
  std::atomic<bool> root_in_worker{false};
  queue_->AddTask([&] {
    root_in_worker = queue_->IsInWorkerThread();
    // All of these land in the root's own worker queue.
    for (int i = 0; i < kTasks; ++i) {
      queue_->AddTask([&ran_on, i] {
        Spin(std::chrono::microseconds(20));
        ran_on[i] = std::this_thread::get_id();
      });
    }
  });
  queue_->Quiesce();
  EXPECT_TRUE(root_in_worker);
  const std::set<std::thread::id> threads(ran_on.begin(), ran_on.end());
  EXPECT_GT(threads.size(), 1u);
  EXPECT_LE(threads.size(), static_cast<size_t>(GetParam().workers));
  EXPECT_EQ(threads.count(std::this_thread::get_id()), 0u);
  EXPECT_EQ(threads.count(std::thread::id()), 0u);
}

// Tasks added from outside while a worker lingers go to its ring and wake
// nobody: when the first of them holds that worker, another worker must
// still run the next.
TEST_P(MultiThreadedWorkQueueTest, TaskBehindAHeldLingererStillRuns) {
  for (int round = 0; round < 20; ++round) {
    // The worker that runs this lingers once it is done.
    queue_->AddTask([] {});
    Spin(std::chrono::microseconds(20));
    std::atomic<bool> released{false};
    std::atomic<bool> holder_saw_release{false};
    queue_->AddTask(
        [&] { holder_saw_release = WaitFor([&] { return released.load(); }); });
    queue_->AddTask([&] { released = true; });
    queue_->Quiesce();
    EXPECT_TRUE(holder_saw_release) << "round " << round;
  }
}

TEST_P(MultiThreadedWorkQueueTest, BlockingTaskDoesNotHoldUpNormalTasks) {
  std::atomic<bool> flag{false};
  std::atomic<bool> saw_flag{false};
  std::atomic<bool> blocking_in_worker{true};
  std::atomic<bool> normal_in_worker{false};
  queue_->AddBlockingTask([&] {
    blocking_in_worker = queue_->IsInWorkerThread();
    saw_flag = WaitFor([&] { return flag.load(); });
  });
  // Give the blocking task time to start waiting before the flag is set.
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  // Occupy every worker at least once while the blocking task waits.
  for (int i = 0; i < 4 * GetParam().workers; ++i) {
    queue_->AddTask([] { Spin(std::chrono::microseconds(100)); });
  }
  queue_->AddTask([&] {
    normal_in_worker = queue_->IsInWorkerThread();
    flag = true;
  });
  queue_->Quiesce();
  EXPECT_TRUE(saw_flag);
  EXPECT_FALSE(blocking_in_worker);
  EXPECT_TRUE(normal_in_worker);
}

TEST_P(MultiThreadedWorkQueueTest, BlockingTasksRunConcurrentlyUpToTheLimit) {
  const int limit = GetParam().blocking_threads;
  std::atomic<int> started{0};
  std::atomic<int> all_met{0};
  for (int i = 0; i < limit; ++i) {
    // Each waits for all the others: this only finishes if `limit` of them
    // run at once.
    queue_->AddBlockingTask([&] {
      started.fetch_add(1);
      if (WaitFor([&] { return started.load() == limit; })) {
        all_met.fetch_add(1);
      }
    });
  }
  queue_->Quiesce();
  EXPECT_EQ(all_met.load(), limit);
}

TEST_P(MultiThreadedWorkQueueTest, BlockingPoolReusesAtMostItsThreads) {
  constexpr int kTasks = 50;
  std::mutex mu;
  std::set<std::thread::id> threads;
  std::atomic<int> in_worker{0};
  for (int i = 0; i < kTasks; ++i) {
    queue_->AddBlockingTask([&] {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      if (queue_->IsInWorkerThread()) in_worker.fetch_add(1);
      std::lock_guard<std::mutex> lock(mu);
      threads.insert(std::this_thread::get_id());
    });
  }
  queue_->Quiesce();
  EXPECT_EQ(in_worker.load(), 0);
  EXPECT_GE(threads.size(), 1u);
  EXPECT_LE(threads.size(), static_cast<size_t>(GetParam().blocking_threads));
  EXPECT_EQ(threads.count(std::this_thread::get_id()), 0u);
}

TEST_P(MultiThreadedWorkQueueTest, QuiesceFromSeveralThreadsAtOnce) {
  constexpr int kThreads = 3;
  constexpr int kTasksPerThread = 5000;
  std::vector<std::atomic<int>> done(kThreads);
  std::vector<int> seen(kThreads);
  std::vector<std::thread> callers;
  for (int t = 0; t < kThreads; ++t) {
    callers.emplace_back([&, t] {
      for (int i = 0; i < kTasksPerThread; ++i) {
        queue_->AddTask([&done, t] { done[t].fetch_add(1); });
      }
      queue_->Quiesce();
      // Everything this thread added before Quiesce() has run.
      seen[t] = done[t].load();
    });
  }
  for (std::thread& caller : callers) caller.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(seen[t], kTasksPerThread);
}

TEST(CreateWorkQueueTest, AcceptsGoodSpecs) {
  struct Case {
    const char* spec;
    const char* name;
    int parallelism;
  };
  for (const Case& c :
       {Case{"s", "s", 1}, Case{"mstd:3", "mstd:3,256", 3},
        Case{"mstd:2,4", "mstd:2,4", 2}, Case{"mstd:1,1", "mstd:1,1", 1}}) {
    absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> queue =
        CreateWorkQueue(c.spec);
    ASSERT_TRUE(queue.ok()) << c.spec << ": " << queue.status();
    EXPECT_EQ((*queue)->name(), c.name);
    EXPECT_EQ((*queue)->GetParallelismLevel(), c.parallelism);
  }
  absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> queue =
      CreateWorkQueue("mstd");
  ASSERT_TRUE(queue.ok()) << queue.status();
  const int cores =
      std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  EXPECT_EQ((*queue)->GetParallelismLevel(), cores);
  EXPECT_EQ((*queue)->name(), "mstd:" + std::to_string(cores) + ",256");
}

TEST(CreateWorkQueueTest, RejectsMalformedSpecs) {
  for (const char* spec : {"",           "x",        "S",
                           " s",         "s ",       "ss",
                           "m",          "mstd:",    "mstd2",
                           "mstdx",      "mstd:a",   "mstd:,4",
                           "mstd:2,",    "mstd:2,x", "mstd:2,4,",
                           "mstd:1,2,3", "mstd:-1",  "mstd:+2",
                           "mstd: 2",    "mstd:2 ",  "mstd:1234567890"}) {
    absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> queue =
        CreateWorkQueue(spec);
    ASSERT_FALSE(queue.ok()) << "'" << spec << "' was accepted";
    EXPECT_EQ(queue.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(queue.status().message(),
              "invalid work queue spec '" + std::string(spec) +
                  "': expected s, mstd, mstd:N or mstd:N,M");
  }
}

TEST(CreateWorkQueueTest, RejectsCountsOutOfRange) {
  for (const char* spec : {"mstd:0", "mstd:0,4", "mstd:5000"}) {
    absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> queue =
        CreateWorkQueue(spec);
    ASSERT_FALSE(queue.ok()) << "'" << spec << "' was accepted";
    EXPECT_EQ(queue.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(queue.status().message(),
              "invalid work queue spec '" + std::string(spec) +
                  "': the number of worker threads must be between 1 and "
                  "4096");
  }
  absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> queue =
      CreateWorkQueue("mstd:2,0");
  ASSERT_FALSE(queue.ok());
  EXPECT_EQ(queue.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(queue.status().message(),
            "invalid work queue spec 'mstd:2,0': the number of blocking "
            "threads must be between 1 and 65536");
}

}  // namespace
}  // namespace sluice
