#include "lib/collective/gloo_liveness.h"

#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gloo/transport/pair.h"
#include "gloo/transport/tcp/address.h"
#include "sluice/support/liveness.h"

namespace sluice::ccl {
namespace {

struct PairSocket {
  int peer = 0;
  sockaddr_storage local{};
  bool found = false;
};

bool SameAddress(const sockaddr_storage& a, const sockaddr_storage& b) {
  if (a.ss_family != b.ss_family) return false;
  if (a.ss_family == AF_INET) {
    const auto& x = reinterpret_cast<const sockaddr_in&>(a);
    const auto& y = reinterpret_cast<const sockaddr_in&>(b);
    return x.sin_port == y.sin_port && x.sin_addr.s_addr == y.sin_addr.s_addr;
  }
  if (a.ss_family == AF_INET6) {
    const auto& x = reinterpret_cast<const sockaddr_in6&>(a);
    const auto& y = reinterpret_cast<const sockaddr_in6&>(b);
    return x.sin6_port == y.sin6_port &&
           std::memcmp(&x.sin6_addr, &y.sin6_addr, sizeof(x.sin6_addr)) == 0;
  }
  return false;
}

// Whether `fd` is a connected TCP socket.
bool IsConnectedStream(int fd) {
  int type = 0;
  socklen_t length = sizeof(type);
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0 ||
      type != SOCK_STREAM) {
    return false;
  }
  sockaddr_storage peer{};
  length = sizeof(peer);
  return getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &length) == 0;
}

absl::Status SetOptions(int fd, absl::Duration timeout) {
  // Keepalive counts whole seconds: a probe no earlier than the liveness
  // timeout, then one a second. TCP_USER_TIMEOUT, in milliseconds, then
  // decides: it ends the connection once nothing was heard for its time
  // and a probe went unanswered, or once sent data went unacknowledged for
  // its time, whichever the connection was doing.
  const int idle = static_cast<int>(std::max<int64_t>(
      1, absl::ToInt64Seconds(absl::Ceil(timeout, absl::Seconds(1)))));
  const int interval = static_cast<int>(
      std::max<int64_t>(1, absl::ToInt64Seconds(kLivenessPingTimeout)));
  const int probes = 1;
  const unsigned int user_timeout = static_cast<unsigned int>(
      absl::ToInt64Milliseconds(timeout + kLivenessPingTimeout));
  const int on = 1;
  struct Option {
    int level;
    int name;
    const void* value;
    socklen_t size;
    const char* what;
  };
  for (const Option& option : {
           Option{SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on), "SO_KEEPALIVE"},
           Option{IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle),
                  "TCP_KEEPIDLE"},
           Option{IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof(interval),
                  "TCP_KEEPINTVL"},
           Option{IPPROTO_TCP, TCP_KEEPCNT, &probes, sizeof(probes),
                  "TCP_KEEPCNT"},
           Option{IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout,
                  sizeof(user_timeout), "TCP_USER_TIMEOUT"},
       }) {
    if (setsockopt(fd, option.level, option.name, option.value, option.size) !=
        0) {
      return absl::InternalError(
          absl::StrCat("setting ", option.what, ": ", std::strerror(errno)));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status SetPairLiveness(gloo::Context& context, absl::Duration timeout) {
  std::vector<PairSocket> pairs;
  for (int peer = 0; peer < context.size; ++peer) {
    if (peer == context.rank) continue;
    const std::unique_ptr<gloo::transport::Pair>& pair = context.getPair(peer);
    if (pair == nullptr) continue;
    // A TCP pair's address is its socket's own end once connected (Gloo
    // reads it back from the socket); its bytes are those of a tcp
    // Address.
    const gloo::transport::tcp::Address address(pair->address().bytes());
    pairs.push_back({peer, address.getSockaddr(), false});
  }
  if (pairs.empty()) return absl::OkStatus();

  DIR* fds = opendir("/proc/self/fd");
  if (fds == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("cannot list /proc/self/fd: ", std::strerror(errno)));
  }
  std::vector<std::string> failures;
  while (const dirent* entry = readdir(fds)) {
    int fd = -1;
    if (!absl::SimpleAtoi(entry->d_name, &fd) || fd == dirfd(fds)) continue;
    sockaddr_storage local{};
    socklen_t length = sizeof(local);
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) != 0) {
      continue;  // not a socket
    }
    auto pair = std::find_if(pairs.begin(), pairs.end(), [&](const auto& p) {
      return !p.found && SameAddress(p.local, local);
    });
    if (pair == pairs.end() || !IsConnectedStream(fd)) continue;
    pair->found = true;
    if (absl::Status set = SetOptions(fd, timeout); !set.ok()) {
      failures.push_back(
          absl::StrCat("rank ", pair->peer, ": ", set.message()));
    }
  }
  closedir(fds);
  for (const PairSocket& pair : pairs) {
    if (!pair.found) {
      failures.push_back(absl::StrCat(
          "rank ", pair.peer, ": no connected socket found (closed already?)"));
    }
  }
  if (failures.empty()) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("no liveness on the connections to ",
                                          absl::StrJoin(failures, "; ")));
}

}  // namespace sluice::ccl
