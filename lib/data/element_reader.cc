#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "sluice/data/dataset.h"
#include "sluice/tensor/tensor_shape.h"

namespace sluice {
namespace data {
namespace {

// "[2, 3] f32", how errors name a component.
std::string Describe(DType dtype, absl::Span<const int64_t> dims) {
  absl::StatusOr<TensorShape> shape = TensorShape::Create(dims);
  return absl::StrCat(shape.ok() ? shape->ToString() : "?", " ",
                      DTypeName(dtype));
}

}  // namespace

absl::Status CopyIntoRow(const Element& element, Element& batch, int64_t row) {
  if (element.size() != batch.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "batch_dataset: the element for row ", row, " has ", element.size(),
        " components; the batch's first element has ", batch.size()));
  }
  for (size_t i = 0; i < element.size(); ++i) {
    const DenseHostTensor& part = element[i];
    DenseHostTensor& rows = batch[i];
    const absl::Span<const int64_t> row_dims = rows.shape().dims().subspan(1);
    if (part.dtype() != rows.dtype() || part.shape().dims() != row_dims) {
      return absl::InvalidArgumentError(absl::StrCat(
          "batch_dataset: the element for row ", row, " has component #", i,
          " of ", Describe(part.dtype(), part.shape().dims()),
          "; the batch's first element has ",
          Describe(rows.dtype(), row_dims)));
    }
    const size_t row_bytes = part.num_bytes();
    if (row_bytes == 0) continue;
    std::memcpy(static_cast<char*>(rows.raw_data()) + row * row_bytes,
                part.raw_data(), row_bytes);
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> ElementReader::ReadRows(Element& batch, int64_t row,
                                                int64_t count) {
  Element element;
  for (int64_t read = 0; read < count; ++read) {
    absl::StatusOr<bool> more = Next(element);
    if (!more.ok()) return more.status();
    if (!*more) return read;
    if (absl::Status copied = CopyIntoRow(element, batch, row + read);
        !copied.ok()) {
      return copied;
    }
  }
  return count;
}

absl::StatusOr<int64_t> ElementReader::Skip(int64_t count) {
  Element element;
  for (int64_t skipped = 0; skipped < count; ++skipped) {
    absl::StatusOr<bool> more = Next(element);
    if (!more.ok()) return more.status();
    if (!*more) return skipped;
  }
  return count;
}

}  // namespace data
}  // namespace sluice
