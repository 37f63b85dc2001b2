// Says what an RPC is waiting for while it waits for a task that does not
// answer (RpcOptions::on_waiting): which task, at what address, for which
// RPC, and why ("connection refused", "timed out"), about once a second
// after the first second, then once more when the RPC gets through or gives
// up, so that a dead task is not seconds of silence. One reporter serves
// every RPC to one task, from one thread of its own: an RPC answered within
// the first second costs a map entry and no line. Internal: not part of the
// public API.
#ifndef SLUICE_LIB_DISTRIBUTED_WAIT_REPORTER_H_
#define SLUICE_LIB_DISTRIBUTED_WAIT_REPORTER_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

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
  // The state of the RPCs' channel to the task in a few words
  // ("connecting"), or empty when it is connected. Called with the
  // reporter's lock held: it must be quick and must not call the reporter.
  using ChannelState = std::function<std::string()>;

  // `report` is called from the reporter's thread, one line at a time:
  //   waiting for task T at A for remote call of 'f': connection refused
  //   (2s of 30s)
  // the second figure the RPC's timeout; then one of
  //   task T at A answered remote call of 'f' after 3.2s
  //   gave up waiting for task T at A for remote call of 'f' after 30s: WHY
  // `channel_state` (may be null) tells a port that accepts connections
  // from a gRPC connection that is up.
  WaitReporter(std::string task, std::string address, Report report,
               ChannelState channel_state = nullptr);
  // Stops the thread after the lines of the waits that ended; nothing is
  // reported once it returns.
  ~WaitReporter();
  WaitReporter(const WaitReporter&) = delete;
  WaitReporter& operator=(const WaitReporter&) = delete;

  // An RPC for `what` ("remote call of 'f'", valid until its wait ends)
  // that gives up after `timeout` started waiting for the task.
  uint64_t Begin(std::string_view what, absl::Duration timeout);
  // The RPC got through (the task answered, a result or an error of its
  // own), or gave up `why` (its deadline passed, it was cancelled).
  void Answered(uint64_t id);
  void GaveUp(uint64_t id, std::string_view why);

  // The channel is going: its state is not asked for from now on.
  void ForgetChannel();

 private:
  struct Waiting {
    std::string_view what;
    absl::Time start;
    absl::Duration timeout;
    absl::Time next_report;
    bool reported = false;  // a "waiting for" line went out
  };

  void End(uint64_t id, bool answered, std::string_view why);
  void Loop();
  // The "waiting for" lines of the waits that are due, made without the
  // lock (connecting to the task takes time); by wait id.
  std::vector<std::pair<uint64_t, std::string>> DueLines(
      std::unique_lock<std::mutex>& lock);

  const std::string task_;
  const std::string address_;
  const Report report_;
  std::mutex mu_;
  std::condition_variable changed_;
  ChannelState channel_state_;  // guarded by mu_
  std::map<uint64_t, Waiting> waiting_;
  // Lines of ended waits, for the thread to report.
  std::vector<std::string> ended_;
  uint64_t next_id_ = 0;
  // When the thread wakes up next: a Begin wakes it only when its first
  // report is due sooner, so that a stream of prompt RPCs wakes it about
  // once a second, not once each.
  absl::Time wake_at_ = absl::InfiniteFuture();
  bool stopping_ = false;
  std::thread thread_;  // started by the first Begin
};

}  // namespace sluice::dist::internal

#endif  // SLUICE_LIB_DISTRIBUTED_WAIT_REPORTER_H_
