#include "sluice/host_context/host_allocator.h"

#include <cstdlib>
#include <string>
#include <utility>

#include "sluice/support/logging.h"

namespace sluice {
namespace {

bool IsPowerOfTwo(size_t value) {
  return value != 0 && (value & (value - 1)) == 0;
}

// Lock-free running maximum; losers of a race retry only while their value
// is still the larger one.
void UpdateMax(std::atomic<int64_t>& max, int64_t value) {
  int64_t seen = max.load(std::memory_order_relaxed);
  while (value > seen &&
         !max.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
}

std::string Plural(int64_t count, const char* singular, const char* plural) {
  return std::to_string(count) + " " + (count == 1 ? singular : plural);
}

}  // namespace

HostAllocator::~HostAllocator() = default;

// ---------------------------------------------------------------------------
// MallocAllocator

void* MallocAllocator::AllocateBytes(size_t size, size_t alignment) {
  if (!IsPowerOfTwo(alignment)) {
    SLUICE_LOG(DFATAL) << "alignment " << alignment << " is not a power of two";
    return nullptr;
  }
  // malloc(0) may return nullptr, which callers would read as failure.
  if (size == 0) size = 1;
  if (alignment <= alignof(std::max_align_t)) return std::malloc(size);
  // aligned_alloc wants the size to be a multiple of the alignment.
  if (size > SIZE_MAX - (alignment - 1)) return nullptr;
  size_t rounded = (size + alignment - 1) & ~(alignment - 1);
  return std::aligned_alloc(alignment, rounded);
}

void MallocAllocator::DeallocateBytes(void* ptr, size_t /*size*/) {
  std::free(ptr);
}

std::unique_ptr<HostAllocator> CreateMallocAllocator() {
  return std::make_unique<MallocAllocator>();
}

// ---------------------------------------------------------------------------
// LeakCheckAllocator

LeakCheckAllocator::LeakCheckAllocator(std::unique_ptr<HostAllocator> base)
    : base_(std::move(base)) {
  SLUICE_CHECK(base_ != nullptr) << "leak check allocator needs a base";
}

LeakCheckAllocator::~LeakCheckAllocator() {
  std::string report = LeakReport();
  if (!report.empty()) SLUICE_LOG(ERROR) << "leak check allocator: " << report;
}

void* LeakCheckAllocator::AllocateBytes(size_t size, size_t alignment) {
  void* ptr = base_->AllocateBytes(size, alignment);
  if (ptr == nullptr) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  sizes_[ptr] = size;
  num_alive_allocations_.fetch_add(1, std::memory_order_relaxed);
  num_alive_bytes_.fetch_add(static_cast<int64_t>(size),
                             std::memory_order_relaxed);
  return ptr;
}

void LeakCheckAllocator::DeallocateBytes(void* ptr, size_t size) {
  if (ptr == nullptr) return;
  size_t allocated_size;
  {
    // The entry must be gone before the base frees the memory: once freed,
    // another thread may be handed the same address and insert it again.
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = sizes_.find(ptr);
    if (it == sizes_.end()) {
      SLUICE_LOG(DFATAL) << "deallocating " << ptr
                         << ", which is not a live allocation of this "
                            "allocator (double free?)";
      return;
    }
    allocated_size = it->second;
    sizes_.erase(it);
    num_alive_allocations_.fetch_sub(1, std::memory_order_relaxed);
    num_alive_bytes_.fetch_sub(static_cast<int64_t>(allocated_size),
                               std::memory_order_relaxed);
  }
  if (size != allocated_size) {
    SLUICE_LOG(DFATAL) << "deallocating " << ptr << " with size " << size
                       << ", but it was allocated with size " << allocated_size;
  }
  base_->DeallocateBytes(ptr, allocated_size);
}

std::string LeakCheckAllocator::LeakReport() const {
  int64_t allocations = num_alive_allocations();
  if (allocations == 0) return "";
  return Plural(allocations, "allocation", "allocations") + " (" +
         Plural(num_alive_bytes(), "byte", "bytes") + ") still alive";
}

// ---------------------------------------------------------------------------
// ProfilingAllocator

ProfilingAllocator::ProfilingAllocator(std::unique_ptr<HostAllocator> base,
                                       std::string name)
    : base_(std::move(base)), name_(std::move(name)) {
  SLUICE_CHECK(base_ != nullptr) << "profiling allocator needs a base";
}

ProfilingAllocator::~ProfilingAllocator() {
  Stats s = stats();
  SLUICE_LOG(INFO) << "allocator " << name_ << ": "
                   << Plural(s.num_allocations, "allocation", "allocations")
                   << ", " << s.total_bytes << " bytes in total, peak "
                   << s.peak_bytes << " bytes, largest "
                   << s.max_allocation_bytes << " bytes, " << s.current_bytes
                   << " bytes still in use";
}

void* ProfilingAllocator::AllocateBytes(size_t size, size_t alignment) {
  void* ptr = base_->AllocateBytes(size, alignment);
  if (ptr == nullptr) return nullptr;
  auto bytes = static_cast<int64_t>(size);
  num_allocations_.fetch_add(1, std::memory_order_relaxed);
  total_bytes_.fetch_add(bytes, std::memory_order_relaxed);
  int64_t current =
      current_bytes_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  UpdateMax(peak_bytes_, current);
  UpdateMax(max_allocation_bytes_, bytes);
  return ptr;
}

void ProfilingAllocator::DeallocateBytes(void* ptr, size_t size) {
  if (ptr == nullptr) return;
  // Counted before the memory goes back, so that a concurrent allocation
  // reusing it never sees both in current_bytes and inflates the peak.
  current_bytes_.fetch_sub(static_cast<int64_t>(size),
                           std::memory_order_relaxed);
  base_->DeallocateBytes(ptr, size);
}

ProfilingAllocator::Stats ProfilingAllocator::stats() const {
  Stats s;
  s.num_allocations = num_allocations_.load(std::memory_order_relaxed);
  s.total_bytes = total_bytes_.load(std::memory_order_relaxed);
  s.current_bytes = current_bytes_.load(std::memory_order_relaxed);
  s.peak_bytes = peak_bytes_.load(std::memory_order_relaxed);
  s.max_allocation_bytes =
      max_allocation_bytes_.load(std::memory_order_relaxed);
  return s;
}

// ---------------------------------------------------------------------------
// FixedBudgetAllocator

FixedBudgetAllocator::FixedBudgetAllocator(size_t budget_bytes,
                                           std::unique_ptr<HostAllocator> base)
    : budget_bytes_(budget_bytes), base_(std::move(base)) {
  SLUICE_CHECK(base_ != nullptr) << "fixed budget allocator needs a base";
}

void* FixedBudgetAllocator::AllocateBytes(size_t size, size_t alignment) {
  // Reserve first, so concurrent callers can never overshoot the budget
  // together.
  size_t in_use = bytes_in_use_.load(std::memory_order_relaxed);
  do {
    if (size > budget_bytes_ - in_use) return nullptr;
  } while (!bytes_in_use_.compare_exchange_weak(in_use, in_use + size,
                                                std::memory_order_relaxed));
  void* ptr = base_->AllocateBytes(size, alignment);
  if (ptr == nullptr) {
    bytes_in_use_.fetch_sub(size, std::memory_order_relaxed);
  }
  return ptr;
}

void FixedBudgetAllocator::DeallocateBytes(void* ptr, size_t size) {
  if (ptr == nullptr) return;
  base_->DeallocateBytes(ptr, size);
  size_t before = bytes_in_use_.fetch_sub(size, std::memory_order_relaxed);
  SLUICE_DCHECK(before >= size)
      << "freed " << size << " bytes with only " << before << " in use";
}

}  // namespace sluice
