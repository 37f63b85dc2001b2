// The network-fault harness does what tests will rely on: a blackholed
// connection stays open and silent, and carries what was sent once healed;
// a one-way blackhole silences one direction only; a user is cut off from
// one port alone, or from all but one, and from other users as from root;
// a rejected port refuses at once.
#include "test/util/network_faults.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/fsuid.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace sluice::test_util {
namespace {

// How long a test waits to conclude that nothing arrives.
constexpr absl::Duration kSilence = absl::Milliseconds(400);
// TCP retransmits a segment a blackhole dropped with a backoff from 200 ms:
// after a short fault it arrives within a few seconds.
constexpr absl::Duration kRetransmitted = absl::Seconds(10);

class NetworkFaultsTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    // Before any thread: gtest starts none, and the test's threads and
    // children must all be in the namespace.
    entered_ = new absl::Status(EnterOwnNetworkNamespace());
  }

  void SetUp() override {
    if (!entered_->ok()) GTEST_SKIP() << *entered_;
    absl::StatusOr<NetworkFaults> faults = NetworkFaults::Create();
    if (!faults.ok()) GTEST_SKIP() << faults.status();
    faults_.emplace(std::move(*faults));
    Listen();
    client_ = Connect();
    ASSERT_GE(client_, 0) << "connect: " << std::strerror(errno);
    server_ = accept(listener_, nullptr, nullptr);
    ASSERT_GE(server_, 0) << "accept: " << std::strerror(errno);
  }

  void TearDown() override {
    for (int fd : {client_, server_, listener_}) {
      if (fd >= 0) close(fd);
    }
  }

  void Listen() {
    listener_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address = Loopback(0);
    ASSERT_EQ(
        bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof(address)),
        0);
    ASSERT_EQ(listen(listener_, 4), 0);
    socklen_t length = sizeof(address);
    getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
  }

  int Connect() {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address = Loopback(port_);
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) !=
        0) {
      const int error = errno;
      close(fd);
      errno = error;
      return -1;
    }
    return fd;
  }

  static sockaddr_in Loopback(int port) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return address;
  }

  // The bytes that arrive on `fd` within `wait`; empty when none do.
  static std::string Receive(int fd, absl::Duration wait) {
    timeval timeout = absl::ToTimeval(wait);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    char buffer[64];
    ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    return n > 0 ? std::string(buffer, n) : std::string();
  }

  static void Send(int fd, const std::string& bytes) {
    ASSERT_EQ(send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(bytes.size()));
  }

  static absl::Status* entered_;
  std::optional<NetworkFaults> faults_;
  int listener_ = -1;
  int client_ = -1;
  int server_ = -1;
  int port_ = 0;
};

absl::Status* NetworkFaultsTest::entered_ = nullptr;

TEST_F(NetworkFaultsTest, BlackholeSilencesAConnectionUntilHealed) {
  Send(client_, "before");
  EXPECT_EQ(Receive(server_, kRetransmitted), "before");

  ASSERT_TRUE(faults_->Blackhole(port_, Traffic::kBothWays).ok());
  Send(client_, "during");
  EXPECT_EQ(Receive(server_, kSilence), "");
  Send(server_, "answer");
  EXPECT_EQ(Receive(client_, kSilence), "");

  // Nothing was reset: once healed, what was sent arrives.
  ASSERT_TRUE(faults_->Heal().ok());
  EXPECT_EQ(Receive(server_, kRetransmitted), "during");
  EXPECT_EQ(Receive(client_, kRetransmitted), "answer");
}

TEST_F(NetworkFaultsTest, OneWayBlackholeSilencesOneDirection) {
  ASSERT_TRUE(faults_->Blackhole(port_, Traffic::kFromPort).ok());
  Send(client_, "heard");
  EXPECT_EQ(Receive(server_, kRetransmitted), "heard");
  Send(server_, "lost");
  EXPECT_EQ(Receive(client_, kSilence), "");
  ASSERT_TRUE(faults_->Heal().ok());
  EXPECT_EQ(Receive(client_, kRetransmitted), "lost");
}

// A socket of another user stands for a process the test runs as that
// user: the kernel gives a socket its creator's file-system uid, which
// setfsuid changes for the calling thread alone.
int ConnectAsUser(int uid, int port) {
  const int previous = setfsuid(uid);
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  setfsuid(previous);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) !=
      0) {
    close(fd);
    return -1;
  }
  return fd;
}

TEST_F(NetworkFaultsTest, BlackholeUserCutsOffThatUserAlone) {
  const int user = ConnectAsUser(kFirstFaultUser, port_);
  ASSERT_GE(user, 0) << "connect: " << std::strerror(errno);
  const int accepted = accept(listener_, nullptr, nullptr);
  ASSERT_GE(accepted, 0) << "accept: " << std::strerror(errno);
  // The user's socket sends first, as the connection is known by that.
  Send(user, "hello");
  EXPECT_EQ(Receive(accepted, kRetransmitted), "hello");

  ASSERT_TRUE(faults_->BlackholeUser(kFirstFaultUser, Traffic::kBothWays).ok());
  Send(user, "during");
  EXPECT_EQ(Receive(accepted, kSilence), "");
  Send(accepted, "answer");
  EXPECT_EQ(Receive(user, kSilence), "");
  // The root's own connection is untouched.
  Send(client_, "others");
  EXPECT_EQ(Receive(server_, kRetransmitted), "others");

  ASSERT_TRUE(faults_->Heal().ok());
  EXPECT_EQ(Receive(accepted, kRetransmitted), "during");
  EXPECT_EQ(Receive(user, kRetransmitted), "answer");
  close(user);
  close(accepted);
}

TEST_F(NetworkFaultsTest, OneWayBlackholeUserSilencesOneDirection) {
  const int user = ConnectAsUser(kFirstFaultUser, port_);
  ASSERT_GE(user, 0) << "connect: " << std::strerror(errno);
  const int accepted = accept(listener_, nullptr, nullptr);
  ASSERT_GE(accepted, 0) << "accept: " << std::strerror(errno);
  Send(user, "hello");
  EXPECT_EQ(Receive(accepted, kRetransmitted), "hello");

  // Nothing reaches the user; what it sends still arrives.
  ASSERT_TRUE(faults_->BlackholeUser(kFirstFaultUser, Traffic::kToPort).ok());
  Send(user, "heard");
  EXPECT_EQ(Receive(accepted, kRetransmitted), "heard");
  Send(accepted, "lost");
  EXPECT_EQ(Receive(user, kSilence), "");
  ASSERT_TRUE(faults_->Heal().ok());
  EXPECT_EQ(Receive(user, kRetransmitted), "lost");
  close(user);
  close(accepted);
}

TEST_F(NetworkFaultsTest, BlackholeUserToPortCutsThatUserFromThatPortAlone) {
  // The user's connection to the port, and one to another port.
  const int user = ConnectAsUser(kFirstFaultUser, port_);
  ASSERT_GE(user, 0) << "connect: " << std::strerror(errno);
  const int accepted = accept(listener_, nullptr, nullptr);
  ASSERT_GE(accepted, 0) << "accept: " << std::strerror(errno);
  const int other_listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address = Loopback(0);
  ASSERT_EQ(bind(other_listener, reinterpret_cast<sockaddr*>(&address),
                 sizeof(address)),
            0);
  ASSERT_EQ(listen(other_listener, 4), 0);
  socklen_t length = sizeof(address);
  getsockname(other_listener, reinterpret_cast<sockaddr*>(&address), &length);
  const int other_port = ntohs(address.sin_port);
  const int user_elsewhere = ConnectAsUser(kFirstFaultUser, other_port);
  ASSERT_GE(user_elsewhere, 0) << "connect: " << std::strerror(errno);
  const int accepted_elsewhere = accept(other_listener, nullptr, nullptr);
  ASSERT_GE(accepted_elsewhere, 0) << "accept: " << std::strerror(errno);

  EXPECT_EQ(faults_->BlackholeUserToPort(0, port_).code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(faults_->BlackholeUserToPort(kFirstFaultUser, port_).ok());
  Send(user, "during");
  EXPECT_EQ(Receive(accepted, kSilence), "");
  Send(accepted, "answer");
  EXPECT_EQ(Receive(user, kSilence), "");
  // Another user still reaches the port, and the user another port.
  Send(client_, "others");
  EXPECT_EQ(Receive(server_, kRetransmitted), "others");
  Send(user_elsewhere, "elsewhere");
  EXPECT_EQ(Receive(accepted_elsewhere, kRetransmitted), "elsewhere");
  Send(accepted_elsewhere, "back");
  EXPECT_EQ(Receive(user_elsewhere, kRetransmitted), "back");
  // A new connection of the user to the port gets no answer.
  const int previous = setfsuid(kFirstFaultUser);
  const int fresh =
      socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  setfsuid(previous);
  sockaddr_in target = Loopback(port_);
  ASSERT_NE(
      connect(fresh, reinterpret_cast<sockaddr*>(&target), sizeof(target)), 0);
  EXPECT_EQ(errno, EINPROGRESS);
  absl::SleepFor(kSilence);
  EXPECT_NE(
      connect(fresh, reinterpret_cast<sockaddr*>(&target), sizeof(target)), 0);
  EXPECT_EQ(errno, EALREADY);

  ASSERT_TRUE(faults_->Heal().ok());
  EXPECT_EQ(Receive(accepted, kRetransmitted), "during");
  EXPECT_EQ(Receive(user, kRetransmitted), "answer");
  for (int fd : {user, accepted, other_listener, user_elsewhere,
                 accepted_elsewhere, fresh}) {
    close(fd);
  }
}

// A listening socket of `uid` on a port of its own; the port in *port.
int ListenAsUser(int uid, int* port) {
  const int previous = setfsuid(uid);
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  setfsuid(previous);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      listen(fd, 4) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    close(fd);
    return -1;
  }
  *port = ntohs(address.sin_port);
  return fd;
}

TEST_F(NetworkFaultsTest, BlackholeUserCutsItOffFromAnotherFaultUser) {
  // Two processes under test talking to each other: whichever sent last,
  // the connection stays the cut-off user's.
  int other_port = 0;
  const int other_listener = ListenAsUser(kFirstFaultUser + 1, &other_port);
  ASSERT_GE(other_listener, 0) << "listen: " << std::strerror(errno);
  const int user = ConnectAsUser(kFirstFaultUser, other_port);
  ASSERT_GE(user, 0) << "connect: " << std::strerror(errno);
  const int other = accept(other_listener, nullptr, nullptr);
  ASSERT_GE(other, 0) << "accept: " << std::strerror(errno);
  Send(user, "hello");
  EXPECT_EQ(Receive(other, kRetransmitted), "hello");
  Send(other, "hi");
  EXPECT_EQ(Receive(user, kRetransmitted), "hi");

  ASSERT_TRUE(faults_->BlackholeUser(kFirstFaultUser, Traffic::kBothWays).ok());
  Send(other, "during");
  EXPECT_EQ(Receive(user, kSilence), "");
  Send(user, "answer");
  EXPECT_EQ(Receive(other, kSilence), "");

  ASSERT_TRUE(faults_->Heal().ok());
  EXPECT_EQ(Receive(user, kRetransmitted), "during");
  EXPECT_EQ(Receive(other, kRetransmitted), "answer");
  for (int fd : {user, other, other_listener}) close(fd);
}

TEST_F(NetworkFaultsTest, BlackholeUserExceptPortSparesThatPortAlone) {
  // The user's connection to the spared port (a lighthouse, say), and one
  // to a peer that is a fault user too.
  const int user = ConnectAsUser(kFirstFaultUser, port_);
  ASSERT_GE(user, 0) << "connect: " << std::strerror(errno);
  const int accepted = accept(listener_, nullptr, nullptr);
  ASSERT_GE(accepted, 0) << "accept: " << std::strerror(errno);
  int peer_port = 0;
  const int peer_listener = ListenAsUser(kFirstFaultUser + 1, &peer_port);
  ASSERT_GE(peer_listener, 0) << "listen: " << std::strerror(errno);
  const int user_to_peer = ConnectAsUser(kFirstFaultUser, peer_port);
  ASSERT_GE(user_to_peer, 0) << "connect: " << std::strerror(errno);
  const int peer = accept(peer_listener, nullptr, nullptr);
  ASSERT_GE(peer, 0) << "accept: " << std::strerror(errno);
  Send(user_to_peer, "hello");
  EXPECT_EQ(Receive(peer, kRetransmitted), "hello");

  EXPECT_EQ(faults_->BlackholeUserExceptPort(0, port_).code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(faults_->BlackholeUserExceptPort(kFirstFaultUser, port_).ok());
  Send(user, "spared");
  EXPECT_EQ(Receive(accepted, kRetransmitted), "spared");
  Send(accepted, "back");
  EXPECT_EQ(Receive(user, kRetransmitted), "back");
  Send(user_to_peer, "during");
  EXPECT_EQ(Receive(peer, kSilence), "");
  Send(peer, "answer");
  EXPECT_EQ(Receive(user_to_peer, kSilence), "");
  // A new connection of the user to the peer gets no answer, and others
  // still reach the peer.
  const int previous = setfsuid(kFirstFaultUser);
  const int fresh =
      socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  setfsuid(previous);
  sockaddr_in target = Loopback(peer_port);
  ASSERT_NE(
      connect(fresh, reinterpret_cast<sockaddr*>(&target), sizeof(target)), 0);
  EXPECT_EQ(errno, EINPROGRESS);
  const int others = ConnectAsUser(0, peer_port);
  EXPECT_GE(others, 0) << "connect: " << std::strerror(errno);
  absl::SleepFor(kSilence);
  EXPECT_NE(
      connect(fresh, reinterpret_cast<sockaddr*>(&target), sizeof(target)), 0);
  EXPECT_EQ(errno, EALREADY);

  ASSERT_TRUE(faults_->Heal().ok());
  EXPECT_EQ(Receive(peer, kRetransmitted), "during");
  EXPECT_EQ(Receive(user_to_peer, kRetransmitted), "answer");
  for (int fd :
       {user, accepted, user_to_peer, peer, peer_listener, fresh, others}) {
    if (fd >= 0) close(fd);
  }
}

TEST(RunAsUserTest, PrefixesSetprivWithTheUser) {
  EXPECT_EQ(RunAsUser(4243, {"/bin/true", "x"}),
            (std::vector<std::string>{
                "/usr/bin/setpriv", "--reuid=4243", "--regid=4243",
                "--clear-groups", "--inh-caps=+dac_override",
                "--ambient-caps=+dac_override", "--", "/bin/true", "x"}));
}

TEST_F(NetworkFaultsTest, RejectRefusesNewConnectionsAtOnce) {
  ASSERT_TRUE(faults_->Reject(port_).ok());
  const absl::Time start = absl::Now();
  EXPECT_EQ(Connect(), -1);
  EXPECT_EQ(errno, ECONNREFUSED);
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));
}

TEST_F(NetworkFaultsTest, BlackholedConnectGetsNoAnswer) {
  ASSERT_TRUE(faults_->Blackhole(port_, Traffic::kToPort).ok());
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  sockaddr_in address = Loopback(port_);
  ASSERT_NE(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)),
            0);
  EXPECT_EQ(errno, EINPROGRESS);
  absl::SleepFor(kSilence);
  // Still connecting: neither accepted nor refused.
  int error = 0;
  socklen_t length = sizeof(error);
  getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
  EXPECT_EQ(error, 0);
  EXPECT_NE(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)),
            0);
  EXPECT_EQ(errno, EALREADY);
  close(fd);
}

}  // namespace
}  // namespace sluice::test_util
