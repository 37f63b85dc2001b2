#include "lib/lighthouse/lighthouse_status_page_actions.h"

#include <httplib.h>

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace sluice::lighthouse {
namespace {

// Longer common names are cut: the name goes into the log and history.
constexpr size_t kMaxOperatorNameBytes = 128;

void Answer(httplib::Response& response, int status, const std::string& text) {
  response.status = status;
  response.set_header("Cache-Control", "no-store");
  response.set_content(text + "\n", "text/plain; charset=utf-8");
}

// The certificate's common name fit for one log line: it is chosen by
// whoever the CA signed for, not by this lighthouse.
std::string OperatorName(const std::string& common_name) {
  std::string name;
  for (const char c : common_name.substr(0, kMaxOperatorNameBytes)) {
    const auto byte = static_cast<unsigned char>(c);
    name.push_back(byte < 0x20 || byte == 0x7f ? '?' : c);
  }
  return name.empty() ? "a certificate without a common name" : name;
}

}  // namespace

void AddActionRoutes(HttpRoutes& routes, ReplicaActionFunction act) {
  HttpRoutes* const served = &routes;
  routes.Post(R"(/replicas/([^/]+)/(drain|kill))",
              [served, act = std::move(act)](const httplib::Request& request,
                                             httplib::Response& response) {
                if (!act) return Answer(response, 403, kActionsNeedTls);
                if (!served->client().verified) {
                  return Answer(response, 403, kActionsNeedCertificate);
                }
                const std::string replica = request.matches[1];
                const bool kill = request.matches[2] == "kill";
                const std::string by =
                    OperatorName(served->client().common_name);
                const std::string from =
                    absl::StrCat(request.remote_addr, ":", request.remote_port);
                const absl::Status done =
                    act(kill ? ReplicaAction::kKill : ReplicaAction::kDrain,
                        replica, by, from);
                if (done.ok()) {
                  return Answer(
                      response, 200,
                      absl::StrCat("replica ", replica,
                                   kill ? " killed" : " drained", " by ", by));
                }
                const int status = absl::IsNotFound(done)          ? 404
                                   : absl::IsUnavailable(done)     ? 503
                                   : absl::IsInvalidArgument(done) ? 400
                                                                   : 500;
                Answer(response, status, std::string(done.message()));
              });
}

}  // namespace sluice::lighthouse
