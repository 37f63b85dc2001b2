// Costs of the AsyncValue life cycle and of RunWhenReady.
#include <cstdint>
#include <vector>

#include "benchmark/benchmark.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/run_when_ready.h"

namespace sluice {
namespace {

// Make an available value and drop it.
void BM_AvailableCreateDrop(benchmark::State& state) {
  for (auto _ : state) {
    AsyncValueRef<int32_t> value = MakeAvailableAsyncValueRef<int32_t>(42);
    benchmark::DoNotOptimize(value.GetAsyncValue());
  }
}
BENCHMARK(BM_AvailableCreateDrop);

// Make an unavailable value, add one waiter, resolve it, drop it.
void BM_UnavailableWaiterResolveDrop(benchmark::State& state) {
  int64_t sum = 0;
  for (auto _ : state) {
    AsyncValueRef<int32_t> value = MakeUnconstructedAsyncValueRef<int32_t>();
    AsyncValue* raw = value.GetAsyncValue();
    value.AndThen([raw, &sum] { sum += raw->get<int32_t>(); });
    value.emplace(1);
  }
  benchmark::DoNotOptimize(sum);
}
BENCHMARK(BM_UnavailableWaiterResolveDrop);

// The error path: an error value made and dropped.
void BM_ErrorCreateDrop(benchmark::State& state) {
  const absl::Status error = absl::InternalError("something bad happened");
  for (auto _ : state) {
    RCReference<ErrorAsyncValue> value = MakeErrorAsyncValueRef(error);
    benchmark::DoNotOptimize(value.get());
  }
}
BENCHMARK(BM_ErrorCreateDrop);

// Copy a reference and drop it.
void BM_CopyRef(benchmark::State& state) {
  AsyncValueRef<int32_t> value = MakeAvailableAsyncValueRef<int32_t>(1);
  for (auto _ : state) {
    AsyncValueRef<int32_t> copy = value.CopyRef();
    benchmark::DoNotOptimize(copy.GetAsyncValue());
  }
}
BENCHMARK(BM_CopyRef);

// An indirect value forwarded to an unavailable value, with one waiter on
// the indirect, then the target resolved.
void BM_IndirectForwarding(benchmark::State& state) {
  int64_t sum = 0;
  for (auto _ : state) {
    RCReference<IndirectAsyncValue> indirect = MakeIndirectAsyncValue();
    AsyncValue* raw = indirect.get();
    indirect->AndThen([raw, &sum] { sum += raw->get<int32_t>(); });
    AsyncValueRef<int32_t> target = MakeUnconstructedAsyncValueRef<int32_t>();
    indirect->ForwardTo(target.CopyRCRef());
    target.emplace(1);
  }
  benchmark::DoNotOptimize(sum);
}
BENCHMARK(BM_IndirectForwarding);

// RunWhenReady over N values that all resolve after the call.
void BM_RunWhenReady(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::vector<AsyncValueRef<int32_t>> typed(n);
  std::vector<RCReference<AsyncValue>> values(n);
  int64_t runs = 0;
  for (auto _ : state) {
    for (int i = 0; i < n; ++i) {
      typed[i] = MakeUnconstructedAsyncValueRef<int32_t>();
      values[i] = typed[i].CopyRCRef();
    }
    RunWhenReady(values, [&runs] { ++runs; });
    for (int i = 0; i < n; ++i) typed[i].emplace(i);
  }
  benchmark::DoNotOptimize(runs);
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_RunWhenReady)->Arg(1)->Arg(4)->Arg(64);

// RunWhenReady over N values that are all available already.
void BM_RunWhenReadyAllAvailable(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::vector<RCReference<AsyncValue>> values;
  for (int i = 0; i < n; ++i) {
    values.push_back(MakeAvailableAsyncValueRef<int32_t>(i).ReleaseRCRef());
  }
  int64_t runs = 0;
  for (auto _ : state) RunWhenReady(values, [&runs] { ++runs; });
  benchmark::DoNotOptimize(runs);
}
BENCHMARK(BM_RunWhenReadyAllAvailable)->Arg(1)->Arg(4)->Arg(64);

}  // namespace
}  // namespace sluice
