// Processes of the lighthouse's end-to-end tests: sluice_lighthouse (alone
// or over etcd, with its status page) and replica_child replicas, plus
// readers of their output and of the status page's JSON.
#ifndef SLUICE_TEST_INTEGRATION_HA_HA_CLUSTER_H_
#define SLUICE_TEST_INTEGRATION_HA_HA_CLUSTER_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "test/integration/ha/logged_process.h"

namespace sluice::lighthouse::testing {

struct LighthouseProcess {
  std::unique_ptr<LoggedProcess> process;
  std::string address;     // "127.0.0.1:port" (gRPC)
  std::string status_url;  // "http://127.0.0.1:port/"
};

// Starts sluice_lighthouse with `flags` and --http_port=0 and waits for its
// "listening" and "status page" lines.
absl::StatusOr<LighthouseProcess> StartLighthouse(
    const std::string& name, std::vector<std::string> flags);

// Starts replica_child `replica_id` against `lighthouses` (commas).
absl::StatusOr<std::unique_ptr<LoggedProcess>> StartReplica(
    const std::string& replica_id, const std::string& lighthouses);

// GET <status_url>status.json, parsed.
absl::StatusOr<nlohmann::json> FetchStatus(const std::string& status_url);

// One "quorum ID from LIGHTHOUSE members A,B step S" line of a replica.
struct ObservedQuorum {
  int64_t id = 0;
  std::string lighthouse;
  std::string members;
  int64_t step = 0;
};
std::vector<ObservedQuorum> ObservedQuorums(LoggedProcess& replica);

}  // namespace sluice::lighthouse::testing

#endif  // SLUICE_TEST_INTEGRATION_HA_HA_CLUSTER_H_
