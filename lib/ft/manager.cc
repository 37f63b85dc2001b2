// The manager of a replica group (sluice/ft/manager.h) over the lighthouse
// client, the healing service and Gloo groups.
#include "sluice/ft/manager.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "lib/ft/heal_client.h"
#include "lib/ft/heal_server.h"
#include "lib/lighthouse/lighthouse_client.h"
#include "lib/lighthouse/lighthouse_service.pb.h"
#include "sluice/collective/collective_backend.h"
#include "sluice/collective/gloo_group.h"
#include "sluice/collective/nccl_group.h"
#include "sluice/support/failure.h"
#include "sluice/support/logging.h"

namespace sluice::ft {
namespace {

using ccl::CollectiveGroup;

void KillNow(const std::string& message) {
  SLUICE_LOG(ERROR) << message;
  std::fflush(stdout);
  std::fflush(stderr);
  // Not exit(): the training thread may be in a collective, and static
  // destructors would race it.
  _exit(kKilledByOperatorExitCode);
}

absl::Status ValidateOptions(const ManagerOptions& options) {
  if (options.lighthouses.empty()) {
    return absl::InvalidArgumentError("manager: no lighthouse address given");
  }
  if (options.replica_id.empty()) {
    return absl::InvalidArgumentError("manager: the replica id is empty");
  }
  for (const auto& [name, value] :
       {std::pair{"heartbeat_interval", options.heartbeat_interval},
        std::pair{"quorum_timeout", options.quorum_timeout},
        std::pair{"collective_timeout", options.collective_timeout},
        std::pair{"heal_timeout", options.heal_timeout},
        std::pair{"commit_timeout", options.commit_timeout}}) {
    if (value <= absl::ZeroDuration() || value == absl::InfiniteDuration()) {
      return absl::InvalidArgumentError(
          absl::StrCat("manager: ", name, " must be positive and finite, got ",
                       absl::FormatDuration(value)));
    }
  }
  return absl::OkStatus();
}

uint64_t NewIncarnation() {
  std::random_device device;
  // Never 0, which the lighthouse refuses.
  return ((uint64_t{device()} << 32) ^ device()) | 1;
}

// `status` as an error of `generation`, retryable, from `replica`.
absl::Status OfGeneration(absl::Status status, int64_t generation,
                          std::string_view replica) {
  ErrorContext context;
  context.generation = generation;
  return AddErrorContext(MarkRetryable(std::move(status), replica), context);
}

class ManagerImpl final : public Manager {
 public:
  ManagerImpl(ManagerOptions options, ReplicaState* state)
      : options_(std::move(options)),
        state_(state),
        incarnation_(NewIncarnation()) {}

  absl::Status Start() {
    absl::StatusOr<ccl::CollectiveBackend> backend =
        ccl::CollectiveBackendFromEnvironment();
    if (!backend.ok()) return backend.status();
    backend_ = *backend;
    SLUICE_LOG(INFO) << "replica " << options_.replica_id << ": collectives on "
                     << ccl::CollectiveBackendName(backend_)
                     << (backend_ == ccl::CollectiveBackend::kNccl
                             ? absl::StrCat(
                                   " (gpu:", ccl::CudaDeviceForLocalRank(), ")")
                             : std::string(" (no CUDA device, or "
                                           "SLUICE_COLLECTIVE_BACKEND=gloo)"));
    absl::StatusOr<std::unique_ptr<lighthouse::LighthouseClient>> client =
        lighthouse::LighthouseClient::Create(options_.lighthouses);
    if (!client.ok()) return client.status();
    client_ = *std::move(client);
    absl::StatusOr<std::unique_ptr<HealServer>> server = HealServer::Start(
        options_.host, options_.replica_id,
        [this](bool at_a_step_boundary) { return Serve(at_a_step_boundary); });
    if (!server.ok()) return server.status();
    heal_server_ = *std::move(server);
    lighthouse::proto::WatchRequest watch;
    watch.set_replica_id(options_.replica_id);
    watch.set_incarnation(incarnation_);
    watch_ = client_->Watch(
        watch, [this](const lighthouse::proto::LighthouseEvent& event) {
          OnEvent(event);
        });
    heartbeat_ = std::thread([this] { HeartbeatLoop(); });
    return absl::OkStatus();
  }

  ~ManagerImpl() override {
    {
      std::lock_guard<std::mutex> lock(heartbeat_mu_);
      stopping_ = true;
    }
    heartbeat_cv_.notify_all();
    if (heartbeat_.joinable()) heartbeat_.join();
    watch_.reset();
    RCReference<CollectiveGroup> group;
    {
      std::lock_guard<std::mutex> lock(mu_);
      group = std::move(group_);
    }
    if (group) {
      group->Abort(absl::CancelledError(absl::StrCat(
          "the manager of replica ", options_.replica_id, " shut down")));
    }
    {
      std::lock_guard<std::mutex> lock(snapshot_mu_);
      snapshot_stopping_ = true;
    }
    snapshot_cv_.notify_all();
    heal_server_.reset();
    if (heal_ != nullptr) heal_->thread.join();
  }

  absl::StatusOr<QuorumView> StartQuorum(int64_t step) override;
  void ReportError(absl::Status error) override;
  absl::StatusOr<bool> ShouldCommit(int64_t step) override {
    return ShouldCommit(step, {});
  }
  absl::StatusOr<bool> ShouldCommit(
      int64_t step, const std::vector<int>& contributors) override;
  std::string address() const override { return heal_server_->address(); }

 private:
  void HeartbeatLoop();
  void OnEvent(const lighthouse::proto::LighthouseEvent& event);
  // An operator killed this replica from the lighthouse's status page.
  void KilledBy(const std::string& operator_name);
  // This replica's state for a peer that heals from it: as of the step it
  // last joined a quorum with, or with `at_a_step_boundary` as saved at its
  // next StartQuorum (the peer heals in the background while this replica
  // trains on, and the bytes must be those of the step they are said to
  // be).
  absl::StatusOr<ServedState> Serve(bool at_a_step_boundary);
  // At a step boundary (StartQuorum, on the training thread): saves the
  // state for the peers that wait for one.
  void SaveForWaitingPeers(int64_t step);
  // Background healing: starts fetching the state of one of `up_to_date`
  // at `step` or later on a thread of its own.
  void StartBackgroundHeal(std::vector<HealPeer> up_to_date, int rank,
                           int64_t step, int64_t generation);
  // Loads the fetched state once the fetch is done. Returns the step it is
  // as of (and sets `healed_from`), -1 while the fetch runs or when it
  // failed (a new one starts with the next quorum).
  absl::StatusOr<int64_t> LoadFetchedState(std::string* healed_from);
  // The group of `quorum` for this replica at `rank`: the current one when
  // it is of the same generation and works, else a new one.
  absl::StatusOr<RCReference<CollectiveGroup>> GroupFor(
      const lighthouse::proto::Quorum& quorum, int rank);
  // Loads the state of an up-to-date participant, trying each in turn
  // from one derived from `rank`; returns the one it healed from.
  absl::StatusOr<std::string> Heal(const std::vector<HealPeer>& up_to_date,
                                   int rank, int64_t max_step,
                                   int64_t generation);
  // Drops the current group after a failed StartQuorum, so that its peers'
  // collectives fail now, and asks the next quorum for a new generation.
  void AbandonGroup(const absl::Status& why);

  const ManagerOptions options_;
  ReplicaState* const state_;
  const uint64_t incarnation_;
  std::atomic<bool> killed_{false};
  // Chosen once, in Start.
  ccl::CollectiveBackend backend_ = ccl::CollectiveBackend::kGloo;
  std::unique_ptr<lighthouse::LighthouseClient> client_;
  std::unique_ptr<HealServer> heal_server_;
  std::unique_ptr<lighthouse::LighthouseWatch> watch_;

  std::mutex heartbeat_mu_;
  std::condition_variable heartbeat_cv_;
  bool stopping_ = false;  // guarded by heartbeat_mu_
  std::thread heartbeat_;

  mutable std::mutex mu_;
  // The current quorum's group and members; the group is null before the
  // first quorum and after a failed one.
  RCReference<CollectiveGroup> group_;
  int64_t generation_ = 0;
  std::vector<std::string> participants_;
  // The error ReportError recorded in the current step, OK when none.
  absl::Status step_error_;
  // Failed commits since the last quorum, for the next QuorumRequest.
  int64_t commit_failures_ = 0;
  // The step last passed to StartQuorum (the state's step), -1 before.
  int64_t served_step_ = -1;

  // Background healing (options_.heal_in_background), on the training
  // thread but for the fetch itself.
  struct BackgroundHeal {
    std::thread thread;
    absl::Notification done;
    // Set by the thread before `done`: the peer and what it served.
    absl::StatusOr<std::pair<std::string, ServedState>> fetched =
        absl::UnknownError("not fetched");
  };
  std::unique_ptr<BackgroundHeal> heal_;
  // The state is behind the step the program passes: it is being healed.
  bool stale_ = false;
  // The step the program took when the heal began: the fetched state must
  // be as of it or later.
  int64_t heal_from_step_ = 0;

  // Peers healing in the background wait here for a state saved at a step
  // boundary.
  std::mutex snapshot_mu_;
  std::condition_variable snapshot_cv_;
  int snapshot_waiters_ = 0;              // guarded by snapshot_mu_
  uint64_t snapshots_taken_ = 0;          // guarded by snapshot_mu_
  absl::StatusOr<ServedState> snapshot_;  // guarded by snapshot_mu_
  bool snapshot_stopping_ = false;        // guarded by snapshot_mu_
};

void ManagerImpl::HeartbeatLoop() {
  lighthouse::proto::HeartbeatRequest request;
  request.set_replica_id(options_.replica_id);
  request.set_incarnation(incarnation_);
  // A heartbeat that takes longer than a few intervals is as good as lost.
  const absl::Duration timeout =
      std::max(options_.heartbeat_interval * 5, absl::Seconds(1));
  // Failures are said when they begin, then at most every kRepeatEvery
  // with how many there were, and when heartbeats go through again.
  constexpr absl::Duration kRepeatEvery = absl::Seconds(10);
  int64_t failures = 0;
  absl::Time said = absl::InfinitePast();
  std::unique_lock<std::mutex> lock(heartbeat_mu_);
  while (!stopping_) {
    lock.unlock();
    lighthouse::proto::HeartbeatResponse response;
    absl::Status sent = client_->Heartbeat(request, timeout, &response);
    if (sent.ok() && !response.killed_by().empty()) {
      KilledBy(response.killed_by());
    }
    const absl::Time now = absl::Now();
    if (!sent.ok()) {
      ++failures;
      if (now - said >= kRepeatEvery) {
        SLUICE_LOG(WARNING)
            << "replica " << options_.replica_id << ": heartbeat failed"
            << (failures > 1 ? absl::StrCat(" (", failures, " in a row)") : "")
            << ": " << sent.message();
        said = now;
      }
    } else if (failures > 0) {
      SLUICE_LOG(INFO) << "replica " << options_.replica_id
                       << ": heartbeats go through again after " << failures
                       << " failed";
      failures = 0;
      said = absl::InfinitePast();
    }
    lock.lock();
    heartbeat_cv_.wait_for(
        lock, absl::ToChronoNanoseconds(options_.heartbeat_interval),
        [this] { return stopping_; });
  }
}

void ManagerImpl::KilledBy(const std::string& operator_name) {
  // Told twice when both the watch and a heartbeat carry it.
  if (killed_.exchange(true)) return;
  const std::string message =
      absl::StrCat("replica ", options_.replica_id, ": killed by the operator (",
                   operator_name, " from the lighthouse status page)");
  if (options_.on_kill) {
    options_.on_kill(message);
  } else {
    KillNow(message);
  }
}

void ManagerImpl::OnEvent(const lighthouse::proto::LighthouseEvent& event) {
  if (event.kind() == lighthouse::proto::LighthouseEvent::KILLED) {
    if (event.replica_id() == options_.replica_id) {
      KilledBy(event.operator_name());
    }
    return;
  }
  RCReference<CollectiveGroup> group;
  absl::Status reason;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!group_) return;
    const int64_t generation = group_->generation();
    if (event.kind() == lighthouse::proto::LighthouseEvent::MEMBER_LOST) {
      if (event.quorum_id() != generation ||
          event.replica_id() == options_.replica_id ||
          std::find(participants_.begin(), participants_.end(),
                    event.replica_id()) == participants_.end()) {
        return;
      }
      reason = OfGeneration(
          absl::UnavailableError(absl::StrCat(
              "replica ", event.replica_id(), " of quorum ", generation,
              " was lost", event.reason().empty() ? "" : ": ", event.reason())),
          generation, event.replica_id());
    } else {
      // A newer quorum leaves this one's step nothing to commit: its
      // collectives may stop now.
      if (event.quorum_id() <= generation) return;
      reason = MarkStale(absl::AbortedError(absl::StrCat(
                             "quorum ", event.quorum_id(),
                             " formed, superseding quorum ", generation)),
                         generation);
    }
    group = group_.CopyRef();
  }
  SLUICE_LOG(WARNING) << "replica " << options_.replica_id
                      << ": aborting the group of quorum "
                      << group->generation() << ": " << reason.message();
  group->Abort(reason);
}

absl::StatusOr<ServedState> ManagerImpl::Serve(bool at_a_step_boundary) {
  if (at_a_step_boundary) {
    std::unique_lock<std::mutex> lock(snapshot_mu_);
    const uint64_t taken_before = snapshots_taken_;
    ++snapshot_waiters_;
    const bool taken = snapshot_cv_.wait_for(
        lock, absl::ToChronoNanoseconds(options_.heal_timeout), [&] {
          return snapshots_taken_ > taken_before || snapshot_stopping_;
        });
    --snapshot_waiters_;
    if (!taken || snapshots_taken_ == taken_before) {
      return absl::UnavailableError(absl::StrCat(
          "replica ", options_.replica_id,
          " reached no step boundary to save its state at within ",
          absl::FormatDuration(options_.heal_timeout)));
    }
    return snapshot_;
  }
  int64_t step;
  {
    std::lock_guard<std::mutex> lock(mu_);
    step = served_step_;
  }
  absl::StatusOr<std::string> bytes = state_->Save();
  if (!bytes.ok()) return bytes.status();
  return ServedState{step, *std::move(bytes)};
}

absl::StatusOr<RCReference<CollectiveGroup>> ManagerImpl::GroupFor(
    const lighthouse::proto::Quorum& quorum, int rank) {
  RCReference<CollectiveGroup> old;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (group_ && group_->generation() == quorum.quorum_id()) {
      absl::Status health = group_->health();
      if (health.ok()) return group_.CopyRef();
      // A group that broke makes this replica vote no, so the lighthouse
      // moves to a new generation; until it does, the generation's store
      // keys are used up.
      commit_failures_ = std::max<int64_t>(commit_failures_, 1);
      group_.reset();
      return OfGeneration(
          absl::UnavailableError(absl::StrCat(
              "replica ", options_.replica_id, ": the group of quorum ",
              quorum.quorum_id(), " is broken (", health.message(),
              ") and the lighthouse kept that quorum; asking for a new one")),
          quorum.quorum_id(), options_.replica_id);
    }
    old = std::move(group_);
  }
  if (old) {
    old->Abort(MarkStale(absl::AbortedError(absl::StrCat(
                             "the group of quorum ", old->generation(),
                             " was retired for quorum ", quorum.quorum_id())),
                         old->generation()));
  }
  if (backend_ == ccl::CollectiveBackend::kNccl) {
    ccl::NcclGroupOptions nccl_options;
    nccl_options.store_address = client_->leader();
    nccl_options.rank = rank;
    nccl_options.size = quorum.participants_size();
    nccl_options.generation = quorum.quorum_id();
    nccl_options.device = ccl::CudaDeviceForLocalRank();
    nccl_options.connect_timeout = options_.quorum_timeout;
    nccl_options.default_timeout = options_.collective_timeout;
    absl::StatusOr<RCReference<ccl::NcclGroup>> nccl =
        ccl::CreateNcclGroup(nccl_options);
    if (!nccl.ok()) return nccl.status();
    return RCReference<CollectiveGroup>(*std::move(nccl));
  }
  ccl::GlooGroupOptions group_options;
  group_options.store_address = client_->leader();
  group_options.rank = rank;
  group_options.size = quorum.participants_size();
  group_options.generation = quorum.quorum_id();
  group_options.bind_host = options_.host;
  group_options.connect_timeout = options_.quorum_timeout;
  group_options.default_timeout = options_.collective_timeout;
  return ccl::CreateGlooGroup(group_options);
}

absl::StatusOr<std::string> ManagerImpl::Heal(
    const std::vector<HealPeer>& up_to_date, int rank, int64_t max_step,
    int64_t generation) {
  const absl::Time deadline = absl::Now() + options_.heal_timeout;
  std::vector<std::string> failures;
  const size_t n = up_to_date.size();
  for (size_t i = 0; i < n; ++i) {
    const HealPeer& peer = up_to_date[(rank + i) % n];
    absl::StatusOr<ServedState> fetched =
        FetchState(peer, options_.replica_id, max_step, deadline);
    if (!fetched.ok()) {
      SLUICE_LOG(WARNING) << "replica " << options_.replica_id << ": "
                          << fetched.status().message();
      failures.push_back(std::string(fetched.status().message()));
      continue;
    }
    absl::Status loaded = state_->Load(fetched->bytes);
    if (!loaded.ok()) {
      return AddErrorContext(
          absl::Status(
              loaded.code(),
              absl::StrCat("replica ", options_.replica_id,
                           ": loading the state of replica ", peer.replica_id,
                           " failed: ", loaded.message())),
          GetErrorContext(loaded));
    }
    return peer.replica_id;
  }
  return OfGeneration(
      absl::UnavailableError(absl::StrCat(
          "replica ", options_.replica_id, " could not heal to step ", max_step,
          " of quorum ", generation, " from any of ", n,
          " up-to-date replicas: ", absl::StrJoin(failures, "; "))),
      generation, options_.replica_id);
}

void ManagerImpl::SaveForWaitingPeers(int64_t step) {
  {
    std::lock_guard<std::mutex> lock(snapshot_mu_);
    if (snapshot_waiters_ == 0) return;
  }
  absl::StatusOr<ServedState> snapshot =
      absl::FailedPreconditionError(absl::StrCat(
          "replica ", options_.replica_id, " is healing itself"));
  if (!stale_) {
    absl::StatusOr<std::string> bytes = state_->Save();
    snapshot = bytes.ok() ? absl::StatusOr<ServedState>(
                                ServedState{step, *std::move(bytes)})
                          : absl::StatusOr<ServedState>(bytes.status());
  }
  {
    std::lock_guard<std::mutex> lock(snapshot_mu_);
    snapshot_ = std::move(snapshot);
    ++snapshots_taken_;
  }
  snapshot_cv_.notify_all();
}

void ManagerImpl::StartBackgroundHeal(std::vector<HealPeer> up_to_date,
                                      int rank, int64_t step,
                                      int64_t generation) {
  heal_ = std::make_unique<BackgroundHeal>();
  BackgroundHeal* heal = heal_.get();
  heal->thread = std::thread([this, heal, up_to_date = std::move(up_to_date),
                              rank, step, generation] {
    const absl::Time deadline = absl::Now() + options_.heal_timeout;
    std::vector<std::string> failures;
    const size_t n = up_to_date.size();
    for (size_t i = 0; i < n; ++i) {
      const HealPeer& peer = up_to_date[(rank + i) % n];
      absl::StatusOr<ServedState> fetched = FetchState(
          peer, options_.replica_id, step, deadline, /*at_least=*/true);
      if (fetched.ok()) {
        heal->fetched = std::pair{peer.replica_id, *std::move(fetched)};
        heal->done.Notify();
        return;
      }
      failures.push_back(std::string(fetched.status().message()));
    }
    heal->fetched = OfGeneration(
        absl::UnavailableError(absl::StrCat(
            "replica ", options_.replica_id, " could not heal to step ", step,
            " or later from any of ", n, " up-to-date replicas: ",
            absl::StrJoin(failures, "; "))),
        generation, options_.replica_id);
    heal->done.Notify();
  });
}

absl::StatusOr<int64_t> ManagerImpl::LoadFetchedState(
    std::string* healed_from) {
  if (heal_ == nullptr || !heal_->done.HasBeenNotified()) return -1;
  heal_->thread.join();
  absl::StatusOr<std::pair<std::string, ServedState>> fetched =
      std::move(heal_->fetched);
  heal_.reset();
  if (!fetched.ok()) {
    SLUICE_LOG(WARNING) << fetched.status().message()
                        << "; healing again from the next quorum";
    return -1;
  }
  absl::Status loaded = state_->Load(fetched->second.bytes);
  if (!loaded.ok()) {
    return absl::Status(
        loaded.code(), absl::StrCat("replica ", options_.replica_id,
                                    ": loading the state of replica ",
                                    fetched->first,
                                    " failed: ", loaded.message()));
  }
  stale_ = false;
  *healed_from = fetched->first;
  SLUICE_LOG(INFO) << "replica " << options_.replica_id
                   << ": healed in the background from replica "
                   << fetched->first << " to step " << fetched->second.step;
  return fetched->second.step;
}

void ManagerImpl::AbandonGroup(const absl::Status& why) {
  RCReference<CollectiveGroup> group;
  {
    std::lock_guard<std::mutex> lock(mu_);
    group = std::move(group_);
    commit_failures_ = std::max<int64_t>(commit_failures_, 1);
  }
  if (group) group->Abort(why);
}

absl::StatusOr<QuorumView> ManagerImpl::StartQuorum(int64_t step) {
  // The state is as of `step` here, and nowhere else in the loop.
  SaveForWaitingPeers(step);
  std::string healed_in_background;
  int64_t loaded_step = -1;
  if (options_.heal_in_background) {
    absl::StatusOr<int64_t> loaded = LoadFetchedState(&healed_in_background);
    if (!loaded.ok()) return loaded.status();
    loaded_step = *loaded;
  }
  lighthouse::proto::QuorumRequest request;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Loaded just now, the state is as of the loaded step until the
    // program re-applies its kept updates; healing, it is as of none.
    served_step_ = stale_ ? -1 : loaded_step >= 0 ? loaded_step : step;
    step_error_ = absl::OkStatus();
    request.set_commit_failures(commit_failures_);
    request.set_last_quorum_id(generation_);
  }
  lighthouse::proto::ReplicaInfo* self = request.mutable_replica();
  self->set_replica_id(options_.replica_id);
  self->set_address(heal_server_->address());
  self->set_step(step);
  self->set_world_size(1);
  self->set_incarnation(incarnation_);
  self->set_heals_in_background(options_.heal_in_background);
  self->set_healing(stale_);
  absl::StatusOr<lighthouse::proto::Quorum> quorum =
      client_->Quorum(request, options_.quorum_timeout);
  if (!quorum.ok() && (lighthouse::IsDrained(quorum.status()) ||
                       Classify(quorum.status()) == FailureClass::kFatal)) {
    // As the lighthouse client made it: a drained replica, or one that
    // asking again would not help (its certificate refused), stays so.
    return quorum.status();
  }
  if (!quorum.ok()) {
    return MarkRetryable(
        absl::Status(quorum.status().code(),
                     absl::StrCat("replica ", options_.replica_id,
                                  ": no quorum at step ", step, ": ",
                                  quorum.status().message())),
        options_.replica_id);
  }
  std::vector<lighthouse::proto::ReplicaInfo> participants(
      quorum->participants().begin(), quorum->participants().end());
  std::sort(participants.begin(), participants.end(),
            [](const lighthouse::proto::ReplicaInfo& a,
               const lighthouse::proto::ReplicaInfo& b) {
              return a.replica_id() < b.replica_id();
            });
  int rank = -1;
  int64_t max_step = 0;  // of the participants whose state is current
  for (size_t i = 0; i < participants.size(); ++i) {
    if (participants[i].replica_id() == options_.replica_id) rank = i;
    if (!participants[i].healing()) {
      max_step = std::max(max_step, participants[i].step());
    }
  }
  std::vector<HealPeer> up_to_date;
  int contributors = 0;
  for (const lighthouse::proto::ReplicaInfo& p : participants) {
    if (p.healing()) continue;
    if (p.step() == max_step) {
      up_to_date.push_back({p.replica_id(), p.address()});
    }
    // One behind that heals in the background contributes nothing yet;
    // one that heals in its StartQuorum is current before the collectives.
    if (p.step() == max_step || !p.heals_in_background()) ++contributors;
  }
  if (rank < 0) {
    return MarkRetryable(absl::InternalError(absl::StrCat(
                             "replica ", options_.replica_id, ": quorum ",
                             quorum->quorum_id(), " does not include it")),
                         options_.replica_id);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    commit_failures_ = 0;
  }

  absl::StatusOr<RCReference<CollectiveGroup>> group = GroupFor(*quorum, rank);
  if (!group.ok()) {
    AbandonGroup(group.status());
    return group.status();
  }
  QuorumView view;
  view.generation = quorum->quorum_id();
  view.rank = rank;
  view.size = participants.size();
  view.max_step = max_step;
  view.reason = quorum->reason();
  view.group = group->CopyRef();
  view.contributors = contributors;
  {
    std::lock_guard<std::mutex> lock(mu_);
    group_ = std::move(*group);
    generation_ = quorum->quorum_id();
    participants_.clear();
    for (const lighthouse::proto::ReplicaInfo& p : participants) {
      participants_.push_back(p.replica_id());
    }
  }

  if (options_.heal_in_background) {
    view.loaded_step = loaded_step;
    view.healed_from = std::move(healed_in_background);
    if (!stale_ && step < max_step) {
      stale_ = true;
      heal_from_step_ = max_step;
    }
    if (stale_ && heal_ == nullptr) {
      if (up_to_date.empty()) {
        absl::Status none = OfGeneration(
            absl::UnavailableError(absl::StrCat(
                "replica ", options_.replica_id, ": no participant of quorum ",
                view.generation, " has a current state to heal from")),
            view.generation, options_.replica_id);
        AbandonGroup(none);
        return none;
      }
      StartBackgroundHeal(std::move(up_to_date), rank, heal_from_step_,
                          view.generation);
    }
    view.healing = stale_;
    return view;
  }
  if (step < max_step) {
    absl::StatusOr<std::string> healed_from =
        Heal(up_to_date, rank, max_step, view.generation);
    if (!healed_from.ok()) {
      AbandonGroup(healed_from.status());
      return healed_from.status();
    }
    view.healed_from = *std::move(healed_from);
    std::lock_guard<std::mutex> lock(mu_);
    served_step_ = max_step;
  }
  return view;
}

void ManagerImpl::ReportError(absl::Status error) {
  if (error.ok()) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (step_error_.ok()) step_error_ = std::move(error);
}

absl::StatusOr<bool> ManagerImpl::ShouldCommit(
    int64_t step, const std::vector<int>& contributors) {
  lighthouse::proto::CommitRequest request;
  request.set_replica_id(options_.replica_id);
  request.set_step(step);
  {
    std::lock_guard<std::mutex> lock(mu_);
    request.set_quorum_id(generation_);
    // Ranks are indices into the participants sorted by replica id, as
    // StartQuorum numbered them.
    for (const int rank : contributors) {
      if (rank < 0 || rank >= static_cast<int>(participants_.size())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "replica ", options_.replica_id, ": contributor rank ", rank,
            " of step ", step, " is out of range: quorum ", generation_,
            " has ", participants_.size(), " participants"));
      }
      request.add_contributors(participants_[rank]);
    }
    // A vote naming contributors leaves the group's health out: a partial
    // collective that left ranks out breaks the group, and so does a lost
    // member's abort, yet the program got its result over the contributors.
    absl::Status why = step_error_;
    if (why.ok() && !group_) {
      why = absl::FailedPreconditionError(
          "no quorum: StartQuorum did not succeed");
    } else if (why.ok() && contributors.empty()) {
      why = group_->health();
    }
    request.set_ok(why.ok());
    if (!why.ok()) request.set_failure(std::string(why.message()));
    step_error_ = absl::OkStatus();
  }
  absl::StatusOr<lighthouse::proto::CommitResponse> response =
      client_->Commit(request, options_.commit_timeout);
  std::lock_guard<std::mutex> lock(mu_);
  if (!response.ok()) {
    ++commit_failures_;
    return MarkRetryable(
        absl::Status(response.status().code(),
                     absl::StrCat("replica ", options_.replica_id,
                                  ": the commit vote on step ", step,
                                  " of quorum ", request.quorum_id(),
                                  " failed: ", response.status().message())),
        options_.replica_id);
  }
  if (!response->commit()) {
    ++commit_failures_;
    SLUICE_LOG(WARNING) << "replica " << options_.replica_id << ": step "
                        << step << " of quorum " << request.quorum_id()
                        << " not committed: " << response->reason();
  }
  return response->commit();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Manager>> Manager::Create(ManagerOptions options,
                                                         ReplicaState* state) {
  if (absl::Status valid = ValidateOptions(options); !valid.ok()) return valid;
  if (state == nullptr) {
    return absl::InvalidArgumentError("manager: no replica state given");
  }
  auto manager = std::make_unique<ManagerImpl>(std::move(options), state);
  if (absl::Status started = manager->Start(); !started.ok()) return started;
  return std::unique_ptr<Manager>(std::move(manager));
}

bool IsDrainedByOperator(const absl::Status& status) {
  return lighthouse::IsDrained(status);
}

}  // namespace sluice::ft
