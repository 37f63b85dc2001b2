// Checks runtime error diagnostics against `// expected-error {{...}}`
// annotations in the program's source, like mlir-opt -verify-diagnostics.
#ifndef SLUICE_TOOLS_SLUICE_RUN_DIAGNOSTIC_VERIFIER_H_
#define SLUICE_TOOLS_SLUICE_RUN_DIAGNOSTIC_VERIFIER_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/host_context/diagnostic.h"

namespace sluice {

class DiagnosticVerifier {
 public:
  // Reads the annotations in `text`, the contents of `file` (once per
  // file).
  void AddSource(const std::string& file, std::string_view text);

  // True if `diagnostic` matches an annotation: on the diagnostic's line (or
  // the line an `@+N` / `@-N` offset names), with a text that is a substring
  // of the message. An annotation already matched matches again only when
  // no other one does. Unmatched diagnostics count as unexpected.
  bool Match(const DecodedDiagnostic& diagnostic);

  // The problems found, one line each (empty when verification passed):
  // annotations never matched, and how many diagnostics were unexpected.
  std::string Finish() const;

 private:
  struct Expectation {
    int line;
    std::string text;
    bool matched = false;
  };

  std::map<std::string, std::vector<Expectation>> expectations_;
  int unexpected_ = 0;
};

}  // namespace sluice

#endif  // SLUICE_TOOLS_SLUICE_RUN_DIAGNOSTIC_VERIFIER_H_
