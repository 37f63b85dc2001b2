#include "test/integration/ha/ha_cluster.h"

#include <httplib.h>

#include <chrono>
#include <cstdio>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace sluice::lighthouse::testing {
namespace {

constexpr absl::Duration kStartTimeout = absl::Seconds(30);

}  // namespace

absl::StatusOr<LighthouseProcess> StartLighthouse(
    const std::string& name, std::vector<std::string> flags) {
  std::vector<std::string> argv = {"tools/sluice_lighthouse/sluice_lighthouse",
                                   "--http_port=0"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  absl::StatusOr<std::unique_ptr<LoggedProcess>> process =
      LoggedProcess::Start(name, argv);
  if (!process.ok()) return process.status();
  LighthouseProcess lighthouse;
  lighthouse.process = *std::move(process);
  absl::StatusOr<std::string> listening = lighthouse.process->WaitForLine(
      "lighthouse listening on ", kStartTimeout);
  if (!listening.ok()) return listening.status();
  absl::StatusOr<std::string> page =
      lighthouse.process->WaitForLine("status page at ", kStartTimeout);
  if (!page.ok()) return page.status();
  lighthouse.address = listening->substr(listening->find("listening on ") + 13);
  lighthouse.status_url = page->substr(page->find("status page at ") + 15);
  return lighthouse;
}

absl::StatusOr<std::unique_ptr<LoggedProcess>> StartReplica(
    const std::string& replica_id, const std::string& lighthouses) {
  return LoggedProcess::Start(
      "replica " + replica_id,
      {"test/integration/ha/replica_child", "--replica_id=" + replica_id,
       "--lighthouses=" + lighthouses});
}

absl::StatusOr<nlohmann::json> FetchStatus(const std::string& status_url) {
  absl::string_view rest = status_url;
  if (!absl::ConsumePrefix(&rest, "http://")) {
    return absl::InvalidArgumentError(
        absl::StrCat("not an http:// url: ", status_url));
  }
  absl::ConsumeSuffix(&rest, "/");
  const size_t colon = rest.rfind(':');
  httplib::Client client(std::string(rest.substr(0, colon)),
                         std::stoi(std::string(rest.substr(colon + 1))));
  client.set_connection_timeout(std::chrono::seconds(2));
  client.set_read_timeout(std::chrono::seconds(5));
  httplib::Result reply = client.Get("/status.json");
  if (!reply) {
    return absl::UnavailableError(absl::StrCat(
        status_url, "status.json: ", httplib::to_string(reply.error())));
  }
  nlohmann::json json = nlohmann::json::parse(reply->body, nullptr, false);
  if (reply->status != 200 || json.is_discarded()) {
    return absl::InternalError(absl::StrCat(status_url, "status.json: HTTP ",
                                            reply->status, ": ", reply->body));
  }
  return json;
}

std::vector<ObservedQuorum> ObservedQuorums(LoggedProcess& replica) {
  std::vector<ObservedQuorum> quorums;
  for (const std::string& line : replica.StdoutLines()) {
    if (!absl::StartsWith(line, "quorum ")) continue;
    ObservedQuorum quorum;
    char lighthouse[128] = {0};
    char members[512] = {0};
    long long id = 0, step = 0;
    if (std::sscanf(line.c_str(),
                    "quorum %lld from %127s members %511s step %lld", &id,
                    lighthouse, members, &step) == 4) {
      quorum.id = id;
      quorum.lighthouse = lighthouse;
      quorum.members = members;
      quorum.step = step;
      quorums.push_back(std::move(quorum));
    }
  }
  return quorums;
}

}  // namespace sluice::lighthouse::testing
