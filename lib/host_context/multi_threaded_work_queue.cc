// The multi-threaded work queue ("mstd:N,M").
//
// Queues. Each of the N workers owns a FIFO ring guarded by a spin lock. A
// task added on a worker goes to that worker's ring; a task added elsewhere
// goes to the rings in turn (a thread-local cursor, so outside producers
// share no counter). The owner runs the oldest task first: FIFO keeps a
// worker that keeps spawning from starving tasks queued from outside, and
// bounds the depth of a root task that re-queues itself behind each batch it
// spawns. From a long ring it takes kLocalBatch tasks per lock, so that it
// rarely pulls the lock's line back from a producer.
//
// Stealing. A worker whose ring is empty first spins for kSpinTime waiting
// for work of its own; only then does it visit the others, starting at a
// random one, and take the older half (at most kMaxSteal) of the first
// non-empty ring in one locked step. The delay is deliberate: a hand-off
// costs 120-420 ns (perf-facts), and every stolen task drags its ring slot's
// cache line to the thief and back, so stealing tiny tasks as soon as they
// appear made two workers three times slower than one (9M vs 27M tasks/s in
// work_queue_benchmark on two pinned cores). Work that takes long enough to
// matter still gets shared within microseconds.
//
// Lingering. Waking a parked worker takes tens of microseconds, and up to a
// millisecond in a virtual machine whose idle CPUs are halted; the
// scheduler may also wake it on the CPU of the thread that woke it, which
// is busy. So one idle worker at a time (the lingerer) goes on spinning and
// stealing for kLingerTime before it parks, and tasks added from outside
// the workers go to its ring: a burst of work that follows another soon
// finds a worker awake, on a CPU of its own. Only one, so that idle workers
// do not take every CPU from the threads that have work.
//
// Parking. A worker that still finds nothing parks. The sleeper count and
// the wake tokens share one word, `park_state_`, changed only by seq_cst
// read-modify-writes; tokens never outnumber sleepers.
//
//   sleeper                                producer
//   F: park_state_ += sleeper (seq_cst)    L: lock(ring) (seq_cst exchange)
//   S: lock and look at every ring            push; unlock
//      (seq_cst exchanges)                 R: load park_state_ (seq_cst)
//   nothing: wait under park_mu_           more sleepers than tokens in R:
//      until a token is there, take it        add a token under park_mu_,
//      and leave (state -= sleeper+token)     notify_one
//
// If S locked the producer's ring after L, it synchronizes with the unlock
// and sees the task. Otherwise S's exchange precedes L in the lock's
// modification order, so F < S < L < R in the single total order of seq_cst
// operations, and R counts the sleeper. If R shows more sleepers than
// tokens, the producer adds one under park_mu_, where waiters check for
// tokens before they wait: no notification is lost. If R shows as many
// tokens as sleepers, a token is already on its way; whoever takes it leaves
// after R and, like every worker that leaves, looks at every ring again, so
// it sees the task. A sleeper whose look finds work leaves at once and takes
// a token along only if leaving would otherwise make tokens outnumber
// sleepers. No wake-up is lost, and a producer pays one load of a line that
// changes only when a worker parks or wakes; the mutex is taken only when a
// sleeper has no token yet.
//
// Quiescence. Per-ring `added` counters (bumped under the ring lock) and
// per-worker `finished` counters (single writer) plus the blocking pool's
// two, read in this order: first every `finished`, then every `added`. Let C
// be the tasks whose completion the first pass saw and A the tasks whose
// addition the second pass saw. A task's addition happens before its
// completion, and the first pass happens before the second, so C ⊆ A; equal
// sums then mean C = A: every task seen added had finished. A task added
// before Quiesce() was called is in A; a task added by a task in C was added
// before that task finished, so it is in A too. Hence every task added
// before the call, and everything those spawned, has finished. Tasks being
// stolen or sitting in an owner's local batch are counted as added and not
// finished, so they keep Quiesce() waiting. Nothing on the hot path touches
// a shared line for this: the owner bumps its own counter with a plain
// store.
#include <algorithm>
#include <atomic>
#include <cassert>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "lib/host_context/blocking_pool.h"
#include "lib/host_context/task_deque.h"
#include "lib/support/spin_wait.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/run_when_ready.h"

namespace sluice {
namespace {

using internal::BlockingPool;
using internal::CpuRelax;
using internal::SpinLock;
using internal::TaskRing;

constexpr std::chrono::microseconds kSpinTime{5};
constexpr std::chrono::microseconds kLingerTime{200};
constexpr size_t kMaxSteal = 128;
// Most tasks an owner moves out of its ring under one lock.
constexpr size_t kLocalBatch = 8;
constexpr std::chrono::milliseconds kBlockingIdleTimeout{1000};
// How long Quiesce() sleeps between looks at most; parking workers and the
// blocking pool wake it sooner.
constexpr std::chrono::microseconds kMaxQuiesceSleep{1000};

class MultiThreadedWorkQueue;

constexpr uint64_t kSleeper = uint64_t{1} << 32;
constexpr uint64_t kToken = 1;
uint64_t Sleepers(uint64_t park_state) { return park_state >> 32; }
uint64_t Tokens(uint64_t park_state) { return park_state & (kSleeper - 1); }

// Which worker of which queue this thread is, if any.
struct WorkerIdentity {
  const MultiThreadedWorkQueue* queue = nullptr;
  int index = 0;
};
thread_local WorkerIdentity current_worker;

// Where this thread, when it is not a worker, adds its next task.
thread_local uint32_t outside_cursor = 0;

// One worker's ring and counters, on two cache lines by who writes them.
struct alignas(64) Worker {
  // One line, written by every push and pop: the owner, outside producers,
  // thieves. `has_tasks` lives here too: the owner spins on it while idle,
  // and a flag on a line of its own would add a third line (after the lock
  // and the slot) that a producer and the owner pass back and forth per task.
  SpinLock lock;
  // Whether `ring` is non-empty, for peeks without the lock. Written under
  // `lock`, and only when it changes.
  std::atomic<bool> has_tasks{false};
  // Tasks ever pushed to this ring by AddTask (not by stealing); written
  // under `lock`.
  std::atomic<uint64_t> added{0};
  TaskRing ring;  // Guarded by `lock`.

  // Written by the owner only.
  alignas(64) std::atomic<uint64_t> finished{0};
  uint64_t random_state = 0;
  // Tasks the owner took out of `ring` and runs next, oldest first.
  TaskFunction local[kLocalBatch - 1];
  size_t local_next = 0;
  size_t local_end = 0;
  std::vector<TaskFunction> stolen;  // Reused buffer for stealing.
  std::thread thread;
};

// Called with `worker.lock` held after the ring changed.
void UpdateHasTasks(Worker& worker) {
  const bool has_tasks = !worker.ring.empty();
  if (worker.has_tasks.load(std::memory_order_relaxed) != has_tasks) {
    worker.has_tasks.store(has_tasks, std::memory_order_relaxed);
  }
}

void Bump(std::atomic<uint64_t>& counter) {
  // Single writer (the owner, or whoever holds the ring lock): no
  // read-modify-write needed.
  counter.store(counter.load(std::memory_order_relaxed) + 1,
                std::memory_order_release);
}

struct AwaitState {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;  // Guarded by `mu`.
};

class MultiThreadedWorkQueue final : public ConcurrentWorkQueue {
 public:
  MultiThreadedWorkQueue(int num_threads, int max_blocking_threads);
  ~MultiThreadedWorkQueue() override;

  std::string name() const override {
    return absl::StrCat("mstd:", workers_.size(), ",", max_blocking_threads_);
  }

  void AddTask(TaskFunction task) override;
  void AddBlockingTask(TaskFunction task) override {
    blocking_pool_.Add(std::move(task));
  }
  void Await(absl::Span<const RCReference<AsyncValue>> values) override;
  void Quiesce() override;

  int GetParallelismLevel() const override {
    return static_cast<int>(workers_.size());
  }
  // Only the N workers: a blocking task may block, Await() included.
  bool IsInWorkerThread() const override {
    return current_worker.queue == this;
  }
  bool HasIdleWorker() const override {
    return idle_workers_.load(std::memory_order_relaxed) > 0;
  }

 private:
  void WorkerLoop(int index);
  bool PopOwn(Worker& self, TaskFunction& task);
  bool Steal(int index, TaskFunction& task);
  void Run(Worker& self, TaskFunction& task);
  bool AnyRingIsNonEmpty();
  // Spins for up to kSpinTime; true if work showed up in `self`'s ring.
  bool SpinForOwnWork(const Worker& self) const;
  // What an idle worker found: work in its own ring, or a stolen task (in
  // `task`).
  enum class Found { kNothing, kOwnWork, kStolen };
  // Spins for own work, then tries once to steal.
  Found SpinThenSteal(int index, const Worker& self, TaskFunction& task);
  // Unless another worker lingers, goes on spinning and stealing for up to
  // kLingerTime before the worker parks.
  Found Linger(int index, Worker& self, TaskFunction& task);
  // Returns false when the queue is shutting down.
  bool Park();
  // Wakes a parked worker unless every one already has a token.
  void MaybeWakeOne();
  bool IsQuiescent() const;
  void NotifyQuiesceWaiters();

  const int max_blocking_threads_;
  std::vector<std::unique_ptr<Worker>> workers_;

  // Sleepers (high half) and wake tokens (low half) in one word, so that a
  // producer reads both in one seq_cst load. Tokens never exceed sleepers.
  // Changed only by seq_cst read-modify-writes; tokens are added only under
  // `park_mu_`.
  alignas(64) std::atomic<uint64_t> park_state_{0};
  std::mutex park_mu_;
  std::condition_variable park_cv_;
  bool stopping_ = false;  // Guarded by `park_mu_`.

  // Workers spinning, stealing or parked: written only on the way into and
  // out of idleness, read by HasIdleWorker().
  alignas(64) std::atomic<int> idle_workers_{0};
  // The worker that lingers (see Linger), or -1: tasks from outside go to
  // its ring. Only one at a time, so that idle workers never spin on every
  // CPU while the threads with work wait for one.
  std::atomic<int> lingering_{-1};

  std::atomic<int> quiesce_waiters_{0};
  std::mutex quiesce_mu_;
  std::condition_variable quiesce_cv_;

  BlockingPool blocking_pool_;
};

MultiThreadedWorkQueue::MultiThreadedWorkQueue(int num_threads,
                                               int max_blocking_threads)
    : max_blocking_threads_(max_blocking_threads),
      blocking_pool_(max_blocking_threads, kBlockingIdleTimeout,
                     [this] { NotifyQuiesceWaiters(); }) {
  assert(num_threads >= 1);
  workers_.reserve(num_threads);
  for (int i = 0; i < num_threads; ++i) {
    workers_.push_back(std::make_unique<Worker>());
    // Any odd seed works for xorshift; distinct ones spread the thieves.
    workers_.back()->random_state = 0x9e3779b97f4a7c15ull * (2 * i + 1);
    // Stealing fills this buffer under the victim's lock: no allocation there.
    workers_.back()->stolen.reserve(kMaxSteal);
  }
  // Start threads only once every Worker exists: a thread may steal from any.
  for (int i = 0; i < num_threads; ++i) {
    workers_[i]->thread = std::thread([this, i] { WorkerLoop(i); });
  }
}

MultiThreadedWorkQueue::~MultiThreadedWorkQueue() {
  Quiesce();
  {
    std::lock_guard<std::mutex> lock(park_mu_);
    stopping_ = true;
  }
  park_cv_.notify_all();
  for (auto& worker : workers_) worker->thread.join();
}

void MultiThreadedWorkQueue::AddTask(TaskFunction task) {
  const int n = static_cast<int>(workers_.size());
  const int lingering = lingering_.load(std::memory_order_relaxed);
  int target = current_worker.index;
  if (current_worker.queue != this) {
    target =
        lingering >= 0 ? lingering : static_cast<int>(outside_cursor++ % n);
  }
  Worker& worker = *workers_[target];
  worker.lock.lock();
  worker.ring.PushBack(std::move(task));
  UpdateHasTasks(worker);
  Bump(worker.added);
  worker.lock.unlock();
  // A lingerer still lingering after the push finds the task itself: waking
  // a sleeper as well would only have it spin on some busy CPU. One that
  // stopped lingering has not parked yet (it stops before it parks), and
  // its look at every ring on the way sees the task.
  if (target == lingering &&
      lingering_.load(std::memory_order_seq_cst) == lingering) {
    return;
  }
  MaybeWakeOne();
}

void MultiThreadedWorkQueue::MaybeWakeOne() {
  uint64_t state = park_state_.load(std::memory_order_seq_cst);
  // Every sleeper already has a token on its way: nothing to do, and no
  // mutex on the hot path while a woken worker is still getting up.
  if (Sleepers(state) <= Tokens(state)) return;
  std::lock_guard<std::mutex> lock(park_mu_);
  while (Sleepers(state) > Tokens(state)) {
    if (park_state_.compare_exchange_weak(state, state + kToken,
                                          std::memory_order_seq_cst)) {
      park_cv_.notify_one();
      return;
    }
  }
}

bool MultiThreadedWorkQueue::PopOwn(Worker& self, TaskFunction& task) {
  if (self.local_next < self.local_end) {
    task = std::move(self.local[self.local_next++]);
    return true;
  }
  // A stale false only delays the task: the spin loop peeks again and the
  // park path looks under the lock.
  if (!self.has_tasks.load(std::memory_order_relaxed)) return false;
  self.lock.lock();
  // Several tasks per lock only from a long ring: tasks in the local batch
  // cannot be stolen, so behind a long-running task they would wait while
  // other workers idle. From a long ring, thieves still find plenty.
  const size_t size = self.ring.size();
  const size_t take =
      size >= 2 * kLocalBatch ? kLocalBatch : (size > 0 ? 1 : 0);
  if (take > 0) {
    self.ring.PopFront(task);
    for (size_t k = 1; k < take; ++k) self.ring.PopFront(self.local[k - 1]);
    UpdateHasTasks(self);
  }
  self.lock.unlock();
  self.local_next = 0;
  self.local_end = take == 0 ? 0 : take - 1;
  return take > 0;
}

bool MultiThreadedWorkQueue::Steal(int index, TaskFunction& task) {
  const int n = static_cast<int>(workers_.size());
  if (n == 1) return false;
  Worker& self = *workers_[index];
  uint64_t& x = self.random_state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  const int start = static_cast<int>(x % n);
  for (int i = 0; i < n; ++i) {
    const int v = (start + i) % n;
    if (v == index) continue;
    Worker& victim = *workers_[v];
    if (!victim.has_tasks.load(std::memory_order_relaxed)) continue;
    victim.lock.lock();
    const size_t take = std::min((victim.ring.size() + 1) / 2, kMaxSteal);
    for (size_t k = 0; k < take; ++k) {
      self.stolen.push_back(victim.ring.PopFront());
    }
    UpdateHasTasks(victim);
    victim.lock.unlock();
    if (take == 0) continue;

    task = std::move(self.stolen.front());
    if (take > 1) {
      self.lock.lock();
      for (size_t k = 1; k < take; ++k) {
        self.ring.PushBack(std::move(self.stolen[k]));
      }
      UpdateHasTasks(self);
      self.lock.unlock();
      // More than this worker can start at once: let a sleeper share them.
      MaybeWakeOne();
    }
    self.stolen.clear();
    return true;
  }
  return false;
}

void MultiThreadedWorkQueue::Run(Worker& self, TaskFunction& task) {
  std::move(task)();
  // Destroy what the task captured before counting it as finished, so that
  // Quiesce() also waits for those destructors.
  task = nullptr;
  Bump(self.finished);
}

bool MultiThreadedWorkQueue::AnyRingIsNonEmpty() {
  // Locks (seq_cst exchanges) rather than peeks: the parking protocol needs
  // each look ordered after the sleeper's increment.
  for (auto& worker : workers_) {
    worker->lock.lock();
    const bool non_empty = !worker->ring.empty();
    worker->lock.unlock();
    if (non_empty) return true;
  }
  return false;
}

bool MultiThreadedWorkQueue::SpinForOwnWork(const Worker& self) const {
  const auto deadline = std::chrono::steady_clock::now() + kSpinTime;
  while (true) {
    for (int round = 0; round < 8; ++round) {
      if (self.has_tasks.load(std::memory_order_relaxed)) return true;
      for (int i = 0; i < 16; ++i) CpuRelax();
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
  }
}

MultiThreadedWorkQueue::Found MultiThreadedWorkQueue::SpinThenSteal(
    int index, const Worker& self, TaskFunction& task) {
  if (SpinForOwnWork(self)) return Found::kOwnWork;
  return Steal(index, task) ? Found::kStolen : Found::kNothing;
}

MultiThreadedWorkQueue::Found MultiThreadedWorkQueue::Linger(
    int index, Worker& self, TaskFunction& task) {
  int none = -1;
  if (!lingering_.compare_exchange_strong(none, index,
                                          std::memory_order_relaxed)) {
    return Found::kNothing;
  }
  const auto park_at = std::chrono::steady_clock::now() + kLingerTime;
  Found found;
  do {
    found = SpinThenSteal(index, self, task);
  } while (found == Found::kNothing &&
           std::chrono::steady_clock::now() < park_at);
  // Sequentially consistent: see AddTask.
  lingering_.store(-1, std::memory_order_seq_cst);
  // Producers that found this worker lingering woke nobody: if their tasks
  // are more than this worker starts now, let a sleeper share them.
  self.lock.lock();
  const size_t queued = self.ring.size();
  self.lock.unlock();
  if (queued > (found == Found::kOwnWork ? 1u : 0u)) MaybeWakeOne();
  return found;
}

bool MultiThreadedWorkQueue::Park() {
  park_state_.fetch_add(kSleeper, std::memory_order_seq_cst);
  if (AnyRingIsNonEmpty()) {
    // Leave, and take a token along if keeping it would leave more tokens
    // than sleepers (one meant for us, most likely).
    uint64_t state = park_state_.load(std::memory_order_relaxed);
    while (!park_state_.compare_exchange_weak(
        state,
        state - kSleeper -
            (Tokens(state) == Sleepers(state) ? kToken : uint64_t{0}),
        std::memory_order_seq_cst)) {
    }
    return true;
  }
  NotifyQuiesceWaiters();
  std::unique_lock<std::mutex> lock(park_mu_);
  while (true) {
    // Tokens are added under `park_mu_`, so checking here and waiting
    // atomically with the unlock cannot miss one; a leaving sleeper may take
    // one away meanwhile, hence the compare-exchange.
    uint64_t state = park_state_.load(std::memory_order_seq_cst);
    if (Tokens(state) > 0) {
      if (park_state_.compare_exchange_weak(state, state - kSleeper - kToken,
                                            std::memory_order_seq_cst)) {
        return true;
      }
      continue;
    }
    if (stopping_) {
      park_state_.fetch_sub(kSleeper, std::memory_order_seq_cst);
      return false;
    }
    park_cv_.wait(lock);
  }
}

void MultiThreadedWorkQueue::WorkerLoop(int index) {
  current_worker = {this, index};
  Worker& self = *workers_[index];
  TaskFunction task;
  while (true) {
    if (PopOwn(self, task)) {
      Run(self, task);
      continue;
    }
    // Steal only after a spin's length without work (see the top of the
    // file).
    idle_workers_.fetch_add(1, std::memory_order_relaxed);
    Found found = SpinThenSteal(index, self, task);
    if (found == Found::kNothing) found = Linger(index, self, task);
    const bool running = found != Found::kNothing || Park();
    idle_workers_.fetch_sub(1, std::memory_order_relaxed);
    if (!running) break;
    if (found == Found::kStolen) Run(self, task);
  }
  current_worker = {};
}

bool MultiThreadedWorkQueue::IsQuiescent() const {
  // Order matters: every `finished` before any `added` (see the top of this
  // file).
  uint64_t finished = blocking_pool_.finished();
  for (const auto& worker : workers_) {
    finished += worker->finished.load(std::memory_order_acquire);
  }
  uint64_t added = blocking_pool_.added();
  for (const auto& worker : workers_) {
    added += worker->added.load(std::memory_order_acquire);
  }
  assert(finished <= added);
  return finished == added;
}

void MultiThreadedWorkQueue::NotifyQuiesceWaiters() {
  if (quiesce_waiters_.load(std::memory_order_seq_cst) == 0) return;
  std::lock_guard<std::mutex> lock(quiesce_mu_);
  quiesce_cv_.notify_all();
}

void MultiThreadedWorkQueue::Quiesce() {
  assert(!IsInWorkerThread() && "Quiesce() on a worker would wait for itself");
  // Sleeps are short at first: most calls come right after the last tasks
  // were added. The timed wait also covers a notification sent between the
  // check and the wait.
  auto sleep = std::chrono::microseconds(20);
  while (!IsQuiescent()) {
    std::unique_lock<std::mutex> lock(quiesce_mu_);
    quiesce_waiters_.fetch_add(1, std::memory_order_seq_cst);
    if (!IsQuiescent()) quiesce_cv_.wait_for(lock, sleep);
    quiesce_waiters_.fetch_sub(1, std::memory_order_seq_cst);
    sleep = std::min(sleep * 2, kMaxQuiesceSleep);
  }
}

void MultiThreadedWorkQueue::Await(
    absl::Span<const RCReference<AsyncValue>> values) {
  assert(!IsInWorkerThread() && "Await() on a worker would block it");
  bool all_available = true;
  for (const RCReference<AsyncValue>& value : values) {
    if (value->IsUnavailable()) {
      all_available = false;
      break;
    }
  }
  if (all_available) return;
  // Shared ownership: the callback may still be unlocking `mu` when this
  // frame is gone.
  auto state = std::make_shared<AwaitState>();
  RunWhenReady(values, [state] {
    std::lock_guard<std::mutex> lock(state->mu);
    state->done = true;
    state->cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(state->mu);
  state->cv.wait(lock, [&] { return state->done; });
}

}  // namespace

std::unique_ptr<ConcurrentWorkQueue> CreateMultiThreadedWorkQueue(
    int num_threads, int max_blocking_threads) {
  return std::make_unique<MultiThreadedWorkQueue>(num_threads,
                                                  max_blocking_threads);
}

}  // namespace sluice
