#include "lib/launcher/launcher_rendezvous.h"

#include <grpcpp/grpcpp.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/launcher/rendezvous_service.grpc.pb.h"
#include "lib/support/grpc_credentials.h"
#include "lib/support/grpc_handshake.h"
#include "lib/support/grpc_liveness.h"
#include "sluice/support/failure.h"
#include "sluice/support/host_port.h"

namespace sluice::launcher {
namespace {

void ToProto(const RendezvousView& view, proto::JobView* out) {
  out->set_generation(view.generation);
  out->set_running(view.running);
  out->set_resume_epoch(view.resume_epoch);
  out->set_restart(view.restart);
  out->set_outcome(static_cast<proto::JobView::Outcome>(view.outcome));
  out->set_exit_code(view.exit_code);
}

RendezvousView FromProto(const proto::JobView& view) {
  RendezvousView out;
  out.generation = view.generation();
  out.running = view.running();
  out.resume_epoch = view.resume_epoch();
  out.restart = view.restart();
  switch (view.outcome()) {
    case proto::JobView::FINISHED:
      out.outcome = RendezvousView::kFinished;
      break;
    case proto::JobView::GAVE_UP:
      out.outcome = RendezvousView::kGaveUp;
      break;
    default:
      out.outcome = RendezvousView::kInProgress;
  }
  out.exit_code = view.exit_code();
  return out;
}

// A refused TLS handshake is fatal: node 0 would refuse this node again.
absl::Status FromGrpc(const grpc::Status& status, const std::string& what,
                      const std::string& address) {
  if (status.ok()) return absl::OkStatus();
  const grpc::Status checked = CheckHandshake(address, status);
  if (HandshakeFailed(checked)) {
    return MarkFailureClass(absl::UnavailableError(absl::StrCat(
                                what, " on the rendezvous at ", address, ": ",
                                HandshakeReason(checked))),
                            FailureClass::kFatal);
  }
  return absl::UnavailableError(absl::StrCat(
      what, " on the rendezvous at ", address, ": ", status.error_message()));
}

}  // namespace

class RendezvousServer::Service final : public proto::Rendezvous::Service {
 public:
  explicit Service(RendezvousServer* server) : server_(server) {}

  grpc::Status Join(grpc::ServerContext*, const proto::JoinRequest* request,
                    proto::JoinReply* reply) override {
    RendezvousServer& s = *server_;
    const int node = request->node_rank();
    if (node <= 0 || node >= s.nnodes_) {
      return grpc::Status(
          grpc::StatusCode::INVALID_ARGUMENT,
          absl::StrCat("node rank ", node, " from ", request->host(),
                       " is not in 1..", s.nnodes_ - 1,
                       " (--nnodes=", s.nnodes_, ")"));
    }
    if (request->nproc() != s.nproc_) {
      return grpc::Status(
          grpc::StatusCode::INVALID_ARGUMENT,
          absl::StrCat("node ", node, " (", request->host(), ") runs --nproc=",
                       request->nproc(), ", node 0 runs --nproc=", s.nproc_,
                       ": every node must run the same number of ranks"));
    }
    absl::MutexLock lock(&s.mutex_);
    Node& entry = s.nodes_[node];
    entry.host = request->host();
    // A node that joins again (its launcher restarted) runs no rank yet.
    entry.report = NodeReportInfo{};
    entry.report.node_rank = node;
    entry.report.generation = -1;
    entry.report.ranks_stopped = true;
    entry.last_heard = absl::Now();
    reply->set_world_size(s.nnodes_ * s.nproc_);
    reply->set_rank_offset(node * s.nproc_);
    reply->set_monitor_address(s.monitor_address_);
    ToProto(s.view_, reply->mutable_view());
    return grpc::Status::OK;
  }

  grpc::Status Poll(grpc::ServerContext*, const proto::NodeReport* request,
                    proto::JobView* view) override {
    RendezvousServer& s = *server_;
    absl::MutexLock lock(&s.mutex_);
    auto node = s.nodes_.find(request->node_rank());
    if (node == s.nodes_.end()) {
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                          absl::StrCat("node ", request->node_rank(),
                                       " polls without having joined"));
    }
    node->second.last_heard = absl::Now();
    NodeReportInfo& report = node->second.report;
    report.generation = request->generation();
    report.ranks_stopped = request->ranks_stopped();
    report.state = static_cast<NodeReportInfo::State>(request->state());
    if (report.state == NodeReportInfo::kFailed &&
        report.generation == s.view_.generation && !s.failure_.has_value()) {
      report.failure.exit_code = request->exit_code();
      report.failure.reason =
          absl::StrCat("node ", request->node_rank(), ": ", request->reason());
      s.failure_ = report.failure;
    }
    if (s.view_.outcome != RendezvousView::kInProgress) {
      node->second.saw_end = true;
    }
    ToProto(s.view_, view);
    return grpc::Status::OK;
  }

 private:
  RendezvousServer* const server_;
};

struct RendezvousServer::Grpc {
  std::unique_ptr<grpc::Server> server;
};

absl::StatusOr<std::unique_ptr<RendezvousServer>> RendezvousServer::Start(
    const std::string& address, int nnodes, int nproc,
    const std::string& monitor_address, absl::Duration node_timeout) {
  if (absl::StatusOr<HostPort> valid = ParseHostPort(address); !valid.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot serve the rendezvous at '", address,
                     "' (--rendezvous): ", valid.status().message()));
  }
  if (absl::Status allowed = CheckListenAddress(address, "rendezvous");
      !allowed.ok()) {
    return allowed;
  }
  std::unique_ptr<RendezvousServer> server(new RendezvousServer());
  server->node_timeout_ = node_timeout;
  server->nnodes_ = nnodes;
  server->nproc_ = nproc;
  server->monitor_address_ = monitor_address;
  server->service_ = std::make_unique<Service>(server.get());
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(address, NewServerCredentials(), &port);
  AddLivenessArguments(&builder);
  builder.RegisterService(server->service_.get());
  server->grpc_ = std::make_unique<Grpc>();
  server->grpc_->server = builder.BuildAndStart();
  if (server->grpc_->server == nullptr || port == 0) {
    return absl::UnavailableError(absl::StrCat(
        "cannot serve the rendezvous at ", address,
        " (--rendezvous): the address is taken or not one of this host's"));
  }
  return server;
}

RendezvousServer::~RendezvousServer() {
  if (grpc_ != nullptr && grpc_->server != nullptr) {
    grpc_->server->Shutdown(absl::ToChronoTime(absl::Now() + absl::Seconds(1)));
  }
}

void RendezvousServer::Begin(int64_t generation, int64_t resume_epoch,
                             int restart) {
  absl::MutexLock lock(&mutex_);
  view_.generation = generation;
  view_.running = true;
  view_.resume_epoch = resume_epoch;
  view_.restart = restart;
  failure_.reset();
}

void RendezvousServer::StopGeneration() {
  absl::MutexLock lock(&mutex_);
  view_.running = false;
}

void RendezvousServer::End(RendezvousView::Outcome outcome, int exit_code) {
  absl::MutexLock lock(&mutex_);
  view_.running = false;
  view_.outcome = outcome;
  view_.exit_code = exit_code;
}

int RendezvousServer::JoinedNodes() {
  absl::MutexLock lock(&mutex_);
  return static_cast<int>(nodes_.size());
}

std::optional<Failure> RendezvousServer::RemoteFailure() {
  absl::MutexLock lock(&mutex_);
  if (failure_.has_value()) return failure_;
  const absl::Time now = absl::Now();
  for (const auto& [rank, node] : nodes_) {
    if (now - node.last_heard > node_timeout_) {
      Failure lost;
      lost.reason = absl::StrCat("node ", rank, " (", node.host,
                                 ") has not been heard from for ",
                                 absl::FormatDuration(node_timeout_));
      return lost;
    }
  }
  return std::nullopt;
}

bool RendezvousServer::AllRemoteFinished() {
  absl::MutexLock lock(&mutex_);
  if (static_cast<int>(nodes_.size()) != nnodes_ - 1) return false;
  for (const auto& [rank, node] : nodes_) {
    if (node.report.generation != view_.generation ||
        node.report.state != NodeReportInfo::kFinished) {
      return false;
    }
  }
  return true;
}

bool RendezvousServer::AllRemoteStopped() {
  absl::MutexLock lock(&mutex_);
  for (const auto& [rank, node] : nodes_) {
    if (node.report.generation == view_.generation &&
        !node.report.ranks_stopped) {
      return false;
    }
  }
  return true;
}

bool RendezvousServer::AllRemoteSawEnd() {
  absl::MutexLock lock(&mutex_);
  for (const auto& [rank, node] : nodes_) {
    if (!node.saw_end) return false;
  }
  return true;
}

struct RendezvousClient::Stub {
  std::unique_ptr<proto::Rendezvous::Stub> stub;
};

namespace {

// Node 0 may start after the others: a node tries to connect again within
// a second rather than after gRPC's default backoff of up to two minutes.
std::shared_ptr<grpc::Channel> RendezvousChannel(const std::string& address) {
  grpc::ChannelArguments arguments;
  arguments.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  arguments.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  arguments.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  AddLivenessArguments(&arguments);
  return grpc::CreateCustomChannel(address, NewChannelCredentials(),
                                   arguments);
}

}  // namespace

RendezvousClient::RendezvousClient(const std::string& address)
    : address_(address),
      stub_(new Stub{proto::Rendezvous::NewStub(RendezvousChannel(address))}) {}

RendezvousClient::~RendezvousClient() = default;

absl::StatusOr<JoinInfo> RendezvousClient::Join(int node_rank, int nproc,
                                                const std::string& host,
                                                absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  // A call that waits for the connection would wait out its deadline on a
  // refused handshake, saying nothing of why.
  if (grpc::Status reached = WaitForServer(address_, deadline); !reached.ok()) {
    return FromGrpc(reached, "Join", address_);
  }
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(deadline));
  // Until node 0 listens, a call waits for the connection.
  context.set_wait_for_ready(true);
  proto::JoinRequest request;
  request.set_node_rank(node_rank);
  request.set_nproc(nproc);
  request.set_host(host);
  proto::JoinReply reply;
  grpc::Status status = stub_->stub->Join(&context, request, &reply);
  if (status.error_code() == grpc::StatusCode::INVALID_ARGUMENT) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the rendezvous at ", address_, " refused: ", status.error_message()));
  }
  if (absl::Status error = FromGrpc(status, "Join", address_); !error.ok()) {
    return error;
  }
  JoinInfo info;
  info.world_size = reply.world_size();
  info.rank_offset = reply.rank_offset();
  info.monitor_address = reply.monitor_address();
  info.view = FromProto(reply.view());
  return info;
}

absl::StatusOr<RendezvousView> RendezvousClient::Poll(
    const NodeReportInfo& report, absl::Duration timeout) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  proto::NodeReport request;
  request.set_node_rank(report.node_rank);
  request.set_generation(report.generation);
  request.set_state(static_cast<proto::NodeReport::State>(report.state));
  request.set_ranks_stopped(report.ranks_stopped);
  request.set_reason(report.failure.reason);
  request.set_exit_code(report.failure.exit_code);
  proto::JobView view;
  absl::Status status =
      FromGrpc(stub_->stub->Poll(&context, request, &view), "Poll", address_);
  if (!status.ok()) return status;
  return FromProto(view);
}

}  // namespace sluice::launcher
