#include "test/integration/collective/ccl_rank_process.h"

#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace sluice::ccl::testing {

using ::sluice::testing::ChildProcess;
using ::sluice::testing::ChildProcessOptions;
using ::sluice::testing::Runfile;

std::unique_ptr<ChildProcess> StartCclRank(
    const std::string& name, const std::vector<std::string>& flags,
    std::vector<std::string> environment) {
  ChildProcessOptions options;
  options.argv = {Runfile("test/integration/collective/ccl_rank")};
  options.argv.insert(options.argv.end(), flags.begin(), flags.end());
  options.environment = std::move(environment);
  options.name = name;
  return std::make_unique<ChildProcess>(std::move(options));
}

int64_t Field(const std::string& line, const std::string& key) {
  for (absl::string_view word : absl::StrSplit(line, ' ')) {
    if (word.rfind(key + "=", 0) != 0) continue;
    int64_t value = -1;
    if (absl::SimpleAtoi(word.substr(key.size() + 1), &value)) return value;
  }
  return -1;
}

}  // namespace sluice::ccl::testing
