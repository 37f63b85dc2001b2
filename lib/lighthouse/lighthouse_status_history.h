// What the lighthouse's status page tells of the past (docs/lighthouse.md,
// "The status page"): a bounded history of what happened (generations
// formed, members lost, replicas restarted, leadership, pauses, trouble with
// the quorum authority), why the current generation formed, and how fast
// steps commit. Neither class locks: the lighthouse holds its own lock
// around them.
//
// The current quorum's reason changes with every fast quorum of the same
// generation ("fast quorum: every participant of quorum 4 asked again");
// the history keeps why the generation itself formed.
#ifndef SLUICE_LIB_LIGHTHOUSE_LIGHTHOUSE_STATUS_HISTORY_H_
#define SLUICE_LIB_LIGHTHOUSE_LIGHTHOUSE_STATUS_HISTORY_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <string>

#include "absl/time/time.h"
#include "lib/lighthouse/lighthouse_service.pb.h"

namespace sluice::lighthouse {

// Cuts `text` to at most `max_bytes` bytes on a UTF-8 character boundary,
// ending a cut text with "…" (within the bound), so that it stays valid
// UTF-8 (proto JSON refuses anything else).
std::string TruncateUtf8(const std::string& text, size_t max_bytes);

class StatusHistory {
 public:
  // The bounds that keep the history's memory, and status.json, small
  // however long replica ids, reasons and quorums are: with every entry at
  // its largest, the history is about 220 KB of JSON.
  static constexpr size_t kMaxEntries = 100;
  static constexpr size_t kMaxListedParticipants = 8;
  static constexpr size_t kMaxReplicaIdBytes = 128;
  static constexpr size_t kMaxReasonBytes = 512;

  // A replica called as `incarnation`: a new incarnation of a replica id
  // heard before is recorded as a restart. Remembers one incarnation per
  // replica id, as the quorum rules do.
  void Heard(const std::string& replica_id, uint64_t incarnation,
             absl::Time now);
  // The lighthouse forgot the replica (silent for long): its incarnation is
  // dropped, and its next one is not a restart.
  void Forget(const std::string& replica_id);
  // How many replica ids an incarnation is remembered for.
  size_t remembered_replicas() const { return incarnations_.size(); }
  // A quorum of a new generation was issued.
  void GenerationFormed(const proto::Quorum& quorum);
  // A participant of quorum `quorum_id` stopped being healthy.
  void MemberLost(int64_t quorum_id, const std::string& replica_id,
                  const std::string& reason, absl::Time now);
  // An operator killed or drained `replica_id` (OPERATOR_KILLED,
  // OPERATOR_DRAINED); `reason` names them.
  void OperatorActed(proto::HistoryEntry::Kind kind,
                     const std::string& replica_id, const std::string& reason,
                     absl::Time now);
  // Anything else: leadership, a pause, the quorum authority's trouble.
  void Record(proto::HistoryEntry::Kind kind, const std::string& reason,
              absl::Time now);

  // Sets the status's history (newest first) and why and when the current
  // generation formed.
  void AddTo(proto::LighthouseStatus& status) const;

 private:
  void Add(proto::HistoryEntry entry);

  std::deque<proto::HistoryEntry> entries_;       // oldest first
  std::map<std::string, uint64_t> incarnations_;  // by replica id
  std::string generation_reason_;
  int64_t generation_formed_us_ = 0;
};

// Steps committed per second over about the last 10 s. Counts go in
// buckets of 100 ms, so that its memory is the same however fast steps
// commit.
class StepRate {
 public:
  static constexpr absl::Duration kWindow = absl::Seconds(10);

  // A step committed (once per step, not per vote).
  void Committed(absl::Time now);
  // The steps committed within kWindow before `now` over kWindow, or over
  // the time since the first commit when that is shorter (at least 1 s, so
  // that a first step does not read as a thousand per second).
  double PerSecond(absl::Time now) const;
  // Every step counted.
  int64_t total() const { return total_; }

 private:
  static constexpr absl::Duration kBucket = absl::Milliseconds(100);
  static constexpr int kBuckets = 100;  // kWindow / kBucket

  // The number of the bucket `now` falls in, counted from the epoch.
  static int64_t BucketOf(absl::Time now);

  std::array<int64_t, kBuckets> counts_{};
  // The bucket number (time since the epoch / kBucket) each slot counts.
  std::array<int64_t, kBuckets> slots_{};
  absl::Time first_ = absl::InfiniteFuture();
  int64_t total_ = 0;
};

}  // namespace sluice::lighthouse

#endif  // SLUICE_LIB_LIGHTHOUSE_LIGHTHOUSE_STATUS_HISTORY_H_
