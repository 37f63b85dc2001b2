// Building blocks shared by the work queues: a growable ring of tasks and a
// small spin lock. Private to lib/host_context.
#ifndef SLUICE_LIB_HOST_CONTEXT_TASK_DEQUE_H_
#define SLUICE_LIB_HOST_CONTEXT_TASK_DEQUE_H_

#include <atomic>
#include <cassert>
#include <cstddef>
#include <memory>
#include <utility>

#include "lib/support/spin_wait.h"
#include "sluice/host_context/concurrent_work_queue.h"

namespace sluice {
namespace internal {

// A FIFO of tasks in one power-of-two ring that doubles when full and never
// shrinks: after warm-up, pushing and popping allocate nothing (a
// std::deque would allocate a block every few tasks). Not thread-safe.
class TaskRing {
 public:
  TaskRing() = default;
  TaskRing(TaskRing&& other) noexcept { Swap(other); }
  TaskRing& operator=(TaskRing&& other) noexcept {
    TaskRing(std::move(other)).Swap(*this);
    return *this;
  }
  TaskRing(const TaskRing&) = delete;
  TaskRing& operator=(const TaskRing&) = delete;

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }

  void PushBack(TaskFunction&& task) {
    if (size_ == capacity_) Grow();
    slots_[(head_ + size_) & (capacity_ - 1)] = std::move(task);
    ++size_;
  }

  TaskFunction PopFront() {
    TaskFunction task;
    PopFront(task);
    return task;
  }

  // Moves the oldest task into `task`: one move fewer than the other form.
  void PopFront(TaskFunction& task) {
    assert(size_ > 0);
    task = std::move(slots_[head_]);
    head_ = (head_ + 1) & (capacity_ - 1);
    --size_;
  }

  // Moves every task of `other` to the back of this ring, in order.
  void AppendAll(TaskRing& other) {
    while (!other.empty()) PushBack(other.PopFront());
  }

  void Swap(TaskRing& other) noexcept {
    std::swap(slots_, other.slots_);
    std::swap(capacity_, other.capacity_);
    std::swap(head_, other.head_);
    std::swap(size_, other.size_);
  }

 private:
  void Grow() {
    const size_t new_capacity = capacity_ == 0 ? 64 : capacity_ * 2;
    auto slots = std::make_unique<TaskFunction[]>(new_capacity);
    for (size_t i = 0; i < size_; ++i) {
      slots[i] = std::move(slots_[(head_ + i) & (capacity_ - 1)]);
    }
    slots_ = std::move(slots);
    capacity_ = new_capacity;
    head_ = 0;
  }

  std::unique_ptr<TaskFunction[]> slots_;
  size_t capacity_ = 0;  // Zero or a power of two.
  size_t head_ = 0;
  size_t size_ = 0;
};

// A test-and-test-and-set lock for critical sections of a few dozen
// nanoseconds, where a futex-based mutex would cost more than the work.
//
// Acquisition is a sequentially consistent exchange on purpose: the
// multi-threaded queue's parking protocol relies on a push under this lock
// and a later seq_cst load being ordered with a sleeper's seq_cst increment
// and its later locked look at the queue (see multi_threaded_work_queue.cc).
class SpinLock {
 public:
  void lock() {
    while (locked_.exchange(true, std::memory_order_seq_cst)) {
      SpinUntil([this] { return !locked_.load(std::memory_order_relaxed); });
    }
  }
  void unlock() { locked_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> locked_{false};
};

}  // namespace internal
}  // namespace sluice

#endif  // SLUICE_LIB_HOST_CONTEXT_TASK_DEQUE_H_
