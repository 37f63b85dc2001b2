// Datasets: descriptions of a sequence of elements, and the readers that
// walk one. An element is a list of dense host tensors (its components): a
// gaussian_clusters element is (features f32 [F], label i32 []), a range
// element one rank-0 tensor. A Dataset is immutable and may be read by any
// number of readers at once; a reader is a cursor used by one thread at a
// time (Iterator, iterator.h, makes one safe to share). docs/datasets.md
// describes every dataset.
#ifndef SLUICE_DATA_DATASET_H_
#define SLUICE_DATA_DATASET_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice {
namespace data {

using Element = std::vector<DenseHostTensor>;

class ElementReader {
 public:
  virtual ~ElementReader() = default;

  // Reads the next element into `element`: true, or false once the data has
  // ended (and on every call after).
  virtual absl::StatusOr<bool> Next(Element& element) = 0;

  // Writes the next elements into rows [row, row + count) of `batch`, one
  // tensor per component whose first dimension is the batch and whose other
  // dimensions are the component's shape. Returns how many it wrote: fewer
  // than `count` only where the data ended. This default reads each element
  // with Next and copies it; readers that compute elements write them in
  // place. InvalidArgument when an element does not fit its row.
  virtual absl::StatusOr<int64_t> ReadRows(Element& batch, int64_t row,
                                           int64_t count);

  // Passes over the next `count` elements; returns how many there were.
  virtual absl::StatusOr<int64_t> Skip(int64_t count);
};

class Dataset {
 public:
  virtual ~Dataset() = default;

  // A reader at the first element. Tensors it makes come from `allocator`,
  // which must outlive it.
  virtual std::unique_ptr<ElementReader> MakeReader(
      HostAllocator* allocator) const = 0;
};

// The payload of a !tfrt_data.dataset value.
using DatasetRef = std::shared_ptr<const Dataset>;

// Copies `element` into row `row` of `batch` (as ReadRows describes it).
// InvalidArgument, naming the row and the shapes, when the element has
// another number of components or a component another dtype or shape.
absl::Status CopyIntoRow(const Element& element, Element& batch, int64_t row);

}  // namespace data
}  // namespace sluice

#endif  // SLUICE_DATA_DATASET_H_
