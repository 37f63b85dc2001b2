// EtcdQuorumAuthority: the QuorumAuthority of lighthouses that share one
// etcd cluster (docs/lighthouse.md, "Several lighthouses over etcd").
//
// Leadership is a key held by a lease: each lighthouse keeps a lease alive
// from a thread and, while the leader key does not exist, creates it
// holding its address with its lease in one transaction; whoever creates it
// leads until its lease expires (it stopped renewing: killed, stopped, cut
// off) or it resigns. The last quorum id is another key, written only by a
// transaction that checks in the same step that the writer still holds the
// leader key it created and that the quorum id key has not changed since the
// writer read it. So two lighthouses never record the same id, and the id
// only grows, across restarts of any of them.
//
// A leader that steps down (no replica reaches it) revokes its lease, which
// deletes the leader key, and stays out of the campaign for a while, so
// that another lighthouse takes the key rather than this one again.
#ifndef SLUICE_LIB_LIGHTHOUSE_ETCD_QUORUM_AUTHORITY_H_
#define SLUICE_LIB_LIGHTHOUSE_ETCD_QUORUM_AUTHORITY_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/lighthouse/etcd_client.h"
#include "lib/lighthouse/quorum_authority.h"

namespace sluice::lighthouse {

struct EtcdQuorumAuthorityOptions {
  std::vector<std::string> endpoints;  // "http://host:port"
  // Every key of this group of lighthouses starts with it: lighthouses of
  // different jobs sharing one etcd use different prefixes.
  std::string prefix = "/sluice/lighthouse/";
  // This lighthouse's address, as replicas reach it ("host:port").
  std::string address;
  // How long a leader that stopped renewing its lease keeps leading (whole
  // seconds; etcd's minimum).
  absl::Duration lease_ttl = absl::Seconds(2);
  // How often the lease is renewed and the leader key read; also the
  // campaign's pace. Renewing every round rather than once a TTL's third
  // lets an etcd cut off for up to the TTL less two rounds and a request
  // timeout keep its leader.
  absl::Duration poll_interval = absl::Milliseconds(200);
  // Every etcd request's timeout, per endpoint.
  absl::Duration request_timeout = absl::Milliseconds(500);
};

class EtcdQuorumAuthority : public QuorumAuthority {
 public:
  // Campaigns once before returning (so the authority knows who leads when
  // etcd answers), then from a thread; etcd need not be up yet: the thread
  // keeps trying. INVALID_ARGUMENT for bad options.
  static absl::StatusOr<std::unique_ptr<EtcdQuorumAuthority>> Create(
      EtcdQuorumAuthorityOptions options);

  // Stops the thread and revokes the lease, so that another lighthouse
  // takes over at once instead of after the lease's TTL.
  ~EtcdQuorumAuthority() override;

  // Whether this lighthouse holds the leader key and its lease cannot have
  // expired yet (measured from before the last renewal was sent).
  bool IsLeader() const override;
  std::string Trouble() const override;
  // The leader key's value as last read; "" when it does not exist or etcd
  // could not be read.
  std::string LeaderAddress() const override;

  absl::StatusOr<int64_t> LastQuorumId() override;
  absl::Status RecordQuorumId(int64_t id) override;

  bool CanStepDown() const override { return true; }
  // Stops leading at once; the campaign thread then revokes the lease and
  // campaigns again only after a lease TTL (two when the revocation
  // failed: the old lease must expire first), time for a follower, which
  // reads the key every poll interval, to win it.
  void StepDown(const std::string& why) override;

  std::string leader_key() const { return options_.prefix + "leader"; }
  std::string quorum_id_key() const { return options_.prefix + "quorum_id"; }

 private:
  EtcdQuorumAuthority(EtcdQuorumAuthorityOptions options,
                      std::unique_ptr<EtcdClient> client);

  void Run();
  // One round: keep (or get) a lease, read the leader key, campaign when it
  // is free. Updates the leader state.
  void Step();
  void SetNotLeader(std::string leader_address);
  // Records whether a round's etcd request answered; the first failure
  // after an answer and the first answer after failures are logged, once
  // each. Returns `answered`.
  bool Reached(const absl::Status& answered);
  // The campaign thread's side of StepDown.
  void RevokeAfterStepDown();

  // Reads the quorum id key into last_quorum_id_ / quorum_mod_revision_.
  absl::StatusOr<int64_t> ReadQuorumIdLocked();

  const EtcdQuorumAuthorityOptions options_;
  const std::unique_ptr<EtcdClient> client_;

  // The campaign thread's own state.
  int64_t lease_ = 0;

  mutable std::mutex mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  bool leader_ = false;
  // The create revision of the leader key this lighthouse created: what
  // RecordQuorumId checks it still holds.
  int64_t leader_revision_ = 0;
  // When the lease expires at the latest, as far as this side knows.
  // A steady clock: a wall clock set back must not stretch a lease.
  std::chrono::steady_clock::time_point lease_until_;
  std::string leader_address_;
  // StepDown was called and its lease not yet revoked: the campaign thread
  // must not take the leadership back meanwhile.
  bool stepping_down_ = false;
  std::string step_down_reason_;
  // No campaign before this, after a step-down.
  std::chrono::steady_clock::time_point campaign_after_;
  // Since when the campaign thread's etcd requests fail, and the last
  // failure; unset while etcd answers.
  std::optional<std::chrono::steady_clock::time_point> unreachable_since_;
  std::string unreachable_error_;
  // The last time etcd answered the campaign thread: a leader named longer
  // than a lease ago may have lost its lease since.
  std::chrono::steady_clock::time_point last_answer_;

  // RecordQuorumId's read-compare-write state, one call at a time.
  std::mutex quorum_mu_;
  bool quorum_read_ = false;
  int64_t last_quorum_id_ = 0;
  int64_t quorum_mod_revision_ = 0;  // 0: the key did not exist

  std::thread thread_;
};

}  // namespace sluice::lighthouse

#endif  // SLUICE_LIB_LIGHTHOUSE_ETCD_QUORUM_AUTHORITY_H_
