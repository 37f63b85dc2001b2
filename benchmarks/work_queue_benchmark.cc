// Throughput of the work queues on tiny tasks (each bumps a counter), added
// either by tasks already running on the queue or by one outside thread.
//
// Each task bumps a thread-local counter: a shared atomic would measure the
// cross-core traffic on its cache line rather than the queue.
#include <cstdint>
#include <memory>
#include <string>

#include "benchmark/benchmark.h"
#include "sluice/host_context/concurrent_work_queue.h"

namespace sluice {
namespace {

constexpr int kTasksPerIteration = 1 << 17;

thread_local uint64_t tasks_run = 0;

void TinyTask() {
  ++tasks_run;
  benchmark::DoNotOptimize(tasks_run);
}

std::unique_ptr<ConcurrentWorkQueue> MakeQueue(benchmark::State& state,
                                               const std::string& spec) {
  auto queue = CreateWorkQueue(spec);
  if (!queue.ok()) {
    state.SkipWithError(std::string(queue.status().message()).c_str());
    return nullptr;
  }
  return std::move(*queue);
}

// Spawns `batch` tiny tasks, then queues itself again behind them until
// `remaining` reaches zero: the way a kernel fans out its successors.
void SpawnBatches(ConcurrentWorkQueue* queue, int remaining, int batch) {
  const int now = remaining < batch ? remaining : batch;
  for (int i = 0; i < now; ++i) queue->AddTask(TinyTask);
  remaining -= now;
  if (remaining > 0) {
    queue->AddTask([=] { SpawnBatches(queue, remaining, batch); });
  }
}

void BM_AddedByTasks(benchmark::State& state, const std::string& spec) {
  std::unique_ptr<ConcurrentWorkQueue> queue = MakeQueue(state, spec);
  if (queue == nullptr) return;
  const int batch = static_cast<int>(state.range(0));
  ConcurrentWorkQueue* q = queue.get();
  for (auto _ : state) {
    q->AddTask([=] { SpawnBatches(q, kTasksPerIteration, batch); });
    q->Quiesce();
  }
  state.SetItemsProcessed(state.iterations() * kTasksPerIteration);
}

void BM_AddedFromOutside(benchmark::State& state, const std::string& spec) {
  std::unique_ptr<ConcurrentWorkQueue> queue = MakeQueue(state, spec);
  if (queue == nullptr) return;
  for (auto _ : state) {
    for (int i = 0; i < kTasksPerIteration; ++i) queue->AddTask(TinyTask);
    queue->Quiesce();
  }
  state.SetItemsProcessed(state.iterations() * kTasksPerIteration);
}

// Real time: the work happens on worker threads, not on the one measured.
BENCHMARK_CAPTURE(BM_AddedByTasks, s, std::string("s"))
    ->Arg(256)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_AddedByTasks, mstd_1, std::string("mstd:1"))
    ->Arg(256)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_AddedByTasks, mstd_2, std::string("mstd:2"))
    ->Arg(16)
    ->Arg(256)
    ->Arg(4096)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_AddedFromOutside, s, std::string("s"))->UseRealTime();
BENCHMARK_CAPTURE(BM_AddedFromOutside, mstd_1, std::string("mstd:1"))
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_AddedFromOutside, mstd_2, std::string("mstd:2"))
    ->UseRealTime();

}  // namespace
}  // namespace sluice
