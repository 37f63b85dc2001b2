#include "sluice/host_context/host_context.h"

#include <atomic>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "sluice/host_context/timer_queue.h"

namespace sluice {
namespace {

std::vector<std::string>* destruction_log = nullptr;

struct NeedsHost {
  explicit NeedsHost(HostContext* host) : host(host) {}
  ~NeedsHost() { destruction_log->push_back("NeedsHost"); }
  HostContext* host;
};

struct Plain {
  ~Plain() { destruction_log->push_back("Plain"); }
  int uses = 0;
};

TEST(HostContextTest, SharedContextOnePerTypeDestroyedNewestFirst) {
  std::vector<std::string> log;
  destruction_log = &log;
  {
    HostContext host([](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
                     CreateSingleThreadedWorkQueue());
    NeedsHost& a = host.GetOrCreateSharedContext<NeedsHost>();
    EXPECT_EQ(a.host, &host);
    Plain& p = host.GetOrCreateSharedContext<Plain>();
    p.uses++;
    EXPECT_EQ(&host.GetOrCreateSharedContext<NeedsHost>(), &a);
    EXPECT_EQ(host.GetOrCreateSharedContext<Plain>().uses, 1);
    EXPECT_TRUE(log.empty());
  }
  EXPECT_EQ(log, (std::vector<std::string>{"Plain", "NeedsHost"}));
  destruction_log = nullptr;
}

TEST(HostContextTest, DiagnosticsGoToTheHandler) {
  std::vector<std::string> seen;
  HostContext host(
      [&](const DecodedDiagnostic& d) { seen.push_back(d.ToString()); },
      CreateMallocAllocator(), CreateSingleThreadedWorkQueue());
  host.EmitError(DecodedDiagnostic{DecodedLocation{"a.mlir", 4, 2},
                                   absl::InternalError("boom")});
  host.EmitError(
      DecodedDiagnostic{std::nullopt, absl::InternalError("no place")});
  EXPECT_EQ(seen,
            (std::vector<std::string>{"a.mlir:4:2: error: runtime error: boom",
                                      "error: runtime error: no place"}));
}

TEST(HostContextTest, EnqueueWorkFillsValueOrError) {
  HostContext host([](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
                   *CreateWorkQueue("mstd:2,2"));
  AsyncValueRef<int> ok = EnqueueWork(&host, [] { return 6 * 7; });
  AsyncValueRef<int> bad = EnqueueWork(&host, []() -> absl::StatusOr<int> {
    return absl::NotFoundError("gone");
  });
  host.Await(ok.CopyRCRef());
  host.Await(bad.CopyRCRef());
  EXPECT_EQ(ok.get(), 42);
  EXPECT_EQ(bad.GetError().code(), absl::StatusCode::kNotFound);
}

TEST(HostContextTest, DestructionFinishesQueuedWork) {
  std::atomic<int> ran{0};
  {
    HostContext host([](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
                     CreateSingleThreadedWorkQueue());
    for (int i = 0; i < 10; ++i) host.EnqueueWork([&] { ++ran; });
  }
  EXPECT_EQ(ran.load(), 10);
}

TEST(TimerQueueTest, RunsInDeadlineOrder) {
  TimerQueue timers;
  std::vector<int> order;
  std::atomic<int> done{0};
  const absl::Time now = absl::Now();
  timers.ScheduleAt(now + absl::Milliseconds(30), [&] {
    order.push_back(3);
    ++done;
  });
  timers.ScheduleAt(now + absl::Milliseconds(10), [&] {
    order.push_back(1);
    ++done;
  });
  timers.ScheduleAt(now + absl::Milliseconds(20), [&] {
    order.push_back(2);
    ++done;
  });
  while (done.load() < 3) absl::SleepFor(absl::Milliseconds(1));
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

TEST(TimerQueueTest, CancelledTimerNeverRuns) {
  TimerQueue timers;
  std::atomic<int> ran{0};
  TimerQueue::TimerId id =
      timers.ScheduleAt(absl::Now() + absl::Milliseconds(20), [&] { ++ran; });
  EXPECT_TRUE(timers.Cancel(id));
  EXPECT_FALSE(timers.Cancel(id));
  absl::SleepFor(absl::Milliseconds(40));
  EXPECT_EQ(ran.load(), 0);
}

TEST(TimerQueueTest, CancelWaitsForRunningCallback) {
  TimerQueue timers;
  std::atomic<bool> entered{false};
  std::atomic<bool> finished{false};
  TimerQueue::TimerId id = timers.ScheduleAt(absl::Now(), [&] {
    entered = true;
    absl::SleepFor(absl::Milliseconds(30));
    finished = true;
  });
  while (!entered) absl::SleepFor(absl::Microseconds(100));
  EXPECT_FALSE(timers.Cancel(id));
  EXPECT_TRUE(finished.load());
}

}  // namespace
}  // namespace sluice
