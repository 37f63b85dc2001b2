// Fuzz target for cluster specs (sluice/distributed/cluster_spec.h): the
// JSON of --cluster, SLUICE_CLUSTER and TF_CONFIG, given inline or as an
// `@file`, and the task names and addresses in it. Any text either fails
// with an InvalidArgument or gives a spec whose every task name parses back
// to its job and index and whose every address passes ValidateAddress; the
// spec written back as JSON parses to the same jobs, and the `@file` form
// reads the same as the inline one. The text is also taken as one address
// and as one task name.
//
// In the test suite, seeded_fuzz_driver.cc runs this target on
// test/fuzz/seeds/cluster_spec/ and deterministic mutations; to fuzz it for
// real with libFuzzer, see build_libfuzzer_target.sh.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "sluice/distributed/cluster_spec.h"
#include "test/fuzz/fuzz_target.h"

namespace sluice {
namespace dist {
namespace {

using fuzz::Require;
using Jobs = std::map<std::string, std::vector<std::string>>;

std::string ToJson(const Jobs& jobs) {
  llvm::json::Object object;
  for (const auto& [job, addresses] : jobs) {
    llvm::json::Array list;
    for (const std::string& address : addresses) list.push_back(address);
    object[job] = std::move(list);
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(object));
  return os.str();
}

// A file of this process's own for the `@file` form.
const std::string& SpecFile() {
  static const std::string* const path = [] {
    const char* dir = std::getenv("TEST_TMPDIR");
    std::atexit([] { std::remove(SpecFile().c_str()); });
    return new std::string(absl::StrCat(dir != nullptr ? dir : "/tmp",
                                        "/cluster_spec_fuzzer.", getpid(),
                                        ".json"));
  }();
  return *path;
}

void CheckSpec(const ClusterSpec& spec) {
  const Jobs& jobs = spec.jobs();
  Require(!jobs.empty(), "a spec has a job");
  size_t tasks = 0;
  for (const auto& [job, addresses] : jobs) {
    Require(!job.empty() && job.find_first_of("/:") == std::string::npos,
            "a job name is not empty and has no '/' or ':'");
    for (const std::string& address : addresses) {
      Require(ValidateAddress(address).ok(), "a spec's addresses are valid");
    }
    tasks += addresses.size();
  }
  const std::vector<std::string> names = spec.TaskNames();
  Require(names.size() == tasks, "every task has a name");
  for (const std::string& name : names) {
    absl::StatusOr<std::pair<std::string, int>> parsed = ParseTaskName(name);
    Require(parsed.ok(), "a task's name parses");
    absl::StatusOr<std::string> address = spec.AddressOf(name);
    Require(
        address.ok() &&
            *address ==
                jobs.at(parsed->first).at(static_cast<size_t>(parsed->second)),
        "a task's name leads to its address");
    const std::string replica_name = absl::StrCat(
        "/job:", parsed->first, "/replica:0/task:", parsed->second);
    absl::StatusOr<std::string> same = spec.AddressOf(replica_name);
    Require(same.ok() && *same == *address,
            "the /replica:0/ name leads to the same address");
  }
  absl::StatusOr<ClusterSpec> again = ClusterSpec::FromJson(ToJson(jobs));
  Require(again.ok() && again->jobs() == jobs,
          "a spec written back as JSON parses to the same jobs");
}

void CheckOneInput(std::string_view text) {
  absl::StatusOr<ClusterSpec> spec = ClusterSpec::FromJson(text);
  if (spec.ok()) {
    CheckSpec(*spec);
  } else {
    Require(absl::IsInvalidArgument(spec.status()),
            "a bad spec is InvalidArgument");
  }

  {
    // A new file each time: ext4 flushes a file truncated and rewritten,
    // which would make each run wait for the disk.
    std::remove(SpecFile().c_str());
    std::ofstream file(SpecFile(), std::ios::binary);
    file.write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  absl::StatusOr<ClusterSpec> from_file =
      ClusterSpec::FromFlagOrEnvironment("@" + SpecFile());
  Require(from_file.ok() == spec.ok(),
          "the @file form accepts what the inline form accepts");
  if (from_file.ok()) {
    Require(from_file->jobs() == spec->jobs(),
            "the @file form reads the same jobs");
  } else {
    Require(from_file.status().code() == spec.status().code(),
            "the @file form fails as the inline form does");
  }

  if (ValidateAddress(text).ok()) {
    const size_t colon = text.rfind(':');
    Require(colon != std::string_view::npos && colon > 0,
            "a valid address has a host before its last ':'");
    std::string_view port = text.substr(colon + 1);
    Require(!port.empty() &&
                port.find_first_not_of("0123456789") == std::string::npos,
            "a valid address's port is digits");
    while (port.size() > 1 && port.front() == '0') port.remove_prefix(1);
    Require(port.size() < 5 || (port.size() == 5 && port <= "65535"),
            "a valid address's port is at most 65535");
  }
  absl::StatusOr<std::pair<std::string, int>> task = ParseTaskName(text);
  if (task.ok()) {
    Require(!task->first.empty() &&
                task->first.find('/') == std::string::npos && task->second >= 0,
            "a parsed task name has a job without '/' and an index from 0");
    absl::StatusOr<std::pair<std::string, int>> again =
        ParseTaskName(TaskName(task->first, task->second));
    Require(again.ok() && *again == *task,
            "TaskName writes a name that parses back to its job and index");
  }
}

}  // namespace
}  // namespace dist

namespace fuzz {

TargetSeeds FuzzTargetSeeds() {
  TargetSeeds target;
  target.tokens = {
      "{",           "}",           "[",           "]",
      ",",           ":",           "\"",          "\\u0000",
      "\\\"",        "\\/",         "\"cluster\"", "\"task\"",
      "\"worker\"",  "\"ps\"",      "\"chief\"",   "\"127.0.0.1:7001\"",
      "\"[::1]:1\"", "\"h:65535\"", "\"h:65536\"", "/job:",
      "/replica:0",  "/task:",      "[",           "]:",
      "null",        "true",        "1e999",       "\xF0\x9F\x98\x80",
  };
  // Regressions: llvm::json::parse recursed once per '[' until the stack
  // ran out (FromJson now refuses deep nesting first), and nesting just
  // within the limit.
  target.seeds.push_back(std::string(100000, '['));
  target.seeds.push_back(absl::StrCat("{\"w\": ", std::string(31, '['),
                                      "\"h:1\"", std::string(31, ']'), "}"));
  return target;
}

}  // namespace fuzz
}  // namespace sluice

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sluice::dist::CheckOneInput(sluice::fuzz::AsText(data, size));
  return 0;
}
