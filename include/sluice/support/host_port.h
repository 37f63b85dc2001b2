// "host:port" addresses, checked once for every server and tool: gRPC and
// the socket calls take a port modulo 65536, so an unchecked 99999 would
// listen on 34463 while the tool prints 99999.
#ifndef SLUICE_SUPPORT_HOST_PORT_H_
#define SLUICE_SUPPORT_HOST_PORT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace sluice {

inline constexpr int kMaxPort = 65535;

struct HostPort {
  // As written: a name, an IPv4 address or a bracketed IPv6 one ("[::1]").
  std::string host;
  // 0..kMaxPort; 0 asks a server for a free port.
  int port = 0;
};

// Splits `address` at its last ':' and checks both parts: the port is
// decimal digits only, 0..65535; a host with a ':' must be in brackets.
// InvalidArgument saying what is wrong ("port 99999 is out of range
// 0..65535"), without the address itself: the caller says where it came
// from ("monitor: cannot listen on '127.0.0.1:99999': ...").
absl::StatusOr<HostPort> ParseHostPort(std::string_view address);

// InvalidArgument "port 95177 is out of range 0..65535" for a port given
// as a number, not in an address.
absl::Status CheckPort(int64_t port);

}  // namespace sluice

#endif  // SLUICE_SUPPORT_HOST_PORT_H_
