// ps_train: the coordinator of the parameter-server example. It loads
// model.sbf (model.mlir, compiled at build time), creates the MLP's variables
// on the ps tasks, trains with Fit on the worker tasks (checkpointing every
// epoch, resuming from the newest checkpoint), and reports the held-out
// accuracy. Its exit status is ExitCodeFor(the job's status): 75 when a restart
// would resume the job. Under sluice_launch it reports its progress to the step
// monitor; run.py starts it with its cluster; see README.md.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "sluice/bef/sbf_reader.h"
#include "sluice/checkpoint/checkpoint.h"
#include "sluice/coordinator/coordinator.h"
#include "sluice/coordinator/fit.h"
#include "sluice/distributed/remote_client.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/monitor/step_reporter.h"
#include "sluice/support/file_reading.h"
#include "sluice/tensor/random.h"
#include "tools/common/flag_checks.h"
#include "tools/common/flags.h"
#include "tools/common/tool_flags.h"

namespace {

using sluice::DenseHostTensor;
using sluice::dist::ClosureArgument;
using sluice::dist::ClosureFunction;
using sluice::dist::Coordinator;
using sluice::dist::VariableHandle;
using sluice::tools::InRange;

sluice::tools::FlagSet flags;
sluice::tools::Flag<std::string> model_path(
    flags, "model",
    "model.sbf, the compiled model.mlir (required; bazel build "
    "//examples/ps_training:model_sbf)");
sluice::tools::Flag<std::string> cluster(
    flags, "cluster",
    "cluster spec with worker and ps jobs, JSON or @file (default: "
    "$SLUICE_CLUSTER)");
// Epochs times steps stay far inside int64_t, in which Fit counts steps.
constexpr int64_t kMaxEpochs = 1000000;
constexpr int64_t kMaxSteps = 1000000000;

sluice::tools::Flag<int64_t> epochs(flags, "epochs", "epochs to train", 10,
                                    InRange(int64_t{0}, kMaxEpochs));
sluice::tools::Flag<int64_t> steps_per_epoch(
    flags, "steps_per_epoch",
    "steps of 64 examples per epoch, over all workers", 1562,
    InRange(int64_t{1}, kMaxSteps));
sluice::tools::Flag<std::string> checkpoint_dir(
    flags, "checkpoint_dir", "where checkpoints go (default: none)");
sluice::tools::Flag<int64_t> checkpoint_every_steps(
    flags, "checkpoint_every_steps",
    "also checkpoint every N steps of an epoch (default 0: never)", 0,
    InRange(int64_t{0}, kMaxSteps));
sluice::tools::Flag<uint64_t> seed(flags, "seed", "seed of the initial weights",
                                   1);
sluice::tools::Flag<double> closure_deadline(
    flags, "closure_deadline_s",
    "seconds before a silent worker's step goes elsewhere", 10,
    InRange(sluice::tools::kMinSeconds, sluice::tools::kMaxSeconds));
sluice::tools::Flag<int64_t> signal_every_steps(
    flags, "signal_every_steps",
    "under a step monitor (SLUICE_MONITOR): a monitored step per this many "
    "training steps, each a sync point of Fit",
    50, InRange(int64_t{1}, kMaxSteps));

// The layer sizes; model.mlir's shapes.
constexpr int64_t kFeatures = 16;
constexpr int64_t kHidden = 32;
constexpr int64_t kClasses = 8;
// Evaluation closures, each on a quarter of the held-out examples.
constexpr int64_t kEvaluationShards = 4;

// The phase a checkpoint save is to the step monitor.
constexpr char kCheckpointPhase[] = "checkpoint save";

// The step monitor's view of the run: one monitored step per Fit sync
// window (the monitor cannot see the asynchronous steps inside one). The
// first monitored step, declared "first", also covers the start-up:
// compiling, connecting, creating the variables and restoring a
// checkpoint. Each checkpoint save is a phase between two monitored steps,
// so that the monitor bounds it by the phase's limit rather than a step's
// (a save that ends an epoch leaves an empty step behind it). Each epoch's
// end closes the window it ends; the window after the last epoch covers
// the evaluation. Without a monitor it does nothing.
class StepSignals {
 public:
  explicit StepSignals(sluice::monitor::StepReporter* reporter)
      : reporter_(reporter) {
    if (reporter_) Begin("first");
  }

  bool active() const { return reporter_ != nullptr; }

  // Fit's on_steps: a window inside an epoch ended (the one ending with the
  // epoch is closed by EpochEnded).
  void WindowEnded(const sluice::dist::FitMetrics& metrics) {
    if (!reporter_ || metrics.step % *steps_per_epoch == 0) return;
    End();
    Begin();
  }

  void CheckpointBegan() {
    if (!reporter_) return;
    End();
    reporter_->PhaseBegin(kCheckpointPhase);
  }

  void CheckpointEnded() {
    if (!reporter_) return;
    reporter_->PhaseEnd();
    Begin();
  }

  void EpochEnded(int64_t epoch) {
    if (!reporter_) return;
    End();
    reporter_->EpochEnd(epoch);
    Begin();
  }

  void TrainEnded() {
    if (!reporter_) return;
    End();
    reporter_->TrainEnd();
  }

 private:
  void Begin(std::string_view kind = "") {
    reporter_->StepBegin(step_, kind);
    step_open_ = true;
  }

  void End() {
    if (!step_open_) return;
    reporter_->StepEnd(step_++);
    step_open_ = false;
  }

  sluice::monitor::StepReporter* const reporter_;
  int64_t step_ = 0;
  bool step_open_ = false;
};

// A parameter server that stops answering (a stopped or hung process)
// stalls every step that reads or updates its variables. Unless its
// connections are given up first (the liveness timeout), the coordinator
// sees the workers miss the closure deadline and counts worker failures,
// naming no parameter server. This watch asks each parameter server for
// its status every half second, so that the summary and the error can name
// the one that stopped answering, and count the worker failures that came
// while it did as its own.
class ParameterServerWatch {
 public:
  ParameterServerWatch(const sluice::dist::ClusterSpec& spec,
                       sluice::HostContext* host, Coordinator& coordinator)
      : client_(spec, sluice::dist::RpcOptions(), host),
        host_(host),
        coordinator_(coordinator),
        closure_deadline_(coordinator.options().closure_deadline),
        tasks_(coordinator.variables().ps_tasks()) {
    thread_ = std::thread([this] { Run(); });
  }

  ~ParameterServerWatch() {
    stopping_.Notify();
    thread_.join();
  }

  // The worker failures that were not a parameter server's stall.
  int64_t WorkerFailures() const {
    std::lock_guard<std::mutex> lock(mu_);
    int64_t failures = coordinator_.stats().worker_failures;
    for (const auto& [task, stall] : stalls_) failures -= stall.worker_failures;
    return std::max<int64_t>(failures, 0);
  }

  // "; parameter server /job:ps/task:0 did not answer for 14.0 s (1 worker
  // failure was a step waiting on it)" per parameter server that went
  // unanswered for kReportedStall or longer; empty when none did.
  std::string Stalls() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::string text;
    for (const auto& [task, stall] : stalls_) {
      if (stall.longest < kReportedStall) continue;
      absl::StrAppend(
          &text, "; parameter server ", task, " did not answer for ",
          absl::StrFormat("%.1f s", absl::ToDoubleSeconds(stall.longest)),
          stall.ongoing ? " and still does not" : "");
      if (stall.worker_failures > 0) {
        absl::StrAppend(&text, " (", stall.worker_failures,
                        stall.worker_failures == 1
                            ? " worker failure was a step"
                            : " worker failures were steps",
                        " waiting on it)");
      }
    }
    return text;
  }

 private:
  // A probe answered within kProbeDeadline; a stall is reported once it
  // lasted two of them, so that one slow answer on a busy host is not.
  static constexpr absl::Duration kProbeInterval = absl::Milliseconds(500);
  static constexpr absl::Duration kProbeDeadline = absl::Seconds(1);
  static constexpr absl::Duration kReportedStall = absl::Seconds(2);

  struct Stall {
    bool ongoing = false;
    absl::Time since;
    absl::Duration longest;
    int64_t worker_failures = 0;
  };

  void Run() {
    int64_t failures_seen = 0;
    do {
      const absl::Time start = absl::Now();
      std::vector<std::pair<std::string,
                            sluice::AsyncValueRef<sluice::dist::TaskStatus>>>
          probes;
      for (const std::string& task : tasks_) {
        absl::StatusOr<sluice::dist::TaskClient*> client =
            client_.GetTask(task);
        if (!client.ok()) continue;
        probes.emplace_back(task, (*client)->GetStatus(kProbeDeadline));
      }
      for (auto& [task, probe] : probes) host_->Await(probe.CopyRCRef());
      const absl::Time now = absl::Now();
      const int64_t failures = coordinator_.stats().worker_failures;
      std::lock_guard<std::mutex> lock(mu_);
      Stall* stalled = nullptr;
      for (auto& [task, probe] : probes) {
        Stall& stall = stalls_[task];
        if (!probe.IsError()) {
          stall.ongoing = false;
          continue;
        }
        if (!stall.ongoing) {
          stall.ongoing = true;
          stall.since = start;
        }
        stall.longest = std::max(stall.longest, now - stall.since);
        if (stalled == nullptr) stalled = &stall;
      }
      // Workers that missed the closure deadline while a parameter server
      // did not answer, or within a closure deadline after it answered
      // again, were waiting on it: a step sent during the stall may still
      // be queued behind the backlog the server works off once it runs.
      if (stalled != nullptr) {
        last_stalled_ = stalled;
        last_stalled_at_ = now;
      }
      if (last_stalled_ != nullptr &&
          now - last_stalled_at_ <=
              closure_deadline_ + kProbeDeadline + kProbeInterval) {
        last_stalled_->worker_failures += failures - failures_seen;
      }
      failures_seen = failures;
    } while (!stopping_.WaitForNotificationWithTimeout(kProbeInterval));
  }

  sluice::dist::ClusterClient client_;
  sluice::HostContext* const host_;
  const Coordinator& coordinator_;
  const absl::Duration closure_deadline_;
  const std::vector<std::string> tasks_;
  mutable std::mutex mu_;
  std::map<std::string, Stall> stalls_;  // by task; guarded by mu_
  // The Run thread's own: the last stall seen, and when.
  Stall* last_stalled_ = nullptr;
  absl::Time last_stalled_at_;
  absl::Notification stopping_;
  std::thread thread_;
};

// He-initialized weights (normal, stddev sqrt(2 / fan_in)), zero biases.
absl::StatusOr<std::vector<VariableHandle>> CreateVariables(
    Coordinator& coordinator) {
  sluice::HostAllocator* allocator = coordinator.host()->allocator();
  struct Spec {
    const char* name;
    sluice::TensorShape shape;
    double stddev;
  };
  const std::vector<Spec> specs = {
      {"w1", {kFeatures, kHidden}, std::sqrt(2.0 / kFeatures)},
      {"b1", {kHidden}, 0},
      {"w2", {kHidden, kClasses}, std::sqrt(2.0 / kHidden)},
      {"b2", {kClasses}, 0}};
  std::vector<sluice::RCReference<sluice::AsyncValue>> created;
  for (size_t i = 0; i < specs.size(); ++i) {
    absl::StatusOr<DenseHostTensor> initial =
        sluice::RandomNormal(sluice::DType::kF32, specs[i].shape, 0.0,
                             specs[i].stddev, *seed + i, allocator);
    if (!initial.ok()) return initial.status();
    created.push_back(
        coordinator.variables().Create(specs[i].name, *initial).CopyRCRef());
  }
  if (absl::Status done = coordinator.Fetch(created); !done.ok()) return done;
  std::vector<VariableHandle> variables;
  for (const auto& variable : created) {
    variables.push_back(variable->get<VariableHandle>());
  }
  return variables;
}

// The mean accuracy over the evaluation shards.
absl::StatusOr<double> Evaluate(Coordinator& coordinator,
                                const ClosureFunction& evaluate,
                                const std::vector<VariableHandle>& variables) {
  std::vector<sluice::RCReference<sluice::AsyncValue>> accuracies;
  for (int64_t shard = 0; shard < kEvaluationShards; ++shard) {
    std::vector<ClosureArgument> arguments = {
        ClosureArgument::Of(shard), ClosureArgument::Of(kEvaluationShards)};
    for (const VariableHandle& variable : variables) {
      arguments.push_back(ClosureArgument::Of(variable));
    }
    auto results = coordinator.Schedule(evaluate, std::move(arguments));
    if (!results.ok()) return results.status();
    accuracies.push_back(std::move((*results)[0]));
  }
  if (absl::Status joined = coordinator.Join(); !joined.ok()) return joined;
  if (absl::Status done = coordinator.Fetch(accuracies); !done.ok()) {
    return done;
  }
  double sum = 0;
  for (const auto& accuracy : accuracies) {
    sum += accuracy->get<DenseHostTensor>().values<float>()[0];
  }
  return sum / kEvaluationShards;
}

// The coordinator links no compiler, so MLIR source is refused up front
// with how to compile it, rather than later as a bad SBF section.
absl::StatusOr<std::vector<uint8_t>> ReadCompiledModel(
    const std::string& path) {
  absl::StatusOr<std::string> bytes = sluice::ReadRegularFile(path);
  if (!bytes.ok()) return bytes.status();
  std::vector<uint8_t> program(bytes->begin(), bytes->end());
  if (!sluice::bef::HasSbfMagic(program)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--model=", path,
                     " is not a compiled Sluice program (SBF): compile it with "
                     "sluice_translate --mlir-to-sbf, or build "
                     "//examples/ps_training:model_sbf"));
  }
  return program;
}

absl::Status Train(std::string& stalls) {
  StepSignals signals(sluice::monitor::StepReporter::FromEnvironment());
  if (model_path->empty()) {
    return absl::InvalidArgumentError("--model is required");
  }
  absl::StatusOr<std::vector<uint8_t>> compiled =
      ReadCompiledModel(*model_path);
  if (!compiled.ok()) return compiled.status();
  auto program =
      std::make_shared<const std::vector<uint8_t>>(*std::move(compiled));
  auto spec = sluice::dist::ClusterSpec::FromFlagOrEnvironment(*cluster);
  if (!spec.ok()) return spec.status();

  auto work_queue = sluice::CreateWorkQueue("mstd:4");
  if (!work_queue.ok()) return work_queue.status();
  sluice::HostContext host([](const sluice::DecodedDiagnostic&) {},
                           sluice::CreateMallocAllocator(),
                           *std::move(work_queue));
  sluice::dist::CoordinatorOptions options;
  options.closure_deadline = absl::Seconds(*closure_deadline);
  absl::StatusOr<std::unique_ptr<Coordinator>> coordinator =
      Coordinator::Create(*spec, &host, options);
  if (!coordinator.ok()) return coordinator.status();
  ParameterServerWatch watch(*spec, &host, **coordinator);
  // Whatever ends the training, the error names the stalled parameter
  // servers.
  struct NoteStalls {
    ~NoteStalls() { stalls = watch.Stalls(); }
    std::string& stalls;
    const ParameterServerWatch& watch;
  } note_stalls{stalls, watch};

  sluice::dist::FitModel model;
  for (auto [function, name] :
       {std::pair{&model.dataset_function, "train_dataset"},
        {&model.step_function, "train_step"}}) {
    auto found = ClosureFunction::FromProgram(program, name);
    if (!found.ok()) return found.status();
    *function = *found;
  }
  auto evaluate = ClosureFunction::FromProgram(program, "evaluate");
  if (!evaluate.ok()) return evaluate.status();
  model.dataset_arguments = {
      ClosureArgument::WorkerIndex(),
      ClosureArgument::Of<int64_t>((*coordinator)->workers().size())};
  model.metric_names = {"loss", "accuracy"};
  absl::StatusOr<std::vector<VariableHandle>> variables =
      CreateVariables(**coordinator);
  if (!variables.ok()) return variables.status();
  model.variables = *variables;

  if (!checkpoint_dir->empty()) {
    auto saved = sluice::checkpoint::ListCheckpointSteps(*checkpoint_dir);
    if (!saved.ok()) return saved.status();
    if (!saved->empty()) {
      std::printf("resuming from the checkpoint of step %lld in %s\n",
                  static_cast<long long>(saved->front()),
                  checkpoint_dir->c_str());
    }
  }
  sluice::dist::FitOptions fit;
  fit.epochs = *epochs;
  fit.steps_per_epoch = *steps_per_epoch;
  fit.checkpoint_directory = *checkpoint_dir;
  fit.checkpoint_every_steps = *checkpoint_every_steps;
  if (signals.active()) {
    fit.callback_every_steps = *signal_every_steps;
    fit.on_steps = [&signals](const sluice::dist::FitMetrics& metrics) {
      signals.WindowEnded(metrics);
    };
    fit.on_checkpoint_begin = [&signals] { signals.CheckpointBegan(); };
    fit.on_checkpoint_end = [&signals] { signals.CheckpointEnded(); };
  }
  fit.on_epoch_end = [&signals](const sluice::dist::FitMetrics& metrics) {
    signals.EpochEnded(metrics.epoch);
    std::printf("epoch %lld/%lld: loss %.4f accuracy %.4f\n",
                static_cast<long long>(metrics.epoch + 1),
                static_cast<long long>(*epochs), metrics.values[0].second,
                metrics.values[1].second);
    std::fflush(stdout);
  };
  if (absl::Status fitted = Fit(**coordinator, model, fit); !fitted.ok()) {
    return fitted;
  }
  absl::StatusOr<double> accuracy =
      Evaluate(**coordinator, *evaluate, model.variables);
  if (!accuracy.ok()) return accuracy.status();
  std::printf("held-out accuracy %.4f\n", *accuracy);
  const sluice::dist::CoordinatorStats stats = (*coordinator)->stats();
  std::printf("closures %lld, retried %lld, worker failures %lld%s\n",
              static_cast<long long>(stats.finished),
              static_cast<long long>(stats.retried),
              static_cast<long long>(watch.WorkerFailures()),
              watch.Stalls().c_str());
  signals.TrainEnded();
  return absl::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  // Progress lines go out as they happen, also into a pipe (run.py, the
  // launcher), where stdout would otherwise be fully buffered.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  sluice::tools::ParseToolCommandLine(
      argc, argv, "ps_train",
      "ps_train: trains examples/ps_training/model.mlir, compiled to "
      "model.sbf, on a cluster's "
      "worker and ps jobs; exits 75 when restarting it would resume\n",
      flags);
  std::string stalls;
  absl::Status status = Train(stalls);
  if (!status.ok()) {
    std::fprintf(stderr, "ps_train: %s%s\n",
                 std::string(status.message()).c_str(), stalls.c_str());
  }
  std::fflush(stdout);
  return sluice::dist::ExitCodeFor(status);
}
