#include "sluice/host_context/request_context.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/host_context.h"

namespace sluice {
namespace {

std::unique_ptr<HostContext> MakeHost(std::string_view queue = "s") {
  return std::make_unique<HostContext>([](const DecodedDiagnostic&) {},
                                       CreateMallocAllocator(),
                                       *CreateWorkQueue(queue));
}

TEST(RequestContextTest, CancelMakesCancelValue) {
  auto host = MakeHost();
  RCReference<RequestContext> request = RequestContext::Create(host.get());
  EXPECT_FALSE(request->IsCancelled());
  EXPECT_EQ(request->GetCancelAsyncValue(), nullptr);
  request->Cancel();
  ASSERT_TRUE(request->IsCancelled());
  AsyncValue* cancel = request->GetCancelAsyncValue();
  ASSERT_TRUE(cancel->IsError());
  EXPECT_EQ(cancel->GetError().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(cancel->GetError().message(), "Cancelled");
  // Only the first cancellation counts.
  request->Cancel(absl::AbortedError("later"));
  EXPECT_EQ(request->GetCancelAsyncValue(), cancel);
}

TEST(RequestContextTest, CancellationSeenByWaitersOnEveryThread) {
  auto host = MakeHost();
  RCReference<RequestContext> request = RequestContext::Create(host.get());
  constexpr int kThreads = 4, kPerThread = 200;
  std::atomic<int> seen{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) {
        request->OnCancel([&seen](const absl::Status& status) {
          if (status.code() == absl::StatusCode::kCancelled) ++seen;
        });
      }
    });
  }
  std::thread canceller([&] { request->Cancel(); });
  for (auto& t : threads) t.join();
  canceller.join();
  EXPECT_EQ(seen.load(), kThreads * kPerThread);
}

TEST(RequestContextTest, LoopStopsAtSafePointWhenCancelled) {
  auto host = MakeHost("mstd:2,2");
  RCReference<RequestContext> request = RequestContext::Create(host.get());
  AsyncValueRef<int> iterations = MakeUnconstructedAsyncValueRef<int>();
  std::atomic<bool> started{false};
  host->EnqueueWork(
      [&, request = request.CopyRef(), result = iterations.CopyRef()] {
        int i = 0;
        while (!request->IsCancelled()) {  // the loop's safe point
          ++i;
          started = true;
        }
        result.emplace(i);
      });
  while (!started) std::this_thread::yield();
  request->Cancel();
  host->Await(iterations.CopyRCRef());
  EXPECT_GT(iterations.get(), 0);
}

TEST(RequestContextTest, DeadlineCancelsWithDeadlineExceeded) {
  auto host = MakeHost();
  RCReference<RequestContext> request =
      RequestContext::Create(host.get(), absl::Now() + absl::Milliseconds(20));
  AsyncValueRef<Chain> fired = MakeUnconstructedAsyncValueRef<Chain>();
  request->OnCancel([fired = fired.CopyRef()](const absl::Status& status) {
    fired.SetError(status);
  });
  host->Await(fired.CopyRCRef());
  ASSERT_TRUE(request->IsCancelled());
  EXPECT_EQ(request->GetCancelAsyncValue()->GetError().code(),
            absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(fired.GetError().code(), absl::StatusCode::kDeadlineExceeded);
}

TEST(RequestContextTest, RequestFreedBeforeDeadlineIsNeverCancelled) {
  auto host = MakeHost();
  std::atomic<int> callbacks{0};
  {
    RCReference<RequestContext> request = RequestContext::Create(
        host.get(), absl::Now() + absl::Milliseconds(30));
    request->OnCancel([&](const absl::Status&) { ++callbacks; });
  }
  absl::SleepFor(absl::Milliseconds(60));
  EXPECT_EQ(callbacks.load(), 0);
}

TEST(RequestContextTest, PastDeadlineCancelsAtOnce) {
  auto host = MakeHost();
  RCReference<RequestContext> request =
      RequestContext::Create(host.get(), absl::Now() - absl::Seconds(1));
  AsyncValueRef<Chain> fired = MakeUnconstructedAsyncValueRef<Chain>();
  request->OnCancel(
      [fired = fired.CopyRef()](const absl::Status&) { fired.emplace(); });
  host->Await(fired.CopyRCRef());
  EXPECT_TRUE(request->IsCancelled());
}

struct Counter {
  explicit Counter(int start) : value(start) {}
  int value;
};

struct Tracked {
  explicit Tracked(std::vector<std::string>* log, std::string name)
      : log(log), name(std::move(name)) {}
  ~Tracked() { log->push_back(name); }
  std::vector<std::string>* log;
  std::string name;
};

TEST(RequestContextTest, ResourcesLiveAsLongAsTheRequest) {
  auto host = MakeHost();
  std::vector<std::string> destroyed;
  {
    RCReference<RequestContext> request = RequestContext::Create(host.get());
    ResourceContext& resources = request->resources();
    Counter* counter = resources.GetOrCreateResource<Counter>(
        "counter", [] { return std::make_unique<Counter>(5); });
    ASSERT_NE(counter, nullptr);
    counter->value++;
    EXPECT_EQ(resources.GetResource<Counter>("counter")->value, 6);
    // Same name, same object; the factory does not run again.
    EXPECT_EQ(resources.GetOrCreateResource<Counter>(
                  "counter", [] { return std::make_unique<Counter>(0); }),
              counter);
    // Same name, other type: refused.
    EXPECT_EQ(resources.GetResource<Tracked>("counter"), nullptr);
    EXPECT_EQ(resources.GetResource<Counter>("missing"), nullptr);
    resources.GetOrCreateResource<Tracked>(
        "a", [&] { return std::make_unique<Tracked>(&destroyed, "a"); });
    resources.GetOrCreateResource<Tracked>(
        "b", [&] { return std::make_unique<Tracked>(&destroyed, "b"); });
    EXPECT_EQ(resources.size(), 3u);
    EXPECT_TRUE(destroyed.empty());
  }
  EXPECT_EQ(destroyed, (std::vector<std::string>{"b", "a"}));
}

// A resource held by unique_ptr is freed when its value's last reference
// goes, also when the request that made it was cancelled and nothing ran
// that would have freed it.
TEST(RequestContextTest, UniquePtrPayloadFreedAfterCancellation) {
  auto host = MakeHost();
  std::vector<std::string> destroyed;
  RCReference<RequestContext> request = RequestContext::Create(host.get());
  AsyncValueRef<std::unique_ptr<Tracked>> resource =
      MakeAvailableAsyncValueRef<std::unique_ptr<Tracked>>(
          std::make_unique<Tracked>(&destroyed, "resource"));
  // The kernel that would deallocate it waits on an input that never comes.
  AsyncValueRef<Chain> never = MakeUnconstructedAsyncValueRef<Chain>();
  never.AndThen([held = resource.CopyRef()] { (void)held; });
  request->Cancel();
  resource = nullptr;
  EXPECT_TRUE(destroyed.empty());  // the pending waiter still holds it
  never = nullptr;                 // the request's values go away
  EXPECT_EQ(destroyed, (std::vector<std::string>{"resource"}));
}

}  // namespace
}  // namespace sluice
