// What every client RPC of Sluice shares, whichever service it calls (the
// Worker service of remote execution, the Variables service of parameter
// servers): a channel that cancels and waits for its RPCs when it goes, a
// deadline on every RPC, answers resolved on a HostContext's work queue, and
// failures that name the task. Internal: not part of the public API.
#ifndef SLUICE_LIB_DISTRIBUTED_RPC_CHANNEL_H_
#define SLUICE_LIB_DISTRIBUTED_RPC_CHANNEL_H_

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "lib/distributed/grpc_status.h"
#include "lib/distributed/handshake_watch.h"
#include "lib/distributed/wait_reporter.h"
#include "lib/support/grpc_credentials.h"
#include "lib/support/grpc_liveness.h"
#include "sluice/distributed/rpc_options.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/support/error_util.h"
#include "sluice/support/failure.h"

namespace sluice::dist::internal {

// `cause` as the failure of `what` on `task`: its message after one that
// names both, its context and class kept, and the task (with the process
// that served it, 0 when unknown) recorded as its origin unless the cause
// names one.
inline absl::Status TaskFailure(const absl::Status& cause,
                                std::string_view task, uint64_t incarnation,
                                std::string_view what) {
  ErrorContext origin;
  origin.task = std::string(task);
  origin.incarnation = incarnation;
  return AddErrorContext(
      WithMessagePrefix(cause, absl::StrCat(std::string(what), " on task ",
                                            std::string(task), " failed: ")),
      origin);
}

// The class of a failed RPC that the transport ended, not the task:
// CANCELLED is a cancellation when this side cancelled the RPC (its request
// was cancelled, or the client is closing), and otherwise the task going
// away in the middle of the call, as UNAVAILABLE and DEADLINE_EXCEEDED are.
inline FailureClass TransportFailureClass(absl::StatusCode code,
                                          bool cancelled_here) {
  if (code == absl::StatusCode::kCancelled) {
    return cancelled_here ? FailureClass::kCancelled : FailureClass::kRetryable;
  }
  return ClassOfCode(code, /*from_peer=*/true, /*has_generation=*/false);
}

// Why the transport ended an RPC that gave up `timeout` after it began.
inline std::string TransportReason(const grpc::Status& status,
                                   absl::Duration timeout) {
  if (HandshakeFailed(status)) return HandshakeReason(status);
  if (WentSilent(status)) return SilenceReason();
  if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    return absl::StrCat("no answer within ", absl::FormatDuration(timeout),
                        " (deadline exceeded)");
  }
  return status.error_message();
}

// The error of a failed RPC. One the task answered with keeps the context
// and class it sent; one the transport made (the task is down, stopped, or
// slower than the deadline) is classified by TransportFailureClass, but a
// failed TLS handshake is fatal: calling again would fail again.
inline absl::Status RpcFailure(const grpc::Status& status, bool cancelled_here,
                               std::string_view task, uint64_t incarnation,
                               std::string_view what, absl::Duration deadline) {
  std::optional<absl::Status> answered = PeerError(status);
  if (answered) return TaskFailure(*answered, task, incarnation, what);
  // Made here, not derived from anything: the root of its chain (a
  // TaskOutage may link it to an earlier failure of the task).
  const auto code = static_cast<absl::StatusCode>(status.error_code());
  ErrorContext origin;
  origin.task = std::string(task);
  origin.incarnation = incarnation;
  origin.failure_class = HandshakeFailed(status)
                             ? FailureClass::kFatal
                             : TransportFailureClass(code, cancelled_here);
  return AddErrorContext(
      absl::Status(
          code, absl::StrCat(std::string(what), " on task ", std::string(task),
                             " failed: ", TransportReason(status, deadline))),
      origin);
}

// The ClientContext of one RPC. It goes as soon as the RPC completes,
// while the channel is surely still alive: a ClientContext holds a
// reference to its channel, and dropping a channel's last reference on one
// of gRPC's callback threads tears down gRPC's callback queue under that
// very thread (a double free inside gRPC).
struct RpcContext {
  // When the RPC gives up; set when it is launched. A call repeated after
  // registering its program again keeps the first one's.
  absl::Time deadline = absl::InfiniteFuture();
  std::mutex mu;
  std::unique_ptr<grpc::ClientContext> context =
      std::make_unique<grpc::ClientContext>();

  // Whether this side cancelled the RPC; guarded by mu.
  bool cancelled_here = false;

  // What the RPC is, in its errors and wait reports ("remote call of 'f'").
  std::string what;
  // Set before the launch to have the RPC, if it waits for its task
  // (wait_for_ready), reported while it waits; null says nothing.
  std::shared_ptr<WaitReporter> waits;
  // The reporter's id for the wait, from the launch to the answer.
  std::optional<uint64_t> wait;

  // Cancels the RPC. Not under `mu`: gRPC may complete the RPC within
  // TryCancel, on this very thread, and its callback takes `mu`
  // (CancelledHere, ReleaseContext). The context stays until the cancel
  // returns: ReleaseContext leaves it to the last canceller, whose thread
  // (a request's, never one of gRPC's) then drops it.
  void TryCancel() {
    grpc::ClientContext* cancelled = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu);
      cancelled_here = true;
      if (context == nullptr) return;
      ++cancelling;
      cancelled = context.get();
    }
    cancelled->TryCancel();
    std::unique_ptr<grpc::ClientContext> finished;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (--cancelling == 0 && completed) finished = std::move(context);
    }
  }
  bool CancelledHere() {
    std::lock_guard<std::mutex> lock(mu);
    return cancelled_here;
  }
  // The RPC completed: its context goes, now or when the cancels in
  // progress return.
  void ReleaseContext() {
    std::unique_ptr<grpc::ClientContext> finished;
    std::lock_guard<std::mutex> lock(mu);
    completed = true;
    if (cancelling == 0) finished = std::move(context);
  }

 private:
  int cancelling = 0;      // guarded by mu: TryCancel calls under way
  bool completed = false;  // guarded by mu
};

// One unary RPC: its context, messages, and the values its answer resolves.
// Owned by a shared_ptr: gRPC's completion callback (a copyable
// std::function), the task that resolves the values on the host, and a
// cancellation callback may all hold it. It names no client, so a
// resolution that runs late touches nothing a client owns.
template <typename Request, typename Response, typename Outputs>
struct PendingRpc : RpcContext {
  Request request;
  Response response;
  Outputs outputs;
  std::string task_name;
  absl::Duration timeout;
};

// The channel to one task, and the RPCs in flight on it. The destructor
// cancels what is still running and waits for it: gRPC calls back on its
// own threads, and nothing may call back into a destroyed client.
// Completion callbacks reach the channel by plain pointer, never through
// the client that owns it, whose pointer to it is already null while this
// waits.
template <typename Service>
class RpcChannel {
 public:
  RpcChannel(const std::string& address, const RpcOptions& options) {
    grpc::ChannelArguments arguments;
    arguments.SetMaxReceiveMessageSize(options.max_message_bytes);
    arguments.SetMaxSendMessageSize(options.max_message_bytes);
    // A task that comes up late is found within ~0.5 s, not gRPC's
    // default backoff of up to two minutes.
    // (Not GRPC_ARG_MIN_RECONNECT_BACKOFF_MS: gRPC takes it as the connect
    // timeout too, and would fail a handshake slower than that.)
    arguments.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
    arguments.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 500);
    AddLivenessArguments(&arguments, options.liveness_timeout);
    channel_ = grpc::CreateCustomChannel(address, NewChannelCredentials(),
                                         arguments);
    stub_ = Service::NewStub(channel_);
    // Plaintext too: a plaintext client of a TLS task learns why it is
    // refused.
    handshakes_ = std::make_unique<HandshakeWatch>(
        channel_, address, [this](const grpc::Status&) { EndEveryRpc(); });
  }

  ~RpcChannel() {
    std::unique_ptr<HandshakeWatch> handshakes;
    {
      // Taken under mu_: an End on a gRPC thread may be telling it that
      // the channel went idle.
      std::lock_guard<std::mutex> lock(mu_);
      handshakes = std::move(handshakes_);
    }
    handshakes.reset();  // joins its thread: no EndEveryRpc from here on
    std::unique_lock<std::mutex> lock(mu_);
    closing_ = true;
    for (RpcContext* rpc : in_flight_) rpc->TryCancel();
    idle_.wait(lock, [this] { return in_flight_.empty(); });
  }

  typename Service::Stub::async_interface* async() { return stub_->async(); }

  // The channel's state in a few words, empty when it is connected (see
  // WaitReporter::ChannelState). Does not start a connection.
  std::string State() {
    switch (channel_->GetState(/*try_to_connect=*/false)) {
      case GRPC_CHANNEL_READY:
        return "";
      case GRPC_CHANNEL_IDLE:
        return "idle";
      case GRPC_CHANNEL_CONNECTING:
        return "connecting";
      case GRPC_CHANNEL_TRANSIENT_FAILURE:
        return "failing to connect";
      case GRPC_CHANNEL_SHUTDOWN:
        return "shut down";
    }
    return "in an unknown state";
  }

  // Why the channel's connections fail, when they fail in the TLS
  // handshake: the status the RPCs that failed meanwhile end with.
  std::optional<grpc::Status> HandshakeFailure() const {
    if (handshakes_ == nullptr) return std::nullopt;  // closing
    return handshakes_->failure();
  }

  // Brackets one RPC; Begin returns false once the client is closing.
  bool Begin(RpcContext* rpc) {
    std::lock_guard<std::mutex> lock(mu_);
    if (closing_) return false;
    in_flight_.insert(rpc);
    if (in_flight_.size() == 1 && handshakes_ != nullptr) {
      handshakes_->SetBusy(true);
    }
    return true;
  }
  // Called from the completion callback: drops the RPC's ClientContext.
  void End(RpcContext* rpc) {
    std::lock_guard<std::mutex> lock(mu_);
    in_flight_.erase(rpc);
    rpc->ReleaseContext();
    if (in_flight_.empty()) {
      if (handshakes_ != nullptr) handshakes_->SetBusy(false);
      idle_.notify_all();
    }
  }

 private:
  // Ends the RPCs in flight, without marking them cancelled by the caller:
  // they end with HandshakeFailure.
  void EndEveryRpc() {
    std::lock_guard<std::mutex> lock(mu_);
    for (RpcContext* rpc : in_flight_) {
      std::lock_guard<std::mutex> context_lock(rpc->mu);
      if (rpc->context != nullptr) rpc->context->TryCancel();
    }
  }

  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<typename Service::Stub> stub_;
  std::mutex mu_;
  std::condition_variable idle_;
  std::set<RpcContext*> in_flight_;
  bool closing_ = false;
  std::unique_ptr<HandshakeWatch> handshakes_;
};

// Ends the wait of `rpc`, if it was reported as waiting: the task
// answered (with a result or with an error of its own), or the transport
// ended the RPC.
template <typename Call>
void EndWait(Call& rpc, const grpc::Status& status) {
  if (!rpc.wait) return;
  if (status.ok() || PeerError(status)) {
    rpc.waits->Answered(*rpc.wait);
  } else if (rpc.CancelledHere()) {
    rpc.waits->GaveUp(*rpc.wait, "cancelled by the caller");
  } else {
    rpc.waits->GaveUp(*rpc.wait, TransportReason(status, rpc.timeout));
  }
  rpc.wait.reset();
}

// Starts `call` with `start(stub, context, request, response, callback)`
// and has `resolve(call, status)` run on `host` when it completes, unless
// `take_over(call, status)`, which runs first on gRPC's thread while the
// call's context is still there, returns true: it has then seen to the
// outputs. A call that waits for its task and has `waits` set is reported
// while it waits.
template <typename Channel, typename Call, typename Start, typename Resolve,
          typename TakeOver>
void Launch(Channel* channel, HostContext* host,
            const std::shared_ptr<Call>& call, bool wait_for_ready, Start start,
            Resolve resolve, TakeOver take_over) {
  if (call->deadline == absl::InfiniteFuture()) {
    call->deadline = absl::Now() + call->timeout;
  }
  call->context->set_deadline(absl::ToChronoTime(call->deadline));
  call->context->set_wait_for_ready(wait_for_ready);
  if (!channel->Begin(call.get())) {
    call->TryCancel();
    resolve(*call, grpc::Status(grpc::StatusCode::CANCELLED,
                                "the client is shutting down"));
    return;
  }
  if (wait_for_ready && call->waits != nullptr) {
    call->wait = call->waits->Begin(call->what, call->timeout);
  }
  start(channel->async(), call->context.get(), &call->request, &call->response,
        [channel, host, call, resolve, take_over](grpc::Status status) {
          // The transport's own error hides a failed handshake's reason.
          if (!status.ok() && !PeerError(status)) {
            if (std::optional<grpc::Status> failure =
                    channel->HandshakeFailure()) {
              status = *failure;
            }
          }
          EndWait(*call, status);
          // Resolved on the host's queue, so that the kernels waiting for
          // the answer run there and not on gRPC's threads. The queue
          // outlives the client: a client is destroyed before its host,
          // or, as a shared object, before the host's queue.
          if (!take_over(call, status)) {
            host->EnqueueWork(
                [call, status, resolve] { resolve(*call, status); });
          }
          channel->End(call.get());
        });
}

template <typename Channel, typename Call, typename Start, typename Resolve>
void Launch(Channel* channel, HostContext* host,
            const std::shared_ptr<Call>& call, bool wait_for_ready, Start start,
            Resolve resolve) {
  Launch(
      channel, host, call, wait_for_ready, start, resolve,
      [](const std::shared_ptr<Call>&, const grpc::Status&) { return false; });
}

// Has a cancellation of `request` cancel `call`. The weak reference lets
// the call go once answered, however long the request lives.
template <typename Call>
void CancelWithRequest(RequestContext* request,
                       const std::shared_ptr<Call>& call) {
  request->OnCancel([weak = std::weak_ptr<Call>(call)](const absl::Status&) {
    if (std::shared_ptr<Call> live = weak.lock()) live->TryCancel();
  });
}

}  // namespace sluice::dist::internal

#endif  // SLUICE_LIB_DISTRIBUTED_RPC_CHANNEL_H_
