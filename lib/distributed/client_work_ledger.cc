#include "sluice/distributed/client_work_ledger.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace sluice::dist {

class ClientWorkLedger::Account {
 public:
  explicit Account(int max_running) : max_running_(max_running) {}

  // Starts `task` on `queue`'s blocking pool if this client runs fewer than
  // its bound, or keeps it until one of the client's tasks finishes.
  void AddBlocking(ConcurrentWorkQueue& queue, TaskFunction task,
                   const std::shared_ptr<Account>& self) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (running_ >= max_running_) {
        waiting_.push_back(std::move(task));
        return;
      }
      ++running_;
    }
    Submit(queue, std::move(task), self);
  }

  BlockingUse Use() {
    std::lock_guard<std::mutex> lock(mu_);
    return BlockingUse{running_, static_cast<int64_t>(waiting_.size())};
  }

 private:
  // Runs `task` for this client, then hands its pool thread's slot to the
  // client's next waiting task, if any.
  void Submit(ConcurrentWorkQueue& queue, TaskFunction task,
              std::shared_ptr<Account> self) {
    queue.AddBlockingTask([&queue, task = std::move(task),
                           self = std::move(self)]() mutable {
      {
        ScopedClient running_for(self);
        std::move(task)();
      }
      TaskFunction next;
      {
        std::lock_guard<std::mutex> lock(self->mu_);
        if (self->waiting_.empty()) {
          --self->running_;
          return;
        }
        next = std::move(self->waiting_.front());
        self->waiting_.pop_front();
      }
      self->Submit(queue, std::move(next), self);
    });
  }

  const int max_running_;
  std::mutex mu_;
  int running_ = 0;                  // guarded by mu_
  std::deque<TaskFunction> waiting_;  // guarded by mu_
};

namespace {

// Accounts kept before the idle ones are dropped: callers from many
// addresses must not grow the ledger without bound.
constexpr size_t kAccountsBeforePruning = 1024;

// The account the current thread runs for.
thread_local std::shared_ptr<ClientWorkLedger::Account> current_account;

// Forwards to the host's queue, carrying the current client into every task
// and bounding each client's blocking tasks.
class AttributingWorkQueue final : public ConcurrentWorkQueue {
 public:
  explicit AttributingWorkQueue(std::unique_ptr<ConcurrentWorkQueue> queue)
      : queue_(std::move(queue)) {}

  std::string name() const override { return queue_->name(); }

  void AddTask(TaskFunction task) override {
    if (current_account == nullptr) return queue_->AddTask(std::move(task));
    queue_->AddTask(
        [account = current_account, task = std::move(task)]() mutable {
          ClientWorkLedger::ScopedClient running_for(std::move(account));
          std::move(task)();
        });
  }

  void AddBlockingTask(TaskFunction task) override {
    if (current_account == nullptr) {
      return queue_->AddBlockingTask(std::move(task));
    }
    std::shared_ptr<ClientWorkLedger::Account> account = current_account;
    account->AddBlocking(*queue_, std::move(task), account);
  }

  void Await(absl::Span<const RCReference<AsyncValue>> values) override {
    queue_->Await(values);
  }
  void Quiesce() override { queue_->Quiesce(); }
  int GetParallelismLevel() const override {
    return queue_->GetParallelismLevel();
  }
  bool HasIdleWorker() const override { return queue_->HasIdleWorker(); }
  bool IsInWorkerThread() const override {
    return queue_->IsInWorkerThread();
  }

 private:
  std::unique_ptr<ConcurrentWorkQueue> queue_;
};

}  // namespace

ClientWorkLedger::ClientWorkLedger(int max_blocking_tasks_per_client)
    : max_blocking_tasks_per_client_(
          std::max(max_blocking_tasks_per_client, 1)) {}

std::unique_ptr<ConcurrentWorkQueue> ClientWorkLedger::Wrap(
    std::unique_ptr<ConcurrentWorkQueue> queue) {
  return std::make_unique<AttributingWorkQueue>(std::move(queue));
}

std::shared_ptr<ClientWorkLedger::Account> ClientWorkLedger::AccountOf(
    const std::string& client) {
  std::lock_guard<std::mutex> lock(mu_);
  if (accounts_.size() >= kAccountsBeforePruning) PruneIdleAccountsLocked();
  std::shared_ptr<Account>& account = accounts_[client];
  if (account == nullptr) {
    account = std::make_shared<Account>(max_blocking_tasks_per_client_);
  }
  return account;
}

void ClientWorkLedger::PruneIdleAccountsLocked() {
  for (auto it = accounts_.begin(); it != accounts_.end();) {
    // Only the map holds it: no call or task runs for the client, so its
    // counts are zero and a new account is the same.
    if (it->second.use_count() == 1) {
      it = accounts_.erase(it);
    } else {
      ++it;
    }
  }
}

ClientWorkLedger::ScopedClient::ScopedClient(std::shared_ptr<Account> account)
    : previous_(std::exchange(current_account, std::move(account))) {}

ClientWorkLedger::ScopedClient::~ScopedClient() {
  current_account = std::move(previous_);
}

ClientWorkLedger::BlockingUse ClientWorkLedger::UseOf(Account& account) {
  return account.Use();
}

}  // namespace sluice::dist
