#include "test/util/network_faults.h"

#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "sluice/support/liveness.h"

namespace sluice::test_util {
namespace {

// One name for the table, so that a test's leftovers are found and the
// machine's own rules (none, in a namespace of the test's own) are never
// touched.
constexpr char kTable[] = "inet sluice_network_faults";

std::string ErrnoText() { return std::strerror(errno); }

absl::Status BringLoopbackUp() {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return absl::InternalError(
        absl::StrCat("cannot open a socket to set lo up: ", ErrnoText()));
  }
  ifreq request{};
  std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
  absl::Status status;
  if (ioctl(fd, SIOCGIFFLAGS, &request) != 0) {
    status = absl::InternalError(
        absl::StrCat("cannot read the flags of lo: ", ErrnoText()));
  } else {
    request.ifr_flags |= IFF_UP;
    if (ioctl(fd, SIOCSIFFLAGS, &request) != 0) {
      status =
          absl::InternalError(absl::StrCat("cannot set lo up: ", ErrnoText()));
    }
  }
  close(fd);
  return status;
}

// nft lives in /usr/sbin, which Bazel's strict test PATH leaves out.
std::string NftPath() {
  for (const char* path : {"/usr/sbin/nft", "/sbin/nft"}) {
    if (access(path, X_OK) == 0) return path;
  }
  return "nft";
}

// Runs `nft -f` on `script` (written to a file: nft reads a file whole, so
// a script applies all or nothing); the error carries what nft printed,
// and so does `output` when given.
absl::Status RunNft(const std::string& script, std::string* printed = nullptr) {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path =
      absl::StrCat(dir != nullptr ? dir : "/tmp", "/nft-script-XXXXXX");
  int fd = mkstemp(path.data());
  if (fd < 0) {
    return absl::InternalError(
        absl::StrCat("cannot write an nft script: ", ErrnoText()));
  }
  const bool written = write(fd, script.data(), script.size()) ==
                       static_cast<ssize_t>(script.size());
  close(fd);
  if (!written) {
    unlink(path.c_str());
    return absl::InternalError(
        absl::StrCat("cannot write an nft script: ", ErrnoText()));
  }
  const std::string command = absl::StrCat(NftPath(), " -f ", path, " 2>&1");
  FILE* nft = popen(command.c_str(), "r");
  if (nft == nullptr) {
    unlink(path.c_str());
    return absl::FailedPreconditionError(
        absl::StrCat("cannot run nft: ", ErrnoText()));
  }
  std::string output;
  char buffer[512];
  while (size_t n = fread(buffer, 1, sizeof(buffer), nft)) {
    output.append(buffer, n);
  }
  const int status = pclose(nft);
  unlink(path.c_str());
  if (printed != nullptr) *printed = output;
  if (status == 0) return absl::OkStatus();
  // The shell's 127: nft is not installed.
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    return absl::FailedPreconditionError(
        "nft is not installed (Debian package nftables)");
  }
  return absl::FailedPreconditionError(
      absl::StrCat("nft refused '", script, "': ", output));
}

}  // namespace

absl::Status EnterOwnNetworkNamespace() {
  if (unshare(CLONE_NEWNET) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot make a network namespace (needs root): ", ErrnoText()));
  }
  return BringLoopbackUp();
}

absl::StatusOr<NetworkFaults> StartNetworkFaultTest(absl::Duration liveness) {
  static const absl::Status* const entered = [liveness] {
    setenv("SLUICE_LIVENESS_TIMEOUT_MS",
           std::to_string(absl::ToInt64Milliseconds(liveness)).c_str(), 1);
    SetLivenessTimeout(liveness);
    return new absl::Status(EnterOwnNetworkNamespace());
  }();
  if (!entered->ok()) return *entered;
  return NetworkFaults::Create();
}

absl::StatusOr<NetworkFaults> NetworkFaults::Create() {
  // Output is where every segment on loopback passes once, whichever end
  // sends it. A chain of its own, which Heal leaves alone, marks each
  // connection a fault user's socket sends on, from the start: a mark set
  // by a segment that is then dropped would be lost with it when conntrack
  // first sees the connection. The mark names the user that sent last; a
  // label of each user's own, which no other user's segment clears, names
  // every fault user that sent on it, so that a connection between two of
  // them is either's.
  std::string script = absl::StrCat(
      "add table ", kTable, "\n", "add chain ", kTable,
      " marks { type filter hook output priority -10; policy accept; }\n",
      "add chain ", kTable,
      " output { type filter hook output priority 0; policy accept; }\n");
  for (int uid = kFirstFaultUser; uid < kFirstFaultUser + kFaultUsers; ++uid) {
    absl::StrAppend(&script, "add rule ", kTable, " marks meta skuid ", uid,
                    " ct mark set ", uid, "\n");
    absl::StrAppend(&script, "add rule ", kTable, " marks meta skuid ", uid,
                    " ct label set ", uid - kFirstFaultUser, "\n");
  }
  absl::Status made = RunNft(script);
  if (!made.ok()) return made;
  NetworkFaults faults;
  faults.owns_table_ = true;
  return faults;
}

NetworkFaults::NetworkFaults(NetworkFaults&& other) noexcept
    : owns_table_(other.owns_table_) {
  other.owns_table_ = false;
}

NetworkFaults::~NetworkFaults() {
  if (owns_table_)
    RunNft(absl::StrCat("delete table ", kTable, "\n")).IgnoreError();
}

absl::Status NetworkFaults::Blackhole(int port, Traffic traffic) {
  std::string script;
  if (traffic != Traffic::kFromPort) {
    absl::StrAppend(&script, "add rule ", kTable, " output tcp dport ", port,
                    " drop\n");
  }
  if (traffic != Traffic::kToPort) {
    absl::StrAppend(&script, "add rule ", kTable, " output tcp sport ", port,
                    " drop\n");
  }
  return RunNft(script);
}

std::vector<std::string> RunAsUser(int uid, std::vector<std::string> argv) {
  const std::string id = std::to_string(uid);
  // The user keeps the one capability that lets it read and write what
  // root's tests build and keep (Bazel's output under /root, mode 700):
  // only its sockets' owner is meant to change.
  std::vector<std::string> command = {"/usr/bin/setpriv",
                                      "--reuid=" + id,
                                      "--regid=" + id,
                                      "--clear-groups",
                                      "--inh-caps=+dac_override",
                                      "--ambient-caps=+dac_override",
                                      "--"};
  command.insert(command.end(), argv.begin(), argv.end());
  return command;
}

absl::Status NetworkFaults::BlackholeUser(int uid, Traffic traffic) {
  if (uid < kFirstFaultUser || uid >= kFirstFaultUser + kFaultUsers) {
    return absl::InvalidArgumentError(absl::StrCat(
        "user ", uid, " is not a fault user: expected ", kFirstFaultUser,
        " to ", kFirstFaultUser + kFaultUsers - 1));
  }
  // The marks chain found the user's connections by their label (their
  // mark would name the other end of a connection with another fault
  // user once that end sent); segments the user's socket sends are found
  // by its owner.
  std::string script;
  if (traffic != Traffic::kFromPort) {
    absl::StrAppend(&script, "add rule ", kTable, " output ct label ",
                    uid - kFirstFaultUser, " meta skuid != ", uid, " drop\n");
  }
  if (traffic != Traffic::kToPort) {
    absl::StrAppend(&script, "add rule ", kTable, " output meta skuid ", uid,
                    " drop\n");
  }
  return RunNft(script);
}

absl::Status NetworkFaults::BlackholeUserToPort(int uid, int port) {
  if (uid < kFirstFaultUser || uid >= kFirstFaultUser + kFaultUsers) {
    return absl::InvalidArgumentError(absl::StrCat(
        "user ", uid, " is not a fault user: expected ", kFirstFaultUser,
        " to ", kFirstFaultUser + kFaultUsers - 1));
  }
  // The marks chain marked the user's connections from their first
  // segment, so the mark finds what the port's side sends back too; the
  // user's own segments are matched by owner as well, for a connection
  // conntrack has not confirmed yet.
  std::string script;
  for (const char* end : {"dport", "sport"}) {
    absl::StrAppend(&script, "add rule ", kTable, " output meta skuid ", uid,
                    " tcp ", end, " ", port, " drop\n");
    absl::StrAppend(&script, "add rule ", kTable, " output ct mark ", uid,
                    " tcp ", end, " ", port, " drop\n");
  }
  return RunNft(script);
}

absl::Status NetworkFaults::BlackholeUserExceptPort(int uid, int port) {
  if (uid < kFirstFaultUser || uid >= kFirstFaultUser + kFaultUsers) {
    return absl::InvalidArgumentError(absl::StrCat(
        "user ", uid, " is not a fault user: expected ", kFirstFaultUser,
        " to ", kFirstFaultUser + kFaultUsers - 1));
  }
  // As BlackholeUser, both ways, for the segments with `port` at neither
  // end. The port is in a set: nft would merge "tcp dport != P tcp sport
  // != P" into one comparison of both ports at once, true when either
  // differs, and drop the port's segments too.
  const std::string spared = absl::StrCat("spared_", uid, "_", port);
  const std::string other_ports = absl::StrCat(
      " tcp dport != @", spared, " tcp sport != @", spared, " drop\n");
  return RunNft(absl::StrCat(
      "add set ", kTable, " ", spared, " { type inet_service; }\n",
      "add element ", kTable, " ", spared, " { ", port, " }\n", "add rule ",
      kTable, " output ct label ", uid - kFirstFaultUser, other_ports,
      "add rule ", kTable, " output meta skuid ", uid, other_ports));
}

absl::Status NetworkFaults::Reject(int port) {
  return RunNft(absl::StrCat("add rule ", kTable, " output tcp dport ", port,
                             " reject with tcp reset\n"));
}

// A segment of 127.0.0.1 with no data is 52 bytes: 20 of IPv4 and 32 of
// TCP with the timestamps option Linux sends.
constexpr int kBareSegmentBytes = 52;

absl::Status NetworkFaults::CountSegmentsWithData(int port) {
  return RunNft(absl::StrCat(
      "add rule ", kTable, " output tcp dport ", port, " ip length > ",
      kBareSegmentBytes, " counter comment \"to ", port, "\"\n", "add rule ",
      kTable, " output tcp sport ", port, " ip length > ", kBareSegmentBytes,
      " counter comment \"from ", port, "\"\n"));
}

absl::StatusOr<NetworkFaults::Segments> NetworkFaults::SegmentsWithData(
    int port) const {
  std::string listing;
  absl::Status listed =
      RunNft(absl::StrCat("list chain ", kTable, " output\n"), &listing);
  if (!listed.ok()) return listed;
  // Each counting rule prints as "... counter packets N bytes M comment
  // \"to PORT\"".
  auto packets = [&](const std::string& comment) -> absl::StatusOr<int64_t> {
    const size_t at = listing.find(absl::StrCat("comment \"", comment, "\""));
    const size_t counter = listing.rfind("packets ", at);
    int64_t n = 0;
    if (at == std::string::npos || counter == std::string::npos ||
        !absl::SimpleAtoi(
            listing.substr(counter + 8,
                           listing.find(' ', counter + 8) - counter - 8),
            &n)) {
      return absl::NotFoundError(
          absl::StrCat("no count '", comment, "' in the rules: ", listing));
    }
    return n;
  };
  absl::StatusOr<int64_t> to = packets(absl::StrCat("to ", port));
  if (!to.ok()) return to.status();
  absl::StatusOr<int64_t> from = packets(absl::StrCat("from ", port));
  if (!from.ok()) return from.status();
  return Segments{*to, *from};
}

absl::Status NetworkFaults::Heal() {
  return RunNft(absl::StrCat("flush chain ", kTable, " output\n"));
}

}  // namespace sluice::test_util
