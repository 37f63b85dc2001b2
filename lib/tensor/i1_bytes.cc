#include "sluice/tensor/i1_bytes.h"

#include <cstddef>

#include "absl/strings/str_cat.h"

namespace sluice {

absl::Status CheckI1Bytes(absl::Span<const uint8_t> bytes) {
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] > 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("i1 element ", i, " holds byte ", bytes[i],
                       ": an i1 element is 0 or 1"));
    }
  }
  return absl::OkStatus();
}

}  // namespace sluice
