// Runtime diagnostics: an error reported at the `.mlir` location of the
// kernel that produced it.
#ifndef SLUICE_HOST_CONTEXT_DIAGNOSTIC_H_
#define SLUICE_HOST_CONTEXT_DIAGNOSTIC_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace sluice {

struct DecodedLocation {
  std::string filename;
  int line = 0;
  int column = 0;

  // "file:line:col".
  std::string ToString() const;
};

// Where an op is in its program's source. The file name views the loaded
// program's bytes, so a program keeps one copy of it however many ops it
// has.
struct KernelLocation {
  std::string_view filename;
  int line = 0;
  int column = 0;

  // An owned copy, for diagnostics and errors that outlive the program.
  DecodedLocation Decode() const {
    return DecodedLocation{std::string(filename), line, column};
  }
  // "file:line:col".
  std::string ToString() const { return Decode().ToString(); }
};

struct DecodedDiagnostic {
  std::optional<DecodedLocation> location;
  absl::Status status;

  // "file:line:col: error: runtime error: MESSAGE" (location omitted when
  // unknown), the form MLIR tools print diagnostics in.
  std::string ToString() const;
};

}  // namespace sluice

#endif  // SLUICE_HOST_CONTEXT_DIAGNOSTIC_H_
