#include "sluice/host_context/async_value.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/run_when_ready.h"

namespace sluice {
namespace {

// Counts live instances so tests can see exactly when payloads die.
struct Counted {
  static inline std::atomic<int> alive{0};
  explicit Counted(int v) : value(v) { ++alive; }
  Counted(const Counted& o) : value(o.value) { ++alive; }
  ~Counted() { --alive; }
  int value;
};

TEST(AsyncValueTest, AvailableValueHoldsPayload) {
  AsyncValueRef<int> v = MakeAvailableAsyncValueRef<int>(42);
  EXPECT_TRUE(v.IsAvailable());
  EXPECT_TRUE(v.IsConcrete());
  EXPECT_FALSE(v.IsError());
  EXPECT_EQ(v.get(), 42);
  EXPECT_TRUE(v.IsUnique());
}

// Code that knows a payload's type only by its identity finds the payload
// where get<T>() does.
template <typename T>
void ExpectPayloadAt(T value) {
  AsyncValueRef<T> ref = MakeAvailableAsyncValueRef<T>(value);
  AsyncValue* av = ref.GetAsyncValue();
  EXPECT_TRUE(av->HoldsConcrete(&ConcreteAsyncValue<T>::kTypeInfo));
  EXPECT_FALSE(av->HoldsConcrete(&ConcreteAsyncValue<char>::kTypeInfo));
  EXPECT_EQ(av->payload_address(), static_cast<void*>(&av->get<T>()));
}

TEST(AsyncValueTest, PayloadAddressOfSmallTypes) {
  ExpectPayloadAt<bool>(true);
  ExpectPayloadAt<int8_t>(-4);
  ExpectPayloadAt<int32_t>(42);
  ExpectPayloadAt<int64_t>(-42);
  ExpectPayloadAt<float>(1.5f);
  ExpectPayloadAt<double>(2.5);
  ExpectPayloadAt<Chain>(Chain{});
  ExpectPayloadAt<void*>(nullptr);

  AsyncValueRef<int32_t> unavailable =
      MakeUnconstructedAsyncValueRef<int32_t>();
  EXPECT_FALSE(unavailable.GetAsyncValue()->HoldsConcrete(
      &ConcreteAsyncValue<int32_t>::kTypeInfo));
  RCReference<AsyncValue> error =
      MakeErrorAsyncValueRef(absl::InternalError("no payload"));
  EXPECT_FALSE(error->HoldsConcrete(&ConcreteAsyncValue<int32_t>::kTypeInfo));
}

TEST(AsyncValueTest, StatesOfUnconstructedConstructedConcrete) {
  AsyncValueRef<std::string> v = MakeUnconstructedAsyncValueRef<std::string>();
  EXPECT_TRUE(v.GetAsyncValue()->IsUnconstructed());
  v.GetAsyncValue()->ConstructPayload<std::string>("abc");
  EXPECT_TRUE(v.GetAsyncValue()->IsConstructed());
  EXPECT_FALSE(v.IsAvailable());
  int runs = 0;
  v.AndThen([&] { ++runs; });
  EXPECT_EQ(runs, 0);
  v.SetStateConcrete();
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(v.get(), "abc");
}

TEST(AsyncValueTest, LastReferenceDestroysPayload) {
  ASSERT_EQ(Counted::alive, 0);
  {
    AsyncValueRef<Counted> a = MakeAvailableAsyncValueRef<Counted>(7);
    AsyncValueRef<Counted> b = a.CopyRef();
    EXPECT_EQ(Counted::alive, 1);
    EXPECT_EQ(a.GetAsyncValue()->NumRef(), 2u);
    a = nullptr;
    EXPECT_EQ(Counted::alive, 1);
    EXPECT_EQ(b->value, 7);
  }
  EXPECT_EQ(Counted::alive, 0);
}

TEST(AsyncValueTest, UnresolvedValueWithWaitersFreesThem) {
  auto payload = std::make_shared<int>(1);
  {
    AsyncValueRef<int> v = MakeUnconstructedAsyncValueRef<int>();
    v.AndThen([payload] {});
    EXPECT_EQ(payload.use_count(), 2);
  }
  EXPECT_EQ(payload.use_count(), 1);
}

TEST(AsyncValueTest, WaitersRunOnceInOrder) {
  AsyncValueRef<int> v = MakeUnconstructedAsyncValueRef<int>();
  std::vector<int> order;
  for (int i = 0; i < 5; ++i) v.AndThen([&order, i] { order.push_back(i); });
  v.emplace(3);
  v.AndThen([&order] { order.push_back(99); });
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 99}));
}

TEST(AsyncValueTest, ErrorValue) {
  AsyncValueRef<int> v = MakeUnconstructedAsyncValueRef<int>();
  v.SetError(absl::InternalError("boom"));
  EXPECT_TRUE(v.IsError());
  EXPECT_EQ(v.GetError().message(), "boom");
  RCReference<ErrorAsyncValue> e =
      MakeErrorAsyncValueRef(absl::CancelledError("c"));
  EXPECT_EQ(e->GetError().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(e->GetErrorIfPresent()->message(), "c");
}

TEST(AsyncValueTest, ConstructedPayloadDroppedOnError) {
  ASSERT_EQ(Counted::alive, 0);
  AsyncValueRef<Counted> v = MakeConstructedAsyncValueRef<Counted>(1);
  EXPECT_EQ(Counted::alive, 1);
  v.SetError(absl::UnknownError("x"));
  EXPECT_EQ(Counted::alive, 0);
  EXPECT_TRUE(v.IsError());
}

TEST(AsyncValueTest, IndirectForwardsToAvailableAndLaterValues) {
  RCReference<IndirectAsyncValue> ind = MakeIndirectAsyncValue();
  int runs = 0;
  ind->AndThen([&] { ++runs; });
  AsyncValueRef<int> target = MakeUnconstructedAsyncValueRef<int>();
  ind->ForwardTo(target.CopyRCRef());
  EXPECT_FALSE(ind->IsAvailable());
  target.emplace(5);
  EXPECT_EQ(runs, 1);
  EXPECT_TRUE(ind->IsConcrete());
  EXPECT_EQ(ind->get<int>(), 5);
}

TEST(AsyncValueTest, IndirectForwardsToError) {
  RCReference<IndirectAsyncValue> ind = MakeIndirectAsyncValue();
  RCReference<IndirectAsyncValue> ind2 = MakeIndirectAsyncValue();
  ind2->ForwardTo(ind.CopyRef());
  ind->ForwardTo(MakeErrorAsyncValueRef(absl::DataLossError("lost")));
  EXPECT_TRUE(ind->IsError());
  EXPECT_TRUE(ind2->IsError());
  EXPECT_EQ(ind2->GetError().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(ind2->GetError().message(), "lost");
}

TEST(AsyncValueTest, LongChainOfContinuationsDoesNotRecurse) {
  constexpr int kLength = 1000000;
  std::vector<AsyncValueRef<int>> values;
  values.reserve(kLength);
  for (int i = 0; i < kLength; ++i)
    values.push_back(MakeUnconstructedAsyncValueRef<int>());
  for (int i = 0; i + 1 < kLength; ++i) {
    AsyncValue* next = values[i + 1].GetAsyncValue();
    AsyncValue* self = values[i].GetAsyncValue();
    values[i].AndThen(
        [self, next] { next->emplace<int>(self->get<int>() + 1); });
  }
  values[0].emplace(0);
  EXPECT_EQ(values.back().get(), kLength - 1);
}

// A waiter deferred by nested resolution may run after every handle to its
// value is gone; the value must live until it has run.
TEST(AsyncValueTest, DeferredWaiterKeepsItsValueAlive) {
  AsyncValueRef<int> outer = MakeUnconstructedAsyncValueRef<int>();
  AsyncValueRef<Counted> inner = MakeUnconstructedAsyncValueRef<Counted>();
  AsyncValue* inner_raw = inner.GetAsyncValue();
  int seen = -1;
  inner_raw->AndThen(
      [inner_raw, &seen] { seen = inner_raw->get<Counted>().value; });
  outer.AndThen([&inner] {
    inner.emplace(5);  // its waiter is deferred: we are inside a waiter
    inner = nullptr;   // the last handle goes before the waiter runs
  });
  outer.emplace(1);
  EXPECT_EQ(seen, 5);
  EXPECT_EQ(Counted::alive, 0);
}

TEST(AsyncValueTest, CountsLiveInstancesInDebugBuilds) {
  if (!AsyncValue::kCountsInstances)
    GTEST_SKIP() << "counted only without NDEBUG";
  const int64_t before = AsyncValue::NumLiveInstances();
  {
    AsyncValueRef<int> a = MakeAvailableAsyncValueRef<int>(1);
    RCReference<IndirectAsyncValue> b = MakeIndirectAsyncValue();
    RCReference<ErrorAsyncValue> c =
        MakeErrorAsyncValueRef(absl::InternalError("e"));
    EXPECT_EQ(AsyncValue::NumLiveInstances(), before + 3);
    b->ForwardTo(a.CopyRCRef());
  }
  EXPECT_EQ(AsyncValue::NumLiveInstances(), before);
}

TEST(AsyncValueTest, NamedCallbacksAreCopied) {
  AsyncValueRef<int> v = MakeUnconstructedAsyncValueRef<int>();
  int runs = 0;
  auto callback = [&runs] { ++runs; };
  v.AndThen(callback);
  v.AndThen(callback);
  std::vector<RCReference<AsyncValue>> values;
  values.push_back(v.CopyRCRef());
  RunWhenReady(values, callback);
  v.emplace(1);
  EXPECT_EQ(runs, 3);
}

TEST(AsyncValueTest, ManyThreadsAddWaitersWhileAnotherResolves) {
  for (int round = 0; round < 20; ++round) {
    AsyncValueRef<int> v = MakeUnconstructedAsyncValueRef<int>();
    constexpr int kThreads = 4, kPerThread = 500;
    std::vector<std::atomic<int>> runs(kThreads * kPerThread);
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        while (!go.load()) {
        }
        for (int i = 0; i < kPerThread; ++i) {
          v.AndThen([&runs, &v, idx = t * kPerThread + i] {
            EXPECT_EQ(v.get(), 11);
            runs[idx].fetch_add(1);
          });
        }
      });
    }
    std::thread resolver([&] {
      while (!go.load()) {
      }
      v.emplace(11);
    });
    go = true;
    for (auto& t : threads) t.join();
    resolver.join();
    for (auto& r : runs) ASSERT_EQ(r.load(), 1);
  }
}

TEST(RunWhenReadyTest, RunsAfterAllAvailable) {
  std::vector<RCReference<AsyncValue>> values;
  std::vector<AsyncValueRef<int>> typed;
  for (int i = 0; i < 64; ++i) {
    typed.push_back(i % 3 == 0 ? MakeAvailableAsyncValueRef<int>(i)
                               : MakeUnconstructedAsyncValueRef<int>());
    values.push_back(typed.back().CopyRCRef());
  }
  int runs = 0;
  RunWhenReady(values, [&] { ++runs; });
  for (int i = 0; i < 64; ++i) {
    if (i % 3 == 0) continue;
    EXPECT_EQ(runs, 0);
    if (i == 5)
      typed[i].SetError(absl::InternalError("e"));
    else
      typed[i].emplace(i);
  }
  EXPECT_EQ(runs, 1);
  RunWhenReady(values, [&] { ++runs; });
  EXPECT_EQ(runs, 2);
}

}  // namespace
}  // namespace sluice
