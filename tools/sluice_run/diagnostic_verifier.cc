#include "tools/sluice_run/diagnostic_verifier.h"

#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "sluice/support/file_reading.h"

namespace sluice {
namespace {

constexpr char kMarker[] = "expected-error";

}  // namespace

void DiagnosticVerifier::AddSource(const std::string& file,
                                   std::string_view source) {
  if (expectations_.count(file)) return;
  std::vector<Expectation>& expectations = expectations_[file];
  std::istringstream in{std::string(source)};
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    size_t at = text.find(kMarker);
    if (at == std::string::npos) continue;
    at += sizeof(kMarker) - 1;
    int target = line;
    while (at < text.size() && text[at] == ' ') ++at;
    if (at < text.size() && text[at] == '@') {
      // "@+N" or "@-N": the annotation is about another line.
      target += std::atoi(text.c_str() + at + 1);
    }
    const size_t open = text.find("{{", at);
    const size_t close = text.find("}}", open == std::string::npos ? at : open);
    if (open == std::string::npos || close == std::string::npos) continue;
    expectations.push_back(
        Expectation{target, text.substr(open + 2, close - open - 2)});
  }
}

bool DiagnosticVerifier::Match(const DecodedDiagnostic& diagnostic) {
  if (!diagnostic.location) {
    ++unexpected_;
    return false;
  }
  if (!expectations_.count(diagnostic.location->filename)) {
    // A file other than the input: its annotations, if it can be read.
    absl::StatusOr<std::string> text =
        ReadRegularFile(diagnostic.location->filename);
    AddSource(diagnostic.location->filename, text.ok() ? *text : "");
  }
  const std::string message(diagnostic.status.message());
  // An op that runs more than once (a function that is also called, a loop
  // body) reports its error each time; as in mlir-opt, one annotation covers
  // them all. One not matched yet is preferred, so that two annotations on
  // one line each need a diagnostic of their own.
  bool repeated = false;
  for (Expectation& expectation :
       expectations_[diagnostic.location->filename]) {
    if (expectation.line != diagnostic.location->line ||
        message.find(expectation.text) == std::string::npos) {
      continue;
    }
    if (!expectation.matched) {
      expectation.matched = true;
      return true;
    }
    repeated = true;
  }
  if (repeated) return true;
  ++unexpected_;
  return false;
}

std::string DiagnosticVerifier::Finish() const {
  std::string problems;
  for (const auto& [file, expectations] : expectations_) {
    for (const Expectation& expectation : expectations) {
      if (expectation.matched) continue;
      absl::StrAppend(&problems, file, ":", expectation.line,
                      ": error: expected error \"", expectation.text,
                      "\" was not produced\n");
    }
  }
  if (unexpected_ > 0) {
    absl::StrAppend(&problems, "sluice_run: ", unexpected_,
                    " unexpected runtime error(s)\n");
  }
  return problems;
}

}  // namespace sluice
