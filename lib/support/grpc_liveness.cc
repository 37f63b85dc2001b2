#include "lib/support/grpc_liveness.h"

#include "lib/support/grpc_credentials.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "sluice/support/liveness.h"

namespace sluice {
namespace {

int Milliseconds(absl::Duration duration) {
  return static_cast<int>(absl::ToInt64Milliseconds(duration));
}

}  // namespace

void AddLivenessArguments(grpc::ChannelArguments* arguments,
                          absl::Duration timeout, absl::Duration ping_timeout) {
  arguments->SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, Milliseconds(timeout));
  arguments->SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, Milliseconds(ping_timeout));
  // A call waiting on a long kernel sends no data for minutes: the pings
  // must go on without it, and without calls, so an idle channel learns
  // of a lost peer before its next call does.
  arguments->SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  arguments->SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
}

void AddLivenessArguments(grpc::ServerBuilder* builder,
                          absl::Duration timeout) {
  // A connection's timer restarts whenever anything arrives on it, so the
  // server, a little slower than its clients, hears a living client's ping
  // before its own is due and never sends one: an idle connection costs
  // one ping a period, not one from each end.
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS,
                              Milliseconds(timeout + kServerPingDelay));
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS,
                              Milliseconds(kLivenessPingTimeout));
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder->AddChannelArgument(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  // Clients may use a shorter timeout than this server: their pings are
  // welcome at any rate (0 strikes: never refused).
  builder->AddChannelArgument(
      GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS,
      Milliseconds(kMinLivenessTimeout));
  builder->AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
}

std::shared_ptr<grpc::Channel> NewLivenessChannel(const std::string& address) {
  grpc::ChannelArguments arguments;
  AddLivenessArguments(&arguments);
  return grpc::CreateCustomChannel(address, NewChannelCredentials(),
                                   arguments);
}

bool WentSilent(const grpc::Status& status) {
  if (status.error_code() != grpc::StatusCode::UNAVAILABLE) return false;
  const std::string& message = status.error_message();
  // gRPC also sets the socket's TCP_USER_TIMEOUT to the ping's timeout: a
  // connection with data unacknowledged fails by that first, in the
  // kernel's words ("recvmsg:Connection timed out"). A connection never
  // made is not one that went silent.
  return absl::StrContains(message, "keepalive") ||
         (absl::StrContains(message, "Connection timed out") &&
          !absl::StrContains(message, "failed to connect"));
}

std::string SilenceReason() {
  return "the connection went silent: no answer to a liveness ping (the "
         "peer's host or the network is gone; SLUICE_LIVENESS_TIMEOUT_MS "
         "bounds the wait)";
}

}  // namespace sluice
