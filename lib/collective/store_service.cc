#include "lib/collective/store_service.h"

#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "lib/collective/store_keys.h"
#include "lib/collective/store_service.grpc.pb.h"

namespace sluice::ccl {
namespace {

// How often a waiting Get looks whether its call was cancelled.
constexpr absl::Duration kCancelPoll = absl::Milliseconds(50);

class StoreService final : public proto::KeyValueStore::Service {
 public:
  explicit StoreService(const StoreServiceOptions& options)
      : options_(options) {}

  grpc::Status Set(grpc::ServerContext*, const proto::SetRequest* request,
                   proto::SetResponse*) override {
    if (!KeyGeneration(request->key())) return BadKey(request->key());
    std::unique_lock<std::mutex> lock(mu_);
    return SetLocked(request->key(), request->value());
  }

  // The agreement's state is keys of its generation, so that it is bounded
  // and dropped as they are: <key>/deadline (the first arrival's time plus
  // its window, in Unix nanoseconds), <key>/rank/<r> ("ok" or "failed") for
  // each rank that came, and <key> itself, the decision, once made.
  grpc::Status Agree(grpc::ServerContext* context,
                     const proto::AgreeRequest* request,
                     proto::AgreeResponse* response) override {
    const std::string& key = request->key();
    if (!KeyGeneration(key)) return BadKey(key);
    if (request->size() < 1 || request->rank() < 0 ||
        request->rank() >= request->size() || request->window_ms() <= 0 ||
        absl::Milliseconds(request->window_ms()) > options_.max_wait) {
      return grpc::Status(
          grpc::StatusCode::INVALID_ARGUMENT,
          absl::StrCat("store: agreement ", key, ": rank ", request->rank(),
                       " of ", request->size(), " with a window of ",
                       request->window_ms(), " ms (positive, at most ",
                       absl::FormatDuration(options_.max_wait), ")"));
    }
    const int64_t generation = *KeyGeneration(key);
    std::unique_lock<std::mutex> lock(mu_);
    if (grpc::Status dropped = RefuseDropped(generation); !dropped.ok()) {
      return dropped;
    }
    if (!Value(key)) {
      if (!Value(absl::StrCat(key, "/deadline"))) {
        const absl::Time deadline =
            absl::Now() + absl::Milliseconds(request->window_ms());
        if (grpc::Status set =
                SetLocked(absl::StrCat(key, "/deadline"),
                          absl::StrCat(absl::ToUnixNanos(deadline)));
            !set.ok()) {
          return set;
        }
      }
      if (grpc::Status set =
              SetLocked(absl::StrCat(key, "/rank/", request->rank()),
                        request->succeeded() ? "ok" : "failed");
          !set.ok()) {
        return set;
      }
    }
    while (!Value(key)) {
      if (grpc::Status dropped = RefuseDropped(generation); !dropped.ok()) {
        return dropped;
      }
      int64_t nanos = 0;
      const std::optional<std::string> deadline_text =
          Value(absl::StrCat(key, "/deadline"));
      if (!deadline_text || !absl::SimpleAtoi(*deadline_text, &nanos)) {
        return grpc::Status(
            grpc::StatusCode::INTERNAL,
            absl::StrCat("store: agreement ", key, " lost its deadline"));
      }
      const absl::Time deadline = absl::FromUnixNanos(nanos);
      std::vector<int> arrived;
      bool all_succeeded = true;
      for (int r = 0; r < request->size(); ++r) {
        std::optional<std::string> said = Value(absl::StrCat(key, "/rank/", r));
        if (!said) continue;
        arrived.push_back(r);
        if (*said != "ok") all_succeeded = false;
      }
      const absl::Time now = absl::Now();
      if (static_cast<int>(arrived.size()) == request->size() ||
          now >= deadline) {
        all_succeeded = all_succeeded &&
                        static_cast<int>(arrived.size()) == request->size();
        if (grpc::Status set =
                SetLocked(key, absl::StrCat(absl::StrJoin(arrived, ","), ";",
                                            all_succeeded ? "ok" : "failed"));
            !set.ok()) {
          return set;
        }
        break;
      }
      if (context->IsCancelled()) {
        return grpc::Status(grpc::StatusCode::CANCELLED,
                            "store: the agreement call was cancelled");
      }
      changed_.wait_for(lock, absl::ToChronoMilliseconds(
                                  std::min(deadline - now, kCancelPoll)));
    }
    const std::string decision = *Value(key);
    const size_t separator = decision.find(';');
    for (absl::string_view rank : absl::StrSplit(decision.substr(0, separator),
                                                 ',', absl::SkipEmpty())) {
      int contributor = 0;
      if (absl::SimpleAtoi(rank, &contributor)) {
        response->add_contributors(contributor);
      }
    }
    response->set_all_succeeded(decision.substr(separator + 1) == "ok");
    return grpc::Status::OK;
  }

  grpc::Status Get(grpc::ServerContext* context,
                   const proto::GetRequest* request,
                   proto::GetResponse* response) override {
    for (const std::string& key : request->keys()) {
      if (!KeyGeneration(key)) return BadKey(key);
    }
    absl::Time deadline = absl::Now() + options_.max_wait;
    if (context->deadline() != std::chrono::system_clock::time_point::max()) {
      deadline = std::min(deadline, absl::FromChrono(context->deadline()));
    }
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      for (const std::string& key : request->keys()) {
        if (grpc::Status dropped = RefuseDropped(*KeyGeneration(key));
            !dropped.ok()) {
          return dropped;
        }
      }
      std::vector<std::string> missing = Missing(*request);
      if (missing.empty()) break;
      if (!request->wait()) {
        return grpc::Status(
            grpc::StatusCode::NOT_FOUND,
            absl::StrCat("store: key ", missing.front(), " is not set"));
      }
      if (context->IsCancelled()) {
        return grpc::Status(grpc::StatusCode::CANCELLED,
                            "store: the waiting get was cancelled");
      }
      absl::Time now = absl::Now();
      if (now >= deadline) {
        return grpc::Status(
            grpc::StatusCode::DEADLINE_EXCEEDED,
            absl::StrCat("store: ", missing.size(), " of ",
                         request->keys_size(), " keys still not set (",
                         missing.front(), " among them) at the deadline"));
      }
      changed_.wait_for(lock, absl::ToChronoMilliseconds(
                                  std::min(deadline - now, kCancelPoll)));
    }
    if (!request->omit_values()) {
      for (const std::string& key : request->keys()) {
        response->add_values(generations_[*KeyGeneration(key)][key]);
      }
    }
    return grpc::Status::OK;
  }

 private:
  static int64_t Footprint(const std::string& key, const std::string& value) {
    return static_cast<int64_t>(key.size() + value.size());
  }

  static grpc::Status BadKey(const std::string& key) {
    return grpc::Status(
        grpc::StatusCode::INVALID_ARGUMENT,
        absl::StrCat("store: key '", key,
                     "' is not of the form gen/<generation>/<name>"));
  }

  grpc::Status RefuseDropped(int64_t generation) const {
    if (options_.refuse_generation) {
      const std::string why = options_.refuse_generation(generation);
      if (!why.empty()) {
        return grpc::Status(grpc::StatusCode::ABORTED,
                            absl::StrCat("store: ", why));
      }
    }
    if (generation >= oldest_kept_) return grpc::Status::OK;
    return grpc::Status(
        grpc::StatusCode::ABORTED,
        absl::StrCat("store: generation ", generation,
                     " was dropped (the store keeps generations from ",
                     oldest_kept_, " on)"));
  }

  // Sets `key` (of a well-formed name), with mu_ held.
  grpc::Status SetLocked(const std::string& key, const std::string& value) {
    const int64_t generation = *KeyGeneration(key);
    MakeRoomFor(generation);
    if (grpc::Status dropped = RefuseDropped(generation); !dropped.ok()) {
      return dropped;
    }
    auto& keys = generations_[generation];
    auto it = keys.find(key);
    int64_t replaced = it == keys.end() ? 0 : Footprint(it->first, it->second);
    int64_t added = Footprint(key, value);
    if (bytes_ - replaced + added > options_.max_bytes) {
      if (keys.empty()) generations_.erase(generation);
      return grpc::Status(
          grpc::StatusCode::RESOURCE_EXHAUSTED,
          absl::StrCat("store: setting ", key, " (", added,
                       " bytes) would hold ", bytes_ - replaced + added,
                       " bytes, more than the bound of ", options_.max_bytes));
    }
    bytes_ += added - replaced;
    keys[key] = value;
    changed_.notify_all();
    return grpc::Status::OK;
  }

  // The value of `key` (of a well-formed name), with mu_ held.
  std::optional<std::string> Value(const std::string& key) const {
    auto generation = generations_.find(*KeyGeneration(key));
    if (generation == generations_.end()) return std::nullopt;
    auto it = generation->second.find(key);
    if (it == generation->second.end()) return std::nullopt;
    return it->second;
  }

  std::vector<std::string> Missing(const proto::GetRequest& request) const {
    std::vector<std::string> missing;
    for (const std::string& key : request.keys()) {
      auto generation = generations_.find(*KeyGeneration(key));
      if (generation == generations_.end() ||
          !generation->second.contains(key)) {
        missing.push_back(key);
      }
    }
    return missing;
  }

  // Drops the oldest generations so that `generation` can be kept with the
  // newest others: a generation older than every kept one when the store
  // keeps as many as it may is refused (RefuseDropped), not kept.
  void MakeRoomFor(int64_t generation) {
    if (generations_.count(generation) != 0) return;
    while (static_cast<int>(generations_.size()) >= options_.keep_generations &&
           !generations_.empty()) {
      auto oldest = generations_.begin();
      if (oldest->first > generation) {
        oldest_kept_ = std::max(oldest_kept_, generation + 1);
        return;
      }
      for (const auto& [key, value] : oldest->second) {
        bytes_ -= Footprint(key, value);
      }
      oldest_kept_ = oldest->first + 1;
      generations_.erase(oldest);
    }
    // Wakes the gets that wait for keys of the dropped generations.
    changed_.notify_all();
  }

  const StoreServiceOptions options_;
  // std::mutex, not absl::Mutex: ThreadSanitizer sees pthread mutexes, and
  // Debian's Abseil is not instrumented. Guards the members below it.
  std::mutex mu_;
  std::condition_variable changed_;
  std::map<int64_t, absl::flat_hash_map<std::string, std::string>> generations_;
  int64_t bytes_ = 0;
  // Generations below it were dropped.
  int64_t oldest_kept_ = 0;
};

}  // namespace

std::unique_ptr<grpc::Service> NewStoreService(
    const StoreServiceOptions& options) {
  return std::make_unique<StoreService>(options);
}

}  // namespace sluice::ccl
