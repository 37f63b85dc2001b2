#include "sluice/support/host_port.h"

#include <cstdint>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace sluice {

absl::StatusOr<HostPort> ParseHostPort(std::string_view address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string_view::npos) {
    return absl::InvalidArgumentError(
        "expected host:port, there is no ':' before a port");
  }
  const std::string_view host = address.substr(0, colon);
  const std::string_view port = address.substr(colon + 1);
  if (host.empty()) return absl::InvalidArgumentError("the host is missing");
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') {
      return absl::InvalidArgumentError(absl::StrCat(
          "host '", std::string(host), "' opens a '[' it does not close"));
    }
  } else if (host.find(':') != std::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("host '", std::string(host),
                     "' has a ':'; write an IPv6 host in brackets, [::1]"));
  }
  if (port.empty()) return absl::InvalidArgumentError("the port is missing");
  // Digits only: SimpleAtoi would also take a sign and surrounding spaces,
  // which no resolver accepts.
  if (port.find_first_not_of("0123456789") != std::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("port '", std::string(port), "' is not a number"));
  }
  // Digits only, so a failed conversion can only mean too many of them.
  uint64_t number = 0;
  if (port.size() > 5 ||
      !absl::SimpleAtoi(absl::string_view(port.data(), port.size()), &number) ||
      number > kMaxPort) {
    return absl::InvalidArgumentError(absl::StrCat(
        "port ", std::string(port), " is out of range 0..", kMaxPort));
  }
  return HostPort{std::string(host), static_cast<int>(number)};
}

absl::Status CheckPort(int64_t port) {
  if (port < 0 || port > kMaxPort) {
    return absl::InvalidArgumentError(
        absl::StrCat("port ", port, " is out of range 0..", kMaxPort));
  }
  return absl::OkStatus();
}

}  // namespace sluice
