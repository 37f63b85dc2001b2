// The rendezvous of a job launched on several hosts (--nnodes): node 0's
// launcher serves it and decides every restart; the other launchers join
// it, then poll it to learn when to restart their ranks or end. See
// docs/launcher.md, "Multi-host".
#ifndef SLUICE_LIB_LAUNCHER_LAUNCHER_RENDEZVOUS_H_
#define SLUICE_LIB_LAUNCHER_LAUNCHER_RENDEZVOUS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/launcher/launcher_policy.h"

namespace sluice::launcher {

// Node 0's decision, as every node sees it.
struct RendezvousView {
  enum Outcome { kInProgress, kFinished, kGaveUp } outcome = kInProgress;
  int64_t generation = 0;
  bool running = false;
  int64_t resume_epoch = 0;
  int restart = 0;
  int exit_code = 0;  // kGaveUp
};

// What a node reports of its ranks in one generation.
struct NodeReportInfo {
  enum State { kRunning, kFinished, kFailed } state = kRunning;
  int node_rank = 0;
  int64_t generation = 0;
  bool ranks_stopped = false;
  Failure failure;  // kFailed
};

// Node 0's side: a gRPC server on `address` and the job's decisions.
class RendezvousServer {
 public:
  // A node that joined and then is not heard from for `node_timeout`
  // counts as failed.
  static absl::StatusOr<std::unique_ptr<RendezvousServer>> Start(
      const std::string& address, int nnodes, int nproc,
      const std::string& monitor_address, absl::Duration node_timeout);
  ~RendezvousServer();

  // A new generation starts running from `resume_epoch`.
  void Begin(int64_t generation, int64_t resume_epoch, int restart);
  // The current generation's ranks are to stop on every node.
  void StopGeneration();
  void End(RendezvousView::Outcome outcome, int exit_code);

  // How many nodes other than 0 have joined.
  int JoinedNodes();
  // The first failure another node reported in the current generation, or
  // a node not heard from for the node timeout.
  std::optional<Failure> RemoteFailure();
  // Every other node joined and finished the current generation.
  bool AllRemoteFinished();
  // No other node runs a rank of the current generation (nodes not joined
  // run none).
  bool AllRemoteStopped();
  // Every node that joined has been told the outcome.
  bool AllRemoteSawEnd();

  class Service;

 private:
  RendezvousServer() = default;

  struct Node {
    std::string host;
    NodeReportInfo report;
    bool saw_end = false;
    absl::Time last_heard;
  };
  friend class Service;
  absl::Mutex mutex_;
  int nnodes_ = 0;
  int nproc_ = 0;
  std::string monitor_address_;
  absl::Duration node_timeout_;
  RendezvousView view_ ABSL_GUARDED_BY(mutex_);
  std::map<int, Node> nodes_ ABSL_GUARDED_BY(mutex_);  // by node rank, not 0
  std::optional<Failure> failure_ ABSL_GUARDED_BY(mutex_);
  std::unique_ptr<Service> service_;
  struct Grpc;
  std::unique_ptr<Grpc> grpc_;
};

struct JoinInfo {
  int world_size = 0;
  int rank_offset = 0;
  std::string monitor_address;
  RendezvousView view;
};

// A non-zero node's side. Calls fail (with the address) when node 0 does
// not answer within `timeout`, marked fatal when it refuses the TLS
// handshake.
class RendezvousClient {
 public:
  explicit RendezvousClient(const std::string& address);
  ~RendezvousClient();

  const std::string& address() const { return address_; }
  absl::StatusOr<JoinInfo> Join(int node_rank, int nproc,
                                const std::string& host,
                                absl::Duration timeout);
  absl::StatusOr<RendezvousView> Poll(const NodeReportInfo& report,
                                      absl::Duration timeout);

 private:
  struct Stub;
  const std::string address_;
  std::unique_ptr<Stub> stub_;
};

}  // namespace sluice::launcher

#endif  // SLUICE_LIB_LAUNCHER_LAUNCHER_RENDEZVOUS_H_
