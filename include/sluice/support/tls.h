// Mutual TLS between Sluice processes. With a certificate, its key and a CA
// configured, every gRPC server of the process requires a client
// certificate signed by the CA, and every channel presents the certificate
// and checks the server's against the CA and the address it dials. Without
// them, servers listen in plaintext, and only on loopback unless insecure
// listening was allowed (docs/security.md).
//
// The setting is process-wide, like the liveness timeout: the tools set it
// from --tls_cert, --tls_key and --tls_ca; an embedder calls SetTlsConfig,
// or sets SLUICE_TLS_CERT, SLUICE_TLS_KEY and SLUICE_TLS_CA, which the
// kernels' clients read when nothing was set.
#ifndef SLUICE_SUPPORT_TLS_H_
#define SLUICE_SUPPORT_TLS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace sluice {

// Paths of PEM files: all three, or none for plaintext.
struct TlsConfig {
  std::string cert_file;  // this process's certificate chain
  std::string key_file;   // its private key
  std::string ca_file;    // the CA (or CAs) that signs every peer's

  bool enabled() const { return !cert_file.empty(); }
};

// The files' contents, as read when the configuration was set.
struct TlsCredentialFiles {
  std::string cert;
  std::string key;
  std::string ca;
};

// The paths in SLUICE_TLS_CERT, SLUICE_TLS_KEY and SLUICE_TLS_CA, unchecked
// (ReadTlsFiles checks them); none set is plaintext.
TlsConfig TlsConfigInEnvironment();

// Reads and checks the files: all three or none given, each readable and
// PEM. The error names the file and what is wrong; `flag_prefix` says how
// the user named them ("--tls_" or "SLUICE_TLS_").
absl::StatusOr<TlsCredentialFiles> ReadTlsFiles(const TlsConfig& config,
                                                const std::string& flag_prefix);

// Sets the process's TLS configuration (reads the files now). Channels and
// servers made before keep theirs.
absl::Status SetTlsConfig(const TlsConfig& config);

// The process's files: the last SetTlsConfig, otherwise the environment's.
// An invalid environment is reported once on stderr and fails closed: the
// returned files are empty but `enabled` stays true, so that every
// handshake fails rather than anything going out in plaintext.
struct ProcessTls {
  bool enabled = false;
  TlsCredentialFiles files;
};
ProcessTls CurrentTls();

// Whether a server may listen on an address other than loopback without
// TLS (--insecure, SLUICE_INSECURE=1). Off by default.
bool InsecureListeningAllowed();
void AllowInsecureListening(bool allowed);

}  // namespace sluice

#endif  // SLUICE_SUPPORT_TLS_H_
