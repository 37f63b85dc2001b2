// What the coordinator costs and how it recovers, on sluice_worker
// processes on 127.0.0.1 (test/integration/coordinator_cluster.h):
//   - BM_BareCall vs BM_ScheduleJoin: one closure of `empty` at a time on
//     one worker, as a bare TaskClient::Call and as Schedule + Join;
//   - BM_Throughput/N: batches of 200 `add` closures on N workers, Schedule
//     all then Join (closures/s in items_per_second);
//   - BM_Recovery: a worker SIGKILLed while its 30 ms closure runs, to the
//     closure's value on the other worker; median_ms and max_ms over the
//     iterations, and net_median_ms, less the closure's own fault-free
//     latency (median of BM_Recovery's warm-up runs).
// Times are wall-clock (UseRealTime or manual): the caller mostly waits.
// Run with
//   bazel run -c opt //benchmarks:coordinator_benchmark
// (bazel run finds tools/sluice_worker in the runfiles; elsewhere set
// SLUICE_WORKER_BINARY).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "benchmark/benchmark.h"
#include "sluice/coordinator/coordinator.h"
#include "sluice/distributed/remote_client.h"
#include "test/integration/coordinator_cluster.h"
#include "test/integration/remote_test_util.h"

namespace sluice::dist::testing {
namespace {

constexpr int kWorkers = 4;
constexpr int kBatch = 200;

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "coordinator_benchmark: %s\n", message.c_str());
  std::exit(1);
}

void Check(const absl::Status& status, std::string_view what) {
  if (!status.ok()) {
    Die(absl::StrCat(std::string(what), ": ", std::string(status.message())));
  }
}

// The workers, started once from the main thread (workers die with the
// thread that started them), and the client host.
struct Setup {
  std::unique_ptr<CoordinatorCluster> cluster;
  std::unique_ptr<HostContext> host;
};

Setup& GetSetup() {
  static Setup* const setup = [] {
    if (std::getenv("SLUICE_WORKER_BINARY") == nullptr &&
        std::getenv("TEST_SRCDIR") == nullptr &&
        access("tools/sluice_worker/sluice_worker", X_OK) == 0) {
      setenv("SLUICE_WORKER_BINARY", "tools/sluice_worker/sluice_worker", 0);
    }
    auto* setup = new Setup();
    absl::StatusOr<std::unique_ptr<CoordinatorCluster>> cluster =
        CoordinatorCluster::Reserve(kWorkers, /*num_ps=*/0);
    Check(cluster.status(), "reserving ports");
    setup->cluster = *std::move(cluster);
    Check(setup->cluster->StartAll(), "starting the workers");
    setup->host = MakeClientHost();
    return setup;
  }();
  return *setup;
}

// The spec of the first `n` workers.
ClusterSpec FirstWorkers(int n) {
  const std::vector<std::string>& all =
      GetSetup().cluster->spec().jobs().at("worker");
  return WorkerCluster(std::vector<std::string>(all.begin(), all.begin() + n));
}

std::unique_ptr<Coordinator> MakeCoordinator(int workers) {
  absl::StatusOr<std::unique_ptr<Coordinator>> coordinator =
      Coordinator::Create(FirstWorkers(workers), GetSetup().host.get());
  Check(coordinator.status(), "creating the coordinator");
  return *std::move(coordinator);
}

void ScheduleOrDie(Coordinator& coordinator, const ClosureFunction& function,
                   std::vector<ClosureArgument> arguments) {
  Check(coordinator.Schedule(function, std::move(arguments)).status(),
        "Schedule");
}

void BM_BareCall(benchmark::State& state) {
  HostContext* host = GetSetup().host.get();
  ClusterClient client(FirstWorkers(1), RpcOptions(), host);
  TaskClient* task = *client.GetTask(TaskName("worker", 0));
  AsyncValueRef<RemoteProgram> program =
      task->RegisterProgram(*CoordinatorTestProgram());
  host->Await(program.CopyRCRef());
  if (program.IsError()) Die(std::string(program.GetError().message()));
  const RemoteFunction empty = *program->GetFunction("empty");
  for (auto _ : state) {
    std::vector<RCReference<AsyncValue>> results =
        task->Call(empty, {}, /*request=*/nullptr);
    host->Await(results);
    if (results[0]->IsError())
      Die(std::string(results[0]->GetError().message()));
  }
}
BENCHMARK(BM_BareCall)->UseRealTime();

void BM_ScheduleJoin(benchmark::State& state) {
  std::unique_ptr<Coordinator> coordinator = MakeCoordinator(1);
  const ClosureFunction empty = CoordinatorTestFunction("empty");
  ScheduleOrDie(*coordinator, empty, {});  // registers the program
  Check(coordinator->Join(), "Join");
  for (auto _ : state) {
    ScheduleOrDie(*coordinator, empty, {});
    Check(coordinator->Join(), "Join");
  }
}
BENCHMARK(BM_ScheduleJoin)->UseRealTime();

void BM_Throughput(benchmark::State& state) {
  std::unique_ptr<Coordinator> coordinator =
      MakeCoordinator(static_cast<int>(state.range(0)));
  const ClosureFunction add = CoordinatorTestFunction("add");
  // Every worker registers the program before the clock starts.
  for (int i = 0; i < 4 * kWorkers; ++i) {
    ScheduleOrDie(
        *coordinator, add,
        {ClosureArgument::Of<int32_t>(i), ClosureArgument::Of<int32_t>(1)});
  }
  Check(coordinator->Join(), "Join");
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) {
      ScheduleOrDie(
          *coordinator, add,
          {ClosureArgument::Of<int32_t>(i), ClosureArgument::Of<int32_t>(1)});
    }
    Check(coordinator->Join(), "Join");
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_Throughput)->Arg(1)->Arg(2)->Arg(4)->UseRealTime();

// How long `closure` takes from Schedule to its value; dies on an error.
absl::Duration RunOnce(Coordinator& coordinator,
                       const ClosureFunction& function,
                       std::vector<ClosureArgument> arguments) {
  const absl::Time start = absl::Now();
  absl::StatusOr<std::vector<RCReference<AsyncValue>>> results =
      coordinator.Schedule(function, std::move(arguments));
  Check(results.status(), "Schedule");
  Check(coordinator.Fetch(*results), "the closure");
  return absl::Now() - start;
}

absl::Duration Median(std::vector<absl::Duration> samples) {
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

void BM_Recovery(benchmark::State& state) {
  CoordinatorCluster& cluster = *GetSetup().cluster;
  const ClosureFunction sleep = CoordinatorTestFunction("sleep_then_add");
  auto arguments = [] {
    return std::vector<ClosureArgument>{ClosureArgument::Of<int32_t>(30),
                                        ClosureArgument::Of<int32_t>(1),
                                        ClosureArgument::Of<int32_t>(2)};
  };
  std::vector<absl::Duration> fault_free;
  std::vector<absl::Duration> recoveries;
  {
    std::unique_ptr<Coordinator> coordinator = MakeCoordinator(2);
    for (int i = 0; i < 10; ++i) {
      fault_free.push_back(RunOnce(*coordinator, sleep, arguments()));
    }
  }
  for (auto _ : state) {
    std::unique_ptr<Coordinator> coordinator = MakeCoordinator(2);
    RunOnce(*coordinator, sleep, arguments());  // both agents connected
    const int printed[2] = {cluster.worker(0)->CountOutput("Slept for"),
                            cluster.worker(1)->CountOutput("Slept for")};
    absl::StatusOr<std::vector<RCReference<AsyncValue>>> results =
        coordinator->Schedule(sleep, arguments());
    Check(results.status(), "Schedule");
    int busy = -1;
    while (busy < 0) {
      for (int i = 0; i < 2; ++i) {
        if (cluster.worker(i)->CountOutput("Slept for") > printed[i]) busy = i;
      }
    }
    const absl::Time killed = absl::Now();
    cluster.worker(busy)->Kill();
    Check(coordinator->Fetch(*results), "the closure after the kill");
    const absl::Duration took = absl::Now() - killed;
    state.SetIterationTime(absl::ToDoubleSeconds(took));
    recoveries.push_back(took);
    coordinator.reset();
    Check(cluster.StartWorker(busy), "restarting the worker");
  }
  const absl::Duration median = Median(recoveries);
  state.counters["median_ms"] = absl::ToDoubleMilliseconds(median);
  state.counters["max_ms"] = absl::ToDoubleMilliseconds(
      *std::max_element(recoveries.begin(), recoveries.end()));
  state.counters["closure_ms"] = absl::ToDoubleMilliseconds(Median(fault_free));
  state.counters["net_median_ms"] =
      absl::ToDoubleMilliseconds(median - Median(fault_free));
}
BENCHMARK(BM_Recovery)
    ->Iterations(20)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace sluice::dist::testing
