// A training rank for the monitor's integration tests: reports through
// StepReporter::FromEnvironment (SLUICE_MONITOR, SLUICE_RANK) steps of
// --step_ms milliseconds, an epoch every --steps_per_epoch steps, until
// --steps steps (then TrainEnd and exit 0), or forever with --steps=0.
// With --pause_after_step=N it pauses --pause_ms milliseconds between step
// N's end and the next step's begin, as a hang between steps (or a slow
// checkpoint save) would, inside the phase --pause_phase when one is named.
#include <cstdio>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/time/clock.h"
#include "sluice/monitor/step_reporter.h"

int main(int argc, char** argv) {
  int64_t steps = 0, step_ms = 10, steps_per_epoch = 10;
  int64_t pause_after_step = -1, pause_ms = 0;
  std::string pause_phase;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const char* name, int64_t* out) {
      const std::string prefix = std::string("--") + name + "=";
      return arg.rfind(prefix, 0) == 0 &&
             absl::SimpleAtoi(arg.substr(prefix.size()), out);
    };
    const std::string phase_prefix = "--pause_phase=";
    if (arg.rfind(phase_prefix, 0) == 0) {
      pause_phase = arg.substr(phase_prefix.size());
      continue;
    }
    if (!value("steps", &steps) && !value("step_ms", &step_ms) &&
        !value("steps_per_epoch", &steps_per_epoch) &&
        !value("pause_after_step", &pause_after_step) &&
        !value("pause_ms", &pause_ms)) {
      std::fprintf(stderr, "monitored_rank: unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  sluice::monitor::StepReporter* reporter =
      sluice::monitor::StepReporter::FromEnvironment();
  if (reporter == nullptr) {
    std::fprintf(stderr, "monitored_rank: SLUICE_MONITOR is not set\n");
    return 2;
  }
  for (int64_t step = 0; steps == 0 || step < steps; ++step) {
    reporter->StepBegin(step, step == 0 ? "first" : "");
    absl::SleepFor(absl::Milliseconds(step_ms));
    reporter->StepEnd(step);
    if ((step + 1) % steps_per_epoch == 0) {
      reporter->EpochEnd(step / steps_per_epoch);
    }
    if (step == pause_after_step) {
      if (!pause_phase.empty()) reporter->PhaseBegin(pause_phase);
      absl::SleepFor(absl::Milliseconds(pause_ms));
      if (!pause_phase.empty()) reporter->PhaseEnd();
    }
  }
  reporter->TrainEnd();
  return 0;
}
