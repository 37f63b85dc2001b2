// Says what an RPC is waiting for while it waits for a task that does not
// answer (RpcOptions::on_waiting): which task, at what address, and why
// ("connection refused", "timed out"), about once a second after the first
// second, so that a dead task is not seconds of silence. Internal: not part
// of the public API.
#ifndef SLUICE_LIB_DISTRIBUTED_WAIT_REPORTER_H_
#define SLUICE_LIB_DISTRIBUTED_WAIT_REPORTER_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "absl/time/time.h"

namespace sluice::dist::internal {

// Why nothing answers at `address` (host:port), found by connecting to it
// once, for at most `timeout`: empty when the connection succeeds, else
// "connection refused", "timed out", "host not found", or the system's
// words for another error.
std::string ProbeAddress(const std::string& address, absl::Duration timeout);

class WaitReporter {
 public:
  using Report = std::function<void(const std::string& message)>;

  // `report` is called from a thread of the reporter's own, one line at a
  // time: "waiting for task T at A: connection refused (2s of 30s)", the
  // second figure the RPC's timeout.
  explicit WaitReporter(Report report);
  // Stops the thread; nothing is reported once it returns.
  ~WaitReporter();
  WaitReporter(const WaitReporter&) = delete;
  WaitReporter& operator=(const WaitReporter&) = delete;

  // One RPC to `task` at `address` that gives up after `timeout` started
  // waiting; End(the returned id) when it is answered or gives up.
  uint64_t Begin(const std::string& task, const std::string& address,
                 absl::Duration timeout);
  void End(uint64_t id);

 private:
  struct Waiting {
    std::string task;
    std::string address;
    absl::Time start;
    absl::Duration timeout;
    absl::Time next_report;
  };

  void Loop();

  const Report report_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::map<uint64_t, Waiting> waiting_;
  uint64_t next_id_ = 0;
  bool stopping_ = false;
  std::thread thread_;  // started by the first Begin
};

}  // namespace sluice::dist::internal

#endif  // SLUICE_LIB_DISTRIBUTED_WAIT_REPORTER_H_
