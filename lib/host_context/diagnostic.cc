#include "sluice/host_context/diagnostic.h"

#include "absl/strings/str_cat.h"

namespace sluice {

std::string DecodedLocation::ToString() const {
  return absl::StrCat(filename, ":", line, ":", column);
}

std::string DecodedDiagnostic::ToString() const {
  std::string prefix = location ? location->ToString() + ": " : "";
  return absl::StrCat(prefix, "error: runtime error: ", status.message());
}

}  // namespace sluice
