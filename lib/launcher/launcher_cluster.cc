#include "lib/launcher/launcher_cluster.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace sluice::launcher {
namespace {

constexpr int64_t kMaxTasks = 65535;

bool IsJobName(absl::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(c) && c != '_' && c != '-') return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::vector<int>> FreePorts(int count) {
  std::vector<int> fds;
  std::vector<int> ports;
  absl::Status error;
  for (int i = 0; i < count && error.ok(); ++i) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      error = absl::InternalError(
          absl::StrCat("cannot pick a free port: socket: ", strerror(errno)));
      break;
    }
    fds.push_back(fd);
    sockaddr_in address = {};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    socklen_t length = sizeof(address);
    if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      error = absl::InternalError(
          absl::StrCat("cannot pick a free port: bind: ", strerror(errno)));
      break;
    }
    ports.push_back(ntohs(address.sin_port));
  }
  for (int fd : fds) close(fd);
  if (!error.ok()) return error;
  return ports;
}

absl::StatusOr<std::vector<JobCount>> ParseJobs(const std::string& text) {
  std::vector<JobCount> jobs;
  std::set<std::string> seen;
  int64_t total = 0;
  for (absl::string_view entry : absl::StrSplit(text, ',')) {
    std::vector<absl::string_view> parts = absl::StrSplit(entry, ':');
    int count = 0;
    if (parts.size() != 2 || !IsJobName(parts[0]) ||
        !absl::SimpleAtoi(parts[1], &count) || count <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--jobs: '", std::string(entry),
                       "' is not JOB:COUNT with a job name of letters, digits, "
                       "'_' or '-' and a positive count"));
    }
    if (!seen.insert(std::string(parts[0])).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--jobs: job '", std::string(parts[0]), "' is named twice"));
    }
    // Each task gets a port of its own on one host, and callers add the
    // counts up in an int.
    total += count;
    if (total > kMaxTasks) {
      return absl::InvalidArgumentError(
          absl::StrCat("--jobs: more than ", kMaxTasks,
                       " tasks, the ports one host has for them"));
    }
    jobs.push_back(JobCount{std::string(parts[0]), count});
  }
  return jobs;
}

std::vector<RankTask> AssignTasks(const std::vector<JobCount>& jobs) {
  std::vector<RankTask> tasks;
  for (const JobCount& job : jobs) {
    for (int index = 0; index < job.count; ++index) {
      tasks.push_back(RankTask{job.job, index});
    }
  }
  return tasks;
}

absl::StatusOr<std::string> MakeClusterSpec(const std::vector<JobCount>& jobs,
                                            const std::string& host) {
  int total = 0;
  for (const JobCount& job : jobs) total += job.count;
  absl::StatusOr<std::vector<int>> ports = FreePorts(total);
  if (!ports.ok()) return ports.status();
  std::vector<std::string> entries;
  size_t next = 0;
  for (const JobCount& job : jobs) {
    std::vector<std::string> addresses;
    for (int index = 0; index < job.count; ++index) {
      addresses.push_back(
          absl::StrCat("\"", host, ":", (*ports)[next++], "\""));
    }
    entries.push_back(absl::StrCat("\"", job.job, "\": [",
                                   absl::StrJoin(addresses, ", "), "]"));
  }
  return absl::StrCat("{", absl::StrJoin(entries, ", "), "}");
}

std::string MakeTfConfig(const std::string& cluster_spec,
                         const RankTask& task) {
  return absl::StrCat("{\"cluster\": ", cluster_spec,
                      ", \"task\": {\"type\": \"", task.job,
                      "\", \"index\": ", task.index, "}}");
}

std::vector<std::string> RankEnvironment(const LaunchEnvironment& launch,
                                         int local_rank, const RankTask& task) {
  std::vector<std::string> environment = {
      absl::StrCat("SLUICE_RANK=", launch.rank_offset + local_rank),
      absl::StrCat("SLUICE_WORLD_SIZE=", launch.world_size),
      absl::StrCat("SLUICE_LOCAL_RANK=", local_rank),
      absl::StrCat("SLUICE_NODE_RANK=", launch.node_rank),
      absl::StrCat("SLUICE_RESUME_EPOCH=", launch.resume_epoch),
      absl::StrCat("SLUICE_RESTART=", launch.restart),
  };
  if (!launch.monitor_address.empty()) {
    environment.push_back(
        absl::StrCat("SLUICE_MONITOR=", launch.monitor_address));
  }
  if (!launch.cluster_spec.empty()) {
    environment.push_back(absl::StrCat("SLUICE_CLUSTER=", launch.cluster_spec));
    environment.push_back(
        absl::StrCat("TF_CONFIG=", MakeTfConfig(launch.cluster_spec, task)));
  }
  return environment;
}

}  // namespace sluice::launcher
