#include "lib/distributed/handshake_watch.h"

#include <utility>

#include "lib/support/grpc_credentials.h"
#include "lib/support/grpc_handshake.h"

namespace sluice::dist::internal {
namespace {

constexpr absl::Duration kProbeTimeout = absl::Seconds(2);

}  // namespace

HandshakeWatch::HandshakeWatch(
    std::shared_ptr<grpc::Channel> channel, std::string address,
    std::function<void(const grpc::Status&)> on_failure)
    : channel_(std::move(channel)),
      address_(std::move(address)),
      on_failure_(std::move(on_failure)) {
  thread_ = std::thread([this] { Run(); });
}

HandshakeWatch::~HandshakeWatch() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void HandshakeWatch::SetBusy(bool busy) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    busy_ = busy;
  }
  changed_.notify_all();
}

std::optional<grpc::Status> HandshakeWatch::failure() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failure_;
}

void HandshakeWatch::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    changed_.wait_for(lock, absl::ToChronoNanoseconds(kLookEvery),
                      [this] { return stopping_; });
    if (stopping_) return;
    if (!busy_) continue;
    const grpc_connectivity_state state =
        channel_->GetState(/*try_to_connect=*/false);
    if (state == GRPC_CHANNEL_READY) failure_.reset();
    if (state != GRPC_CHANNEL_TRANSIENT_FAILURE) continue;
    lock.unlock();
    // The channel repeats its last failure until it reconnects: a
    // connection closed at connect is tried again on one of its own.
    const grpc::Status probe = CheckHandshake(
        address_, CallNoService(channel_, absl::Now() + kProbeTimeout));
    lock.lock();
    if (!HandshakeFailed(probe)) continue;
    // Recorded first: the RPCs that on_failure_ ends read it.
    failure_ = probe;
    lock.unlock();
    on_failure_(probe);
    lock.lock();
  }
}

}  // namespace sluice::dist::internal
