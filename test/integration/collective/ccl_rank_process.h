// Starting ccl_rank processes and reading their result lines, for the
// collective process tests.
#ifndef SLUICE_TEST_INTEGRATION_COLLECTIVE_CCL_RANK_PROCESS_H_
#define SLUICE_TEST_INTEGRATION_COLLECTIVE_CCL_RANK_PROCESS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "test/util/child_process.h"

namespace sluice::ccl::testing {

// A ccl_rank process; its result lines and what it logs share one file.
std::unique_ptr<sluice::testing::ChildProcess> StartCclRank(
    const std::string& name, const std::vector<std::string>& flags,
    std::vector<std::string> environment = {});

// The value of `key=` in a result line, or -1.
int64_t Field(const std::string& line, const std::string& key);

}  // namespace sluice::ccl::testing

#endif  // SLUICE_TEST_INTEGRATION_COLLECTIVE_CCL_RANK_PROCESS_H_
