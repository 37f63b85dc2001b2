#include "lib/lighthouse/lighthouse_status_page.h"

#include <httplib.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "lib/lighthouse/bounded_http_server.h"
#include "lib/lighthouse/lighthouse_status_page_actions.h"
#include "sluice/support/host_port.h"

namespace sluice::lighthouse {

std::string StatusToJson(const proto::LighthouseStatus& status) {
  google::protobuf::util::JsonPrintOptions options;
  // The page reads every field, false and 0 included.
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string json;
  const auto converted =
      google::protobuf::util::MessageToJsonString(status, &json, options);
  if (!converted.ok()) {
    return R"({"error": "cannot convert the lighthouse status to JSON"})";
  }
  return json;
}

absl::StatusOr<std::unique_ptr<LighthouseStatusPage>>
LighthouseStatusPage::Start(const std::string& host, int port,
                            LighthouseStatusFunction status,
                            const HttpServerLimits& limits) {
  return Start(host, port, std::move(status), limits, std::nullopt);
}

absl::StatusOr<std::unique_ptr<LighthouseStatusPage>>
LighthouseStatusPage::Start(const std::string& host, int port,
                            LighthouseStatusFunction status,
                            const HttpServerLimits& limits,
                            std::optional<StatusPageActions> actions) {
  // A port past 65535 would wrap to 16 bits in the socket address: 95177
  // would serve on 29641.
  absl::Status valid = CheckPort(port);
  if (valid.ok()) valid = ParseHostPort(absl::StrCat(host, ":", port)).status();
  if (!valid.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("lighthouse status page: cannot listen on '", host, ":",
                     port, "': ", valid.message()));
  }
  auto routes = std::make_unique<HttpRoutes>();
  const bool https = actions.has_value();
  routes->Get("/status.json", [status = std::move(status), https](
                                  const httplib::Request&,
                                  httplib::Response& response) {
    proto::LighthouseStatus now = status();
    now.set_operator_actions(https);
    response.set_header("Cache-Control", "no-store");
    response.set_content(StatusToJson(now), "application/json");
  });
  std::optional<HttpTlsFiles> tls;
  ReplicaActionFunction act;
  if (https) {
    tls = std::move(actions->tls);
    act = std::move(actions->act);
  }
  AddActionRoutes(*routes, std::move(act));
  routes->Get("/", [](const httplib::Request&, httplib::Response& response) {
    response.set_content(StatusPageHtml(), "text/html; charset=utf-8");
  });
  absl::StatusOr<std::unique_ptr<BoundedHttpServer>> server =
      BoundedHttpServer::Start(host, port, std::move(routes), limits, tls);
  if (!server.ok()) {
    return absl::Status(
        server.status().code(),
        absl::StrCat("lighthouse status page: cannot listen on ", host, ":",
                     port, ": ", server.status().message()));
  }
  return std::unique_ptr<LighthouseStatusPage>(
      new LighthouseStatusPage(host, https, std::move(*server)));
}

absl::StatusOr<std::unique_ptr<LighthouseStatusPage>>
LighthouseStatusPage::Start(const std::string& host, int port,
                            LighthouseStatusFunction status) {
  return Start(host, port, std::move(status), HttpServerLimits());
}

LighthouseStatusPage::LighthouseStatusPage(
    std::string host, bool https, std::unique_ptr<BoundedHttpServer> server)
    : host_(std::move(host)),
      https_(https),
      port_(server->port()),
      server_(std::move(server)) {}

LighthouseStatusPage::~LighthouseStatusPage() { Stop(); }

std::string LighthouseStatusPage::url() const {
  return absl::StrCat(https_ ? "https://" : "http://", host_, ":", port_, "/");
}

void LighthouseStatusPage::Stop() { server_->Stop(); }

}  // namespace sluice::lighthouse
