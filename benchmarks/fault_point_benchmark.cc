// What a fault point costs: off (SLUICE_FAULTS unset), next to a loop that
// does nothing else; armed for another point; and firing an error.
#include "benchmark/benchmark.h"
#include "sluice/support/fault_point.h"
#include "sluice/support/logging.h"

namespace sluice {
namespace {

void BM_BareLoop(benchmark::State& state) {
  for (auto _ : state) {
    bool ok = true;
    benchmark::DoNotOptimize(ok);
  }
}
BENCHMARK(BM_BareLoop);

void BM_FaultPointOff(benchmark::State& state) {
  FaultInjector::Clear();
  for (auto _ : state) {
    bool ok = SLUICE_FAULT_POINT("worker.call.begin").ok();
    benchmark::DoNotOptimize(ok);
  }
}
BENCHMARK(BM_FaultPointOff);

void BM_FaultPointArmedForAnotherPoint(benchmark::State& state) {
  if (!FaultInjector::Set("worker.call.end=error").ok()) {
    state.SkipWithError("bad spec");
    return;
  }
  for (auto _ : state) {
    bool ok = SLUICE_FAULT_POINT("worker.call.begin").ok();
    benchmark::DoNotOptimize(ok);
  }
  FaultInjector::Clear();
}
BENCHMARK(BM_FaultPointArmedForAnotherPoint);

// Without the warning each firing logs, which would be most of the cost.
void BM_FaultPointFiringAnError(benchmark::State& state) {
  SetMinLogLevel(LogSeverity::kError);
  if (!FaultInjector::Set("worker.call.begin=error").ok()) {
    state.SkipWithError("bad spec");
    return;
  }
  for (auto _ : state) {
    bool ok = SLUICE_FAULT_POINT("worker.call.begin").ok();
    benchmark::DoNotOptimize(ok);
  }
  FaultInjector::Clear();
}
BENCHMARK(BM_FaultPointFiringAnError);

}  // namespace
}  // namespace sluice
