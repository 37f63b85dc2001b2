// The authority of a lighthouse that runs alone: it is always the leader and
// keeps the last quorum id in memory.
#include <mutex>

#include "absl/strings/str_cat.h"
#include "lib/lighthouse/quorum_authority.h"

namespace sluice::lighthouse {
namespace {

class LocalQuorumAuthority final : public QuorumAuthority {
 public:
  explicit LocalQuorumAuthority(std::string address)
      : address_(std::move(address)) {}

  bool IsLeader() const override { return true; }
  std::string LeaderAddress() const override { return address_; }

  absl::StatusOr<int64_t> LastQuorumId() override {
    std::lock_guard<std::mutex> lock(mu_);
    return last_id_;
  }

  absl::Status RecordQuorumId(int64_t id) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (id <= last_id_) {
      return absl::FailedPreconditionError(
          absl::StrCat("lighthouse ", address_, ": quorum id ", id,
                       " is not above the last issued, ", last_id_));
    }
    last_id_ = id;
    return absl::OkStatus();
  }

 private:
  const std::string address_;
  std::mutex mu_;
  int64_t last_id_ = 0;  // guarded by mu_
};

}  // namespace

std::unique_ptr<QuorumAuthority> NewLocalQuorumAuthority(std::string address) {
  return std::make_unique<LocalQuorumAuthority>(std::move(address));
}

}  // namespace sluice::lighthouse
