// A training rank for the straggler test: reports through
// StepReporter::FromEnvironment (SLUICE_MONITOR, SLUICE_RANK) steps of
// --step_ms milliseconds. Step 0 has the kind "first". Runs --steps steps
// (then TrainEnd and exit 0), or until killed with --steps=0. The test slows
// a rank as an operator would, through SLUICE_FAULTS and the fault point
// monitor.step.end, not through a flag of its own.
#include <cstdio>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/time/clock.h"
#include "sluice/monitor/step_reporter.h"
#include "sluice/support/fault_point.h"

int main(int argc, char** argv) {
  int64_t steps = 0, step_ms = 100;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const char* name, int64_t* out) {
      const std::string prefix = std::string("--") + name + "=";
      return arg.rfind(prefix, 0) == 0 &&
             absl::SimpleAtoi(arg.substr(prefix.size()), out);
    };
    if (!value("steps", &steps) && !value("step_ms", &step_ms)) {
      std::fprintf(stderr, "straggler_rank: unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  // A malformed SLUICE_FAULTS would otherwise only be logged, and the rank
  // would run unslowed: the test would time out instead of saying why.
  if (absl::Status faults = sluice::FaultInjector::InitFromEnvironment();
      !faults.ok()) {
    std::fprintf(stderr, "straggler_rank: %s\n",
                 std::string(faults.message()).c_str());
    return 2;
  }
  sluice::monitor::StepReporter* reporter =
      sluice::monitor::StepReporter::FromEnvironment();
  if (reporter == nullptr) {
    std::fprintf(stderr, "straggler_rank: SLUICE_MONITOR is not set\n");
    return 2;
  }
  for (int64_t step = 0; steps == 0 || step < steps; ++step) {
    reporter->StepBegin(step, step == 0 ? "first" : "");
    absl::SleepFor(absl::Milliseconds(step_ms));
    reporter->StepEnd(step);
  }
  reporter->TrainEnd();
  return 0;
}
