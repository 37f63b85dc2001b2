// LighthouseStatusPage: the lighthouse's status page over HTTP
// (docs/lighthouse.md, "Status page").
//
//   /             a self-contained HTML page (no external assets) whose
//                 script fetches /status.json every 500 ms and shows the
//                 quorum, why it formed, the leader and the members, stale
//                 ones highlighted
//   /status.json  the lighthouse's proto::LighthouseStatus as JSON (proto
//                 field names; 64-bit integers as strings)
//
// The page runs its own threads (cpp-httplib's), never the lighthouse's
// gRPC threads; `status` is called from them and must be thread-safe.
#ifndef SLUICE_LIB_FT_LIGHTHOUSE_STATUS_PAGE_H_
#define SLUICE_LIB_FT_LIGHTHOUSE_STATUS_PAGE_H_

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "lib/ft/lighthouse_service.pb.h"

namespace httplib {
class Server;
}  // namespace httplib

namespace sluice::ft {

using LighthouseStatusFunction = std::function<proto::LighthouseStatus()>;

// The JSON of /status.json.
std::string StatusToJson(const proto::LighthouseStatus& status);

// The HTML of /.
const std::string& StatusPageHtml();

class LighthouseStatusPage {
 public:
  // Listens on host:port (port 0 picks a free one) and serves in the
  // background. UNAVAILABLE when the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<LighthouseStatusPage>> Start(
      const std::string& host, int port, LighthouseStatusFunction status);

  // Stops and joins.
  ~LighthouseStatusPage();
  LighthouseStatusPage(const LighthouseStatusPage&) = delete;
  LighthouseStatusPage& operator=(const LighthouseStatusPage&) = delete;

  int port() const { return port_; }
  // "http://host:port/".
  std::string url() const;

  // Stops serving and joins the server's threads; in-flight requests end
  // first. Idempotent.
  void Stop();

 private:
  LighthouseStatusPage(std::string host, int port,
                       std::unique_ptr<httplib::Server> server);

  const std::string host_;
  const int port_;
  std::unique_ptr<httplib::Server> server_;
  std::atomic<bool> listen_returned_{false};
  std::thread thread_;
};

}  // namespace sluice::ft

#endif  // SLUICE_LIB_FT_LIGHTHOUSE_STATUS_PAGE_H_
