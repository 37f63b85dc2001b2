// Fuzz target for the launcher's --jobs list (ParseJobs in
// lib/launcher/launcher_cluster.h, "ps:2,worker:4,chief:1"). Any text either
// fails with an InvalidArgument or gives jobs with valid, distinct names and
// positive counts whose sum an int holds (the launcher adds them up in
// one); the jobs written back parse to the same. For a small job, the
// cluster spec and TF_CONFIG the launcher hands its ranks must parse with
// ClusterSpec, the parser the ranks use, to the same jobs and counts.
//
// In the test suite, seeded_fuzz_driver.cc runs this target on
// test/fuzz/seeds/launcher_jobs/ and deterministic mutations; to fuzz it for
// real with libFuzzer, see build_libfuzzer_target.sh.
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/launcher/launcher_cluster.h"
#include "llvm/Support/JSON.h"
#include "sluice/distributed/cluster_spec.h"
#include "test/fuzz/fuzz_target.h"

namespace sluice {
namespace launcher {
namespace {

using fuzz::Require;

// Larger jobs cost the fuzzer time (a port and a rank each) without
// reaching other code.
constexpr int64_t kMaxTasksToLaunch = 8;

bool IsJobName(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(c) && c != '_' && c != '-') return false;
  }
  return true;
}

void CheckLaunch(const std::vector<JobCount>& jobs, int64_t total) {
  const std::vector<RankTask> tasks = AssignTasks(jobs);
  Require(static_cast<int64_t>(tasks.size()) == total,
          "every task gets a rank");
  absl::StatusOr<std::string> cluster = MakeClusterSpec(jobs, "127.0.0.1");
  if (!cluster.ok()) return;  // out of sockets: not the parser's doing
  absl::StatusOr<dist::ClusterSpec> spec =
      dist::ClusterSpec::FromJson(*cluster);
  Require(spec.ok(), "the launcher's cluster spec parses");
  Require(spec->jobs().size() == jobs.size(), "the spec has every job");
  for (const JobCount& job : jobs) {
    auto it = spec->jobs().find(job.job);
    Require(it != spec->jobs().end() &&
                static_cast<int>(it->second.size()) == job.count,
            "the spec has each job's tasks");
  }
  LaunchEnvironment launch;
  launch.world_size = static_cast<int>(total);
  launch.cluster_spec = *cluster;
  for (size_t rank = 0; rank < tasks.size(); ++rank) {
    for (const std::string& variable :
         RankEnvironment(launch, static_cast<int>(rank), tasks[rank])) {
      const size_t equals = variable.find('=');
      Require(equals != std::string::npos && equals > 0 &&
                  variable.find('\n') == std::string::npos,
              "an environment variable is NAME=value on one line");
      if (variable.substr(0, equals) != "TF_CONFIG") continue;
      const std::string tf_config = variable.substr(equals + 1);
      absl::StatusOr<dist::ClusterSpec> from_tf_config =
          dist::ClusterSpec::FromJson(tf_config);
      Require(from_tf_config.ok() && from_tf_config->jobs() == spec->jobs(),
              "TF_CONFIG's cluster is the launcher's cluster spec");
      llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(tf_config);
      Require(parsed && parsed->getAsObject() != nullptr,
              "TF_CONFIG is a JSON object");
      const llvm::json::Object* task = parsed->getAsObject()->getObject("task");
      Require(task != nullptr && task->getString("type") == tasks[rank].job &&
                  task->getInteger("index") == tasks[rank].index,
              "TF_CONFIG names the rank's own task");
    }
  }
}

void CheckOneInput(std::string_view text) {
  absl::StatusOr<std::vector<JobCount>> jobs = ParseJobs(std::string(text));
  if (!jobs.ok()) {
    Require(absl::IsInvalidArgument(jobs.status()),
            "a bad --jobs is InvalidArgument");
    return;
  }
  Require(!jobs->empty(), "--jobs names a job");
  std::set<std::string> names;
  std::vector<std::string> entries;
  int64_t total = 0;
  for (const JobCount& job : *jobs) {
    Require(IsJobName(job.job), "a job name is letters, digits, '_' and '-'");
    Require(names.insert(job.job).second, "a job is named once");
    Require(job.count > 0, "a job has tasks");
    total += job.count;
    entries.push_back(absl::StrCat(job.job, ":", job.count));
  }
  Require(total <= std::numeric_limits<int>::max(),
          "the jobs' tasks add up to an int");
  absl::StatusOr<std::vector<JobCount>> again =
      ParseJobs(absl::StrJoin(entries, ","));
  Require(again.ok() && again->size() == jobs->size(),
          "the jobs written back parse");
  for (size_t i = 0; i < jobs->size(); ++i) {
    Require((*again)[i].job == (*jobs)[i].job &&
                (*again)[i].count == (*jobs)[i].count,
            "the jobs written back parse to the same jobs");
  }
  if (total <= kMaxTasksToLaunch) CheckLaunch(*jobs, total);
}

}  // namespace
}  // namespace launcher

namespace fuzz {

TargetSeeds FuzzTargetSeeds() {
  TargetSeeds target;
  target.tokens = {",", ":",  "ps", "worker", "chief", "evaluator",
                   "_", "-",  "0",  "1",      "-1",    "+2",
                   " ", "\"", "\\", "\t",     "\n",    "\xC3\xA9"};
  return target;
}

}  // namespace fuzz
}  // namespace sluice

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sluice::launcher::CheckOneInput(sluice::fuzz::AsText(data, size));
  return 0;
}
