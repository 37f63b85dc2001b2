// CompileProgram: Sluice program text to the binary format, with Sluice's
// dialects. For embedders: this header includes no MLIR, so a host program
// that compiles at startup still builds against the runtime's headers only.
#ifndef SLUICE_COMPILER_COMPILE_PROGRAM_H_
#define SLUICE_COMPILER_COMPILE_PROGRAM_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace sluice {

// Parses, verifies and compiles `source`. On failure the status message
// holds every diagnostic, `filename:line:col: error: ...`, one per line.
absl::StatusOr<std::vector<uint8_t>> CompileProgram(
    std::string_view source, std::string_view filename = "<program>");

}  // namespace sluice

#endif  // SLUICE_COMPILER_COMPILE_PROGRAM_H_
