// Who may issue quorums, and the last quorum id issued. One lighthouse alone
// is its own authority (in memory); several lighthouses share one over etcd
// (a leader by lease, the quorum id stored there), so that two lighthouses
// never issue two quorums for the same generation and the id only grows
// across lighthouse restarts.
#ifndef SLUICE_LIB_LIGHTHOUSE_QUORUM_AUTHORITY_H_
#define SLUICE_LIB_LIGHTHOUSE_QUORUM_AUTHORITY_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace sluice::lighthouse {

// The lighthouse asks IsLeader and LeaderAddress on every call, under the
// lock all its calls take: they answer from memory, without I/O. It calls
// LastQuorumId and RecordQuorumId, which may wait on the network, with that
// lock released and one at a time.
class QuorumAuthority {
 public:
  virtual ~QuorumAuthority() = default;

  // Whether this lighthouse may issue quorums now.
  virtual bool IsLeader() const = 0;
  // The leader's lighthouse address ("host:port"), "" when unknown.
  virtual std::string LeaderAddress() const = 0;
  // Why this lighthouse can neither lead nor say who leads, "" when
  // nothing stops it: e.g. "etcd unreachable for 2.1 s (...)". From memory.
  virtual std::string Trouble() const { return ""; }

  // The greatest quorum id issued so far (0 before the first), as the
  // authority knows it now: a new leader starts above it.
  virtual absl::StatusOr<int64_t> LastQuorumId() = 0;

  // Records that quorum `id` is being issued, atomically: succeeds only if
  // this lighthouse is still the leader and `id` is greater than every id
  // recorded before. On failure the lighthouse issues nothing
  // (FAILED_PRECONDITION when another id or leader won, UNAVAILABLE when the
  // authority cannot be reached).
  virtual absl::Status RecordQuorumId(int64_t id) = 0;

  // Whether another lighthouse could lead if this one stepped down. A
  // lighthouse alone could not: it never steps down.
  virtual bool CanStepDown() const { return false; }
  // Gives up the leadership, from memory like IsLeader: IsLeader is false
  // once it returns, and the authority hands the leadership over on a
  // thread of its own. The lighthouse calls it when no replica reaches it,
  // so that one the replicas do reach leads. `why` is for the authority's
  // log.
  virtual void StepDown(const std::string& /*why*/) {}
};

// The authority of a lighthouse that runs alone: always the leader, at
// `address`.
std::unique_ptr<QuorumAuthority> NewLocalQuorumAuthority(std::string address);

}  // namespace sluice::lighthouse

#endif  // SLUICE_LIB_LIGHTHOUSE_QUORUM_AUTHORITY_H_
