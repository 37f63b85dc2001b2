// A replica group of one process for the manager's integration tests: a
// state of --floats f32 values that starts as the state of --start_step,
// trained until step --until_step under the lighthouse --lighthouse: each
// step joins a quorum (healing when behind), allreduces a gradient of at
// most 1024 values, votes and, when the step commits, adds the average,
// repeated, to the state. It prints what a test
// checks, one line each:
//
//   quorum generation=G rank=R size=S max_step=M healed_from=ID at_ms=U
//   state step=S crc=HEX v1=X       (at the start, after a heal and after
//                                    each commit: checksum, second value)
//   allreduce_error step=S ms=T at_ms=U error=MESSAGE
//   commit step=S generation=G commit=0|1 at_ms=U
//   quorum_error: MESSAGE
//   replica ID drained by the operator at step S   (then exits 0)
//   serving bytes=N at_ms=U         (its state saved for a healing peer)
//
// where U is the wall clock in Unix milliseconds, for a test to time
// events against its own clock. --report_error_at_step=S reports an error
// after the allreduce of step S (once); --hang_at_step=S stops before the
// allreduce of step S until the process is killed; --pause_at_step=S
// sleeps --pause_ms before it (once, printing "pausing step=S"), for a
// test to cut the network meanwhile; --min_step_ms=T makes each step last
// at least T, so that a replica stays in training while a peer rejoins;
// --commit_timeout_ms bounds each commit vote; --heal_in_background=1 heals
// while the group trains on (ManagerOptions::heal_in_background), keeping
// the updates of the steps it heals through and re-applying them once the
// state is loaded ("replayed from=S count=N at_ms=U").
// The quorum line also says "contributors=C healing=0|1".
// Exits 0 after committing --until_step, 1 on an error it cannot retry.
#include <sys/prctl.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "lib/support/crc32.h"
#include "sluice/collective/collective_group.h"
#include "sluice/ft/manager.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/support/fault_point.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice::ft {
namespace {

constexpr int64_t kGradientFloats = 1024;

struct Flags {
  std::string lighthouse;
  std::string replica_id;
  int64_t floats = 1 << 20;
  int64_t start_step = 0;
  int64_t until_step = 3;
  int64_t report_error_at_step = -1;
  int64_t hang_at_step = -1;
  int64_t pause_at_step = -1;
  int64_t pause_ms = 0;
  int64_t min_step_ms = 0;
  int64_t collective_timeout_ms = 60000;
  int64_t commit_timeout_ms = 30000;
  int64_t heal_in_background = 0;
};

long long NowMs() { return absl::ToUnixMillis(absl::Now()); }

// The state every replica holds at `step` when no step failed: the same
// function on every replica, so replicas that start at the same step agree.
std::vector<float> InitialState(int64_t step, int64_t n) {
  std::vector<float> state(n);
  for (int64_t i = 0; i < n; ++i) {
    state[i] = static_cast<float>((i % 97) * 0.25 + step);
  }
  return state;
}

class VectorState final : public ReplicaState {
 public:
  explicit VectorState(std::vector<float> values)
      : values_(std::move(values)) {}

  absl::StatusOr<std::string> Save() override {
    std::lock_guard<std::mutex> lock(mu_);
    std::printf("serving bytes=%zu at_ms=%lld\n",
                values_.size() * sizeof(float), NowMs());
    std::fflush(stdout);
    return std::string(reinterpret_cast<const char*>(values_.data()),
                       values_.size() * sizeof(float));
  }
  absl::Status Load(std::string_view bytes) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (bytes.size() != values_.size() * sizeof(float)) {
      return absl::InvalidArgumentError("state of another size");
    }
    std::memcpy(values_.data(), bytes.data(), bytes.size());
    return absl::OkStatus();
  }
  // Adds `update`, repeated over the state, to the state.
  void Apply(absl::Span<const float> update) {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 0; i < values_.size(); ++i) {
      values_[i] += update[i % update.size()];
    }
  }
  // "state step=S crc=HEX v1=X": the checksum and the second value.
  void Print(int64_t step) {
    std::lock_guard<std::mutex> lock(mu_);
    const uint32_t crc =
        Crc32(std::string_view(reinterpret_cast<const char*>(values_.data()),
                               values_.size() * sizeof(float)));
    std::printf("state step=%lld crc=%08x v1=%g\n",
                static_cast<long long>(step), crc,
                values_.size() > 1 ? values_[1] : 0.0f);
    std::fflush(stdout);
  }

 private:
  std::mutex mu_;
  std::vector<float> values_;
};

bool ParseFlags(int argc, char** argv, Flags* flags) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const size_t eq = arg.find('=');
    if (arg.rfind("--", 0) != 0 || eq == std::string_view::npos) return false;
    const std::string name(arg.substr(2, eq - 2));
    const std::string value(arg.substr(eq + 1));
    if (name == "lighthouse") {
      flags->lighthouse = value;
    } else if (name == "replica_id") {
      flags->replica_id = value;
    } else {
      int64_t* target =
          name == "floats"                  ? &flags->floats
          : name == "start_step"            ? &flags->start_step
          : name == "until_step"            ? &flags->until_step
          : name == "report_error_at_step"  ? &flags->report_error_at_step
          : name == "hang_at_step"          ? &flags->hang_at_step
          : name == "pause_at_step"         ? &flags->pause_at_step
          : name == "pause_ms"              ? &flags->pause_ms
          : name == "min_step_ms"           ? &flags->min_step_ms
          : name == "collective_timeout_ms" ? &flags->collective_timeout_ms
          : name == "commit_timeout_ms"     ? &flags->commit_timeout_ms
          : name == "heal_in_background"    ? &flags->heal_in_background
                                            : nullptr;
      if (target == nullptr || !absl::SimpleAtoi(value, target)) return false;
    }
  }
  return !flags->lighthouse.empty() && !flags->replica_id.empty();
}

int Run(const Flags& flags) {
  std::unique_ptr<HostAllocator> allocator = CreateMallocAllocator();
  VectorState state(InitialState(flags.start_step, flags.floats));
  ManagerOptions options;
  options.lighthouses = absl::StrSplit(flags.lighthouse, ',');
  options.replica_id = flags.replica_id;
  options.quorum_timeout = absl::Seconds(30);
  options.collective_timeout = absl::Milliseconds(flags.collective_timeout_ms);
  options.heal_timeout = absl::Seconds(30);
  options.commit_timeout = absl::Milliseconds(flags.commit_timeout_ms);
  options.heal_in_background = flags.heal_in_background != 0;
  absl::StatusOr<std::unique_ptr<Manager>> manager =
      Manager::Create(options, &state);
  if (!manager.ok()) {
    std::printf("manager_error: %s\n", manager.status().ToString().c_str());
    return 1;
  }
  // The gradient of a replica: its own values, so the sum depends on who
  // took part. At most kGradientFloats: the state may be large, the
  // allreduce need not be (a large one is very slow under ThreadSanitizer,
  // which sees the uninstrumented Gloo's copies).
  const int64_t gradient_floats = std::min(flags.floats, kGradientFloats);
  std::vector<float> gradient(gradient_floats);
  for (int64_t i = 0; i < gradient_floats; ++i) {
    gradient[i] = static_cast<float>((i % 13) + flags.replica_id.size());
  }
  const std::vector<float> zeros(gradient_floats, 0.0f);
  int64_t step = flags.start_step;
  state.Print(step);
  // Healing in the background: the updates of the steps it heals through,
  // by the step they apply to.
  bool healing = false;
  std::vector<std::pair<int64_t, std::vector<float>>> kept;
  bool reported = false;
  bool paused = false;
  int quorum_failures = 0;
  while (step < flags.until_step) {
    const absl::Time step_start = absl::Now();
    absl::StatusOr<QuorumView> view = (*manager)->StartQuorum(step);
    if (!view.ok() && IsDrainedByOperator(view.status())) {
      std::printf("replica %s drained by the operator at step %lld\n",
                  flags.replica_id.c_str(), static_cast<long long>(step));
      std::fflush(stdout);
      return 0;
    }
    if (!view.ok()) {
      std::printf("quorum_error: %s\n", view.status().ToString().c_str());
      std::fflush(stdout);
      if (++quorum_failures > 5) return 1;
      continue;
    }
    std::printf(
        "quorum generation=%lld rank=%d size=%d max_step=%lld "
        "healed_from=%s contributors=%d healing=%d at_ms=%lld\n",
        static_cast<long long>(view->generation), view->rank, view->size,
        static_cast<long long>(view->max_step), view->healed_from.c_str(),
        view->contributors, view->healing ? 1 : 0, NowMs());
    if (view->loaded_step >= 0) {
      int replayed = 0;
      for (const auto& [kept_step, update] : kept) {
        if (kept_step < view->loaded_step) continue;
        state.Apply(update);
        ++replayed;
      }
      kept.clear();
      std::printf("replayed from=%lld count=%d at_ms=%lld\n",
                  static_cast<long long>(view->loaded_step), replayed, NowMs());
      state.Print(step);
    } else if (!view->healed_from.empty()) {
      step = view->max_step;
      state.Print(step);
    }
    if (view->healing && !healing) step = view->max_step;
    healing = view->healing;
    std::fflush(stdout);
    if (step == flags.hang_at_step) {
      std::printf("hanging step=%lld\n", static_cast<long long>(step));
      std::fflush(stdout);
      for (;;) absl::SleepFor(absl::Seconds(1));
    }
    if (step == flags.pause_at_step && !paused) {
      paused = true;
      std::printf("pausing step=%lld\n", static_cast<long long>(step));
      std::fflush(stdout);
      absl::SleepFor(absl::Milliseconds(flags.pause_ms));
    }
    std::vector<float> update;
    // A state being healed has no gradient of its own yet.
    absl::StatusOr<DenseHostTensor> input = DenseHostTensor::FromValues<float>(
        TensorShape({gradient_floats}), healing ? zeros : gradient,
        allocator.get());
    if (!input.ok()) return 1;
    const absl::Time start = absl::Now();
    absl::StatusOr<DenseHostTensor> sum = view->group->AllReduce(
        *input, ccl::ReduceOp::kSum, options.collective_timeout);
    if (!sum.ok()) {
      std::printf("allreduce_error step=%lld ms=%lld at_ms=%lld error=%s\n",
                  static_cast<long long>(step),
                  static_cast<long long>(
                      absl::ToInt64Milliseconds(absl::Now() - start)),
                  NowMs(), sum.status().ToString().c_str());
      std::fflush(stdout);
      (*manager)->ReportError(sum.status());
    } else {
      update.assign(sum->values<float>().begin(), sum->values<float>().end());
      // The average over the replicas that contributed.
      for (float& u : update) u = u / view->contributors * 0.125f;
    }
    // A failure of this replica's own (bad data, say) after a collective
    // that worked.
    if (step == flags.report_error_at_step && !reported) {
      reported = true;
      (*manager)->ReportError(absl::InternalError("the step's data was bad"));
    }
    absl::StatusOr<bool> commit = (*manager)->ShouldCommit(step);
    std::printf("commit step=%lld generation=%lld commit=%d at_ms=%lld\n",
                static_cast<long long>(step),
                static_cast<long long>(view->generation),
                commit.ok() && *commit ? 1 : 0, NowMs());
    if (commit.ok() && *commit) {
      if (update.empty()) {
        std::printf("bug: step %lld committed after a failed step\n",
                    static_cast<long long>(step));
        return 1;
      }
      if (healing) {
        kept.emplace_back(step, std::move(update));
        ++step;
      } else {
        state.Apply(update);
        ++step;
        state.Print(step);
      }
    }
    std::fflush(stdout);
    absl::SleepFor(absl::Milliseconds(flags.min_step_ms) -
                   (absl::Now() - step_start));
  }
  return 0;
}

}  // namespace
}  // namespace sluice::ft

int main(int argc, char** argv) {
  // A test that runs this as another user (setpriv) loses the death signal
  // it set, which a change of user clears: set again, the replica still
  // dies with the test.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  sluice::ft::Flags flags;
  if (!sluice::ft::ParseFlags(argc, argv, &flags)) {
    std::fprintf(stderr,
                 "usage: manager_replica --lighthouse=ADDRS --replica_id=ID "
                 "[--floats=N --start_step=S --until_step=S "
                 "--report_error_at_step=S --hang_at_step=S "
                 "--pause_at_step=S --pause_ms=MS --min_step_ms=MS "
                 "--collective_timeout_ms=MS --commit_timeout_ms=MS]\n");
    return 2;
  }
  if (absl::Status faults = sluice::FaultInjector::InitFromEnvironment();
      !faults.ok()) {
    std::fprintf(stderr, "manager_replica: %s\n", faults.ToString().c_str());
    return 1;
  }
  return sluice::ft::Run(flags);
}
