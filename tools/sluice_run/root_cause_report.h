// RootCauseReport: a function's runtime diagnostics, root causes first.
// One failure often fans out into many errors (a dead task fails every
// call in flight to it); each records its root (sluice/support/
// error_util.h, RootCause). The first diagnostic of a root prints at once;
// the others of that root wait for the end of the function, where they
// follow a note that names the root once and says how many errors it
// explains:
//
//   prog.mlir:12:8: error: runtime error: remote call of 'f' on task ...
//   failed: ... prog.mlir:20:3: error: runtime error: <another root>
//   prog.mlir:12:8: note: root cause of 2 more runtime errors, below: remote
//   call of 'f' on task ... failed: ... prog.mlir:13:8: error: runtime error:
//   remote call of 'g' on task ... failed: ... prog.mlir:14:8: error: runtime
//   error: cannot register 'h': ...
#ifndef SLUICE_TOOLS_SLUICE_RUN_ROOT_CAUSE_REPORT_H_
#define SLUICE_TOOLS_SLUICE_RUN_ROOT_CAUSE_REPORT_H_

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "sluice/host_context/diagnostic.h"

namespace sluice {

class RootCauseReport {
 public:
  // `print` writes one line.
  explicit RootCauseReport(std::function<void(const std::string&)> print)
      : print_(std::move(print)) {}

  // Thread-safe.
  void Add(const DecodedDiagnostic& diagnostic);
  // The end of a function: prints what waited, and starts afresh.
  void Flush();

 private:
  struct Root {
    std::string cause;
    std::string first;  // its first diagnostic's location, "" when none
    std::vector<std::string> more;  // the lines that waited
  };

  std::function<void(const std::string&)> print_;
  std::mutex mu_;
  std::vector<Root> roots_;  // guarded by mu_; in the order they came
};

}  // namespace sluice

#endif  // SLUICE_TOOLS_SLUICE_RUN_ROOT_CAUSE_REPORT_H_
