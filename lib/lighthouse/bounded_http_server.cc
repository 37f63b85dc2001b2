#include "lib/lighthouse/bounded_http_server.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace sluice::lighthouse {
namespace {

// How long accepting pauses when the process is out of descriptors, so
// that a listening socket that stays readable does not spin the loop.
constexpr absl::Duration kAcceptPause = absl::Milliseconds(100);
// Connections accepted per turn of the loop: a flood of them must not
// starve the connections already open.
constexpr int kAcceptsPerTurn = 64;
// What a closing connection reads and drops at most.
constexpr size_t kDropAtClose = 64 * 1024;
constexpr std::string_view kHeadEnd = "\r\n\r\n";
constexpr std::string_view kHeadTooLarge =
    "HTTP/1.1 431 Request Header Fields Too Large\r\n"
    "Connection: close\r\nContent-Length: 0\r\n\r\n";

void ReadAddress(const sockaddr_storage& address, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = "";
  if (address.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(address);
    inet_ntop(AF_INET, &v4.sin_addr, text, sizeof(text));
    port = ntohs(v4.sin_port);
  } else if (address.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(address);
    inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof(text));
    port = ntohs(v6.sin6_port);
  }
  ip = text;
}

struct Connection {
  int fd = -1;
  std::string client_ip;  // the per-client limit counts by this
  int client_port = 0;
  std::string local_ip;
  int local_port = 0;
  std::string input;   // received and not yet answered
  std::string output;  // an answer; `sent` bytes of it have gone out
  size_t sent = 0;
  // For the request's head to arrive, or for the answer to be taken.
  absl::Time deadline;
  int answered = 0;
  bool close_after_sending = false;
  bool client_done = false;  // it shut down its side
  // HTTPS: the session, null over plain HTTP.
  SSL* ssl = nullptr;
  bool handshaking = false;
  // What the session waits for (POLLIN or POLLOUT), 0 when it waits for
  // nothing HTTP would not: a handshake reads and writes in turns, and a
  // TLS write may need to read first.
  short tls_wants = 0;
  ClientIdentity client;
};

// What HttpRoutes reads a request from and writes its answer to: the bytes
// already received, and the buffer the loop sends from. Reading past the
// received bytes finds the end: a request must have arrived whole.
class BufferedStream : public httplib::Stream {
 public:
  explicit BufferedStream(Connection& connection) : connection_(connection) {}

  bool is_readable() const override { return read_ < connection_.input.size(); }
  bool is_writable() const override { return true; }
  ssize_t read(char* data, size_t size) override {
    const size_t count = std::min(size, connection_.input.size() - read_);
    if (count == 0) {
      ran_dry_ = true;
      return 0;
    }
    std::memcpy(data, connection_.input.data() + read_, count);
    read_ += count;
    return static_cast<ssize_t>(count);
  }
  ssize_t write(const char* data, size_t size) override {
    connection_.output.append(data, size);
    return static_cast<ssize_t>(size);
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = connection_.client_ip;
    port = connection_.client_port;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    ip = connection_.local_ip;
    port = connection_.local_port;
  }
  // No socket for httplib to wait on or to check against FD_SETSIZE: the
  // loop does every read and write.
  socket_t socket() const override { return INVALID_SOCKET; }

  size_t consumed() const { return read_; }
  bool ran_dry() const { return ran_dry_; }

 private:
  Connection& connection_;
  size_t read_ = 0;
  bool ran_dry_ = false;
};

absl::StatusOr<int> Listen(const std::string& host, int port) {
  addrinfo hints = {};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (int error = getaddrinfo(host.empty() ? nullptr : host.c_str(),
                              service.c_str(), &hints, &found);
      error != 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot resolve '", host, "': ", gai_strerror(error)));
  }
  int last_error = EADDRNOTAVAIL;
  for (addrinfo* address = found; address != nullptr;
       address = address->ai_next) {
    const int fd = socket(address->ai_family,
                          address->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                          address->ai_protocol);
    if (fd < 0) {
      last_error = errno;
      continue;
    }
    // Not SO_REUSEPORT: a second server on the port must fail, not share.
    const int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    if (bind(fd, address->ai_addr, address->ai_addrlen) == 0 &&
        listen(fd, SOMAXCONN) == 0) {
      freeaddrinfo(found);
      return fd;
    }
    last_error = errno;
    close(fd);
  }
  freeaddrinfo(found);
  return absl::UnavailableError(std::strerror(last_error));
}

}  // namespace

class BoundedHttpServer::Loop {
 public:
  Loop(int listen_fd, int wake_fd, std::unique_ptr<HttpRoutes> routes,
       const HttpServerLimits& limits, std::unique_ptr<HttpTls> tls)
      : listen_fd_(listen_fd),
        wake_fd_(wake_fd),
        routes_(std::move(routes)),
        limits_(limits),
        tls_(std::move(tls)) {}

  ~Loop() {
    for (auto& [id, connection] : connections_) {
      if (connection.ssl != nullptr) SSL_free(connection.ssl);
      close(connection.fd);
    }
    close(listen_fd_);
    close(wake_fd_);
  }

  // Serves until Wake.
  void Run();
  void Wake() {
    const uint64_t one = 1;
    ssize_t ignored = write(wake_fd_, &one, sizeof(one));
    (void)ignored;
  }

 private:
  using Connections = std::map<uint64_t, Connection>;  // oldest first

  void Accept(absl::Time now);
  void Add(int fd, const sockaddr_storage& peer, absl::Time now);
  void Close(Connections::iterator connection);
  // After a last answer: what the client sent meanwhile is read and
  // dropped, so that closing resets nothing and the answer arrives.
  void CloseAfterAnswer(Connections::iterator connection);
  void CloseExpired(absl::Time now);
  // Takes a connection as far as it goes without blocking: sends what is
  // left of its answer, reads, answers a request once its head is whole.
  void Advance(Connections::iterator connection, absl::Time now);
  // False on an error: the connection is to be closed.
  bool Receive(Connection& connection);
  bool Send(Connection& connection);
  void AnswerOne(Connection& connection, absl::Time now);
  // Takes the TLS handshake as far as it goes; false on a failed one.
  bool Handshake(Connection& connection);
  bool ReceiveTls(Connection& connection);
  bool SendTls(Connection& connection);

  const int listen_fd_;
  const int wake_fd_;
  const std::unique_ptr<HttpRoutes> routes_;
  const HttpServerLimits limits_;
  const std::unique_ptr<HttpTls> tls_;  // null over plain HTTP
  Connections connections_;
  uint64_t next_id_ = 0;
  absl::flat_hash_map<std::string, int> per_client_;
  absl::Time accept_paused_until_ = absl::InfinitePast();
};

void BoundedHttpServer::Loop::Run() {
  // OpenSSL writes to the socket without MSG_NOSIGNAL: a client gone while
  // its answer is sent must cost an EPIPE, not the process. Blocked for
  // this thread only, the signal stays pending on it and is dropped with it.
  sigset_t pipe_signal;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);
  std::vector<pollfd> polled;
  std::vector<uint64_t> ids;
  for (;;) {
    const absl::Time now = absl::Now();
    polled.clear();
    ids.clear();
    polled.push_back({wake_fd_, POLLIN, 0});
    const bool accepting = now >= accept_paused_until_;
    polled.push_back({accepting ? listen_fd_ : -1, POLLIN, 0});
    absl::Time wake = accepting ? absl::InfiniteFuture() : accept_paused_until_;
    for (const auto& [id, connection] : connections_) {
      const short events = connection.tls_wants != 0 ? connection.tls_wants
                           : connection.output.empty() ? POLLIN
                                                       : POLLOUT;
      polled.push_back({connection.fd, events, 0});
      ids.push_back(id);
      wake = std::min(wake, connection.deadline);
    }
    int timeout_ms = -1;
    if (wake != absl::InfiniteFuture()) {
      // Rounded up, so that the loop wakes at or after the deadline.
      timeout_ms = static_cast<int>(
          std::min<int64_t>(absl::ToInt64Milliseconds(absl::Ceil(
                                std::max(wake - now, absl::ZeroDuration()),
                                absl::Milliseconds(1))),
                            std::numeric_limits<int>::max()));
    }
    if (poll(polled.data(), polled.size(), timeout_ms) < 0 && errno != EINTR) {
      // Only a bug or exhausted memory gets here; do not spin on it.
      absl::SleepFor(kAcceptPause);
      continue;
    }
    if (polled[0].revents != 0) return;
    const absl::Time after = absl::Now();
    for (size_t i = 2; i < polled.size(); ++i) {
      if (polled[i].revents == 0) continue;
      auto connection = connections_.find(ids[i - 2]);
      if (connection != connections_.end()) Advance(connection, after);
    }
    if (polled[1].revents != 0) Accept(after);
    CloseExpired(after);
  }
}

void BoundedHttpServer::Loop::Accept(absl::Time now) {
  for (int accepted = 0; accepted < kAcceptsPerTurn; ++accepted) {
    sockaddr_storage peer = {};
    socklen_t length = sizeof(peer);
    const int fd = accept4(listen_fd_, reinterpret_cast<sockaddr*>(&peer),
                           &length, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
      Add(fd, peer, now);
      continue;
    }
    if (errno == EINTR || errno == ECONNABORTED) continue;
    if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
        errno == ENOMEM) {
      accept_paused_until_ = now + kAcceptPause;
    }
    return;
  }
}

void BoundedHttpServer::Loop::Add(int fd, const sockaddr_storage& peer,
                                  absl::Time now) {
  Connection connection;
  connection.fd = fd;
  ReadAddress(peer, connection.client_ip, connection.client_port);
  sockaddr_storage local = {};
  socklen_t length = sizeof(local);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) == 0) {
    ReadAddress(local, connection.local_ip, connection.local_port);
  }
  // The handshake counts against the request's time: a client that stalls
  // in it is dropped like one that stalls in its head.
  connection.deadline = now + limits_.request_timeout;
  if (tls_ != nullptr) {
    connection.ssl = tls_->NewSession(fd);
    if (connection.ssl == nullptr) {
      close(fd);
      return;
    }
    connection.handshaking = true;
  }
  const std::string client = connection.client_ip;
  connections_.emplace(next_id_++, std::move(connection));
  // The oldest goes: a fresh request is served even while one client holds
  // its limit in connections that send nothing.
  if (++per_client_[client] > limits_.max_connections_per_client) {
    auto oldest = std::find_if(
        connections_.begin(), connections_.end(),
        [&](const auto& entry) { return entry.second.client_ip == client; });
    Close(oldest);
  }
  if (static_cast<int>(connections_.size()) > limits_.max_connections) {
    Close(connections_.begin());
  }
}

void BoundedHttpServer::Loop::Close(Connections::iterator connection) {
  if (connection->second.ssl != nullptr) SSL_free(connection->second.ssl);
  close(connection->second.fd);
  auto count = per_client_.find(connection->second.client_ip);
  if (--count->second == 0) per_client_.erase(count);
  connections_.erase(connection);
}

void BoundedHttpServer::Loop::CloseAfterAnswer(
    Connections::iterator connection) {
  const int fd = connection->second.fd;
  if (SSL* ssl = connection->second.ssl; ssl != nullptr) {
    // Best effort: the close_notify tells the client the answer is whole;
    // one that cannot be sent now is not waited for.
    SSL_shutdown(ssl);
    ERR_clear_error();
  }
  shutdown(fd, SHUT_WR);
  char buffer[4096];
  for (size_t dropped = 0; dropped < kDropAtClose;) {
    const ssize_t count = recv(fd, buffer, sizeof(buffer), MSG_DONTWAIT);
    if (count <= 0 && !(count < 0 && errno == EINTR)) break;
    if (count > 0) dropped += static_cast<size_t>(count);
  }
  Close(connection);
}

void BoundedHttpServer::Loop::CloseExpired(absl::Time now) {
  for (auto connection = connections_.begin();
       connection != connections_.end();) {
    auto next = std::next(connection);
    if (connection->second.deadline <= now) Close(connection);
    connection = next;
  }
}

bool BoundedHttpServer::Loop::Receive(Connection& connection) {
  if (connection.ssl != nullptr) return ReceiveTls(connection);
  char buffer[4096];
  while (!connection.client_done &&
         connection.input.size() <= limits_.max_request_bytes) {
    const ssize_t count =
        recv(connection.fd, buffer, sizeof(buffer), MSG_DONTWAIT);
    if (count > 0) {
      connection.input.append(buffer, static_cast<size_t>(count));
    } else if (count == 0) {
      connection.client_done = true;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      return true;
    } else if (errno != EINTR) {
      return false;
    }
  }
  return true;
}

bool BoundedHttpServer::Loop::Send(Connection& connection) {
  if (connection.ssl != nullptr) return SendTls(connection);
  while (connection.sent < connection.output.size()) {
    const ssize_t count =
        send(connection.fd, connection.output.data() + connection.sent,
             connection.output.size() - connection.sent,
             MSG_NOSIGNAL | MSG_DONTWAIT);
    if (count > 0) {
      connection.sent += static_cast<size_t>(count);
    } else if (count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return true;
    } else if (count == 0 || errno != EINTR) {
      return false;
    }
  }
  return true;
}

bool BoundedHttpServer::Loop::Handshake(Connection& connection) {
  ERR_clear_error();
  const int done = SSL_do_handshake(connection.ssl);
  if (done == 1) {
    connection.handshaking = false;
    connection.client = IdentityOf(connection.ssl);
    return true;
  }
  switch (SSL_get_error(connection.ssl, done)) {
    case SSL_ERROR_WANT_READ:
      connection.tls_wants = POLLIN;
      return true;
    case SSL_ERROR_WANT_WRITE:
      connection.tls_wants = POLLOUT;
      return true;
    default:
      ERR_clear_error();
      return false;
  }
}

bool BoundedHttpServer::Loop::ReceiveTls(Connection& connection) {
  char buffer[4096];
  while (!connection.client_done &&
         connection.input.size() <= limits_.max_request_bytes) {
    ERR_clear_error();
    const int count = SSL_read(connection.ssl, buffer, sizeof(buffer));
    if (count > 0) {
      connection.input.append(buffer, static_cast<size_t>(count));
      continue;
    }
    switch (SSL_get_error(connection.ssl, count)) {
      case SSL_ERROR_WANT_READ:
        return true;
      case SSL_ERROR_WANT_WRITE:
        connection.tls_wants = POLLOUT;
        return true;
      case SSL_ERROR_ZERO_RETURN:
        connection.client_done = true;
        break;
      default:
        ERR_clear_error();
        return false;
    }
  }
  return true;
}

bool BoundedHttpServer::Loop::SendTls(Connection& connection) {
  while (connection.sent < connection.output.size()) {
    ERR_clear_error();
    const size_t left = std::min<size_t>(connection.output.size() -
                                             connection.sent,
                                         std::numeric_limits<int>::max());
    const int count =
        SSL_write(connection.ssl, connection.output.data() + connection.sent,
                  static_cast<int>(left));
    if (count > 0) {
      connection.sent += static_cast<size_t>(count);
      continue;
    }
    switch (SSL_get_error(connection.ssl, count)) {
      case SSL_ERROR_WANT_WRITE:
        return true;
      case SSL_ERROR_WANT_READ:
        connection.tls_wants = POLLIN;
        return true;
      default:
        ERR_clear_error();
        return false;
    }
  }
  return true;
}

void BoundedHttpServer::Loop::AnswerOne(Connection& connection,
                                        absl::Time now) {
  BufferedStream stream(connection);
  routes_->set_client(connection.client);
  const bool last =
      connection.answered + 1 >= limits_.max_requests_per_connection;
  bool client_closes = false;
  const bool answered = routes_->Answer(stream, last, client_closes);
  connection.input.erase(0, stream.consumed());
  ++connection.answered;
  // A request whose body had not arrived was answered as cut short; what
  // follows it cannot be told from the rest of its body.
  if (!answered || last || client_closes || stream.ran_dry()) {
    connection.close_after_sending = true;
  }
  connection.sent = 0;
  connection.deadline = now + limits_.write_timeout;
}

void BoundedHttpServer::Loop::Advance(Connections::iterator entry,
                                      absl::Time now) {
  Connection& connection = entry->second;
  connection.tls_wants = 0;
  if (connection.handshaking) {
    if (!Handshake(connection)) return Close(entry);
    if (connection.handshaking) return;
  }
  for (;;) {
    if (!connection.output.empty()) {
      if (!Send(connection)) return Close(entry);
      if (connection.sent < connection.output.size()) return;  // POLLOUT
      if (connection.close_after_sending) return CloseAfterAnswer(entry);
      connection.output.clear();
      connection.sent = 0;
      connection.deadline = now + limits_.request_timeout;
    }
    if (!Receive(connection)) return Close(entry);
    const size_t head_end = connection.input.find(kHeadEnd);
    const bool whole = head_end != std::string::npos;
    if (!whole && connection.input.size() <= limits_.max_request_bytes) {
      if (connection.client_done) return Close(entry);
      return;  // POLLIN
    }
    if (!whole || head_end + kHeadEnd.size() > limits_.max_request_bytes) {
      connection.output = kHeadTooLarge;
      connection.sent = 0;
      connection.close_after_sending = true;
      connection.deadline = now + limits_.write_timeout;
      continue;
    }
    AnswerOne(connection, now);
    if (connection.output.empty()) return Close(entry);
  }
}

absl::StatusOr<std::unique_ptr<BoundedHttpServer>> BoundedHttpServer::Start(
    const std::string& host, int port, std::unique_ptr<HttpRoutes> routes,
    const HttpServerLimits& limits) {
  return Start(host, port, std::move(routes), limits, std::nullopt);
}

absl::StatusOr<std::unique_ptr<BoundedHttpServer>> BoundedHttpServer::Start(
    const std::string& host, int port, std::unique_ptr<HttpRoutes> routes,
    const HttpServerLimits& limits, const std::optional<HttpTlsFiles>& tls) {
  if (limits.request_timeout <= absl::ZeroDuration() ||
      limits.write_timeout <= absl::ZeroDuration() ||
      limits.max_request_bytes == 0 || limits.max_requests_per_connection < 1 ||
      limits.max_connections_per_client < 1 || limits.max_connections < 1) {
    return absl::InvalidArgumentError(
        "http server limits must be positive: timeouts, request bytes, "
        "requests per connection and connections");
  }
  std::unique_ptr<HttpTls> session_maker;
  if (tls.has_value()) {
    absl::StatusOr<std::unique_ptr<HttpTls>> made = HttpTls::Create(*tls);
    if (!made.ok()) return made.status();
    session_maker = *std::move(made);
  }
  absl::StatusOr<int> listen_fd = Listen(host, port);
  if (!listen_fd.ok()) return listen_fd.status();
  sockaddr_storage bound = {};
  socklen_t length = sizeof(bound);
  std::string bound_ip;
  int bound_port = 0;
  if (getsockname(*listen_fd, reinterpret_cast<sockaddr*>(&bound), &length) ==
      0) {
    ReadAddress(bound, bound_ip, bound_port);
  }
  const int wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd < 0 || bound_port <= 0) {
    const std::string reason = std::strerror(errno);
    close(*listen_fd);
    if (wake_fd >= 0) close(wake_fd);
    return absl::UnavailableError(
        absl::StrCat("cannot set up the http server: ", reason));
  }
  // What the answers' Keep-Alive header promises.
  routes->set_keep_alive_max_count(limits.max_requests_per_connection);
  routes->set_keep_alive_timeout(absl::ToInt64Seconds(limits.request_timeout));
  return std::unique_ptr<BoundedHttpServer>(new BoundedHttpServer(
      bound_port,
      std::make_unique<Loop>(*listen_fd, wake_fd, std::move(routes), limits,
                             std::move(session_maker))));
}

BoundedHttpServer::BoundedHttpServer(int port, std::unique_ptr<Loop> loop)
    : port_(port), loop_(std::move(loop)) {
  thread_ = std::thread([loop = loop_.get()] { loop->Run(); });
}

BoundedHttpServer::~BoundedHttpServer() { Stop(); }

void BoundedHttpServer::Stop() {
  if (!thread_.joinable()) return;
  loop_->Wake();
  thread_.join();
  loop_.reset();
}

}  // namespace sluice::lighthouse
