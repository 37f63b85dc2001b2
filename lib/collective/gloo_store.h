// Gloo's rendezvous Store over the KeyValueStore service, with every key
// under gen/<generation>/ so that the ranks of one generation never read
// another's. Gloo's Store interface reports failures by throwing; this one
// throws gloo::IoException and keeps the first failure as a status for the
// caller that catches it.
#ifndef SLUICE_LIB_COLLECTIVE_GLOO_STORE_H_
#define SLUICE_LIB_COLLECTIVE_GLOO_STORE_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gloo/rendezvous/store.h"
#include "grpcpp/grpcpp.h"
#include "lib/collective/store_service.grpc.pb.h"

namespace sluice::ccl {

class GlooStore : public gloo::rendezvous::Store {
 public:
  // `timeout` bounds every call that has none of its own.
  // Every key goes under gen/<generation>/<prefix>.
  GlooStore(std::shared_ptr<grpc::Channel> channel, int64_t generation,
            std::string prefix, absl::Duration timeout);

  void set(const std::string& key, const std::vector<char>& data) override;
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override;

  // The first failure (OK when none).
  absl::Status error() const;

 private:
  // Throws after recording the failure.
  [[noreturn]] void Fail(absl::Status status);
  std::vector<std::string> Keys(const std::vector<std::string>& names) const;
  grpc::Status Get(const std::vector<std::string>& names, bool omit_values,
                   absl::Duration timeout, proto::GetResponse* response);

  const std::unique_ptr<proto::KeyValueStore::Stub> stub_;
  const int64_t generation_;
  const std::string prefix_;
  const absl::Duration timeout_;
  mutable absl::Mutex mu_;
  absl::Status error_ ABSL_GUARDED_BY(mu_);
};

}  // namespace sluice::ccl

#endif  // SLUICE_LIB_COLLECTIVE_GLOO_STORE_H_
