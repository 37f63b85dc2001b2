// ClusterSpec: which tasks make up a cluster and where they listen. The JSON
// shape is TensorFlow's `TF_CONFIG` `cluster` field: job names mapping to
// lists of "host:port" addresses, e.g.
//   {"worker": ["127.0.0.1:7001", "127.0.0.1:7002"], "ps": ["10.0.0.5:7000"]}
// A whole TF_CONFIG object ({"cluster": {...}, "task": {...}}) is accepted
// too. Task i of job j is named "/job:j/task:i"; "/job:j/replica:0/task:i"
// names the same task.
#ifndef SLUICE_DISTRIBUTED_CLUSTER_SPEC_H_
#define SLUICE_DISTRIBUTED_CLUSTER_SPEC_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace sluice::dist {

class ClusterSpec {
 public:
  // Parses the JSON text; errors name what is wrong and where.
  static absl::StatusOr<ClusterSpec> FromJson(std::string_view json);

  // The spec given by a flag value or, when it is empty, by the
  // SLUICE_CLUSTER environment variable. A value starting with '@' names a
  // file holding the JSON. Fails when neither is set.
  static absl::StatusOr<ClusterSpec> FromFlagOrEnvironment(
      std::string_view flag_value);

  // The address of `task_name`, or NotFound naming the task and the tasks
  // the cluster has.
  absl::StatusOr<std::string> AddressOf(std::string_view task_name) const;

  // Every task's name, jobs in name order, tasks in index order.
  std::vector<std::string> TaskNames() const;

  const std::map<std::string, std::vector<std::string>>& jobs() const {
    return jobs_;
  }

 private:
  std::map<std::string, std::vector<std::string>> jobs_;
};

// Checks that `address` is "host:port" with a port in 0..65535; the host is
// a name, an IPv4 address or a bracketed IPv6 address ("[::1]:7001"). The
// error says what is wrong with it ("port 65537 is out of range 0..65535"),
// for the caller to prefix with where the address came from. The check is
// sluice::ParseHostPort's (sluice/support/host_port.h), which every server
// shares.
absl::Status ValidateAddress(std::string_view address);

// "/job:<job>/task:<index>".
std::string TaskName(std::string_view job, int index);

// Splits a task name ("/job:w/task:1", "/job:w/replica:0/task:1") into its
// job and index; InvalidArgument for anything else.
absl::StatusOr<std::pair<std::string, int>> ParseTaskName(
    std::string_view task_name);

}  // namespace sluice::dist

#endif  // SLUICE_DISTRIBUTED_CLUSTER_SPEC_H_
