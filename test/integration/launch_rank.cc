// launch_rank: a training rank for the launcher's tests. It runs epochs of
// short steps from $SLUICE_RESUME_EPOCH, reporting them to the monitor
// ($SLUICE_MONITOR) with the StepReporter, prints "epoch E/N" after each,
// and fails on request:
//
//   launch_rank --epochs=N --steps_per_epoch=S --step_ms=T
//       [--pid_dir=DIR]          writes its pid to DIR/rank<R>.<restart>.pid
//       [--fail_rank=R --fail_at_epoch=E --fail_code=C
//        --fail_restarts=K]     rank R exits with C 300 ms into epoch E, on
//                               the first K starts of the job (default 1)
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "sluice/ft/step_reporter.h"

namespace {

int64_t Flag(int argc, char** argv, const std::string& name, int64_t fallback) {
  const std::string prefix = absl::StrCat("--", name, "=");
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    int64_t value = 0;
    if (argument.rfind(prefix, 0) == 0 &&
        absl::SimpleAtoi(argument.substr(prefix.size()), &value)) {
      return value;
    }
  }
  return fallback;
}

std::string StringFlag(int argc, char** argv, const std::string& name) {
  const std::string prefix = absl::StrCat("--", name, "=");
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument.rfind(prefix, 0) == 0) return argument.substr(prefix.size());
  }
  return "";
}

int64_t Environment(const char* name) {
  const char* text = std::getenv(name);
  int64_t value = -1;
  if (text == nullptr || !absl::SimpleAtoi(text, &value)) {
    std::fprintf(stderr, "launch_rank: $%s is not set to a number\n", name);
    std::exit(2);
  }
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t rank = Environment("SLUICE_RANK");
  const int64_t restart = Environment("SLUICE_RESTART");
  const int64_t resume_epoch = Environment("SLUICE_RESUME_EPOCH");
  const int64_t epochs = Flag(argc, argv, "epochs", 3);
  const int64_t steps_per_epoch = Flag(argc, argv, "steps_per_epoch", 5);
  const absl::Duration step =
      absl::Milliseconds(Flag(argc, argv, "step_ms", 20));
  const int64_t fail_rank = Flag(argc, argv, "fail_rank", -1);
  const int64_t fail_at_epoch = Flag(argc, argv, "fail_at_epoch", -1);
  const int64_t fail_code = Flag(argc, argv, "fail_code", 1);
  const int64_t fail_restarts = Flag(argc, argv, "fail_restarts", 1);
  const std::string pid_dir = StringFlag(argc, argv, "pid_dir");
  if (!pid_dir.empty()) {
    // Written whole under a temporary name, so a reader never sees half.
    const std::string path =
        absl::StrCat(pid_dir, "/rank", rank, ".", restart, ".pid");
    std::ofstream(path + ".tmp") << getpid() << "\n";
    std::rename((path + ".tmp").c_str(), path.c_str());
  }
  std::printf("rank %ld restart %ld resumes at epoch %ld\n", long(rank),
              long(restart), long(resume_epoch));
  std::fflush(stdout);
  sluice::ft::StepReporter* reporter =
      sluice::ft::StepReporter::FromEnvironment();
  int64_t step_number = resume_epoch * steps_per_epoch;
  for (int64_t epoch = resume_epoch; epoch < epochs; ++epoch) {
    if (rank == fail_rank && epoch == fail_at_epoch &&
        restart < fail_restarts) {
      // Mid-epoch, as a real failure comes: the finished epochs have
      // reached the monitor (the reporter sends every 50 ms).
      absl::SleepFor(absl::Milliseconds(300));
      std::printf("failing at epoch %ld with code %ld\n", long(epoch),
                  long(fail_code));
      std::fflush(stdout);
      std::_Exit(static_cast<int>(fail_code));
    }
    for (int64_t i = 0; i < steps_per_epoch; ++i, ++step_number) {
      if (reporter != nullptr) reporter->StepBegin(step_number);
      absl::SleepFor(step);
      if (reporter != nullptr) reporter->StepEnd(step_number);
    }
    if (reporter != nullptr) reporter->EpochEnd(epoch);
    std::printf("epoch %ld/%ld\n", long(epoch + 1), long(epochs));
    std::fflush(stdout);
  }
  if (reporter != nullptr) reporter->TrainEnd();
  std::printf("done\n");
  return 0;
}
