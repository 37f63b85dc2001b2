#include "lib/ft/lighthouse_status_page.h"

#include <httplib.h>
#include <sys/socket.h>

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"

namespace sluice::ft {

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
                            LighthouseStatusFunction status) {
  auto server = std::make_unique<httplib::Server>();
  // cpp-httplib's default adds SO_REUSEPORT, which would let a second
  // lighthouse share the port and answer half the requests.
  server->set_socket_options([](socket_t socket) {
    const int yes = 1;
    setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  server->Get("/status.json", [status = std::move(status)](
                                  const httplib::Request&,
                                  httplib::Response& response) {
    response.set_header("Cache-Control", "no-store");
    response.set_content(StatusToJson(status()), "application/json");
  });
  server->Get("/", [](const httplib::Request&, httplib::Response& response) {
    response.set_content(StatusPageHtml(), "text/html; charset=utf-8");
  });
  const int bound = port == 0 ? server->bind_to_any_port(host)
                              : (server->bind_to_port(host, port) ? port : -1);
  if (bound <= 0) {
    return absl::UnavailableError(absl::StrCat(
        "lighthouse status page: cannot listen on ", host, ":", port));
  }
  std::unique_ptr<LighthouseStatusPage> page(
      new LighthouseStatusPage(host, bound, std::move(server)));
  return page;
}

LighthouseStatusPage::LighthouseStatusPage(
    std::string host, int port, std::unique_ptr<httplib::Server> server)
    : host_(std::move(host)), port_(port), server_(std::move(server)) {
  thread_ = std::thread([this] {
    server_->listen_after_bind();
    listen_returned_ = true;
  });
  // stop() is lost on a server that has not started its loop yet: wait for
  // it, so that Stop right after Start cannot hang.
  while (!server_->is_running() && !listen_returned_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

LighthouseStatusPage::~LighthouseStatusPage() { Stop(); }

std::string LighthouseStatusPage::url() const {
  return absl::StrCat("http://", host_, ":", port_, "/");
}

void LighthouseStatusPage::Stop() {
  if (!thread_.joinable()) return;
  server_->stop();
  thread_.join();
}

}  // namespace sluice::ft
