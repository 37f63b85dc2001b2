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
  return message;
}

}  // namespace sluice::lighthouse
