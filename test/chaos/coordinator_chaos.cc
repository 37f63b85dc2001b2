// The coordinator's chaos run: trials of closures that each add 1 to a
// counting variable on a parameter server, while workers are killed
// (SIGKILL) and restarted at random times. Each trial checks that Join
// returns within its bound (no hang) and that the counter is the number of
// closures plus at most the attempts lost to failures (stats().retried):
// a closure runs at least once, and an attempt whose worker died after the
// update and before answering has applied it once more. docs/
// coordinator_chaos.md describes the run and what at-least-once allows.
//
//   coordinator_chaos [--trials=N] [--seed=S] [--closures=N] [--workers=N]
//
// Seeded: the same flags plan the same kills and restarts (when they land
// among the closures depends on the machine). Exits 0 when every trial
// passed; prints a line a trial and a summary.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <future>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "sluice/coordinator/coordinator.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "test/integration/coordinator_cluster.h"
#include "test/integration/remote_test_util.h"

namespace sluice::dist::testing {
namespace {

struct ChaosOptions {
  int trials = 100;
  uint32_t seed = 1;
  int closures = 60;
  int workers = 3;
  // How long one trial may take before it counts as hung.
  absl::Duration trial_bound = absl::Seconds(30);
};

// A worker's SIGKILL and, `restart_after` later, its restart.
struct Kill {
  absl::Duration at;
  int worker;
  absl::Duration restart_after;
};

struct TrialResult {
  bool hung = false;
  absl::Status failure;  // a failed Join or a wrong counter
  int64_t counter = 0;
  int kills = 0;
  CoordinatorStats stats;
  absl::Duration took;
};

bool ParseFlag(std::string_view argument, std::string_view name, int* value) {
  const std::string prefix = absl::StrCat("--", std::string(name), "=");
  if (argument.substr(0, prefix.size()) != prefix) return false;
  return absl::SimpleAtoi(std::string(argument.substr(prefix.size())), value);
}

absl::StatusOr<ChaosOptions> ParseFlags(int argc, char** argv) {
  ChaosOptions options;
  for (int i = 1; i < argc; ++i) {
    int seed = 0;
    const std::string_view argument = argv[i];
    if (ParseFlag(argument, "trials", &options.trials) ||
        ParseFlag(argument, "closures", &options.closures) ||
        ParseFlag(argument, "workers", &options.workers)) {
      continue;
    }
    if (ParseFlag(argument, "seed", &seed)) {
      options.seed = static_cast<uint32_t>(seed);
      continue;
    }
    return absl::InvalidArgumentError(
        absl::StrCat("unknown or malformed flag '", std::string(argument),
                     "' (--trials=N, --seed=S, --closures=N, --workers=N)"));
  }
  if (options.trials < 1 || options.closures < 1 || options.workers < 1) {
    return absl::InvalidArgumentError(
        "--trials, --closures and --workers must be at least 1");
  }
  return options;
}

// 1 to 3 kills in the first 200 ms of the trial, each restarted 20 to 300
// ms later.
std::vector<Kill> PlanKills(std::mt19937& random, int workers) {
  std::uniform_int_distribution<int> count(1, 3);
  std::uniform_int_distribution<int> at_ms(0, 200);
  std::uniform_int_distribution<int> worker(0, workers - 1);
  std::uniform_int_distribution<int> restart_ms(20, 300);
  std::vector<Kill> kills(count(random));
  for (Kill& kill : kills) {
    kill.at = absl::Milliseconds(at_ms(random));
    kill.worker = worker(random);
    kill.restart_after = absl::Milliseconds(restart_ms(random));
  }
  return kills;
}

DenseHostTensor Scalar(HostContext* host, int64_t value) {
  DenseHostTensor tensor = *DenseHostTensor::Create(
      DType::kI64, TensorShape({1}), host->allocator());
  tensor.mutable_values<int64_t>()[0] = value;
  return tensor;
}

template <typename T>
absl::StatusOr<T> Await(AsyncValueRef<T> value) {
  if (!AwaitFor(value.CopyRCRef())) {
    return absl::DeadlineExceededError("the variable request hung");
  }
  if (value.IsError()) return value.GetError();
  return value.get();
}

class ChaosRun {
 public:
  ChaosRun(ChaosOptions options, std::unique_ptr<CoordinatorCluster> cluster)
      : options_(options),
        cluster_(std::move(cluster)),
        host_(MakeClientHost()) {}

  TrialResult RunTrial(int trial);

 private:
  // Runs the kills and restarts of `kills` at their times, from this (the
  // main) thread: workers die with the thread that started them. Returns
  // once every worker runs again.
  void Inflict(const std::vector<Kill>& kills, absl::Time start,
               TrialResult* result);

  const ChaosOptions options_;
  std::unique_ptr<CoordinatorCluster> cluster_;
  std::unique_ptr<HostContext> host_;
};

void ChaosRun::Inflict(const std::vector<Kill>& kills, absl::Time start,
                       TrialResult* result) {
  // Each kill, and each restart of a kill that found its worker running,
  // in time order: (when, which kill, whether it is the kill).
  std::multimap<absl::Duration, std::pair<size_t, bool>> events;
  for (size_t i = 0; i < kills.size(); ++i) {
    events.emplace(kills[i].at, std::make_pair(i, true));
  }
  std::vector<bool> down(cluster_->num_workers(), false);
  while (!events.empty()) {
    auto next = events.begin();
    absl::SleepFor(start + next->first - absl::Now());
    const auto [index, is_kill] = next->second;
    const Kill& kill = kills[index];
    if (is_kill && !down[kill.worker]) {
      cluster_->worker(kill.worker)->Kill();
      down[kill.worker] = true;
      ++result->kills;
      events.emplace(kill.at + kill.restart_after,
                     std::make_pair(index, false));
    } else if (!is_kill) {
      if (absl::Status started = cluster_->StartWorker(kill.worker);
          !started.ok()) {
        result->failure = started;
      }
      down[kill.worker] = false;
    }
    events.erase(next);
  }
}

TrialResult ChaosRun::RunTrial(int trial) {
  TrialResult result;
  std::mt19937 random(options_.seed * 7919u + static_cast<uint32_t>(trial));
  CoordinatorOptions coordinator_options;
  coordinator_options.closure_deadline = absl::Seconds(2);
  coordinator_options.recovery_timeout = absl::Seconds(10);
  coordinator_options.rpc.deadline = absl::Seconds(5);
  absl::StatusOr<std::unique_ptr<Coordinator>> coordinator =
      Coordinator::Create(cluster_->spec(), host_.get(), coordinator_options);
  if (!coordinator.ok()) {
    result.failure = coordinator.status();
    return result;
  }
  absl::StatusOr<VariableHandle> counter = Await(
      (*coordinator)
          ->variables()
          .Create(absl::StrCat("counter_", trial), Scalar(host_.get(), 0)));
  if (!counter.ok()) {
    result.failure = counter.status();
    return result;
  }
  RCReference<AsyncValue> one =
      MakeAvailableAsyncValueRef<DenseHostTensor>(Scalar(host_.get(), 1))
          .ReleaseRCRef();
  const ClosureFunction bump = CoordinatorTestFunction("bump");
  std::uniform_int_distribution<int> sleep_ms(2, 10);

  const absl::Time start = absl::Now();
  for (int i = 0; i < options_.closures; ++i) {
    auto scheduled =
        (*coordinator)
            ->Schedule(bump, {ClosureArgument::Of(*counter), one.CopyRef(),
                              ClosureArgument::Of<int32_t>(sleep_ms(random))});
    if (!scheduled.ok()) {
      result.failure = scheduled.status();
      return result;
    }
  }
  Inflict(PlanKills(random, cluster_->num_workers()), start, &result);

  auto joined = std::make_shared<std::promise<absl::Status>>();
  std::future<absl::Status> join_result = joined->get_future();
  std::thread([coordinator = coordinator->get(), joined] {
    joined->set_value(coordinator->Join());
  }).detach();
  if (join_result.wait_until(absl::ToChronoTime(
          start + options_.trial_bound)) != std::future_status::ready) {
    result.hung = true;
    coordinator->release();  // NOLINT: Join still runs on it
    return result;
  }
  result.took = absl::Now() - start;
  result.stats = (*coordinator)->stats();
  if (absl::Status status = join_result.get(); !status.ok()) {
    result.failure = status;
    return result;
  }
  absl::StatusOr<DenseHostTensor> value =
      Await((*coordinator)->variables().Read(*counter));
  if (!value.ok()) {
    result.failure = value.status();
    return result;
  }
  result.counter = value->values<int64_t>()[0];
  const int64_t extra = result.counter - options_.closures;
  if (extra < 0 || extra > result.stats.retried) {
    result.failure = absl::InternalError(
        absl::StrCat("counter ", result.counter, " after ", options_.closures,
                     " closures with ", result.stats.retried,
                     " attempts lost: at-least-once allows ", options_.closures,
                     " to ", options_.closures + result.stats.retried));
  }
  return result;
}

int Main(int argc, char** argv) {
  absl::StatusOr<ChaosOptions> options = ParseFlags(argc, argv);
  if (!options.ok()) {
    std::fprintf(stderr, "coordinator_chaos: %s\n",
                 std::string(options.status().message()).c_str());
    return 2;
  }
  absl::StatusOr<std::unique_ptr<CoordinatorCluster>> cluster =
      CoordinatorCluster::Reserve(options->workers, /*num_ps=*/1);
  if (cluster.ok()) {
    if (absl::Status started = (*cluster)->StartAll(); !started.ok()) {
      cluster = started;
    }
  }
  if (!cluster.ok()) {
    std::fprintf(stderr, "coordinator_chaos: cannot start the cluster: %s\n",
                 std::string(cluster.status().message()).c_str());
    return 1;
  }
  ChaosRun run(*options, *std::move(cluster));
  int hangs = 0;
  int failures = 0;
  int64_t max_extra = 0;
  int64_t total_extra = 0;
  int64_t total_retried = 0;
  int total_kills = 0;
  absl::Duration longest;
  for (int trial = 0; trial < options->trials; ++trial) {
    TrialResult result = run.RunTrial(trial);
    const int64_t extra = result.counter - options->closures;
    std::printf(
        "trial %d: %s kills=%d attempts=%lld retried=%lld counter=%lld "
        "extra=%lld took=%s%s%s\n",
        trial, result.hung ? "HUNG" : (result.failure.ok() ? "ok" : "FAILED"),
        result.kills, static_cast<long long>(result.stats.attempts),
        static_cast<long long>(result.stats.retried),
        static_cast<long long>(result.counter), static_cast<long long>(extra),
        absl::FormatDuration(result.took).c_str(),
        result.failure.ok() ? "" : ": ",
        std::string(result.failure.message()).c_str());
    std::fflush(stdout);
    if (result.hung) {
      ++hangs;
      break;  // its coordinator still runs: no further trial is clean
    }
    if (!result.failure.ok()) {
      ++failures;
      continue;
    }
    max_extra = std::max(max_extra, extra);
    total_extra += extra;
    total_retried += result.stats.retried;
    total_kills += result.kills;
    longest = std::max(longest, result.took);
  }
  std::printf(
      "coordinator_chaos: %d trials of %d closures on %d workers (seed %u): "
      "%d hung, %d failed; kills %d, attempts lost %lld, extra updates %lld "
      "(max %lld in a trial); longest trial %s\n",
      options->trials, options->closures, options->workers, options->seed,
      hangs, failures, total_kills, static_cast<long long>(total_retried),
      static_cast<long long>(total_extra), static_cast<long long>(max_extra),
      absl::FormatDuration(longest).c_str());
  return hangs == 0 && failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace sluice::dist::testing

int main(int argc, char** argv) {
  return sluice::dist::testing::Main(argc, argv);
}
