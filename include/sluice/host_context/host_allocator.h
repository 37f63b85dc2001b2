// Allocators for the host memory kernels allocate on behalf of a program
// (buffers, tensors, scratch space): kernels take it from the HostContext's
// HostAllocator, so embedders can meter or bound it and tests can detect
// leaks. AsyncValues and frames are the runtime's own small, hot objects and
// use the C++ allocator.

#ifndef SLUICE_HOST_CONTEXT_HOST_ALLOCATOR_H_
#define SLUICE_HOST_CONTEXT_HOST_ALLOCATOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <utility>

namespace sluice {

// Callers remember the size of each allocation and pass it back on
// deallocation, so implementations need not store it.
class HostAllocator {
 public:
  HostAllocator() = default;
  HostAllocator(const HostAllocator&) = delete;
  HostAllocator& operator=(const HostAllocator&) = delete;
  virtual ~HostAllocator();

  // `alignment` must be a power of two. Returns nullptr when the allocator
  // cannot satisfy the request. A zero-byte request still returns a distinct
  // pointer that must be deallocated.
  virtual void* AllocateBytes(size_t size, size_t alignment) = 0;
  // `size` must be the size `ptr` was allocated with. nullptr is ignored.
  virtual void DeallocateBytes(void* ptr, size_t size) = 0;

  // Uninitialized storage for `num` objects of type T; nullptr on failure,
  // including when `num * sizeof(T)` overflows.
  template <typename T>
  T* Allocate(size_t num = 1) {
    if (num > SIZE_MAX / sizeof(T)) return nullptr;
    return static_cast<T*>(AllocateBytes(num * sizeof(T), alignof(T)));
  }

  template <typename T>
  void Deallocate(T* ptr, size_t num = 1) {
    DeallocateBytes(ptr, num * sizeof(T));
  }

  // Allocates and constructs a T; nullptr if the allocation fails.
  template <typename T, typename... Args>
  T* New(Args&&... args) {
    void* storage = AllocateBytes(sizeof(T), alignof(T));
    if (storage == nullptr) return nullptr;
    // Returns the storage if T's constructor throws.
    StorageGuard guard{this, storage, sizeof(T)};
    T* object = new (storage) T(std::forward<Args>(args)...);
    guard.storage = nullptr;
    return object;
  }

  // Destroys and frees an object made by New<T>. T must be the type it was
  // created as, not a base class: the size passed back is sizeof(T).
  template <typename T>
  void Delete(T* ptr) {
    if (ptr == nullptr) return;
    ptr->~T();
    DeallocateBytes(ptr, sizeof(T));
  }

 private:
  struct StorageGuard {
    ~StorageGuard() {
      if (storage != nullptr) allocator->DeallocateBytes(storage, size);
    }
    HostAllocator* allocator;
    void* storage;
    size_t size;
  };
};

// The process heap.
class MallocAllocator : public HostAllocator {
 public:
  void* AllocateBytes(size_t size, size_t alignment) override;
  void DeallocateBytes(void* ptr, size_t size) override;
};

std::unique_ptr<HostAllocator> CreateMallocAllocator();

// Wraps another allocator and tracks every live allocation, to find leaks
// and deallocations with the wrong size or pointer. Thread-safe if the base
// allocator is. Logs a report at ERROR when destroyed with allocations
// still alive; those are not freed, since their owners may still use them.
class LeakCheckAllocator : public HostAllocator {
 public:
  explicit LeakCheckAllocator(std::unique_ptr<HostAllocator> base);
  ~LeakCheckAllocator() override;

  void* AllocateBytes(size_t size, size_t alignment) override;
  // A size that differs from the allocation's, or a pointer this allocator
  // does not own, is reported at DFATAL (fatal in debug builds, ERROR
  // otherwise). A wrong size is corrected before reaching the base; an
  // unknown pointer is not passed on.
  void DeallocateBytes(void* ptr, size_t size) override;

  int64_t num_alive_allocations() const {
    return num_alive_allocations_.load(std::memory_order_relaxed);
  }
  int64_t num_alive_bytes() const {
    return num_alive_bytes_.load(std::memory_order_relaxed);
  }
  // Empty when nothing is alive, else e.g. "2 allocations (24 bytes) still
  // alive".
  std::string LeakReport() const;

 private:
  std::unique_ptr<HostAllocator> base_;
  // Guards sizes_. The counters are atomic so they can be read without it.
  std::mutex mutex_;
  std::unordered_map<void*, size_t> sizes_;
  std::atomic<int64_t> num_alive_allocations_{0};
  std::atomic<int64_t> num_alive_bytes_{0};
};

// Wraps another allocator and gathers usage statistics. Thread-safe if the
// base allocator is. Logs a summary at INFO when destroyed.
class ProfilingAllocator : public HostAllocator {
 public:
  struct Stats {
    int64_t num_allocations = 0;       // Successful allocations, ever.
    int64_t total_bytes = 0;           // Bytes of all those allocations.
    int64_t current_bytes = 0;         // Bytes allocated and not yet freed.
    int64_t peak_bytes = 0;            // Highest current_bytes seen.
    int64_t max_allocation_bytes = 0;  // Largest single allocation.
  };

  ProfilingAllocator(std::unique_ptr<HostAllocator> base, std::string name);
  ~ProfilingAllocator() override;

  void* AllocateBytes(size_t size, size_t alignment) override;
  void DeallocateBytes(void* ptr, size_t size) override;

  // Each field is read atomically, but under concurrent use the fields need
  // not come from a single instant.
  Stats stats() const;
  const std::string& name() const { return name_; }

 private:
  std::unique_ptr<HostAllocator> base_;
  std::string name_;
  std::atomic<int64_t> num_allocations_{0};
  std::atomic<int64_t> total_bytes_{0};
  std::atomic<int64_t> current_bytes_{0};
  std::atomic<int64_t> peak_bytes_{0};
  std::atomic<int64_t> max_allocation_bytes_{0};
};

// For tests: fails any allocation that would take the bytes in use past a
// fixed budget. Freeing returns bytes to the budget. Counts requested sizes,
// not what the base allocator spends on alignment or bookkeeping.
class FixedBudgetAllocator : public HostAllocator {
 public:
  explicit FixedBudgetAllocator(
      size_t budget_bytes,
      std::unique_ptr<HostAllocator> base = CreateMallocAllocator());

  void* AllocateBytes(size_t size, size_t alignment) override;
  void DeallocateBytes(void* ptr, size_t size) override;

  size_t budget_bytes() const { return budget_bytes_; }
  size_t bytes_in_use() const {
    return bytes_in_use_.load(std::memory_order_relaxed);
  }

 private:
  const size_t budget_bytes_;
  std::unique_ptr<HostAllocator> base_;
  std::atomic<size_t> bytes_in_use_{0};
};

}  // namespace sluice

#endif  // SLUICE_HOST_CONTEXT_HOST_ALLOCATOR_H_
