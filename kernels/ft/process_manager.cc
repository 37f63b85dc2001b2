#include "kernels/ft/process_manager.h"

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace sluice::ft {
namespace {

absl::StatusOr<ManagerOptions> OptionsFromEnvironment() {
  const char* lighthouses = std::getenv(kLighthouseVariable);
  const char* replica_id = std::getenv(kReplicaIdVariable);
  if (lighthouses == nullptr || *lighthouses == '\0') {
    return absl::FailedPreconditionError(
        absl::StrCat("tfrt_ft quorum ops: ", kLighthouseVariable,
                     " is not set (the lighthouses' host:port, "
                     "comma-separated)"));
  }
  if (replica_id == nullptr || *replica_id == '\0') {
    return absl::FailedPreconditionError(absl::StrCat(
        "tfrt_ft quorum ops: ", kReplicaIdVariable, " is not set"));
  }
  ManagerOptions options;
  options.lighthouses =
      absl::StrSplit(lighthouses, ',', absl::SkipWhitespace());
  options.replica_id = replica_id;
  if (const char* host = std::getenv(kReplicaHostVariable);
      host != nullptr && *host != '\0') {
    options.host = host;
  }
  return options;
}

}  // namespace

absl::StatusOr<ProcessManager*> ProcessManager::Get() {
  // Made once; destroyed at exit, before gRPC's own teardown (registered
  // after gRPC started), so that no heartbeat runs while the process ends.
  static absl::StatusOr<ProcessManager*>* const made = [] {
    auto* result = new absl::StatusOr<ProcessManager*>(nullptr);
    absl::StatusOr<ManagerOptions> options = OptionsFromEnvironment();
    if (!options.ok()) {
      *result = options.status();
      return result;
    }
    auto process = std::unique_ptr<ProcessManager>(new ProcessManager());
    absl::StatusOr<std::unique_ptr<Manager>> manager =
        Manager::Create(*std::move(options), &process->attached_);
    if (!manager.ok()) {
      *result = manager.status();
      return result;
    }
    process->manager_ = *std::move(manager);
    process->thread_ = std::thread([p = process.get()] { p->Loop(); });
    *result = process.release();
    std::atexit([] { delete **made; });
    return result;
  }();
  return *made;
}

ProcessManager::~ProcessManager() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  if (thread_.joinable()) thread_.join();
  manager_.reset();
}

void ProcessManager::Post(std::function<void()> work) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    work_.push_back(std::move(work));
  }
  work_ready_.notify_one();
}

void ProcessManager::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    work_ready_.wait(lock, [this] { return stopping_ || !work_.empty(); });
    if (work_.empty()) return;
    std::function<void()> work = std::move(work_.front());
    work_.pop_front();
    lock.unlock();
    work();
    lock.lock();
  }
}

void ProcessManager::Attach(TensorReplicaState* state) {
  std::lock_guard<std::mutex> lock(attached_.mu);
  attached_.state = state;
}

void ProcessManager::Detach(TensorReplicaState* state) {
  std::lock_guard<std::mutex> lock(attached_.mu);
  if (attached_.state == state) attached_.state = nullptr;
}

absl::StatusOr<std::string> ProcessManager::AttachedState::Save() {
  std::lock_guard<std::mutex> lock(mu);
  if (state == nullptr) {
    return absl::FailedPreconditionError(
        "tfrt_ft quorum ops: no program holds this replica's state");
  }
  return state->Save();
}

absl::Status ProcessManager::AttachedState::Load(std::string_view bytes) {
  std::lock_guard<std::mutex> lock(mu);
  if (state == nullptr) {
    return absl::FailedPreconditionError(
        "tfrt_ft quorum ops: no program holds this replica's state");
  }
  return state->Load(bytes);
}

HostReplicaState::HostReplicaState(HostContext* host)
    : state_(host->allocator()) {
  absl::StatusOr<ProcessManager*> process = ProcessManager::Get();
  if (process.ok()) {
    process_ = *process;
    process_->Attach(&state_);
  }
}

HostReplicaState::~HostReplicaState() {
  if (process_ != nullptr) process_->Detach(&state_);
}

}  // namespace sluice::ft
