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
//       [--fail_hangs]          rank R hangs there instead: it begins a
//                               step and never ends it (until killed, or
//                               120 s at most)
//       [--grandchild=KIND]     first starts a process that calls setsid
//                               and sleeps (120 s at most), its pid in
//                               DIR/grandchild<R>.<restart>.pid: KIND
//                               "setsid" is the rank's child, "daemon" is
//                               forked twice, so that its parent exits at
//                               once and it is orphaned while the rank runs
//       [--grandchild_ignores_term]  it ignores SIGTERM
//       [--check_grandchild]    prints "ghost of start N: gone|running"
//                               for the previous start's grandchild when
//                               restarted, and "grandchild gone|running"
//                               for its own before it exits
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "sluice/monitor/step_reporter.h"

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

bool HasFlag(int argc, char** argv, const std::string& name) {
  return std::find(argv + 1, argv + argc, absl::StrCat("--", name)) !=
         argv + argc;
}

// Written whole under a temporary name, so a reader never sees half.
void WritePid(const std::string& path, pid_t pid) {
  std::ofstream(path + ".tmp") << pid << "\n";
  std::rename((path + ".tmp").c_str(), path.c_str());
}

// Whether `pid` runs: exists and is not a zombie.
bool Running(pid_t pid) {
  std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
  std::string line;
  if (!std::getline(stat, line)) return false;
  const size_t comm_end = line.rfind(')');
  return comm_end != std::string::npos && comm_end + 2 < line.size() &&
         line[comm_end + 2] != 'Z' && line[comm_end + 2] != 'X';
}

pid_t ReadPid(const std::string& path) {
  std::ifstream file(path);
  pid_t pid = 0;
  file >> pid;
  return pid;
}

// Forks a process that leaves the rank's session and process group and
// sleeps until killed (or for 120 s, so that a launcher that misses it does
// not leak it for long). Returns its pid once it has left the group (and
// ignores SIGTERM, if asked), so that no signal to the group reaches it.
pid_t ForkGrandchild(bool ignore_term) {
  int ready[2];
  if (pipe2(ready, O_CLOEXEC) != 0) {
    std::perror("launch_rank: pipe2");
    std::exit(2);
  }
  const pid_t pid = fork();
  if (pid == 0) {
    setsid();
    if (ignore_term) signal(SIGTERM, SIG_IGN);
    const char byte = 1;
    ssize_t ignored = write(ready[1], &byte, 1);
    (void)ignored;
    close(ready[0]);
    close(ready[1]);
    alarm(120);
    for (;;) pause();
  }
  close(ready[1]);
  char byte = 0;
  while (read(ready[0], &byte, 1) < 0 && errno == EINTR) {
  }
  close(ready[0]);
  return pid;
}

// Called first, while the rank has no other thread: fork is safe.
void StartGrandchild(const std::string& kind, bool ignore_term,
                     const std::string& pid_path) {
  if (kind == "setsid") {
    WritePid(pid_path, ForkGrandchild(ignore_term));
    return;
  }
  if (kind != "daemon") {
    std::fprintf(stderr, "launch_rank: --grandchild=%s is not setsid|daemon\n",
                 kind.c_str());
    std::exit(2);
  }
  const pid_t middle = fork();
  if (middle == 0) {
    WritePid(pid_path, ForkGrandchild(ignore_term));
    _exit(0);
  }
  waitpid(middle, nullptr, 0);
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
  const bool fail_hangs = HasFlag(argc, argv, "fail_hangs");
  const std::string pid_dir = StringFlag(argc, argv, "pid_dir");
  const std::string grandchild = StringFlag(argc, argv, "grandchild");
  const bool check_grandchild = HasFlag(argc, argv, "check_grandchild");
  auto grandchild_path = [&](int64_t start) {
    return absl::StrCat(pid_dir, "/grandchild", rank, ".", start, ".pid");
  };
  if (!grandchild.empty()) {
    StartGrandchild(grandchild, HasFlag(argc, argv, "grandchild_ignores_term"),
                    grandchild_path(restart));
  }
  if (!pid_dir.empty()) {
    WritePid(absl::StrCat(pid_dir, "/rank", rank, ".", restart, ".pid"),
             getpid());
  }
  if (check_grandchild && restart > 0) {
    std::printf(
        "ghost of start %ld: %s\n", long(restart - 1),
        Running(ReadPid(grandchild_path(restart - 1))) ? "running" : "gone");
  }
  std::printf("rank %ld restart %ld resumes at epoch %ld\n", long(rank),
              long(restart), long(resume_epoch));
  std::fflush(stdout);
  sluice::monitor::StepReporter* reporter =
      sluice::monitor::StepReporter::FromEnvironment();
  int64_t step_number = resume_epoch * steps_per_epoch;
  for (int64_t epoch = resume_epoch; epoch < epochs; ++epoch) {
    if (rank == fail_rank && epoch == fail_at_epoch &&
        restart < fail_restarts) {
      // Mid-epoch, as a real failure comes: the finished epochs have
      // reached the monitor (the reporter sends every 50 ms).
      absl::SleepFor(absl::Milliseconds(300));
      if (fail_hangs) {
        std::printf("hanging at epoch %ld\n", long(epoch));
        std::fflush(stdout);
        if (reporter != nullptr) reporter->StepBegin(step_number);
        // Bounded, so that a launcher that misses the hang does not leak
        // the rank for long.
        absl::SleepFor(absl::Seconds(120));
        std::_Exit(1);
      }
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
  if (check_grandchild) {
    std::printf("grandchild %s\n", Running(ReadPid(grandchild_path(restart)))
                                       ? "running"
                                       : "gone");
  }
  std::printf("done\n");
  return 0;
}
