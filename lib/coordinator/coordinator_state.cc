#include "lib/coordinator/coordinator_state.h"

#include <algorithm>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/coordinator/worker_agent.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/support/error_util.h"
#include "sluice/support/failure.h"

namespace sluice::dist::internal {
namespace {

uint64_t RandomResourceIdBase() {
  std::random_device device;
  return uint64_t{device()} << 32;
}

}  // namespace

CoordinatorState::CoordinatorState(ClusterSpec spec, HostContext* host,
                                   CoordinatorOptions options,
                                   std::vector<std::string> workers)
    : options_(std::move(options)),
      host_(host),
      workers_(std::move(workers)),
      client_(spec, options_.rpc, host),
      variables_(spec, options_.rpc, host,
                 VariableClientOptions{options_.ps_job, nullptr}),
      resource_id_base_(RandomResourceIdBase()),
      healthy_(workers_.size(), false),
      last_failure_(workers_.size(),
                    absl::UnavailableError("it has not answered yet")),
      all_down_since_(absl::Now()),
      running_(workers_.size()) {}

CoordinatorState::~CoordinatorState() = default;

void CoordinatorState::Start() {
  for (size_t i = 0; i < workers_.size(); ++i) {
    absl::StatusOr<TaskClient*> task = client_.GetTask(workers_[i]);
    agents_.push_back(std::make_unique<WorkerAgent>(this, i, *task));
  }
  for (auto& agent : agents_) agent->Start();
}

void CoordinatorState::Stop() {
  std::deque<std::shared_ptr<Closure>> queued;
  std::vector<RCReference<RequestContext>> running;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    queued = TakeAllLocked();
    for (auto& request : running_) {
      if (request) running.push_back(request.CopyRef());
    }
    changed_.notify_all();
  }
  const absl::Status cancelled =
      absl::CancelledError("the coordinator is shutting down");
  for (auto& request : running) request->Cancel(cancelled);
  for (auto& closure : queued) Fail(*closure, cancelled);
  for (auto& agent : agents_) agent->Join();
  agents_.clear();
}

absl::Status CoordinatorState::Admit(Closure& closure) {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [&] {
    return stopping_ || !job_failure_.ok() || !first_error_.ok() ||
           pending_ < options_.max_pending_closures;
  });
  if (stopping_) {
    return absl::CancelledError("the coordinator is shutting down");
  }
  if (!job_failure_.ok()) return job_failure_;
  if (absl::Status report = TakeReportLocked(); !report.ok()) return report;
  ++pending_;
  ++stats_.scheduled;
  closure.epoch = epoch_;
  return absl::OkStatus();
}

void CoordinatorState::Enqueue(std::shared_ptr<Closure> closure) {
  absl::Status refused;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) {
      refused = absl::CancelledError("the coordinator is shutting down");
    } else if (!job_failure_.ok()) {
      refused = job_failure_;
    } else if (closure->epoch < epoch_) {
      refused = absl::CancelledError(
          absl::StrCat("closure '", closure->function.name(),
                       "' was cancelled: an earlier closure failed"));
    } else {
      queue_.push_back(std::move(closure));
      changed_.notify_all();
      return;
    }
  }
  Fail(*closure, refused);
}

void CoordinatorState::Requeue(std::shared_ptr<Closure> closure) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.retried;
    if (!stopping_ && job_failure_.ok()) {
      queue_.push_front(std::move(closure));
      changed_.notify_all();
      return;
    }
  }
  Enqueue(std::move(closure));  // fails it with the reason
}

std::shared_ptr<Closure> CoordinatorState::Take(size_t resources_built) {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [&] {
    return stopping_ || !queue_.empty() || resources_.size() > resources_built;
  });
  if (stopping_ || resources_.size() > resources_built) return nullptr;
  std::shared_ptr<Closure> closure = std::move(queue_.front());
  queue_.pop_front();
  return closure;
}

void CoordinatorState::Finish(Closure& closure,
                              std::vector<RCReference<AsyncValue>> values) {
  // A closure counts once, under the root cause of its first error.
  absl::Status failure;
  for (size_t i = 0; i < closure.results.size(); ++i) {
    if (failure.ok() && values[i]->IsError()) failure = values[i]->GetError();
    closure.results[i]->ForwardTo(std::move(values[i]));
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (!failure.ok()) TallyLocked(failure);
  --pending_;
  ++stats_.finished;
  changed_.notify_all();
}

void CoordinatorState::Fail(Closure& closure, const absl::Status& status) {
  std::vector<RCReference<AsyncValue>> errors;
  for (size_t i = 0; i < closure.results.size(); ++i) {
    errors.push_back(MakeErrorAsyncValueRef(status));
  }
  Finish(closure, std::move(errors));
}

void CoordinatorState::RecordError(const absl::Status& status) {
  std::deque<std::shared_ptr<Closure>> cancelled;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!first_error_.ok()) return;
    first_error_ = status;
    ++epoch_;
    cancelled = TakeAllLocked();
  }
  for (auto& closure : cancelled) {
    Fail(*closure,
         DerivedFrom(absl::CancelledError(absl::StrCat(
                         "closure '", closure->function.name(),
                         "' was cancelled: an earlier closure failed: ",
                         status.message())),
                     status));
  }
}

void CoordinatorState::TallyLocked(const absl::Status& failure) {
  const std::string cause = RootCause(failure);
  for (auto& [counted, count] : failures_by_cause_) {
    if (counted == cause) {
      ++count;
      return;
    }
  }
  failures_by_cause_.emplace_back(cause, 1);
}

void CoordinatorState::FailJob(const absl::Status& status) {
  std::deque<std::shared_ptr<Closure>> failed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!job_failure_.ok()) return;
    job_failure_ = status;
    failed = TakeAllLocked();
    changed_.notify_all();
  }
  for (auto& closure : failed) Fail(*closure, status);
}

bool Closure::Handles(const absl::Status& failure) const {
  const FailureClass failure_class = Classify(failure);
  for (FailureClass handled : handled_classes) {
    if (handled == failure_class) return true;
  }
  return false;
}

void CoordinatorState::Hold() {
  std::lock_guard<std::mutex> lock(mu_);
  ++holds_;
}

void CoordinatorState::ReleaseHold() {
  std::lock_guard<std::mutex> lock(mu_);
  --holds_;
  changed_.notify_all();
}

absl::Status CoordinatorState::Join() {
  std::unique_lock<std::mutex> lock(mu_);
  while ((pending_ > 0 || holds_ > 0) && job_failure_.ok() && !stopping_) {
    changed_.wait_for(lock, absl::ToChronoMilliseconds(options_.probe_interval +
                                                       absl::Seconds(1)));
    if (pending_ > 0 && num_healthy_ == 0) {
      lock.unlock();
      CheckRecovery();
      lock.lock();
    }
  }
  if (!job_failure_.ok()) return job_failure_;
  if (absl::Status report = TakeReportLocked(); !report.ok()) return report;
  return absl::OkStatus();
}

bool CoordinatorState::Done() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pending_ == 0;
}

size_t CoordinatorState::AddResource(ResourceSpec spec) {
  std::lock_guard<std::mutex> lock(mu_);
  resources_.push_back(std::move(spec));
  changed_.notify_all();
  return resources_.size() - 1;
}

size_t CoordinatorState::num_resources() const {
  std::lock_guard<std::mutex> lock(mu_);
  return resources_.size();
}

ResourceSpec CoordinatorState::GetResource(size_t index) const {
  std::lock_guard<std::mutex> lock(mu_);
  return resources_[index];
}

uint64_t CoordinatorState::ResourceId(size_t resource, size_t worker,
                                      size_t result) const {
  std::lock_guard<std::mutex> lock(mu_);
  return resources_[resource].ids[worker][result];
}

void CoordinatorState::SetHealthy(size_t worker, bool healthy,
                                  const absl::Status& why) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!healthy) last_failure_[worker] = why;
  if (healthy_[worker] == healthy) return;
  healthy_[worker] = healthy;
  if (healthy) {
    ++num_healthy_;
  } else {
    ++stats_.worker_failures;
    if (--num_healthy_ == 0) all_down_since_ = absl::Now();
  }
  changed_.notify_all();
}

void CoordinatorState::CheckRecovery() {
  std::deque<std::shared_ptr<Closure>> failed;
  absl::Status status;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (num_healthy_ > 0 || queue_.empty() ||
        absl::Now() - all_down_since_ < options_.recovery_timeout) {
      return;
    }
    std::vector<std::string> why;
    for (size_t i = 0; i < workers_.size(); ++i) {
      why.push_back(
          absl::StrCat(workers_[i], " (", last_failure_[i].message(), ")"));
    }
    status = absl::UnavailableError(
        absl::StrCat("no worker answered for ",
                     absl::FormatDuration(options_.recovery_timeout),
                     " (the recovery timeout): ", absl::StrJoin(why, "; ")));
    failed = TakeAllLocked();
    if (first_error_.ok()) recovery_failure_ = status;
    // The next closures get a whole timeout of their own.
    all_down_since_ = absl::Now();
  }
  for (auto& closure : failed) Fail(*closure, status);
}

bool CoordinatorState::SleepUnlessStopping(absl::Duration duration) {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait_for(lock, absl::ToChronoNanoseconds(duration),
                    [&] { return stopping_; });
  return !stopping_;
}

bool CoordinatorState::stopping() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stopping_;
}

void CoordinatorState::SetRunning(size_t worker,
                                  RCReference<RequestContext> request) {
  bool cancel = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancel = stopping_ && request;
    running_[worker] = request.CopyRef();
  }
  if (cancel) {
    request->Cancel(absl::CancelledError("the coordinator is shutting down"));
  }
}

void CoordinatorState::Count(int64_t CoordinatorStats::*counter) {
  std::lock_guard<std::mutex> lock(mu_);
  ++(stats_.*counter);
}

CoordinatorStats CoordinatorState::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

uint64_t CoordinatorState::NewResourceId() {
  std::lock_guard<std::mutex> lock(mu_);
  return resource_id_base_ + ++next_resource_id_;
}

std::deque<std::shared_ptr<Closure>> CoordinatorState::TakeAllLocked() {
  std::deque<std::shared_ptr<Closure>> taken;
  taken.swap(queue_);
  return taken;
}

absl::Status CoordinatorState::TakeReportLocked() {
  absl::Status report = std::move(first_error_);
  first_error_ = absl::OkStatus();
  if (report.ok()) {
    report = std::move(recovery_failure_);
    recovery_failure_ = absl::OkStatus();
  }
  std::vector<std::pair<std::string, int64_t>> failures =
      std::exchange(failures_by_cause_, {});
  if (report.ok()) return report;
  // The report's root cause first, with how many failures it explains,
  // then the others grouped by theirs.
  const std::string root = RootCause(report);
  int64_t explained = 0;
  std::vector<std::string> others;
  for (const auto& [cause, count] : failures) {
    if (cause == root) {
      explained = count;
    } else {
      others.push_back(absl::StrCat(count, " from '", cause, "'"));
    }
  }
  if (explained <= 1 && others.empty() && root == report.message()) {
    return report;
  }
  std::string summary = " (";
  if (root != report.message()) {
    absl::StrAppend(&summary, "root cause: ", root, "; ");
  }
  absl::StrAppend(&summary, "it explains ", std::max<int64_t>(explained, 1),
                  " closure failure", explained > 1 ? "s" : "",
                  " since the last report");
  if (!others.empty()) {
    absl::StrAppend(&summary,
                    "; other failures: ", absl::StrJoin(others, ", "));
  }
  summary += ")";
  return WithMessageSuffix(report, summary);
}

}  // namespace sluice::dist::internal
