// Fit: Keras's model.fit for a parameter-server job, on a Coordinator.
//
//   FitModel model{dataset_function,
//                  {ClosureArgument::WorkerIndex(),
//                   ClosureArgument::Of<int64_t>(num_workers)},
//                  train_step, variables, {"loss", "accuracy"}};
//   FitOptions options;
//   options.epochs = 10;
//   options.steps_per_epoch = 400;
//   options.checkpoint_directory = "/ckpt/mlp";
//   options.on_epoch_end = [](const FitMetrics& m) { ... };
//   absl::Status status = Fit(coordinator, model, options);
//   return ExitCodeFor(status);
//
// Each worker builds its own iterator with the dataset function (a
// per-worker dataset). An epoch schedules the step function
// steps_per_epoch times, each call taking a worker's iterator followed by
// the variables; its results are the metrics, averaged over the steps that
// succeeded. The steps run asynchronously between sync points (every
// callback or checkpoint interval, and each epoch's end), where Fit joins
// the coordinator. At a sync point:
//
//   - OUT_OF_RANGE (an iterator ran out) ends the epoch early, as in TF;
//     the next epoch starts from new iterators;
//   - any other error a step failed with stops Fit with that error: a
//     fatal one (the program is wrong), or the job's retryable failure (a
//     parameter server was lost), for which the job's main returns
//     ExitCodeFor(status), the restartable exit code.
//
// Checkpoints hold every variable of the parameter servers (SaveVariables)
// with the epoch and step they were taken at. When the directory holds a
// checkpoint as Fit starts, Fit restores the variables from the newest one
// and continues at the epoch and step it records; training that had
// finished stays finished.
#ifndef SLUICE_COORDINATOR_FIT_H_
#define SLUICE_COORDINATOR_FIT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "sluice/checkpoint/checkpoint.h"
#include "sluice/coordinator/coordinator.h"
#include "sluice/distributed/variable_handle.h"

namespace sluice::dist {

// What a callback receives.
struct FitMetrics {
  // The epoch the steps belong to, from 0.
  int64_t epoch = 0;
  // The position after the last of the steps: epoch * steps_per_epoch +
  // the steps of this epoch scheduled so far (a checkpoint's step).
  int64_t step = 0;
  // How many steps succeeded and were averaged.
  int64_t steps = 0;
  // Each metric's mean over those steps, in FitModel::metric_names order.
  std::vector<std::pair<std::string, double>> values;
};

struct FitModel {
  // Returns one !tfrt_data.iterator; its arguments are values and
  // ClosureArgument::WorkerIndex().
  ClosureFunction dataset_function;
  std::vector<ClosureArgument> dataset_arguments;
  // Takes (!tfrt_data.iterator, !tfrt_dist.variable...) and returns the
  // metrics: one-element tensors or scalars of i32, i64, f32 or f64.
  ClosureFunction step_function;
  std::vector<VariableHandle> variables;
  // One name per result of the step function.
  std::vector<std::string> metric_names;
};

struct FitOptions {
  int64_t epochs = 1;
  // Required, > 0: steps scheduled per epoch, over all workers.
  int64_t steps_per_epoch = 0;
  // Called on the thread that called Fit, after a sync point.
  std::function<void(const FitMetrics&)> on_epoch_end;
  // Called every `callback_every_steps` steps of an epoch (0: never) with
  // the metrics of those steps.
  int64_t callback_every_steps = 0;
  std::function<void(const FitMetrics&)> on_steps;
  // Where checkpoints go; empty: none are written or restored.
  std::string checkpoint_directory;
  // A checkpoint every so many steps of an epoch (0: none mid-epoch),
  // besides one at the end of every epoch.
  int64_t checkpoint_every_steps = 0;
  checkpoint::CheckpointOptions checkpoint;
  // Called on the thread that called Fit just before each checkpoint save
  // and just after it, whether or not it succeeded (e.g. to tell a step
  // monitor that the job is saving).
  std::function<void()> on_checkpoint_begin;
  std::function<void()> on_checkpoint_end;
};

// Trains `model` on the coordinator's workers as described above. OK once
// the last epoch has ended; InvalidArgument for options or a model that do
// not fit (naming which); the checkpoint's or the steps' error otherwise.
absl::Status Fit(Coordinator& coordinator, const FitModel& model,
                 const FitOptions& options);

}  // namespace sluice::dist

#endif  // SLUICE_COORDINATOR_FIT_H_
