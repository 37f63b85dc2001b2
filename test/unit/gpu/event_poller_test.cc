// The poller's logic with fake events, so it runs on machines without a GPU
// (and under TSan, which checks the hand-off between the threads).
#include "sluice/gpu/event_poller.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/host_context.h"

namespace sluice::gpu {
namespace {

// Completes (or fails with `result`) on its `polls_until_done`-th query;
// counts the queries and notes the thread that made them.
class FakeEvent : public PolledEvent {
 public:
  struct Record {
    std::atomic<int> num_queries{0};
    std::atomic<bool> destroyed{false};
    std::thread::id query_thread;
  };

  FakeEvent(int polls_until_done, absl::Status result, Record* record)
      : polls_until_done_(polls_until_done),
        result_(std::move(result)),
        record_(record) {}
  ~FakeEvent() override { record_->destroyed = true; }

  absl::StatusOr<State> Query() override {
    record_->query_thread = std::this_thread::get_id();
    if (++record_->num_queries < polls_until_done_) return State::kPending;
    if (!result_.ok()) return result_;
    return State::kComplete;
  }

 private:
  const int polls_until_done_;
  const absl::Status result_;
  Record* record_;
};

constexpr int kNever = 1 << 30;

std::unique_ptr<PolledEvent> Fake(int polls, FakeEvent::Record* record,
                                  absl::Status result = absl::OkStatus()) {
  return std::make_unique<FakeEvent>(polls, std::move(result), record);
}

// A one-shot signal on std::mutex, which ThreadSanitizer sees (Debian's
// Abseil, and so absl::Notification, is not instrumented).
class Signal {
 public:
  void Notify() {
    std::lock_guard<std::mutex> lock(mutex_);
    notified_ = true;
    cv_.notify_all();
  }
  void WaitForNotification() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [this] { return notified_; });
  }
  bool HasBeenNotified() {
    std::lock_guard<std::mutex> lock(mutex_);
    return notified_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool notified_ = false;
};

// What a callback saw.
struct Outcome {
  Signal done;
  absl::Status status;
  std::thread::id thread;
  bool event_destroyed_before = false;
};

EventPoller::Callback Capture(Outcome* outcome,
                              FakeEvent::Record* record = nullptr) {
  return [outcome, record](absl::Status status) {
    outcome->status = std::move(status);
    outcome->thread = std::this_thread::get_id();
    if (record != nullptr) outcome->event_destroyed_before = record->destroyed;
    outcome->done.Notify();
  };
}

TEST(EventPollerTest, CallsBackOnceTheEventCompletesAndStopsQueryingIt) {
  EventPoller poller;
  FakeEvent::Record record;
  Outcome outcome;
  poller.Watch(Fake(5, &record), Capture(&outcome, &record));
  outcome.done.WaitForNotification();
  EXPECT_TRUE(outcome.status.ok()) << outcome.status;
  EXPECT_EQ(record.num_queries, 5);
  // The event is released before its callback runs: a CUDA event goes back
  // to the driver as soon as it has served.
  EXPECT_TRUE(outcome.event_destroyed_before);
  EXPECT_EQ(outcome.thread, record.query_thread);
  EXPECT_NE(outcome.thread, std::this_thread::get_id());
}

TEST(EventPollerTest, PassesTheEventsErrorToTheCallback) {
  EventPoller poller;
  FakeEvent::Record record;
  Outcome outcome;
  poller.Watch(
      Fake(3, &record,
           absl::InternalError("work on gpu:0 stream 0 failed: "
                               "cudaErrorLaunchFailure (unspecified launch "
                               "failure)")),
      Capture(&outcome));
  outcome.done.WaitForNotification();
  EXPECT_EQ(outcome.status.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(outcome.status.message(),
            "work on gpu:0 stream 0 failed: cudaErrorLaunchFailure "
            "(unspecified launch failure)");
  EXPECT_EQ(record.num_queries, 3);
}

TEST(EventPollerTest, APendingEventHoldsUpNoOther) {
  // Declared before the poller, whose destructor cancels the pending event.
  FakeEvent::Record never_record;
  Outcome never;
  std::vector<FakeEvent::Record> records(4);
  std::vector<Outcome> outcomes(4);
  EventPoller poller;
  poller.Watch(Fake(kNever, &never_record), Capture(&never));
  for (int i = 0; i < 4; ++i) {
    poller.Watch(Fake(1 + 3 * i, &records[i]), Capture(&outcomes[i]));
  }
  for (int i = 0; i < 4; ++i) {
    outcomes[i].done.WaitForNotification();
    EXPECT_TRUE(outcomes[i].status.ok()) << i << ": " << outcomes[i].status;
    EXPECT_EQ(records[i].num_queries, 1 + 3 * i);
  }
  EXPECT_FALSE(never.done.HasBeenNotified());
  EXPECT_GE(never_record.num_queries, 10);
  EXPECT_EQ(poller.num_pending(), 1);
}

TEST(EventPollerTest, StoppingCancelsPendingEvents) {
  FakeEvent::Record record;
  Outcome outcome;
  {
    EventPoller poller;
    poller.Watch(Fake(kNever, &record), Capture(&outcome, &record));
    // Let the poller take the event in before it stops.
    while (record.num_queries == 0) std::this_thread::yield();
  }
  ASSERT_TRUE(outcome.done.HasBeenNotified());
  EXPECT_EQ(outcome.status.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(outcome.status.message(),
            "event poller stopped before the event completed");
  EXPECT_TRUE(outcome.event_destroyed_before);
}

TEST(EventPollerTest, AnEventWatchedWhileStoppingIsCancelledAtOnce) {
  FakeEvent::Record first_record;
  FakeEvent::Record second_record;
  Outcome second;
  absl::Status first_status;
  {
    EventPoller poller;
    // The first event's callback, run while the poller stops, watches a
    // second event: it must not wait for a thread that is going away.
    poller.Watch(Fake(kNever, &first_record), [&](absl::Status status) {
      first_status = std::move(status);
      poller.Watch(Fake(1, &second_record), Capture(&second));
    });
    while (first_record.num_queries == 0) std::this_thread::yield();
  }
  EXPECT_EQ(first_status.code(), absl::StatusCode::kCancelled);
  ASSERT_TRUE(second.done.HasBeenNotified());
  EXPECT_EQ(second.status.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(second_record.num_queries, 0);
}

TEST(EventPollerTest, ACallbackMayWatchTheNextEvent) {
  EventPoller poller;
  FakeEvent::Record first_record;
  FakeEvent::Record second_record;
  Outcome second;
  poller.Watch(Fake(2, &first_record), [&](absl::Status status) {
    ASSERT_TRUE(status.ok()) << status;
    poller.Watch(Fake(2, &second_record), Capture(&second));
  });
  second.done.WaitForNotification();
  EXPECT_TRUE(second.status.ok()) << second.status;
  EXPECT_EQ(first_record.num_queries, 2);
  EXPECT_EQ(second_record.num_queries, 2);
}

TEST(EventPollerTest, QueriesNothingWhileIdle) {
  EventPoller poller;
  FakeEvent::Record record;
  Outcome outcome;
  poller.Watch(Fake(3, &record), Capture(&outcome));
  outcome.done.WaitForNotification();
  EXPECT_EQ(poller.num_pending(), 0);
  const int64_t rounds = poller.num_rounds();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(poller.num_rounds(), rounds);
}

TEST(EventPollerTest, BacksOffWhileAnEventStaysPending) {
  EventPollerOptions options;
  options.min_backoff = absl::Milliseconds(1);
  options.max_backoff = absl::Milliseconds(20);
  FakeEvent::Record record;
  Outcome outcome;
  EventPoller poller(options);
  poller.Watch(Fake(kNever, &record), Capture(&outcome));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  // Without backoff a busy loop would query millions of times; with it,
  // 1 + 2 + 4 + 8 + 16 ms and then every 20 ms: about 15 queries in 200 ms.
  // The bound leaves room for a slow machine and still fails a busy loop or
  // a backoff that never grows.
  EXPECT_LE(record.num_queries, 60);
  EXPECT_GE(record.num_queries, 3);
}

std::unique_ptr<HostContext> MakeHost() {
  return std::make_unique<HostContext>([](const DecodedDiagnostic&) {},
                                       CreateMallocAllocator(),
                                       *CreateWorkQueue("mstd:2"));
}

TEST(EventPollerTest, WatchOnHostSetsTheChainOnTheWorkQueue) {
  std::unique_ptr<HostContext> host = MakeHost();
  EventPoller poller;
  FakeEvent::Record record;
  AsyncValueRef<Chain> chain =
      poller.WatchOnHost(Fake(4, &record), host.get(), "synchronizing gpu:0");
  std::atomic<bool> ran_on_poller{true};
  Signal waited;
  chain.AndThen([&] {
    ran_on_poller = std::this_thread::get_id() == record.query_thread;
    waited.Notify();
  });
  host->Await(chain.CopyRCRef());
  waited.WaitForNotification();
  EXPECT_TRUE(chain.IsConcrete());
  EXPECT_EQ(record.num_queries, 4);
  EXPECT_FALSE(ran_on_poller);
}

TEST(EventPollerTest, WatchOnHostPrefixesTheEventsError) {
  std::unique_ptr<HostContext> host = MakeHost();
  EventPoller poller;
  FakeEvent::Record record;
  AsyncValueRef<Chain> chain = poller.WatchOnHost(
      Fake(2, &record, absl::InternalError("work on gpu:0 stream 0 failed")),
      host.get(), "synchronizing gpu:0 stream 0");
  host->Await(chain.CopyRCRef());
  ASSERT_TRUE(chain.IsError());
  EXPECT_EQ(chain.GetError().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(chain.GetError().message(),
            "synchronizing gpu:0 stream 0: work on gpu:0 stream 0 failed");
}

}  // namespace
}  // namespace sluice::gpu
