#include "lib/lighthouse/lighthouse_status.h"

namespace sluice::lighthouse {
namespace {

ReplicaInfo FromProto(const proto::ReplicaInfo& info) {
  ReplicaInfo replica;
  replica.replica_id = info.replica_id();
  replica.address = info.address();
  replica.step = info.step();
  replica.world_size = info.world_size();
  replica.incarnation = info.incarnation();
  return replica;
}

proto::ReplicaInfo ToProto(const ReplicaInfo& replica) {
  proto::ReplicaInfo info;
  info.set_replica_id(replica.replica_id);
  info.set_address(replica.address);
  info.set_step(replica.step);
  info.set_world_size(replica.world_size);
  info.set_incarnation(replica.incarnation);
  return info;
}

using HistoryKind = LighthouseStatus::HistoryEntry::Kind;
// The plain kinds carry the proto's numbers, so that a cast converts them.
static_assert(static_cast<int>(HistoryKind::kGenerationFormed) ==
              proto::HistoryEntry::GENERATION_FORMED);
static_assert(static_cast<int>(HistoryKind::kMemberLost) ==
              proto::HistoryEntry::MEMBER_LOST);
static_assert(static_cast<int>(HistoryKind::kReplicaRestarted) ==
              proto::HistoryEntry::REPLICA_RESTARTED);
static_assert(static_cast<int>(HistoryKind::kSteppedDown) ==
              proto::HistoryEntry::STEPPED_DOWN);
static_assert(static_cast<int>(HistoryKind::kLeading) ==
              proto::HistoryEntry::LEADING);
static_assert(static_cast<int>(HistoryKind::kNotLeading) ==
              proto::HistoryEntry::NOT_LEADING);
static_assert(static_cast<int>(HistoryKind::kPaused) ==
              proto::HistoryEntry::PAUSED);
static_assert(static_cast<int>(HistoryKind::kAuthorityTrouble) ==
              proto::HistoryEntry::AUTHORITY_TROUBLE);
static_assert(static_cast<int>(HistoryKind::kAuthorityBack) ==
              proto::HistoryEntry::AUTHORITY_BACK);
static_assert(static_cast<int>(HistoryKind::kOperatorKilled) ==
              proto::HistoryEntry::OPERATOR_KILLED);
static_assert(static_cast<int>(HistoryKind::kOperatorDrained) ==
              proto::HistoryEntry::OPERATOR_DRAINED);

LighthouseStatus::HistoryEntry FromProto(const proto::HistoryEntry& entry) {
  LighthouseStatus::HistoryEntry plain;
  plain.kind = static_cast<HistoryKind>(entry.kind());
  plain.time = absl::FromUnixMicros(entry.time_us());
  plain.quorum_id = entry.quorum_id();
  plain.replica_id = entry.replica_id();
  plain.incarnation = entry.incarnation();
  for (const proto::ReplicaInfo& participant : entry.participants()) {
    plain.participants.push_back(FromProto(participant));
  }
  plain.participant_count = entry.participant_count();
  plain.reason = entry.reason();
  return plain;
}

proto::HistoryEntry ToProto(const LighthouseStatus::HistoryEntry& plain) {
  proto::HistoryEntry entry;
  entry.set_kind(static_cast<proto::HistoryEntry::Kind>(plain.kind));
  entry.set_time_us(absl::ToUnixMicros(plain.time));
  entry.set_quorum_id(plain.quorum_id);
  entry.set_replica_id(plain.replica_id);
  entry.set_incarnation(plain.incarnation);
  for (const ReplicaInfo& participant : plain.participants) {
    *entry.add_participants() = ToProto(participant);
  }
  entry.set_participant_count(plain.participant_count);
  entry.set_reason(plain.reason);
  return entry;
}

}  // namespace

LighthouseStatus StatusFromProto(const proto::LighthouseStatus& status) {
  LighthouseStatus plain;
  plain.quorum.quorum_id = status.quorum().quorum_id();
  for (const proto::ReplicaInfo& participant : status.quorum().participants()) {
    plain.quorum.participants.push_back(FromProto(participant));
  }
  plain.quorum.created = absl::FromUnixMicros(status.quorum().created_us());
  plain.quorum.reason = status.quorum().reason();
  for (const proto::ReplicaStatus& replica : status.replicas()) {
    ReplicaStatus& to = plain.replicas.emplace_back();
    to.replica = FromProto(replica.replica());
    to.heartbeat_age = absl::Milliseconds(replica.heartbeat_age_ms());
    to.healthy = replica.healthy();
    to.in_quorum = replica.in_quorum();
    to.recovering = replica.recovering();
    to.requesting = replica.requesting();
    to.drained = replica.drained();
  }
  plain.min_replicas = status.min_replicas();
  plain.heartbeat_timeout = absl::Milliseconds(status.heartbeat_timeout_ms());
  plain.address = status.address();
  plain.is_leader = status.is_leader();
  plain.leader_address = status.leader_address();
  plain.now = absl::FromUnixMicros(status.now_us());
  plain.leader_since = absl::FromUnixMicros(status.leader_since_us());
  plain.step_down_after = absl::Milliseconds(status.step_down_after_ms());
  plain.last_step_down = status.last_step_down();
  plain.authority_trouble = status.authority_trouble();
  plain.generation_reason = status.generation_reason();
  plain.generation_formed = absl::FromUnixMicros(status.generation_formed_us());
  for (const proto::HistoryEntry& entry : status.history()) {
    plain.history.push_back(FromProto(entry));
  }
  plain.steps_per_second = status.steps_per_second();
  plain.committed_steps = status.committed_steps();
  return plain;
}

proto::LighthouseStatus StatusToProto(const LighthouseStatus& status) {
  proto::LighthouseStatus message;
  proto::Quorum& quorum = *message.mutable_quorum();
  quorum.set_quorum_id(status.quorum.quorum_id);
  for (const ReplicaInfo& participant : status.quorum.participants) {
    *quorum.add_participants() = ToProto(participant);
  }
  quorum.set_created_us(absl::ToUnixMicros(status.quorum.created));
  quorum.set_reason(status.quorum.reason);
  for (const ReplicaStatus& replica : status.replicas) {
    proto::ReplicaStatus& to = *message.add_replicas();
    *to.mutable_replica() = ToProto(replica.replica);
    to.set_heartbeat_age_ms(absl::ToInt64Milliseconds(replica.heartbeat_age));
    to.set_healthy(replica.healthy);
    to.set_in_quorum(replica.in_quorum);
    to.set_recovering(replica.recovering);
    to.set_requesting(replica.requesting);
    to.set_drained(replica.drained);
  }
  message.set_min_replicas(status.min_replicas);
  message.set_heartbeat_timeout_ms(
      absl::ToInt64Milliseconds(status.heartbeat_timeout));
  message.set_address(status.address);
  message.set_is_leader(status.is_leader);
  message.set_leader_address(status.leader_address);
  message.set_now_us(absl::ToUnixMicros(status.now));
  message.set_leader_since_us(absl::ToUnixMicros(status.leader_since));
  message.set_step_down_after_ms(
      absl::ToInt64Milliseconds(status.step_down_after));
  message.set_last_step_down(status.last_step_down);
  message.set_authority_trouble(status.authority_trouble);
  message.set_generation_reason(status.generation_reason);
  message.set_generation_formed_us(
      absl::ToUnixMicros(status.generation_formed));
  for (const LighthouseStatus::HistoryEntry& entry : status.history) {
    *message.add_history() = ToProto(entry);
  }
  message.set_steps_per_second(status.steps_per_second);
  message.set_committed_steps(status.committed_steps);
  return message;
}

}  // namespace sluice::lighthouse
