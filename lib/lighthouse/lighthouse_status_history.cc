#include "lib/lighthouse/lighthouse_status_history.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace sluice::lighthouse {
namespace {

constexpr char kEllipsis[] = "\u2026";
constexpr size_t kEllipsisBytes = sizeof(kEllipsis) - 1;

bool IsUtf8Continuation(char byte) {
  return (static_cast<unsigned char>(byte) & 0xC0) == 0x80;
}

}  // namespace

std::string TruncateUtf8(const std::string& text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  if (max_bytes < kEllipsisBytes) return "";
  size_t cut = max_bytes - kEllipsisBytes;
  while (cut > 0 && IsUtf8Continuation(text[cut])) --cut;
  return absl::StrCat(text.substr(0, cut), kEllipsis);
}

void StatusHistory::Heard(const std::string& replica_id, uint64_t incarnation,
                          absl::Time now) {
  auto [known, first_heard] =
      incarnations_.try_emplace(replica_id, incarnation);
  if (first_heard || known->second == incarnation) return;
  const uint64_t before = std::exchange(known->second, incarnation);
  proto::HistoryEntry entry;
  entry.set_kind(proto::HistoryEntry::REPLICA_RESTARTED);
  entry.set_time_us(absl::ToUnixMicros(now));
  entry.set_replica_id(replica_id);
  entry.set_incarnation(incarnation);
  entry.set_reason(
      absl::StrCat("new incarnation ", incarnation, ", was ", before));
  Add(std::move(entry));
}

void StatusHistory::Forget(const std::string& replica_id) {
  incarnations_.erase(replica_id);
}

void StatusHistory::GenerationFormed(const proto::Quorum& quorum) {
  generation_reason_ = TruncateUtf8(quorum.reason(), kMaxReasonBytes);
  generation_formed_us_ = quorum.created_us();
  proto::HistoryEntry entry;
  entry.set_kind(proto::HistoryEntry::GENERATION_FORMED);
  entry.set_time_us(quorum.created_us());
  entry.set_quorum_id(quorum.quorum_id());
  entry.set_participant_count(quorum.participants_size());
  const int listed = static_cast<int>(
      std::min<size_t>(quorum.participants_size(), kMaxListedParticipants));
  for (int i = 0; i < listed; ++i) {
    const proto::ReplicaInfo& participant = quorum.participants(i);
    proto::ReplicaInfo& shown = *entry.add_participants();
    // Addresses are on the members table; the history keeps what tells
    // one process of a replica from the next.
    shown.set_replica_id(
        TruncateUtf8(participant.replica_id(), kMaxReplicaIdBytes));
    shown.set_step(participant.step());
    shown.set_world_size(participant.world_size());
    shown.set_incarnation(participant.incarnation());
  }
  entry.set_reason(quorum.reason());
  Add(std::move(entry));
}

void StatusHistory::MemberLost(int64_t quorum_id, const std::string& replica_id,
                               const std::string& reason, absl::Time now) {
  proto::HistoryEntry entry;
  entry.set_kind(proto::HistoryEntry::MEMBER_LOST);
  entry.set_time_us(absl::ToUnixMicros(now));
  entry.set_quorum_id(quorum_id);
  entry.set_replica_id(replica_id);
  entry.set_reason(reason);
  Add(std::move(entry));
}

void StatusHistory::Record(proto::HistoryEntry::Kind kind,
                           const std::string& reason, absl::Time now) {
  proto::HistoryEntry entry;
  entry.set_kind(kind);
  entry.set_time_us(absl::ToUnixMicros(now));
  entry.set_reason(reason);
  Add(std::move(entry));
}

void StatusHistory::OperatorActed(proto::HistoryEntry::Kind kind,
                                  const std::string& replica_id,
                                  const std::string& reason, absl::Time now) {
  proto::HistoryEntry entry;
  entry.set_kind(kind);
  entry.set_time_us(absl::ToUnixMicros(now));
  entry.set_replica_id(replica_id);
  entry.set_reason(reason);
  Add(std::move(entry));
}

void StatusHistory::Add(proto::HistoryEntry entry) {
  if (entry.replica_id().size() > kMaxReplicaIdBytes) {
    entry.set_replica_id(TruncateUtf8(entry.replica_id(), kMaxReplicaIdBytes));
  }
  if (entry.reason().size() > kMaxReasonBytes) {
    entry.set_reason(TruncateUtf8(entry.reason(), kMaxReasonBytes));
  }
  entries_.push_back(std::move(entry));
  while (entries_.size() > kMaxEntries) entries_.pop_front();
}

void StatusHistory::AddTo(proto::LighthouseStatus& status) const {
  status.set_generation_reason(generation_reason_);
  status.set_generation_formed_us(generation_formed_us_);
  for (auto entry = entries_.rbegin(); entry != entries_.rend(); ++entry) {
    *status.add_history() = *entry;
  }
}

int64_t StepRate::BucketOf(absl::Time now) {
  return absl::ToUnixMillis(now) / absl::ToInt64Milliseconds(kBucket);
}

void StepRate::Committed(absl::Time now) {
  const int64_t bucket = BucketOf(now);
  const int slot = static_cast<int>(bucket % kBuckets);
  if (slots_[slot] != bucket) {
    slots_[slot] = bucket;
    counts_[slot] = 0;
  }
  ++counts_[slot];
  ++total_;
  first_ = std::min(first_, now);
}

double StepRate::PerSecond(absl::Time now) const {
  if (total_ == 0) return 0;
  const int64_t newest = BucketOf(now);
  int64_t steps = 0;
  for (int slot = 0; slot < kBuckets; ++slot) {
    if (slots_[slot] > newest - kBuckets && slots_[slot] <= newest) {
      steps += counts_[slot];
    }
  }
  const absl::Duration span =
      std::clamp(now - first_, absl::Seconds(1), kWindow);
  return static_cast<double>(steps) / absl::ToDoubleSeconds(span);
}

}  // namespace sluice::lighthouse
