// Lighthouse: the quorum service of data-parallel training
// (docs/lighthouse.md), serving lib/ft/lighthouse_service.proto. Replica
// groups heartbeat it, ask it for a quorum (the quorum id is their
// generation), vote on committing each step and watch it for lost members.
// tools/sluice_lighthouse runs one; tests run it in-process.
#ifndef SLUICE_FT_LIGHTHOUSE_H_
#define SLUICE_FT_LIGHTHOUSE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/ft/lighthouse_service.pb.h"
#include "lib/ft/quorum_authority.h"

namespace grpc {
class Service;
}  // namespace grpc

namespace sluice::ft {

struct LighthouseOptions {
  // host:port to listen on; port 0 picks a free port.
  std::string bind = "127.0.0.1:29510";
  // The address other processes dial; "" means the bound address.
  std::string advertise;
  int min_replicas = 1;
  absl::Duration join_timeout = absl::Milliseconds(60000);
  // How often heartbeats are checked and waiting quorums reconsidered.
  absl::Duration quorum_tick = absl::Milliseconds(100);
  absl::Duration heartbeat_timeout = absl::Milliseconds(5000);
  // Further services served on the same port (e.g. the collectives'
  // rendezvous store). Not owned: they outlive the lighthouse.
  std::vector<grpc::Service*> extra_services;
};

class Lighthouse {
 public:
  // Listens on options.bind. `authority` says whether this lighthouse may
  // issue quorums and records their ids; null means one of its own
  // (NewLocalQuorumAuthority at the advertised address). Errors: invalid
  // options, an address that cannot be bound, an authority that cannot
  // say the last quorum id.
  static absl::StatusOr<std::unique_ptr<Lighthouse>> Start(
      LighthouseOptions options,
      std::unique_ptr<QuorumAuthority> authority = nullptr);

  // Shuts down.
  ~Lighthouse();
  Lighthouse(const Lighthouse&) = delete;
  Lighthouse& operator=(const Lighthouse&) = delete;

  // The advertised address ("host:port", the picked port when it was 0).
  const std::string& address() const;

  // What GetStatus answers now.
  proto::LighthouseStatus Status() const;

  // Stops serving: waiting Quorum and Commit calls and Watch streams end
  // with UNAVAILABLE at once. Idempotent.
  void Shutdown();

  class Impl;

 private:
  explicit Lighthouse(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::ft

#endif  // SLUICE_FT_LIGHTHOUSE_H_
