#include "sluice/data/iterator.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace sluice {
namespace data {

Iterator::Iterator(const Dataset& dataset, HostAllocator* allocator)
    : reader_(dataset.MakeReader(allocator)) {}

absl::StatusOr<Element> Iterator::GetNext() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!exhausted_) {
    Element element;
    absl::StatusOr<bool> more = reader_->Next(element);
    if (!more.ok()) return more.status();
    if (*more) {
      ++returned_;
      return element;
    }
    exhausted_ = true;
    // Nothing is left to read: let the readers go now.
    reader_.reset();
  }
  return absl::OutOfRangeError(
      absl::StrCat("the iterator is exhausted after ", returned_, " elements"));
}

int64_t Iterator::elements_returned() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return returned_;
}

}  // namespace data
}  // namespace sluice
