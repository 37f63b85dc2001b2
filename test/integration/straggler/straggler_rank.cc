// A training rank for the straggler test, slowed on purpose: reports
// through StepReporter::FromEnvironment (SLUICE_MONITOR, SLUICE_RANK) steps
// of --step_ms milliseconds, except that steps --slow_from up to (not
// including) --slow_until take --slow_step_ms. Step 0 has the kind "first".
// Runs --steps steps (then TrainEnd and exit 0), or until killed with
// --steps=0.
#include <cstdio>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/time/clock.h"
#include "sluice/monitor/step_reporter.h"

int main(int argc, char** argv) {
  int64_t steps = 0, step_ms = 100, slow_from = -1, slow_until = -1,
          slow_step_ms = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const char* name, int64_t* out) {
      const std::string prefix = std::string("--") + name + "=";
      return arg.rfind(prefix, 0) == 0 &&
             absl::SimpleAtoi(arg.substr(prefix.size()), out);
    };
    if (!value("steps", &steps) && !value("step_ms", &step_ms) &&
        !value("slow_from", &slow_from) && !value("slow_until", &slow_until) &&
        !value("slow_step_ms", &slow_step_ms)) {
      std::fprintf(stderr, "straggler_rank: unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  sluice::monitor::StepReporter* reporter =
      sluice::monitor::StepReporter::FromEnvironment();
  if (reporter == nullptr) {
    std::fprintf(stderr, "straggler_rank: SLUICE_MONITOR is not set\n");
    return 2;
  }
  for (int64_t step = 0; steps == 0 || step < steps; ++step) {
    const bool slow = step >= slow_from && step < slow_until;
    reporter->StepBegin(step, step == 0 ? "first" : "");
    absl::SleepFor(absl::Milliseconds(slow ? slow_step_ms : step_ms));
    reporter->StepEnd(step);
  }
  reporter->TrainEnd();
  return 0;
}
