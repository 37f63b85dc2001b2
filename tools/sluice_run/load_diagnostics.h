// Load errors as diagnostics, so that -verify-diagnostics matches them like
// runtime ones (an annotated `unknown kernel name 'X'` passes the run).
#ifndef SLUICE_TOOLS_SLUICE_RUN_LOAD_DIAGNOSTICS_H_
#define SLUICE_TOOLS_SLUICE_RUN_LOAD_DIAGNOSTICS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "sluice/host_context/diagnostic.h"

namespace sluice {

struct LoadDiagnostic {
  DecodedDiagnostic diagnostic;  // status holds this problem's message
  std::string text;              // `file:line:col: error: message`
};

// One diagnostic per problem of a failed Program::Load: the first at the
// location its error context names, the others (listed one per line of the
// message, `file:line:col: error: message`) at theirs.
std::vector<LoadDiagnostic> LoadErrorDiagnostics(const absl::Status& status);

}  // namespace sluice

#endif  // SLUICE_TOOLS_SLUICE_RUN_LOAD_DIAGNOSTICS_H_
