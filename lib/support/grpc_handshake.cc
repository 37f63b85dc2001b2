#include "lib/support/grpc_handshake.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpcpp/generic/generic_stub.h"
#include "lib/support/grpc_credentials.h"

namespace sluice {
namespace {

// No service has it: a server that completed the handshake answers
// UNIMPLEMENTED.
constexpr char kProbeMethod[] = "/sluice.HandshakeProbe/Probe";
constexpr absl::Duration kProbeTimeout = absl::Seconds(2);
// How soon WaitForServer tries again a server that is not listening yet.
constexpr absl::Duration kRetryEvery = absl::Milliseconds(100);

// One call on a new connection to `address`.
grpc::Status Probe(const std::string& address, absl::Time deadline) {
  grpc::ChannelArguments arguments;
  // A subchannel shared with the caller's channel would answer with the
  // failure of an earlier connection rather than make a new one.
  arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return CallNoService(
      grpc::CreateCustomChannel(address, NewChannelCredentials(), arguments),
      std::min(deadline, absl::Now() + kProbeTimeout));
}

grpc::Status ClosedInHandshake(const grpc::Status& status) {
  return grpc::Status(
      grpc::StatusCode::UNAVAILABLE,
      absl::StrCat("the server closed every connection in the handshake (",
                   status.error_message(),
                   "): it refused this process's certificate (none, expired, "
                   "or of another CA), or it requires TLS"));
}

}  // namespace

grpc::Status CallNoService(const std::shared_ptr<grpc::Channel>& channel,
                           absl::Time deadline) {
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(deadline));
  // An uninitialized ByteBuffer is no message at all: an empty one is.
  grpc::Slice empty;
  grpc::ByteBuffer request(&empty, 1);
  // A completion queue of its own rather than a callback: nothing of the
  // call outlives this function.
  grpc::CompletionQueue queue;
  std::unique_ptr<grpc::GenericClientAsyncResponseReader> call =
      stub.PrepareUnaryCall(&context, kProbeMethod, request, &queue);
  call->StartCall();
  grpc::ByteBuffer response;
  grpc::Status status;
  call->Finish(&response, &status, &status);
  void* tag = nullptr;
  bool ok = false;
  queue.Next(&tag, &ok);
  queue.Shutdown();
  while (queue.Next(&tag, &ok)) {
  }
  return status;
}

grpc::Status CheckHandshake(const std::string& address,
                            const grpc::Status& status) {
  if (!ClosedAtConnect(status)) return status;
  grpc::Status again = Probe(address, absl::Now() + kProbeTimeout);
  if (HandshakeFailed(again)) return again;
  if (ClosedAtConnect(again)) return ClosedInHandshake(again);
  return status;
}

grpc::Status WaitForServer(const std::string& address, absl::Time deadline) {
  grpc::Status last(grpc::StatusCode::DEADLINE_EXCEEDED,
                    "the deadline had passed");
  bool closed_before = false;
  while (absl::Now() < deadline) {
    grpc::Status probe = Probe(address, deadline);
    const grpc::StatusCode code = probe.error_code();
    // Whatever the server answered, it answered over a handshake that
    // worked.
    if (code != grpc::StatusCode::UNAVAILABLE &&
        code != grpc::StatusCode::DEADLINE_EXCEEDED) {
      return grpc::Status::OK;
    }
    if (HandshakeFailed(probe)) return probe;
    const bool closed = ClosedAtConnect(probe);
    if (closed && closed_before) return ClosedInHandshake(probe);
    closed_before = closed;
    last = std::move(probe);
    // A server that closed a connection is asked again at once: if it
    // refuses the handshake, it closes the next one too.
    if (!closed) {
      absl::SleepFor(std::min(kRetryEvery, deadline - absl::Now()));
    }
  }
  return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                      absl::StrCat("no answer before the deadline (",
                                   last.error_message(), ")"));
}

}  // namespace sluice
