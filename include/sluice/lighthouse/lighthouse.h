// Lighthouse: the quorum service of data-parallel training
// (docs/lighthouse.md), serving lib/lighthouse/lighthouse_service.proto.
// Replica groups heartbeat it, ask it for a quorum (the quorum id is their
// generation), vote on committing each step and watch it for lost members.
// tools/sluice_lighthouse runs one; tests run it in-process.
#ifndef SLUICE_LIGHTHOUSE_LIGHTHOUSE_H_
#define SLUICE_LIGHTHOUSE_LIGHTHOUSE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace grpc {
class Service;
}  // namespace grpc

namespace sluice::lighthouse {

// Says whether a lighthouse may issue quorums and records their ids
// (lib/lighthouse/quorum_authority.h; several lighthouses over etcd share one).
// Declared only: a lighthouse alone needs none, and whoever passes one
// includes the header of the authority it makes.
class QuorumAuthority;

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
  // A leader among several lighthouses (over etcd) that no replica has
  // called for this long, after one did since it became leader, steps down
  // so that a lighthouse the replicas reach leads instead: a leader cut off
  // from its replicas but not from etcd would otherwise keep its lease and
  // strand them. Zero picks the larger of heartbeat_timeout (every replica
  // is unhealthy by then) and the liveness bound, LivenessTimeout() + 1 s
  // (a shorter silence could be a network blip its connections ride out).
  // A lighthouse alone never steps down.
  absl::Duration step_down_after = absl::ZeroDuration();
  // A replica not heard from for this long that waits for nothing (no watch
  // stream open, no pending quorum request, not a participant of the current
  // quorum) is forgotten, so that ids that come and go do not pile up. Zero
  // picks the larger of 10 heartbeat timeouts and 60 s; at least
  // heartbeat_timeout.
  absl::Duration forget_after = absl::ZeroDuration();
  // The most replica ids known at once: past it a new id is refused with
  // RESOURCE_EXHAUSTED (known ones go on), which bounds the lighthouse's
  // memory. At least min_replicas.
  int max_replicas = 10000;
  // Further services served on the same port (e.g. the collectives'
  // rendezvous store). Not owned: they outlive the lighthouse.
  std::vector<grpc::Service*> extra_services;
};

// One replica group as it described itself in its last request.
struct ReplicaInfo {
  std::string replica_id;
  // Where its peers reach its healing service ("host:port").
  std::string address;
  int64_t step = 0;  // the last step it committed
  int world_size = 0;
  // Random per process, never 0: tells a restarted replica from the one
  // before.
  uint64_t incarnation = 0;
};

struct QuorumInfo {
  int64_t quorum_id = 0;  // the generation; 0 before the first quorum
  std::vector<ReplicaInfo> participants;   // sorted by replica_id
  absl::Time created = absl::UnixEpoch();  // on the lighthouse's clock
  std::string reason;                      // why it formed
};

struct ReplicaStatus {
  ReplicaInfo replica;
  absl::Duration heartbeat_age;  // whole milliseconds
  bool healthy = false;          // heard from within the heartbeat timeout
  bool in_quorum = false;        // a participant of the current quorum
  bool recovering = false;       // in the quorum with a step behind its highest
  bool requesting = false;       // waiting in a quorum request now
  bool drained = false;  // by an operator (Lighthouse::Drain)
};

// What GetStatus answers (the same fields as its proto::LighthouseStatus).
struct LighthouseStatus {
  QuorumInfo quorum;                    // the current one
  std::vector<ReplicaStatus> replicas;  // every replica heard from
  int min_replicas = 0;
  absl::Duration heartbeat_timeout;
  std::string address;  // this lighthouse's
  bool is_leader = false;
  std::string leader_address;          // "" when unknown
  absl::Time now = absl::UnixEpoch();  // when the status was taken
  // Since when this lighthouse has led without a break; UnixEpoch when it
  // does not lead.
  absl::Time leader_since = absl::UnixEpoch();
  // LighthouseOptions::step_down_after as it applies; zero when this
  // lighthouse never steps down (it is alone).
  absl::Duration step_down_after;
  // When and why it last stepped down; "" when it never did.
  std::string last_step_down;
  // Why it can neither lead nor say who leads (etcd out of reach), "" when
  // nothing stops it.
  std::string authority_trouble;

  // Something that happened at the lighthouse (proto::HistoryEntry, which
  // says which fields each kind sets).
  struct HistoryEntry {
    // The numbers of proto::HistoryEntry::Kind.
    enum class Kind {
      kGenerationFormed = 0,
      kMemberLost = 1,
      kReplicaRestarted = 2,
      kSteppedDown = 3,
      kLeading = 4,
      kNotLeading = 5,
      kPaused = 6,
      kAuthorityTrouble = 7,
      kAuthorityBack = 8,
      kOperatorKilled = 9,
      kOperatorDrained = 10,
    };
    Kind kind = Kind::kGenerationFormed;
    absl::Time time = absl::UnixEpoch();
    int64_t quorum_id = 0;
    std::string replica_id;  // at most 128 bytes
    uint64_t incarnation = 0;
    // The first 8 participants of a generation, without their addresses.
    std::vector<ReplicaInfo> participants;
    int participant_count = 0;
    std::string reason;  // at most 512 bytes
  };
  // Why and when the current generation formed; a fast quorum of the same
  // generation changes quorum.reason, not these.
  std::string generation_reason;
  absl::Time generation_formed = absl::UnixEpoch();
  std::vector<HistoryEntry> history;  // newest first, at most 100
  // Steps committed per second over about the last 10 s, and in all.
  double steps_per_second = 0;
  int64_t committed_steps = 0;
};

class Lighthouse {
 public:
  // Listens on options.bind and issues quorums on its own authority
  // (always the leader, the last quorum id in memory). Errors: invalid
  // options, an address that cannot be bound.
  static absl::StatusOr<std::unique_ptr<Lighthouse>> Start(
      LighthouseOptions options);
  // The same with `authority` deciding whether this lighthouse may issue
  // quorums and recording their ids; null means one of its own. Errors
  // also: an authority that cannot say the last quorum id.
  static absl::StatusOr<std::unique_ptr<Lighthouse>> Start(
      LighthouseOptions options, std::unique_ptr<QuorumAuthority> authority);

  // Shuts down.
  ~Lighthouse();
  Lighthouse(const Lighthouse&) = delete;
  Lighthouse& operator=(const Lighthouse&) = delete;

  // The advertised address ("host:port", the picked port when it was 0).
  const std::string& address() const;

  // What GetStatus answers now. Never waits on the quorum authority.
  LighthouseStatus Status() const;

  // Why `generation` cannot be a quorum this lighthouse issued since it
  // started, "" when it can be. The rendezvous store it serves refuses the
  // keys of other generations (StoreServiceOptions::refuse_generation), so
  // that replicas building the group of a quorum issued before a restart
  // fail at once instead of waiting for peers that wrote to the old store.
  std::string WhyNotIssuedHere(int64_t generation) const;

  // What an operator does to a replica from the status page. `by` names
  // them (their client certificate's common name) and `from` their
  // address, for the log and the history. NOT_FOUND for a replica this
  // lighthouse does not know, UNAVAILABLE when it does not lead.
  //
  // Kill: the replica's process is told to end (its watch stream) and is
  // lost at once; a restart of it joins again.
  absl::Status Kill(const std::string& replica_id, const std::string& by,
                    const std::string& from);
  // Drain: the replica is left out of every quorum from the next one on and
  // its quorum requests fail with FAILED_PRECONDITION, until this
  // lighthouse restarts (a restart of the replica stays drained).
  absl::Status Drain(const std::string& replica_id, const std::string& by,
                     const std::string& from);

  // Stops serving: waiting Quorum and Commit calls and Watch streams end
  // with UNAVAILABLE at once. Idempotent.
  void Shutdown();

  class Impl;

 private:
  explicit Lighthouse(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::lighthouse

#endif  // SLUICE_LIGHTHOUSE_LIGHTHOUSE_H_
