// LighthouseClient: a replica's side of lib/lighthouse/lighthouse_service.proto
// over one or more lighthouses (docs/lighthouse.md). Every call goes to the
// leader: on UNAVAILABLE it follows the leader a lighthouse names in its
// trailing metadata, or tries the next address, until the call's timeout.
// Errors are retryable (Classify says so) and name the lighthouse.
//
// A leader that stops answering without closing its connections (a frozen
// process, a host gone) is found by the prompt calls (Heartbeat,
// GetStatus): one that times out makes its lighthouse suspect. Among
// several lighthouses, the waiting calls in flight to a suspect are
// cancelled and sent elsewhere, and waiting calls avoid it, even when the
// others still name it as leader (they learn of a frozen leader only when
// its lease lapses), until it answers a prompt call again.
// Thread-safe.
#ifndef SLUICE_LIB_LIGHTHOUSE_LIGHTHOUSE_CLIENT_H_
#define SLUICE_LIB_LIGHTHOUSE_LIGHTHOUSE_CLIENT_H_

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/lighthouse/lighthouse_service.grpc.pb.h"

namespace sluice::lighthouse {

// A Watch stream kept open by a thread of its own; see
// LighthouseClient::Watch.
class LighthouseWatch {
 public:
  virtual ~LighthouseWatch() = default;
  // Ends the stream and joins the thread; no callback runs after it
  // returns. Idempotent; the destructor calls it.
  virtual void Stop() = 0;
};

// Whether a call failed because an operator drained the replica it spoke
// for (the lighthouse's status page): it is left out of every quorum until
// the lighthouse restarts.
bool IsDrained(const absl::Status& status);

class LighthouseClient {
 public:
  // `addresses`: every lighthouse ("host:port"), at least one.
  static absl::StatusOr<std::unique_ptr<LighthouseClient>> Create(
      std::vector<std::string> addresses);
  ~LighthouseClient();
  LighthouseClient(const LighthouseClient&) = delete;
  LighthouseClient& operator=(const LighthouseClient&) = delete;

  // The lighthouse's answer goes to `response` when it is not null.
  absl::Status Heartbeat(const proto::HeartbeatRequest& request,
                         absl::Duration timeout,
                         proto::HeartbeatResponse* response = nullptr);
  // Waits up to `timeout` for a quorum that includes the requester.
  absl::StatusOr<proto::Quorum> Quorum(const proto::QuorumRequest& request,
                                       absl::Duration timeout);
  // Waits up to `timeout` for the vote's outcome.
  absl::StatusOr<proto::CommitResponse> Commit(
      const proto::CommitRequest& request, absl::Duration timeout);
  absl::StatusOr<proto::LighthouseStatus> GetStatus(absl::Duration timeout);

  // Calls `on_event` for each event of a Watch stream, on a thread the
  // returned watch owns, reconnecting to the leader whenever the stream
  // ends (after `retry_interval`) until the watch is stopped. The client
  // outlives the watch.
  using EventCallback = std::function<void(const proto::LighthouseEvent&)>;
  std::unique_ptr<LighthouseWatch> Watch(
      proto::WatchRequest request, EventCallback on_event,
      absl::Duration retry_interval = absl::Milliseconds(100));

  // The lighthouse calls go to now.
  std::string leader() const;

  class Target;  // one lighthouse: its address, stub and calls in flight

 private:
  // A prompt call is answered at once by a live leader (a status call by
  // any lighthouse), so its timing out means the lighthouse went silent; a
  // waiting one may wait long.
  enum class CallKind { kPrompt, kStatus, kWaiting };

  explicit LighthouseClient(std::vector<std::string> addresses);

  // The lighthouse to call now: the leader as last known, or for a waiting
  // call that leader unless it is suspect, then the next one that is not.
  Target& Current(CallKind kind);
  // After `failed` answered UNAVAILABLE: the leader it named, else the
  // next address. Returns whether it named a leader other than itself.
  bool MoveOn(const Target& failed, const std::string& named_leader);
  // `target` answered: it is not suspect, and calls go to it when it
  // answered as leader.
  void Answered(Target& target, bool as_leader);
  // `target` did not answer a prompt call in time: with another lighthouse
  // to go to, cancels its waiting calls in flight. Returns whether it did.
  bool Suspect(Target& target);
  bool IsSuspect(const Target& target) const;
  // Registers the call in flight on `context` to `target`, so that Suspect
  // can cancel it; Untrack before `context` goes.
  void Track(Target& target, grpc::ClientContext* context);
  void Untrack(Target& target, grpc::ClientContext* context);

  // Runs `attempt` against the leader until it succeeds, fails with a code
  // other than UNAVAILABLE, or the deadline passes.
  absl::Status Call(
      const char* method, CallKind kind, absl::Duration timeout,
      const std::function<grpc::Status(proto::Lighthouse::Stub*,
                                       grpc::ClientContext*)>& attempt);

  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Target>> targets_;  // grows with named leaders
  size_t current_ = 0;                            // guarded by mu_
};

}  // namespace sluice::lighthouse

#endif  // SLUICE_LIB_LIGHTHOUSE_LIGHTHOUSE_CLIENT_H_
