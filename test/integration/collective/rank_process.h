// A ccl_rank child process whose stdout and stderr both go to one file the
// test reads (its result lines, and what NCCL and the watchdog log). The
// destructor kills (SIGKILL, which ends a stopped one too) and reaps it;
// the rank also kills itself after its --max_life_s.
#ifndef SLUICE_TEST_INTEGRATION_COLLECTIVE_RANK_PROCESS_H_
#define SLUICE_TEST_INTEGRATION_COLLECTIVE_RANK_PROCESS_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/time/time.h"

namespace sluice::ccl::testing {

class RankProcess {
 public:
  // Starts ccl_rank with `flags` and `environment` ("NAME=value") on top of
  // the test's own.
  RankProcess(const std::string& name, std::vector<std::string> flags,
              std::vector<std::string> environment = {});
  ~RankProcess();
  RankProcess(const RankProcess&) = delete;
  RankProcess& operator=(const RankProcess&) = delete;

  bool started() const { return pid_ > 0; }
  void Kill();
  void Stop();

  // The lines it has printed so far, on stdout and stderr.
  std::vector<std::string> Lines() const;
  // Waits up to `timeout` for a line that starts with `prefix`; returns it,
  // or "" when none came.
  std::string WaitForLine(const std::string& prefix,
                          absl::Duration timeout) const;
  // Waits up to `timeout` for the process to exit; returns its exit code,
  // or -1 when it is still running or died of a signal.
  int WaitForExit(absl::Duration timeout);

 private:
  pid_t pid_ = 0;
  bool reaped_ = false;
  std::string output_path_;
};

}  // namespace sluice::ccl::testing

#endif  // SLUICE_TEST_INTEGRATION_COLLECTIVE_RANK_PROCESS_H_
