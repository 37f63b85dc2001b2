// Fuzz target for what the etcd client (lib/lighthouse/etcd_client.h) reads:
// the replies of etcd's JSON gateway, which a lighthouse trusts no more than
// any peer, and the --etcd endpoint list.
//
// The first byte picks what the rest is. With its top bit set, the rest is
// an endpoint list, split and parsed as sluice_lighthouse does: every
// endpoint either parses or is an InvalidArgument. Otherwise the first
// byte's low bits pick the call (GrantLease, KeepAlive, RevokeLease, Get,
// Put, Txn), the second byte the HTTP status, and the rest is the body that
// a fake gateway in this process answers with. Any reply either answers the
// call or fails it with a status that carries etcd's code (or INTERNAL, or
// UNAVAILABLE naming the endpoint); a reply that is not a JSON object, or
// not a success, never answers it. Nothing escapes as an exception.
//
// In the test suite, seeded_fuzz_driver.cc runs this target on
// test/fuzz/seeds/etcd_client/ and deterministic mutations; to fuzz it for
// real with libFuzzer, see build_libfuzzer_target.sh.
#include <httplib.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "lib/lighthouse/etcd_client.h"
#include "test/fuzz/fuzz_target.h"

namespace sluice {
namespace lighthouse {
namespace {

using fuzz::Require;

// What the gateway answers, whatever it is asked.
struct Reply {
  int status = 200;
  std::string body;
};

// An HTTP server on a free port of 127.0.0.1 that answers every POST with
// the reply set last. It serves for the life of the process.
class FakeGateway {
 public:
  FakeGateway() {
    server_.Post(".*",
                 [this](const httplib::Request&, httplib::Response& response) {
                   std::lock_guard<std::mutex> lock(mu_);
                   response.status = reply_.status;
                   response.set_content(reply_.body, "application/json");
                 });
    port_ = server_.bind_to_any_port("127.0.0.1");
    Require(port_ > 0, "the fake gateway has a port");
    std::thread([this] { server_.listen_after_bind(); }).detach();
    while (!server_.is_running()) absl::SleepFor(absl::Milliseconds(1));
  }

  void Answer(Reply reply) {
    std::lock_guard<std::mutex> lock(mu_);
    reply_ = std::move(reply);
  }
  std::string endpoint() const {
    return absl::StrCat("http://127.0.0.1:", port_);
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::mutex mu_;
  Reply reply_;
};

FakeGateway& Gateway() {
  static FakeGateway* const gateway = new FakeGateway();
  return *gateway;
}

EtcdClient& Client() {
  static EtcdClient* const client = [] {
    absl::StatusOr<std::unique_ptr<EtcdClient>> client =
        EtcdClient::Create({Gateway().endpoint()}, absl::Seconds(10));
    Require(client.ok(), "the client of the fake gateway is made");
    return client->release();
  }();
  return *client;
}

void CheckEndpoints(std::string_view text) {
  const std::vector<std::string> endpoints =
      EtcdClient::SplitEndpoints(std::string(text));
  for (const std::string& endpoint : endpoints) {
    Require(!endpoint.empty() && endpoint.find(',') == std::string::npos &&
                !absl::ascii_isspace(endpoint.front()) &&
                !absl::ascii_isspace(endpoint.back()),
            "a split endpoint is trimmed, not empty and has no ','");
  }
  absl::StatusOr<std::unique_ptr<EtcdClient>> client =
      EtcdClient::Create(endpoints, absl::Seconds(1));
  if (client.ok()) {
    Require((*client)->DescribeEndpoints() == absl::StrJoin(endpoints, ", "),
            "a client names the endpoints it was given");
  } else {
    Require(absl::IsInvalidArgument(client.status()),
            "a bad endpoint is InvalidArgument");
  }
}

// HTTP statuses a gateway or a proxy in front of it answers with.
constexpr int kStatuses[] = {200, 200, 200, 200, 400, 404, 408,
                             429, 500, 502, 503, 504, 301, 204};

void CheckReply(uint8_t call, uint8_t status_byte, std::string_view body) {
  Reply reply;
  reply.status = kStatuses[status_byte % (sizeof(kStatuses) / sizeof(int))];
  reply.body = std::string(body);
  const int http_status = reply.status;
  Gateway().Answer(std::move(reply));
  EtcdClient& client = Client();
  absl::Status status;
  switch (call % 6) {
    case 0:
      status = client.GrantLease(absl::Seconds(5)).status();
      break;
    case 1:
      status = client.KeepAlive(7587859).status();
      break;
    case 2:
      status = client.RevokeLease(7587859);
      break;
    case 3:
      status = client.Get("leader").status();
      break;
    case 4:
      status = client.Put({"leader", "127.0.0.1:1", 7587859});
      break;
    case 5:
      status = client
                   .Txn({EtcdCompare::CreateRevisionIs("quorum", 0),
                         EtcdCompare::ValueIs("leader", "me")},
                        {{"quorum", "1", 0}})
                   .status();
      break;
  }
  const nlohmann::json parsed = nlohmann::json::parse(body, nullptr, false);
  if (http_status != 200 || !parsed.is_object()) {
    Require(!status.ok(), "a failed or malformed reply answers no call");
  }
  if (absl::IsUnavailable(status)) {
    Require(absl::StrContains(status.message(), Gateway().endpoint()),
            "an unreachable etcd is named");
  }
}

void CheckOneInput(std::string_view input) {
  if (input.empty()) return;
  const uint8_t mode = static_cast<uint8_t>(input[0]);
  if (mode & 0x80) {
    CheckEndpoints(input.substr(1));
    return;
  }
  if (input.size() < 2) return;
  CheckReply(mode, static_cast<uint8_t>(input[1]), input.substr(2));
}

}  // namespace
}  // namespace lighthouse

namespace fuzz {

TargetSeeds FuzzTargetSeeds() {
  TargetSeeds target;
  target.tokens = {"{",
                   "}",
                   "[",
                   "]",
                   ",",
                   ":",
                   "\"",
                   "\"ID\"",
                   "\"TTL\"",
                   "\"result\"",
                   "\"kvs\"",
                   "\"key\"",
                   "\"value\"",
                   "\"lease\"",
                   "\"header\"",
                   "\"revision\"",
                   "\"create_revision\"",
                   "\"mod_revision\"",
                   "\"succeeded\"",
                   "\"code\"",
                   "\"message\"",
                   "\"error\"",
                   "true",
                   "null",
                   "\"7587859\"",
                   "-1",
                   "18446744073709551615",
                   "\"bGVhZGVy\"",
                   "\"=\"",
                   "\\u0000",
                   "http://",
                   "https://",
                   "localhost:2379",
                   "[::1]:2379",
                   "/"};
  // Regression: a GrantLease reply without an ID, nested 100,000 deep,
  // which the error message's dump() recursed through until the stack ran
  // out (Post now takes a reply nested past 32 levels for no JSON).
  target.seeds.push_back(absl::StrCat(std::string(2, '\0'),
                                      "{\"a\": ", std::string(100000, '['),
                                      std::string(100000, ']'), "}"));
  return target;
}

}  // namespace fuzz
}  // namespace sluice

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sluice::lighthouse::CheckOneInput(sluice::fuzz::AsText(data, size));
  return 0;
}
