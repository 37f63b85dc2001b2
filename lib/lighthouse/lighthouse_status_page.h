// LighthouseStatusPage: the lighthouse's status page over HTTP
// (docs/lighthouse.md, "Status page").
//
//   /             a self-contained HTML page (no external assets) whose
//                 script fetches /status.json every 500 ms and shows the
//                 quorum, why it and its generation formed, steps/s, the
//                 leader, the members (stale ones highlighted) and the
//                 history, newest first
//   /status.json  the lighthouse's proto::LighthouseStatus as JSON (proto
//                 field names; 64-bit integers as strings)
//
// The page runs on a thread of its own, never the lighthouse's gRPC
// threads; `status` is called from it and must be thread-safe. Slow and
// greedy clients are held to HttpServerLimits (bounded_http_server.h,
// docs/lighthouse.md): they can neither stall the page nor keep their
// connections.
#ifndef SLUICE_LIB_LIGHTHOUSE_LIGHTHOUSE_STATUS_PAGE_H_
#define SLUICE_LIB_LIGHTHOUSE_LIGHTHOUSE_STATUS_PAGE_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "lib/lighthouse/lighthouse_service.pb.h"

namespace sluice::lighthouse {

class BoundedHttpServer;
struct HttpServerLimits;

using LighthouseStatusFunction = std::function<proto::LighthouseStatus()>;

// The JSON of /status.json.
std::string StatusToJson(const proto::LighthouseStatus& status);

// The HTML of /.
const std::string& StatusPageHtml();

class LighthouseStatusPage {
 public:
  // Listens on host:port (port 0 picks a free one) and serves in the
  // background. INVALID_ARGUMENT for a port outside 0..65535 or a malformed
  // host, UNAVAILABLE when the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<LighthouseStatusPage>> Start(
      const std::string& host, int port, LighthouseStatusFunction status);
  // The same, with other limits than the defaults.
  static absl::StatusOr<std::unique_ptr<LighthouseStatusPage>> Start(
      const std::string& host, int port, LighthouseStatusFunction status,
      const HttpServerLimits& limits);

  // Stops and joins.
  ~LighthouseStatusPage();
  LighthouseStatusPage(const LighthouseStatusPage&) = delete;
  LighthouseStatusPage& operator=(const LighthouseStatusPage&) = delete;

  int port() const { return port_; }
  // "http://host:port/".
  std::string url() const;

  // Stops serving: closes the port and every connection (an answer being
  // sent is cut short) and joins the server's thread. Idempotent.
  void Stop();

 private:
  LighthouseStatusPage(std::string host,
                       std::unique_ptr<BoundedHttpServer> server);

  const std::string host_;
  const int port_;
  std::unique_ptr<BoundedHttpServer> server_;
};

}  // namespace sluice::lighthouse

#endif  // SLUICE_LIB_LIGHTHOUSE_LIGHTHOUSE_STATUS_PAGE_H_
