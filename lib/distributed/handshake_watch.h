// A connection whose TLS handshake fails (a certificate refused, one side
// in plaintext) leaves a channel failing to connect, and an RPC that waits
// for its task would wait out its deadline saying nothing of why.
// While RPCs are in flight on a channel, a HandshakeWatch looks at it every
// kLookEvery; when it fails to connect, a probe that does not wait reads
// gRPC's reason (and a connection closed at connect is tried once more on
// a connection of its own, CheckHandshake), and a failed handshake is
// reported to the channel, which ends its RPCs with it: retrying would not
// help. Internal to the client.
#ifndef SLUICE_LIB_DISTRIBUTED_HANDSHAKE_WATCH_H_
#define SLUICE_LIB_DISTRIBUTED_HANDSHAKE_WATCH_H_

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"

namespace sluice::dist::internal {

class HandshakeWatch {
 public:
  static constexpr absl::Duration kLookEvery = absl::Milliseconds(200);

  // `channel` dials `address`. `on_failure` runs on the watch's thread
  // with the probe's status.
  HandshakeWatch(std::shared_ptr<grpc::Channel> channel, std::string address,
                 std::function<void(const grpc::Status&)> on_failure);
  ~HandshakeWatch();
  HandshakeWatch(const HandshakeWatch&) = delete;
  HandshakeWatch& operator=(const HandshakeWatch&) = delete;

  // Whether RPCs are in flight: the watch looks only while they are.
  void SetBusy(bool busy);

  // The last failed handshake, until the channel connects.
  std::optional<grpc::Status> failure() const;

 private:
  void Run();

  const std::shared_ptr<grpc::Channel> channel_;
  const std::string address_;
  const std::function<void(const grpc::Status&)> on_failure_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  bool busy_ = false;                    // guarded by mu_
  bool stopping_ = false;                // guarded by mu_
  std::optional<grpc::Status> failure_;  // guarded by mu_
  std::thread thread_;
};

}  // namespace sluice::dist::internal

#endif  // SLUICE_LIB_DISTRIBUTED_HANDSHAKE_WATCH_H_
