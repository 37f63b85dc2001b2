#include "lib/ft/heal_client.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "grpcpp/grpcpp.h"
#include "lib/ft/heal_service.grpc.pb.h"
#include "lib/support/crc32.h"
#include "lib/support/grpc_credentials.h"
#include "lib/support/grpc_handshake.h"
#include "lib/support/grpc_liveness.h"
#include "sluice/support/failure.h"

namespace sluice::ft {
namespace {

// Reserved up front at most; a larger state grows as it arrives, so a peer
// that announces a huge size costs nothing until it sends the bytes.
constexpr uint64_t kMaxReserveBytes = uint64_t{1} << 30;

absl::Status PeerFailure(const HealPeer& peer, absl::StatusCode code,
                         std::string_view why) {
  return MarkRetryable(
      absl::Status(
          code, absl::StrCat("healing from replica ", peer.replica_id, " at ",
                             peer.address, " failed: ", std::string(why))),
      peer.replica_id);
}

// Why a call failed: a peer whose host or link is gone fails it only by
// silence, which the error must tell from a peer that refused.
std::string Why(const grpc::Status& status) {
  return WentSilent(status) ? SilenceReason() : status.error_message();
}

}  // namespace

absl::StatusOr<ServedState> FetchState(const HealPeer& peer,
                                       std::string_view requester, int64_t step,
                                       absl::Time deadline, bool at_least) {
  grpc::ChannelArguments arguments;
  // A chunk and its framing; anything larger is not a peer of ours.
  arguments.SetMaxReceiveMessageSize(kHealChunkBytes + 64 * 1024);
  AddLivenessArguments(&arguments);
  std::unique_ptr<proto::Heal::Stub> stub =
      proto::Heal::NewStub(grpc::CreateCustomChannel(
          peer.address, NewChannelCredentials(), arguments));
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(deadline));
  proto::FetchStateRequest request;
  request.set_replica_id(std::string(requester));
  request.set_step(step);
  request.set_at_least(at_least);
  std::unique_ptr<grpc::ClientReader<proto::StateChunk>> reader =
      stub->FetchState(&context, request);

  ServedState state;
  proto::StateChunk chunk;
  if (!reader->Read(&chunk) || !chunk.has_header()) {
    grpc::Status status = reader->Finish();
    if (!status.ok()) {
      status = CheckHandshake(peer.address, status);
      // Fatal: asking this peer again would be refused again.
      if (HandshakeFailed(status)) {
        return MarkFailureClass(
            PeerFailure(peer, absl::StatusCode::kUnavailable,
                        HandshakeReason(status)),
            FailureClass::kFatal);
      }
      return PeerFailure(peer,
                         static_cast<absl::StatusCode>(status.error_code()),
                         Why(status));
    }
    return PeerFailure(peer, absl::StatusCode::kDataLoss,
                       "the stream does not start with a header");
  }
  const uint64_t total = chunk.header().total_bytes();
  state.step = chunk.header().step();
  if (at_least ? state.step < step : state.step != step) {
    context.TryCancel();
    reader->Finish().IgnoreError();
    return PeerFailure(peer, absl::StatusCode::kFailedPrecondition,
                       absl::StrCat("it serves step ", state.step,
                                    at_least ? ", before step " : ", not step ",
                                    step));
  }
  state.bytes.reserve(std::min(total, kMaxReserveBytes));
  uint32_t crc = 0;
  bool has_trailer = false;
  uint32_t sent_crc = 0;
  while (reader->Read(&chunk)) {
    if (chunk.has_trailer()) {
      has_trailer = true;
      sent_crc = chunk.trailer().crc32();
      break;
    }
    if (chunk.part_case() != proto::StateChunk::kData ||
        chunk.data().size() > total - state.bytes.size()) {
      context.TryCancel();
      reader->Finish().IgnoreError();
      return PeerFailure(
          peer, absl::StatusCode::kDataLoss,
          absl::StrCat("it sent more than the ", total, " bytes it announced"));
    }
    crc = Crc32(chunk.data(), crc);
    state.bytes.append(chunk.data());
  }
  if (!has_trailer) {
    grpc::Status status = reader->Finish();
    const std::string why = absl::StrCat(
        "the stream ended after ", state.bytes.size(), " of ", total,
        " bytes without a checksum", status.ok() ? "" : ": ", Why(status));
    return PeerFailure(peer,
                       status.ok()
                           ? absl::StatusCode::kDataLoss
                           : static_cast<absl::StatusCode>(status.error_code()),
                       why);
  }
  if (reader->Read(&chunk)) {
    context.TryCancel();
    reader->Finish().IgnoreError();
    return PeerFailure(peer, absl::StatusCode::kDataLoss,
                       "it sent more after the checksum");
  }
  if (grpc::Status status = reader->Finish(); !status.ok()) {
    return PeerFailure(peer, static_cast<absl::StatusCode>(status.error_code()),
                       Why(status));
  }
  if (state.bytes.size() != total) {
    return PeerFailure(peer, absl::StatusCode::kDataLoss,
                       absl::StrCat("it sent ", state.bytes.size(), " of the ",
                                    total, " bytes it announced"));
  }
  if (crc != sent_crc) {
    return PeerFailure(peer, absl::StatusCode::kDataLoss,
                       absl::StrCat("checksum mismatch over ", total,
                                    " bytes: computed crc32 ", absl::Hex(crc),
                                    ", sent ", absl::Hex(sent_crc)));
  }
  return state;
}

}  // namespace sluice::ft
