// Network faults for tests: the failures a real network makes and a process
// kill does not. A killed process's kernel resets its connections, so its
// peers learn at once; a host that loses power or a link that is cut sends
// nothing, and packets just stop. A test makes that happen on loopback:
// it moves into a network namespace of its own (nothing it does reaches the
// machine's network, and nothing leaves 127.0.0.1) and drops or rejects
// the TCP traffic of one port there with nftables, both ways or one way,
// then heals it.
//
//   if (absl::Status entered = EnterOwnNetworkNamespace(); !entered.ok())
//     GTEST_SKIP() << entered;  // not root, or no nftables
//   absl::StatusOr<NetworkFaults> faults = NetworkFaults::Create();
//   faults->Blackhole(worker_port, Traffic::kBothWays);
//   ...
//   faults->Heal();
#ifndef SLUICE_TEST_UTIL_NETWORK_FAULTS_H_
#define SLUICE_TEST_UTIL_NETWORK_FAULTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace sluice::test_util {

// Moves the calling thread, and every thread and process it starts after,
// into a new network namespace whose only interface is loopback, up. Call it
// before the test starts any thread: threads started earlier, and their
// children, stay in the machine's namespace. Needs root (CAP_SYS_ADMIN);
// otherwise a FailedPrecondition that says so, for the test to skip with.
absl::Status EnterOwnNetworkNamespace();

// What a network-fault test's SetUp starts with: the first call in the
// process enters a network namespace of its own (see above: call it before
// the test starts any thread) and sets the liveness timeout, of this
// process and, through SLUICE_LIVENESS_TIMEOUT_MS, of the processes it
// starts; every call then makes the test's table. An error is the reason
// to skip (not root, no nftables).
class NetworkFaults;
absl::StatusOr<NetworkFaults> StartNetworkFaultTest(absl::Duration liveness);

// Which of a port's TCP segments a blackhole drops. On loopback a segment
// to the port is the client's side of a connection to a server listening
// there; one from it is the server's side. For a user's processes
// (BlackholeUser), kToPort is what others send them and kFromPort what
// they send.
enum class Traffic {
  kBothWays,
  kToPort,    // the server hears nothing; its answers still arrive
  kFromPort,  // the server hears everything; nothing it sends arrives
};

// The user ids test processes run as when a test cuts off one of them
// alone, whatever ports it uses (its client connections have ports the
// test cannot know): kFirstFaultUser and the kFaultUsers - 1 after it.
inline constexpr int kFirstFaultUser = 4242;
inline constexpr int kFaultUsers = 8;

// `argv` run as `uid` (and its own group, with no others), through
// setpriv: the process's sockets are then that user's, for BlackholeUser.
// It may still read and write root's files (it keeps CAP_DAC_OVERRIDE), so
// a test's binaries and folders serve it as they are.
std::vector<std::string> RunAsUser(int uid, std::vector<std::string> argv);

// nftables rules in a table of their own, removed when this goes away.
// Use it inside EnterOwnNetworkNamespace's namespace: the rules then touch
// the test's traffic alone.
class NetworkFaults {
 public:
  // Makes the table. FailedPrecondition when nft is not installed
  // (scripts/setup.sh installs the nftables package) or refuses.
  static absl::StatusOr<NetworkFaults> Create();

  NetworkFaults(NetworkFaults&& other) noexcept;
  NetworkFaults& operator=(NetworkFaults&& other) = delete;
  NetworkFaults(const NetworkFaults&) = delete;
  ~NetworkFaults();

  // Silently drops the port's TCP segments on 127.0.0.1: no reset, no ICMP,
  // as from a host that vanished. Connections stay open on both sides.
  absl::Status Blackhole(int port, Traffic traffic);

  // Silently drops the TCP segments of every connection a socket of `uid`
  // (a fault user) sent on since Create, on any port: the processes of that
  // user are cut off as a host that vanished would be, and the rest go on
  // talking. A connection the user accepted and never sent on is not known
  // yet; its first segment from the user is dropped, and the rest too.
  absl::Status BlackholeUser(int uid, Traffic traffic);

  // Silently drops, both ways, every TCP segment of the connections between
  // a socket of `uid` (a fault user) and `port`: whether the user dialed
  // the port (a lighthouse's etcd client) or serves on it. The user keeps
  // talking on every other port, and others keep talking to the port.
  absl::Status BlackholeUserToPort(int uid, int port);

  // Silently drops, both ways, every TCP segment of the user's connections
  // (as BlackholeUser) except those to or from `port`: the user is cut off
  // from every process but the one serving there (its peers, but not a
  // lighthouse), and they from it.
  absl::Status BlackholeUserExceptPort(int uid, int port);

  // Answers every segment to the port with a TCP reset, as a host that is
  // up but has nothing listening there: connections fail at once.
  absl::Status Reject(int port);

  // Starts counting the TCP segments that carry data (not bare
  // acknowledgements) to and from the port, for SegmentsWithData. Heal
  // removes the count.
  absl::Status CountSegmentsWithData(int port);
  // How many such segments the port received and sent since its count
  // began.
  struct Segments {
    int64_t to_port = 0;
    int64_t from_port = 0;
  };
  absl::StatusOr<Segments> SegmentsWithData(int port) const;

  // Removes every rule: the network heals, and what TCP still retransmits
  // goes through.
  absl::Status Heal();

 private:
  NetworkFaults() = default;

  bool owns_table_ = false;
};

}  // namespace sluice::test_util

#endif  // SLUICE_TEST_UTIL_NETWORK_FAULTS_H_
