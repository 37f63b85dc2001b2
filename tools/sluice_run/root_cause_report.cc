#include "tools/sluice_run/root_cause_report.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "sluice/support/error_util.h"

namespace sluice {

void RootCauseReport::Add(const DecodedDiagnostic& diagnostic) {
  const std::string cause = RootCause(diagnostic.status);
  std::lock_guard<std::mutex> lock(mu_);
  auto root = std::find_if(roots_.begin(), roots_.end(), [&](const Root& root) {
    return root.cause == cause;
  });
  if (root == roots_.end()) {
    roots_.push_back(
        {cause,
         diagnostic.location ? diagnostic.location->ToString() : "",
         {}});
    print_(diagnostic.ToString());
    return;
  }
  root->more.push_back(diagnostic.ToString());
}

void RootCauseReport::Flush() {
  std::lock_guard<std::mutex> lock(mu_);
  for (const Root& root : roots_) {
    if (root.more.empty()) continue;
    const size_t more = root.more.size();
    print_(absl::StrCat(root.first.empty() ? "" : root.first + ": ",
                        "note: root cause of ", more, " more runtime error",
                        more == 1 ? "" : "s", ", below: ", root.cause));
    for (const std::string& line : root.more) print_(line);
  }
  roots_.clear();
}

}  // namespace sluice
