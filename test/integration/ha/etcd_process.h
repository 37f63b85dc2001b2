// EtcdProcess: a one-member etcd (/usr/bin/etcd) for a test, on 127.0.0.1
// with free client and peer ports and a data directory under the test's
// temporary directory. Start returns once etcd answers /health; the
// destructor kills it and removes the directory. With TLS its client port
// serves only TLS and requires a client certificate of the CA.
#ifndef SLUICE_TEST_INTEGRATION_HA_ETCD_PROCESS_H_
#define SLUICE_TEST_INTEGRATION_HA_ETCD_PROCESS_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "sluice/support/tls.h"
#include "test/integration/ha/logged_process.h"

namespace sluice::lighthouse::testing {

class EtcdProcess {
 public:
  // With `tls`, etcd serves its certificate and trusts its CA (and checks
  // /health with the same files).
  static absl::StatusOr<std::unique_ptr<EtcdProcess>> Start(
      std::optional<TlsConfig> tls = std::nullopt);
  ~EtcdProcess();
  EtcdProcess(const EtcdProcess&) = delete;
  EtcdProcess& operator=(const EtcdProcess&) = delete;

  // "http://127.0.0.1:<client port>" ("https://" with TLS).
  std::string endpoint() const;
  int client_port() const { return client_port_; }

  // SIGKILL; the data directory stays for Restart.
  void Kill();
  // Starts etcd again on the same ports over the same data.
  absl::Status Restart();

 private:
  EtcdProcess(std::string data_dir, int client_port, int peer_port,
              std::optional<TlsConfig> tls)
      : data_dir_(std::move(data_dir)),
        client_port_(client_port),
        peer_port_(peer_port),
        tls_(std::move(tls)) {}
  absl::Status Launch();
  bool Healthy() const;

  const std::string data_dir_;
  const int client_port_;
  const int peer_port_;
  const std::optional<TlsConfig> tls_;
  std::unique_ptr<LoggedProcess> process_;
};

// A port of 127.0.0.1 that was free a moment ago (bound to port 0, closed).
absl::StatusOr<int> PickFreePort();

}  // namespace sluice::lighthouse::testing

#endif  // SLUICE_TEST_INTEGRATION_HA_ETCD_PROCESS_H_
