#include "lib/ft/heal_server.h"

#include <algorithm>
#include <chrono>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "grpcpp/grpcpp.h"
#include "lib/ft/heal_service.grpc.pb.h"
#include "lib/support/crc32.h"
#include "lib/support/grpc_credentials.h"
#include "lib/support/grpc_liveness.h"
#include "sluice/support/fault_point.h"
#include "sluice/support/host_port.h"

namespace sluice::ft {

class HealServiceImpl final : public proto::Heal::Service {
 public:
  HealServiceImpl(std::string replica_id, StateSource source)
      : replica_id_(std::move(replica_id)), source_(std::move(source)) {}

  grpc::Status FetchState(
      grpc::ServerContext* context, const proto::FetchStateRequest* request,
      grpc::ServerWriter<proto::StateChunk>* writer) override {
    absl::StatusOr<ServedState> state = source_(request->at_least());
    if (!state.ok()) {
      return grpc::Status(
          static_cast<grpc::StatusCode>(state.status().code()),
          absl::StrCat("replica ", replica_id_,
                       " cannot save its state: ", state.status().message()));
    }
    if (request->at_least() ? state->step < request->step()
                            : state->step != request->step()) {
      return grpc::Status(
          grpc::StatusCode::FAILED_PRECONDITION,
          absl::StrCat("replica ", replica_id_, " is at step ", state->step,
                       request->at_least() ? ", before step " : ", not at step ",
                       request->step(), " that replica ",
                       request->replica_id(), " heals to"));
    }
    const std::string_view bytes = state->bytes;
    proto::StateChunk chunk;
    proto::StateChunk::Header* header = chunk.mutable_header();
    header->set_replica_id(replica_id_);
    header->set_step(state->step);
    header->set_total_bytes(bytes.size());
    if (!writer->Write(chunk)) return Gone(*request);
    for (size_t offset = 0; offset < bytes.size(); offset += kHealChunkBytes) {
      if (context->IsCancelled()) return Gone(*request);
      chunk.set_data(bytes.data() + offset,
                     std::min(kHealChunkBytes, bytes.size() - offset));
      // An error here stands for bytes damaged on the way: the chunk goes
      // out with one bit flipped, which the receiver's checksum catches.
      if (!SLUICE_FAULT_POINT("manager.heal.send").ok()) {
        (*chunk.mutable_data())[0] ^= 1;
      }
      if (!writer->Write(chunk)) return Gone(*request);
    }
    chunk.mutable_trailer()->set_crc32(Crc32(bytes));
    if (!writer->Write(chunk)) return Gone(*request);
    return grpc::Status::OK;
  }

 private:
  grpc::Status Gone(const proto::FetchStateRequest& request) const {
    return grpc::Status(
        grpc::StatusCode::CANCELLED,
        absl::StrCat("replica ", request.replica_id(),
                     " stopped healing from replica ", replica_id_));
  }

  const std::string replica_id_;
  const StateSource source_;
};

struct HealServer::Impl {
  Impl(std::string replica_id, StateSource source)
      : service(std::move(replica_id), std::move(source)) {}
  HealServiceImpl service;
  std::unique_ptr<grpc::Server> server;
};

absl::StatusOr<std::unique_ptr<HealServer>> HealServer::Start(
    const std::string& host, std::string replica_id, StateSource source) {
  const std::string address = absl::StrCat(host, ":0");
  if (absl::StatusOr<HostPort> valid = ParseHostPort(address); !valid.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("healing service: cannot listen on '", address,
                     "': ", valid.status().message()));
  }
  if (absl::Status allowed = CheckListenAddress(address, "healing service");
      !allowed.ok()) {
    return allowed;
  }
  auto impl = std::make_unique<Impl>(std::move(replica_id), std::move(source));
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort(address, NewServerCredentials(), &port);
  AddLivenessArguments(&builder);
  builder.RegisterService(&impl->service);
  impl->server = builder.BuildAndStart();
  if (impl->server == nullptr || port == 0) {
    return absl::UnavailableError(
        absl::StrCat("healing service: cannot listen on ", host));
  }
  return std::unique_ptr<HealServer>(
      new HealServer(std::move(impl), absl::StrCat(host, ":", port)));
}

HealServer::HealServer(std::unique_ptr<Impl> impl, std::string address)
    : impl_(std::move(impl)), address_(std::move(address)) {}

HealServer::~HealServer() {
  // A transfer in flight is cancelled now rather than waited for.
  impl_->server->Shutdown(std::chrono::system_clock::now());
  impl_->server->Wait();
}

}  // namespace sluice::ft
