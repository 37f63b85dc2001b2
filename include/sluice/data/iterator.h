// An iterator over a dataset that consecutive callers on different threads
// may share: a per-worker iterator that each training step asks for its
// next batch. The payload of a !tfrt_data.iterator value.
#ifndef SLUICE_DATA_ITERATOR_H_
#define SLUICE_DATA_ITERATOR_H_

#include <cstdint>
#include <memory>
#include <mutex>

#include "absl/status/statusor.h"
#include "sluice/data/dataset.h"
#include "sluice/host_context/host_allocator.h"

namespace sluice {
namespace data {

class Iterator {
 public:
  // An iterator at the first element of `dataset`; tensors come from
  // `allocator`, which must outlive the iterator.
  Iterator(const Dataset& dataset, HostAllocator* allocator);

  // The next element. Calls are serialized, so each element goes to exactly
  // one caller, in the order the calls take the lock. Once the data has
  // ended, this and every later call return OutOfRange "the iterator is
  // exhausted after N elements". An error reading an element is returned
  // as it is, and the next call reads on.
  absl::StatusOr<Element> GetNext();

  // How many elements GetNext has returned.
  int64_t elements_returned() const;

 private:
  // std::mutex rather than absl::Mutex: the system's Abseil is not built
  // for ThreadSanitizer, which would not see absl::Mutex order accesses.
  mutable std::mutex mutex_;
  // Guarded by mutex_.
  std::unique_ptr<ElementReader> reader_;
  int64_t returned_ = 0;
  bool exhausted_ = false;
};

// The payload of a !tfrt_data.iterator value.
using IteratorRef = std::shared_ptr<Iterator>;

}  // namespace data
}  // namespace sluice

#endif  // SLUICE_DATA_ITERATOR_H_
