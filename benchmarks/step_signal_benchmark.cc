// What a step signal costs the training thread: StepBegin + StepEnd with a
// live monitor in the process (its sender thread streaming batches), and
// with no monitor listening (signals buffered, the oldest dropped).
#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "sluice/monitor/monitor.h"
#include "sluice/monitor/step_reporter.h"

namespace sluice::monitor {
namespace {

void BM_StepBeginEndLiveMonitor(benchmark::State& state) {
  MonitorOptions options;
  auto monitor = MonitorServer::Start("127.0.0.1:0", options);
  if (!monitor.ok()) {
    state.SkipWithError("monitor did not start");
    return;
  }
  auto reporter =
      StepReporter::Connect(absl::StrCat("127.0.0.1:", (*monitor)->port()), 0);
  int64_t step = 0;
  for (auto _ : state) {
    reporter->StepBegin(step);
    reporter->StepEnd(step);
    ++step;
  }
  state.counters["dropped"] = reporter->dropped();
  state.SetItemsProcessed(2 * state.iterations());  // signals
}
BENCHMARK(BM_StepBeginEndLiveMonitor);

void BM_StepBeginEndNoMonitor(benchmark::State& state) {
  auto reporter = StepReporter::Connect("127.0.0.1:1", 0);
  int64_t step = 0;
  for (auto _ : state) {
    reporter->StepBegin(step);
    reporter->StepEnd(step);
    ++step;
  }
  state.SetItemsProcessed(2 * state.iterations());
}
BENCHMARK(BM_StepBeginEndNoMonitor);

}  // namespace
}  // namespace sluice::monitor
