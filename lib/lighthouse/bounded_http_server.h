// BoundedHttpServer: serves the routes of an httplib::Server so that slow
// or many clients cannot take the service down.
//
// cpp-httplib's own server gives each connection a pool thread for as long
// as the client keeps sending, a byte every few seconds if it likes, so a
// handful of slow clients hold every thread and nothing else is served.
// Here one thread runs every connection without blocking: it collects a
// request's head (request line and headers) as it arrives, answers it with
// the routes once it is whole, and sends the answer as fast as the client
// takes it. A slow client costs a socket and a bounded buffer, never a
// thread, and each connection is held to HttpServerLimits.
//
// Given HttpTlsFiles it serves HTTPS instead, in the same loop: the
// handshake is taken as far as each socket allows, and counts against
// request_timeout like the head it precedes.
#ifndef SLUICE_LIB_LIGHTHOUSE_BOUNDED_HTTP_SERVER_H_
#define SLUICE_LIB_LIGHTHOUSE_BOUNDED_HTTP_SERVER_H_

#include <httplib.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/lighthouse/http_tls.h"

namespace sluice::lighthouse {

struct HttpServerLimits {
  // A request's head must have arrived whole within this of the connection
  // being accepted or of the previous answer having been sent; else the
  // connection is closed (an idle keep-alive connection, too).
  absl::Duration request_timeout = absl::Seconds(3);
  // An answer must have been taken by the client within this.
  absl::Duration write_timeout = absl::Seconds(3);
  // A request's head (and any body sent along) may be this long; a longer
  // one is answered 431 and the connection closed.
  size_t max_request_bytes = 16 * 1024;
  // Requests answered on one connection; the last answer closes it.
  int max_requests_per_connection = 100;
  // Open connections from one address: another one closes that address's
  // oldest, so that a client holding many cannot shut out a fresh request.
  int max_connections_per_client = 32;
  // Open connections in all: another one closes the oldest.
  int max_connections = 256;
};

// The handlers (Get, ...) a BoundedHttpServer answers with: an
// httplib::Server that never listens itself.
class HttpRoutes : public httplib::Server {
 public:
  // Reads one request from `stream` and writes its answer there; false when
  // no answer could be written. `client_closes` is set when the request
  // asks to close the connection after the answer.
  bool Answer(httplib::Stream& stream, bool last, bool& client_closes) {
    return process_request(stream, last, client_closes, nullptr);
  }

  // Who the client of the request being answered is: read by handlers, in
  // which alone it is valid. Never verified over plain HTTP.
  const ClientIdentity& client() const { return client_; }

  // Set by the server before it answers.
  void set_client(ClientIdentity client) { client_ = std::move(client); }

 private:
  ClientIdentity client_;
};

class BoundedHttpServer {
 public:
  // Listens on host:port (port 0 picks a free one) and serves `routes` on
  // a thread of its own. UNAVAILABLE when the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<BoundedHttpServer>> Start(
      const std::string& host, int port, std::unique_ptr<HttpRoutes> routes,
      const HttpServerLimits& limits);
  // The same over HTTPS with `tls`, when given. INVALID_ARGUMENT when
  // OpenSSL refuses the files.
  static absl::StatusOr<std::unique_ptr<BoundedHttpServer>> Start(
      const std::string& host, int port, std::unique_ptr<HttpRoutes> routes,
      const HttpServerLimits& limits, const std::optional<HttpTlsFiles>& tls);

  // Stops.
  ~BoundedHttpServer();
  BoundedHttpServer(const BoundedHttpServer&) = delete;
  BoundedHttpServer& operator=(const BoundedHttpServer&) = delete;

  int port() const { return port_; }

  // Closes every connection and the listening socket and joins the thread;
  // an answer being sent is cut short. Idempotent.
  void Stop();

 private:
  class Loop;
  BoundedHttpServer(int port, std::unique_ptr<Loop> loop);

  const int port_;
  std::unique_ptr<Loop> loop_;
  std::thread thread_;
};

}  // namespace sluice::lighthouse

#endif  // SLUICE_LIB_LIGHTHOUSE_BOUNDED_HTTP_SERVER_H_
