#include "lib/lighthouse/etcd_client.h"

#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "lib/lighthouse/etcd_tls.h"
#include "sluice/support/liveness.h"

namespace sluice::lighthouse {
namespace {

using Json = nlohmann::json;

constexpr int kMaxReplyNesting = 32;

// The gateway writes 64-bit integers as strings and leaves out zeros.
int64_t IntField(const Json& object, const char* name) {
  auto it = object.find(name);
  if (it == object.end()) return 0;
  if (it->is_number_integer()) return it->get<int64_t>();
  int64_t value = 0;
  if (it->is_string() && absl::SimpleAtoi(it->get<std::string>(), &value)) {
    return value;
  }
  return 0;
}

std::string BytesField(const Json& object, const char* name) {
  auto it = object.find(name);
  std::string bytes;
  if (it != object.end() && it->is_string()) {
    absl::Base64Unescape(it->get<std::string>(), &bytes);
  }
  return bytes;
}

Json PutRequest(const EtcdPut& put) {
  Json request = {{"key", absl::Base64Escape(put.key)},
                  {"value", absl::Base64Escape(put.value)}};
  if (put.lease != 0) request["lease"] = absl::StrCat(put.lease);
  return request;
}

Json CompareRequest(const EtcdCompare& compare) {
  Json request = {{"key", absl::Base64Escape(compare.key)},
                  {"result", "EQUAL"}};
  switch (compare.target) {
    case EtcdCompare::Target::kValue:
      request["target"] = "VALUE";
      request["value"] = absl::Base64Escape(compare.value);
      break;
    case EtcdCompare::Target::kCreateRevision:
      request["target"] = "CREATE";
      request["create_revision"] = absl::StrCat(compare.revision);
      break;
    case EtcdCompare::Target::kModRevision:
      request["target"] = "MOD";
      request["mod_revision"] = absl::StrCat(compare.revision);
      break;
  }
  return request;
}

// cpp-httplib's names ("Connection", "Read") say little in a message.
std::string DescribeHttpError(httplib::Error error) {
  switch (error) {
    case httplib::Error::Connection:
      return "cannot connect";
    case httplib::Error::ConnectionTimeout:
      return "connecting timed out";
    case httplib::Error::Read:
      return "no reply (timed out or connection closed)";
    case httplib::Error::Write:
      return "cannot send the request";
    default:
      return httplib::to_string(error);
  }
}

// Bounds how long TCP waits on a silent etcd, as gRPC's keepalive does for
// the other connections: unacknowledged data (a request etcd's host never
// received) fails the connection after the liveness bound, and a quiet one
// (a request sent, its answer awaited) is probed after the liveness timeout
// and fails when one probe goes unanswered for a second, the user timeout
// then deciding. Best effort: a socket that refuses keeps the request's
// timeout alone.
void SetLivenessOptions(int fd, absl::Duration liveness) {
  const int on = 1;
  // Keepalive counts whole seconds, at least one.
  const int idle = static_cast<int>(std::max<int64_t>(
      1, absl::ToInt64Seconds(absl::Ceil(liveness, absl::Seconds(1)))));
  const int interval =
      static_cast<int>(absl::ToInt64Seconds(kLivenessPingTimeout));
  const int probes = 1;
  const unsigned int user_timeout = static_cast<unsigned int>(
      absl::ToInt64Milliseconds(liveness + kLivenessPingTimeout));
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof(interval));
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &probes, sizeof(probes));
  setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout,
             sizeof(user_timeout));
}

}  // namespace

EtcdCompare EtcdCompare::ValueIs(std::string key, std::string value) {
  EtcdCompare compare;
  compare.key = std::move(key);
  compare.target = Target::kValue;
  compare.value = std::move(value);
  return compare;
}

EtcdCompare EtcdCompare::CreateRevisionIs(std::string key, int64_t revision) {
  EtcdCompare compare;
  compare.key = std::move(key);
  compare.target = Target::kCreateRevision;
  compare.revision = revision;
  return compare;
}

EtcdCompare EtcdCompare::ModRevisionIs(std::string key, int64_t revision) {
  EtcdCompare compare;
  compare.key = std::move(key);
  compare.target = Target::kModRevision;
  compare.revision = revision;
  return compare;
}

std::vector<std::string> EtcdClient::SplitEndpoints(const std::string& list) {
  std::vector<std::string> endpoints;
  for (absl::string_view part : absl::StrSplit(list, ',', absl::SkipEmpty())) {
    part = absl::StripAsciiWhitespace(part);
    if (!part.empty()) endpoints.emplace_back(part);
  }
  return endpoints;
}

absl::StatusOr<std::unique_ptr<EtcdClient>> EtcdClient::Create(
    std::vector<std::string> endpoints, absl::Duration request_timeout) {
  // Only an https endpoint needs the files: reading them may report a bad
  // environment, which a plaintext client has no use for.
  const bool any_https = std::any_of(
      endpoints.begin(), endpoints.end(),
      [](const auto& url) { return absl::StartsWith(url, "https://"); });
  return Create(std::move(endpoints), request_timeout,
                any_https ? CurrentTls() : ProcessTls());
}

absl::StatusOr<std::unique_ptr<EtcdClient>> EtcdClient::Create(
    std::vector<std::string> endpoints, absl::Duration request_timeout,
    const ProcessTls& tls) {
  if (endpoints.empty()) {
    return absl::InvalidArgumentError("no etcd endpoint given");
  }
  std::vector<Endpoint> parsed;
  std::unique_ptr<const EtcdTls> loaded;
  for (const std::string& url : endpoints) {
    absl::string_view rest = url;
    Endpoint endpoint;
    endpoint.url = url;
    endpoint.https = absl::ConsumePrefix(&rest, "https://");
    if (!endpoint.https) absl::ConsumePrefix(&rest, "http://");
    absl::ConsumeSuffix(&rest, "/");
    const size_t colon = rest.rfind(':');
    if (colon == absl::string_view::npos || colon == 0 ||
        absl::StrContains(rest.substr(0, colon), '/') ||
        !absl::SimpleAtoi(rest.substr(colon + 1), &endpoint.port) ||
        endpoint.port <= 0 || endpoint.port > 65535) {
      return absl::InvalidArgumentError(
          absl::StrCat("etcd endpoint '", url,
                       "' is not http://host:port or https://host:port"));
    }
    endpoint.host = std::string(rest.substr(0, colon));
    if (endpoint.https && loaded == nullptr) {
      if (!tls.enabled) {
        return absl::InvalidArgumentError(absl::StrCat(
            "etcd endpoint '", url,
            "' is https but this process has no TLS configured: give "
            "--tls_cert, --tls_key and --tls_ca (docs/security.md), the "
            "certificate etcd accepts and the CA that signs etcd's"));
      }
      absl::StatusOr<std::unique_ptr<EtcdTls>> files = EtcdTls::Load(tls.files);
      if (!files.ok()) {
        return absl::Status(files.status().code(),
                            absl::StrCat("etcd endpoint '", url,
                                         "': ", files.status().message()));
      }
      loaded = *std::move(files);
    }
    parsed.push_back(std::move(endpoint));
  }
  return std::unique_ptr<EtcdClient>(
      new EtcdClient(std::move(parsed), request_timeout, LivenessTimeout(),
                     std::move(loaded)));
}

EtcdClient::EtcdClient(std::vector<Endpoint> endpoints,
                       absl::Duration request_timeout, absl::Duration liveness,
                       std::unique_ptr<const EtcdTls> tls)
    : endpoints_(std::move(endpoints)),
      request_timeout_(request_timeout),
      liveness_(liveness),
      tls_(std::move(tls)) {}

EtcdClient::~EtcdClient() = default;

std::string EtcdClient::DescribeEndpoints() const {
  return absl::StrJoin(endpoints_, ", ",
                       [](std::string* out, const Endpoint& endpoint) {
                         out->append(endpoint.url);
                       });
}

absl::StatusOr<Json> EtcdClient::Post(const std::string& path,
                                      const Json& request) {
  const std::string body = request.dump();
  const auto timeout =
      std::chrono::microseconds(absl::ToInt64Microseconds(request_timeout_));
  std::vector<std::string> failures;
  const size_t first = preferred_.load();
  for (size_t i = 0; i < endpoints_.size(); ++i) {
    const size_t index = (first + i) % endpoints_.size();
    const Endpoint& endpoint = endpoints_[index];
    EtcdTls::PeerCheck check;
    std::unique_ptr<httplib::ClientImpl> client =
        endpoint.https ? tls_->NewClient(endpoint.host, endpoint.port, &check)
                       : std::make_unique<httplib::ClientImpl>(endpoint.host,
                                                               endpoint.port);
    client->set_connection_timeout(timeout);
    client->set_read_timeout(timeout);
    client->set_write_timeout(timeout);
    client->set_socket_options(
        [liveness = liveness_](int fd) { SetLivenessOptions(fd, liveness); });
    if (endpoint.https) EtcdTls::ClearErrors();
    const absl::Time started = absl::Now();
    httplib::Result result =
        client->Post(path.c_str(), body, "application/json");
    if (!result) {
      // A connection etcd closed without a word, not one that timed out:
      // neither the request's timeout nor TCP's liveness bound comes so
      // soon. etcd does that to a plaintext request on its TLS port, and
      // to a certificate it refuses once this side's handshake is over.
      const bool closed_at_once =
          (result.error() == httplib::Error::Read ||
           result.error() == httplib::Error::Write) &&
          absl::Now() - started < std::min(request_timeout_, liveness_);
      std::string why =
          endpoint.https
              ? EtcdTls::DescribeFailure(result.error(), check, closed_at_once)
              : "";
      if (why.empty() && closed_at_once && !endpoint.https) {
        why = absl::StrCat(
            "no reply: etcd closed the connection at once (if it serves "
            "only TLS on that port, give https://",
            endpoint.host, ":", endpoint.port,
            " and --tls_cert, --tls_key and --tls_ca)");
      }
      if (why.empty()) why = DescribeHttpError(result.error());
      failures.push_back(absl::StrCat(endpoint.url, ": ", why));
      continue;
    }
    // etcd's replies nest a few levels. A deeper one is not etcd's, and
    // printing it in an error (dump() recurses once per level) could
    // overflow the stack: it counts as no JSON at all.
    bool too_deep = false;
    Json reply = Json::parse(
        result->body,
        [&too_deep](int depth, Json::parse_event_t, Json&) {
          too_deep = too_deep || depth > kMaxReplyNesting;
          return true;
        },
        false);
    if (too_deep) reply = Json(Json::value_t::discarded);
    if (result->status == 200) {
      if (reply.is_discarded() || !reply.is_object()) {
        return absl::InternalError(absl::StrCat(
            "etcd at ", endpoint.url, path, " answered something that is not ",
            "a JSON object: '", result->body.substr(0, 200), "'"));
      }
      preferred_.store(index);
      return reply;
    }
    // etcd's errors carry the gRPC code of the failed call.
    const int code =
        reply.is_object() ? static_cast<int>(IntField(reply, "code")) : 0;
    std::string message = reply.is_object() && reply.contains("message") &&
                                  reply["message"].is_string()
                              ? reply["message"].get<std::string>()
                              : result->body.substr(0, 200);
    const auto status_code = code > 0 && code <= 16
                                 ? static_cast<absl::StatusCode>(code)
                                 : absl::StatusCode::kInternal;
    if (status_code == absl::StatusCode::kUnavailable) {
      failures.push_back(absl::StrCat(endpoint.url, ": ", message));
      continue;
    }
    return absl::Status(status_code,
                        absl::StrCat("etcd at ", endpoint.url, path, " (HTTP ",
                                     result->status, "): ", message));
  }
  return absl::UnavailableError(
      absl::StrCat("etcd unreachable for ", path, " within ",
                   absl::FormatDuration(request_timeout_),
                   " per endpoint: ", absl::StrJoin(failures, "; ")));
}

absl::StatusOr<int64_t> EtcdClient::GrantLease(absl::Duration ttl) {
  const int64_t seconds = std::max<int64_t>(1, absl::ToInt64Seconds(ttl));
  Json request = {{"TTL", absl::StrCat(seconds)}};
  absl::StatusOr<Json> reply = Post("/v3/lease/grant", request);
  if (!reply.ok()) return reply.status();
  const int64_t id = IntField(*reply, "ID");
  if (id == 0) {
    return absl::InternalError(
        absl::StrCat("etcd granted no lease: '", reply->dump(), "'"));
  }
  return id;
}

absl::StatusOr<int64_t> EtcdClient::KeepAlive(int64_t lease) {
  Json request = {{"ID", absl::StrCat(lease)}};
  // A streaming call: the gateway answers one {"result": ...} per request.
  absl::StatusOr<Json> reply = Post("/v3/lease/keepalive", request);
  if (!reply.ok()) return reply.status();
  auto result = reply->find("result");
  if (result == reply->end() || !result->is_object()) {
    return absl::InternalError(
        absl::StrCat("etcd answered /v3/lease/keepalive without a result: '",
                     reply->dump(), "'"));
  }
  return IntField(*result, "TTL");
}

absl::Status EtcdClient::RevokeLease(int64_t lease) {
  Json request = {{"ID", absl::StrCat(lease)}};
  return Post("/v3/lease/revoke", request).status();
}

absl::StatusOr<std::optional<EtcdKeyValue>> EtcdClient::Get(
    const std::string& key) {
  Json request = {{"key", absl::Base64Escape(key)}};
  absl::StatusOr<Json> reply = Post("/v3/kv/range", request);
  if (!reply.ok()) return reply.status();
  auto kvs = reply->find("kvs");
  if (kvs == reply->end() || !kvs->is_array() || kvs->empty()) {
    return std::optional<EtcdKeyValue>();
  }
  const Json& kv = kvs->front();
  EtcdKeyValue result;
  result.key = BytesField(kv, "key");
  result.value = BytesField(kv, "value");
  result.create_revision = IntField(kv, "create_revision");
  result.mod_revision = IntField(kv, "mod_revision");
  result.lease = IntField(kv, "lease");
  return std::optional<EtcdKeyValue>(std::move(result));
}

absl::Status EtcdClient::Put(const EtcdPut& put) {
  return Post("/v3/kv/put", PutRequest(put)).status();
}

absl::StatusOr<EtcdTxnResult> EtcdClient::Txn(
    const std::vector<EtcdCompare>& compares,
    const std::vector<EtcdPut>& on_success) {
  Json request = {{"compare", Json::array()}, {"success", Json::array()}};
  for (const EtcdCompare& compare : compares) {
    request["compare"].push_back(CompareRequest(compare));
  }
  for (const EtcdPut& put : on_success) {
    request["success"].push_back({{"request_put", PutRequest(put)}});
  }
  absl::StatusOr<Json> reply = Post("/v3/kv/txn", request);
  if (!reply.ok()) return reply.status();
  EtcdTxnResult result;
  auto succeeded = reply->find("succeeded");
  result.succeeded = succeeded != reply->end() && succeeded->is_boolean() &&
                     succeeded->get<bool>();
  auto header = reply->find("header");
  if (header != reply->end() && header->is_object()) {
    result.revision = IntField(*header, "revision");
  }
  return result;
}

}  // namespace sluice::lighthouse
