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
//   POST /replicas/<id>/drain, POST /replicas/<id>/kill
//                 with StatusPageActions only (HTTPS): carried out for a
//                 client whose certificate verified against the CA, else
//                 403 with the reason in plain text; 404 for a replica the
//                 lighthouse does not know. Without them, 403 saying the
//                 lighthouse needs TLS.
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
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/lighthouse/http_tls.h"
#include "lib/lighthouse/lighthouse_service.pb.h"

namespace sluice::lighthouse {

class BoundedHttpServer;
struct HttpServerLimits;

using LighthouseStatusFunction = std::function<proto::LighthouseStatus()>;

enum class ReplicaAction { kDrain, kKill };

// Carries out `action` on `replica_id` for the operator `by` (their
// certificate's common name) at `from` (host:port); NOT_FOUND for a replica
// the lighthouse does not know. Called on the page's thread.
using ReplicaActionFunction = std::function<absl::Status(
    ReplicaAction action, const std::string& replica_id,
    const std::string& by, const std::string& from)>;

// What makes the page offer drain and kill: it is served over HTTPS with
// `tls`, and acts through `act`.
struct StatusPageActions {
  HttpTlsFiles tls;
  ReplicaActionFunction act;
};

// The 403 reasons of the action routes.
inline constexpr char kActionsNeedTls[] =
    "drain and kill need the lighthouse to run with TLS (--tls_cert, "
    "--tls_key, --tls_ca)";
inline constexpr char kActionsNeedCertificate[] =
    "drain and kill need a client certificate of the cluster's CA";

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
  // The same over HTTPS with drain and kill when `actions` is given.
  // INVALID_ARGUMENT also when OpenSSL refuses its files.
  static absl::StatusOr<std::unique_ptr<LighthouseStatusPage>> Start(
      const std::string& host, int port, LighthouseStatusFunction status,
      const HttpServerLimits& limits,
      std::optional<StatusPageActions> actions);

  // Stops and joins.
  ~LighthouseStatusPage();
  LighthouseStatusPage(const LighthouseStatusPage&) = delete;
  LighthouseStatusPage& operator=(const LighthouseStatusPage&) = delete;

  int port() const { return port_; }
  // "http://host:port/", or https.
  std::string url() const;

  // Stops serving: closes the port and every connection (an answer being
  // sent is cut short) and joins the server's thread. Idempotent.
  void Stop();

 private:
  LighthouseStatusPage(std::string host, bool https,
                       std::unique_ptr<BoundedHttpServer> server);

  const std::string host_;
  const bool https_;
  const int port_;
  std::unique_ptr<BoundedHttpServer> server_;
};

}  // namespace sluice::lighthouse

#endif  // SLUICE_LIB_LIGHTHOUSE_LIGHTHOUSE_STATUS_PAGE_H_
