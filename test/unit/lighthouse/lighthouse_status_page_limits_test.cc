// The status page against hostile clients on loopback: 200 connections
// that trickle a request's head a byte at a time neither stall a page load
// nor stay open past the request bound, and the per-client, total,
// keep-alive and size limits of HttpServerLimits hold.
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/lighthouse/bounded_http_server.h"
#include "lib/lighthouse/lighthouse_status_page.h"

namespace sluice::lighthouse {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// The head of a request that never ends: a trickler adds a header byte
// at a time and never the blank line.
constexpr std::string_view kEndlessHead =
    "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Trickle: ";

proto::LighthouseStatus OneReplica() {
  proto::LighthouseStatus status;
  status.mutable_quorum()->set_quorum_id(5);
  status.add_replicas()->mutable_replica()->set_replica_id("replica_a");
  return status;
}

// A TCP connection to 127.0.0.1 that the test drives without blocking.
class RawConnection {
 public:
  // Starts connecting; Connected says when it has.
  explicit RawConnection(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_in address = {};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  }
  ~RawConnection() { close(fd_); }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  // Whether the connection is established, waiting up to `wait`.
  bool Connected(absl::Duration wait) {
    pollfd polled = {fd_, POLLOUT, 0};
    if (poll(&polled, 1, static_cast<int>(absl::ToInt64Milliseconds(wait))) !=
        1) {
      return false;
    }
    int error = 0;
    socklen_t length = sizeof(error);
    getsockopt(fd_, SOL_SOCKET, SO_ERROR, &error, &length);
    return error == 0;
  }

  // False once the server has closed or reset the connection.
  bool Send(std::string_view bytes) {
    const absl::Time deadline = absl::Now() + absl::Seconds(2);
    while (!bytes.empty()) {
      const ssize_t sent =
          send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (sent > 0) {
        bytes.remove_prefix(static_cast<size_t>(sent));
      } else if (errno == EAGAIN && absl::Now() < deadline) {
        pollfd polled = {fd_, POLLOUT, 0};
        poll(&polled, 1, 10);
      } else if (errno != EINTR) {
        return false;
      }
    }
    return true;
  }

  // Whether the server has closed (or reset) the connection, reading what
  // it sent into received().
  bool PeerClosed() {
    char buffer[4096];
    for (;;) {
      const ssize_t count = recv(fd_, buffer, sizeof(buffer), MSG_DONTWAIT);
      if (count > 0) {
        received_.append(buffer, static_cast<size_t>(count));
      } else if (count == 0) {
        return true;
      } else if (errno != EINTR) {
        return errno != EAGAIN && errno != EWOULDBLOCK;
      }
    }
  }

  // Whether the server closes the connection within `timeout`.
  bool WaitForClose(absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    while (!PeerClosed()) {
      const absl::Duration left = deadline - absl::Now();
      if (left <= absl::ZeroDuration()) return false;
      pollfd polled = {fd_, POLLIN, 0};
      poll(&polled, 1,
           static_cast<int>(absl::ToInt64Milliseconds(
               absl::Ceil(left, absl::Milliseconds(1)))));
    }
    return true;
  }

  const std::string& received() const { return received_; }

 private:
  int fd_ = -1;
  std::string received_;
};

std::unique_ptr<RawConnection> Connect(int port) {
  auto connection = std::make_unique<RawConnection>(port);
  EXPECT_TRUE(connection->Connected(absl::Seconds(2)));
  return connection;
}

httplib::Result Fetch(int port, const char* path) {
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(std::chrono::seconds(2));
  client.set_read_timeout(std::chrono::seconds(5));
  return client.Get(path);
}

int Count(const std::string& text, std::string_view part) {
  int count = 0;
  for (size_t at = text.find(part); at != std::string::npos;
       at = text.find(part, at + part.size())) {
    ++count;
  }
  return count;
}

TEST(LighthouseStatusPageLimitsTest,
     TricklingClientsNeitherStallThePageNorStayOpen) {
  const HttpServerLimits limits;  // the defaults, in docs/lighthouse.md
  auto page = LighthouseStatusPage::Start("127.0.0.1", 0, OneReplica);
  ASSERT_TRUE(page.ok()) << page.status();
  const int port = (*page)->port();

  constexpr int kTricklers = 200;
  struct Trickler {
    std::unique_ptr<RawConnection> connection;
    absl::Time opened;
    bool started = false;  // connected, and the head begun
    std::optional<absl::Time> closed;
  };
  std::vector<Trickler> tricklers(kTricklers);
  for (Trickler& trickler : tricklers) {
    trickler.connection = std::make_unique<RawConnection>(port);
    trickler.opened = absl::Now();
  }
  // A byte from each every 100 ms, until the server has closed them all
  // (or well past the bound, on a server that does not).
  std::atomic<int> started{0};
  std::thread trickle([&] {
    const absl::Time give_up =
        absl::Now() + limits.request_timeout + absl::Seconds(5);
    while (absl::Now() < give_up) {
      int open = 0;
      for (Trickler& trickler : tricklers) {
        if (trickler.closed.has_value()) continue;
        if (!trickler.started) {
          if (trickler.connection->Connected(absl::ZeroDuration())) {
            trickler.started = trickler.connection->Send(kEndlessHead);
            started += trickler.started ? 1 : 0;
          }
          ++open;
          continue;
        }
        if (trickler.connection->PeerClosed() ||
            !trickler.connection->Send("a")) {
          trickler.closed = absl::Now();
          continue;
        }
        ++open;
      }
      if (open == 0) return;
      absl::SleepFor(absl::Milliseconds(100));
    }
  });
  const absl::Time wait_for_tricklers = absl::Now() + absl::Seconds(5);
  while (started < kTricklers && absl::Now() < wait_for_tricklers) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(started, kTricklers);

  // A page load while they trickle: the page, then what its script reads.
  for (const char* path : {"/", "/status.json"}) {
    const absl::Time before = absl::Now();
    httplib::Result reply = Fetch(port, path);
    const absl::Duration took = absl::Now() - before;
    EXPECT_TRUE(reply) << path << ": " << httplib::to_string(reply.error());
    if (reply) {
      EXPECT_EQ(reply->status, 200) << path;
    }
    EXPECT_LT(took, absl::Seconds(2)) << path;
  }
  trickle.join();

  int closed_at_once = 0;
  for (const Trickler& trickler : tricklers) {
    ASSERT_TRUE(trickler.closed.has_value())
        << "a trickling connection was still open "
        << limits.request_timeout + absl::Seconds(5) << " after it opened";
    const absl::Duration open_for = *trickler.closed - trickler.opened;
    // The bound is on the whole head, not on the gap between its bytes.
    EXPECT_LE(open_for, limits.request_timeout + absl::Milliseconds(1500));
    if (open_for < limits.request_timeout / 2) ++closed_at_once;
  }
  // All but the newest per-client limit were closed as newer ones came.
  EXPECT_GE(closed_at_once, kTricklers - limits.max_connections_per_client);
}

TEST(LighthouseStatusPageLimitsTest, AWholeHeadMustArriveWithinTheBound) {
  HttpServerLimits limits;
  limits.request_timeout = absl::Seconds(1);
  auto page = LighthouseStatusPage::Start("127.0.0.1", 0, OneReplica, limits);
  ASSERT_TRUE(page.ok()) << page.status();
  std::unique_ptr<RawConnection> trickler = Connect((*page)->port());
  const absl::Time opened = absl::Now();
  ASSERT_TRUE(trickler->Send(kEndlessHead));
  // Each byte comes well within the bound; the head as a whole does not.
  while (!trickler->PeerClosed() && trickler->Send("a") &&
         absl::Now() - opened < absl::Seconds(5)) {
    absl::SleepFor(absl::Milliseconds(100));
  }
  const absl::Duration open_for = absl::Now() - opened;
  EXPECT_GE(open_for, absl::Milliseconds(900));
  EXPECT_LE(open_for, absl::Milliseconds(2000));
  EXPECT_EQ(trickler->received(), "");  // closed without an answer
}

TEST(LighthouseStatusPageLimitsTest, AClientsOldestConnectionMakesRoom) {
  HttpServerLimits limits;
  limits.max_connections_per_client = 4;
  limits.request_timeout = absl::Seconds(20);
  auto page = LighthouseStatusPage::Start("127.0.0.1", 0, OneReplica, limits);
  ASSERT_TRUE(page.ok()) << page.status();
  std::vector<std::unique_ptr<RawConnection>> idle;
  for (int i = 0; i < 6; ++i) idle.push_back(Connect((*page)->port()));
  // The fifth and sixth closed the first two.
  EXPECT_TRUE(idle[0]->WaitForClose(absl::Seconds(2)));
  EXPECT_TRUE(idle[1]->WaitForClose(absl::Seconds(2)));
  for (int i = 2; i < 6; ++i) EXPECT_FALSE(idle[i]->PeerClosed()) << i;

  // A fresh request from the same address is served, and closes the
  // oldest idle connection left.
  httplib::Result reply = Fetch((*page)->port(), "/status.json");
  ASSERT_TRUE(reply) << httplib::to_string(reply.error());
  EXPECT_EQ(reply->status, 200);
  EXPECT_TRUE(idle[2]->WaitForClose(absl::Seconds(2)));
  for (int i = 3; i < 6; ++i) EXPECT_FALSE(idle[i]->PeerClosed()) << i;
}

TEST(LighthouseStatusPageLimitsTest, TheOldestConnectionGoesPastTheTotal) {
  HttpServerLimits limits;
  limits.max_connections = 3;
  limits.request_timeout = absl::Seconds(20);
  auto page = LighthouseStatusPage::Start("127.0.0.1", 0, OneReplica, limits);
  ASSERT_TRUE(page.ok()) << page.status();
  std::vector<std::unique_ptr<RawConnection>> idle;
  for (int i = 0; i < 4; ++i) idle.push_back(Connect((*page)->port()));
  EXPECT_TRUE(idle[0]->WaitForClose(absl::Seconds(2)));
  for (int i = 1; i < 4; ++i) EXPECT_FALSE(idle[i]->PeerClosed()) << i;
}

TEST(LighthouseStatusPageLimitsTest, KeepAliveEndsAfterTheLastRequest) {
  HttpServerLimits limits;
  limits.max_requests_per_connection = 3;
  auto page = LighthouseStatusPage::Start("127.0.0.1", 0, OneReplica, limits);
  ASSERT_TRUE(page.ok()) << page.status();
  std::unique_ptr<RawConnection> client = Connect((*page)->port());
  std::string requests;
  for (int i = 0; i < 4; ++i) {
    requests += "GET /status.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  }
  ASSERT_TRUE(client->Send(requests));  // pipelined
  ASSERT_TRUE(client->WaitForClose(absl::Seconds(3)));
  const std::string& answers = client->received();
  EXPECT_EQ(Count(answers, "HTTP/1.1 200 OK"), 3) << answers;
  EXPECT_THAT(answers, HasSubstr("Keep-Alive: timeout=3, max=3"));
  EXPECT_EQ(Count(answers, "Connection: close"), 1) << answers;
  EXPECT_LT(answers.rfind("HTTP/1.1 200 OK"),
            answers.find("Connection: close"));
}

TEST(LighthouseStatusPageLimitsTest, AnIdleKeepAliveConnectionIsClosed) {
  HttpServerLimits limits;
  limits.request_timeout = absl::Milliseconds(500);
  auto page = LighthouseStatusPage::Start("127.0.0.1", 0, OneReplica, limits);
  ASSERT_TRUE(page.ok()) << page.status();
  std::unique_ptr<RawConnection> client = Connect((*page)->port());
  ASSERT_TRUE(client->Send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  const absl::Time sent = absl::Now();
  ASSERT_TRUE(client->WaitForClose(absl::Seconds(3)));
  const absl::Duration open_for = absl::Now() - sent;
  EXPECT_THAT(client->received(), StartsWith("HTTP/1.1 200 OK"));
  EXPECT_EQ(Count(client->received(), "HTTP/1.1 "), 1);
  // Kept open for the next request, then closed at the bound.
  EXPECT_GE(open_for, absl::Milliseconds(400));
  EXPECT_LE(open_for, absl::Milliseconds(1500));
}

TEST(LighthouseStatusPageLimitsTest, AnOversizedHeadIsRefused) {
  const HttpServerLimits limits;
  auto page = LighthouseStatusPage::Start("127.0.0.1", 0, OneReplica);
  ASSERT_TRUE(page.ok()) << page.status();
  std::unique_ptr<RawConnection> client = Connect((*page)->port());
  ASSERT_TRUE(client->Send(std::string(kEndlessHead) +
                           std::string(limits.max_request_bytes, 'a')));
  ASSERT_TRUE(client->WaitForClose(absl::Seconds(2)));
  EXPECT_THAT(client->received(),
              StartsWith("HTTP/1.1 431 Request Header Fields Too Large\r\n"));
}

}  // namespace
}  // namespace sluice::lighthouse
