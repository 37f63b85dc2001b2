// ClientWorkLedger: which client of a worker each task on the worker's host
// runs for, so that one client cannot take the whole blocking pool.
//
// A worker's kernels queue their blocking work on the host, which knows
// nothing of callers. The ledger wraps the host's work queue: a task queued
// while a thread runs for a client runs for that client too, so the whole
// chain of an execution (its synchronous part on the worker's execution
// thread, the kernels that continue on the host's threads, the blocking
// tasks they queue) is attributed to the client that called. Each client
// runs at most `max_blocking_tasks_per_client` blocking tasks at once; more
// wait in the client's own queue, never holding a pool thread, and start as
// the client's earlier ones finish.
#ifndef SLUICE_DISTRIBUTED_CLIENT_WORK_LEDGER_H_
#define SLUICE_DISTRIBUTED_CLIENT_WORK_LEDGER_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "sluice/host_context/concurrent_work_queue.h"

namespace sluice::dist {

class ClientWorkLedger {
 public:
  // One client's blocking work: counted by the ledger, shared by the tasks
  // that run for it.
  class Account;

  explicit ClientWorkLedger(int max_blocking_tasks_per_client);
  ClientWorkLedger(const ClientWorkLedger&) = delete;
  ClientWorkLedger& operator=(const ClientWorkLedger&) = delete;

  // `queue` with its tasks attributed and its blocking tasks bounded per
  // client; the ledger must outlive the result.
  std::unique_ptr<ConcurrentWorkQueue> Wrap(
      std::unique_ptr<ConcurrentWorkQueue> queue);

  // The account of `client`, made on first use; the accounts of clients
  // with nothing running are dropped once there are many.
  std::shared_ptr<Account> AccountOf(const std::string& client);

  // While it lives, the current thread runs for `account` (null: for no
  // client, unbounded).
  class ScopedClient {
   public:
    explicit ScopedClient(std::shared_ptr<Account> account);
    ~ScopedClient();
    ScopedClient(const ScopedClient&) = delete;
    ScopedClient& operator=(const ScopedClient&) = delete;

   private:
    std::shared_ptr<Account> previous_;
  };

  // How many blocking tasks `account` runs and how many wait.
  struct BlockingUse {
    int running = 0;
    int64_t waiting = 0;
  };
  static BlockingUse UseOf(Account& account);

  int max_blocking_tasks_per_client() const {
    return max_blocking_tasks_per_client_;
  }

 private:
  void PruneIdleAccountsLocked();

  const int max_blocking_tasks_per_client_;
  std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<Account>> accounts_;
};

}  // namespace sluice::dist

#endif  // SLUICE_DISTRIBUTED_CLIENT_WORK_LEDGER_H_
