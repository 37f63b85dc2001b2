#include "sluice/support/tls.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "sluice/support/file_reading.h"

namespace sluice {
namespace {

std::string Variable(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

std::mutex tls_mu;
std::optional<ProcessTls> process_tls;  // guarded by tls_mu; unset: not read

std::atomic<int> insecure_allowed{-1};  // -1: not read from the environment

}  // namespace

TlsConfig TlsConfigInEnvironment() {
  TlsConfig config;
  config.cert_file = Variable("SLUICE_TLS_CERT");
  config.key_file = Variable("SLUICE_TLS_KEY");
  config.ca_file = Variable("SLUICE_TLS_CA");
  return config;
}

absl::StatusOr<TlsCredentialFiles> ReadTlsFiles(
    const TlsConfig& config, const std::string& flag_prefix) {
  const std::pair<const char*, const std::string*> named[] = {
      {"cert", &config.cert_file},
      {"key", &config.key_file},
      {"ca", &config.ca_file}};
  int given = 0;
  for (const auto& [name, path] : named) given += !path->empty();
  TlsCredentialFiles files;
  if (given == 0) return files;
  if (given != 3) {
    std::string missing;
    for (const auto& [name, path] : named) {
      if (path->empty()) {
        absl::StrAppend(&missing, missing.empty() ? "" : " and ", flag_prefix,
                        name);
      }
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "mutual TLS needs a certificate, its key and the CA together: ",
        missing, " not given"));
  }
  std::string* contents[] = {&files.cert, &files.key, &files.ca};
  for (int i = 0; i < 3; ++i) {
    const auto& [name, path] = named[i];
    absl::StatusOr<std::string> read = ReadRegularFile(*path);
    if (!read.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          flag_prefix, name, "=", *path, ": ", read.status().message()));
    }
    if (!absl::StrContains(*read, "-----BEGIN ")) {
      return absl::InvalidArgumentError(absl::StrCat(
          flag_prefix, name, "=", *path, ": not a PEM file (no -----BEGIN)"));
    }
    *contents[i] = *std::move(read);
  }
  return files;
}

absl::Status SetTlsConfig(const TlsConfig& config) {
  absl::StatusOr<TlsCredentialFiles> files = ReadTlsFiles(config, "--tls_");
  if (!files.ok()) return files.status();
  std::lock_guard<std::mutex> lock(tls_mu);
  process_tls = ProcessTls{config.enabled(), *std::move(files)};
  return absl::OkStatus();
}

ProcessTls CurrentTls() {
  std::lock_guard<std::mutex> lock(tls_mu);
  if (!process_tls.has_value()) {
    const TlsConfig config = TlsConfigInEnvironment();
    absl::StatusOr<TlsCredentialFiles> files =
        ReadTlsFiles(config, "SLUICE_TLS_");
    if (files.ok()) {
      process_tls = ProcessTls{config.enabled(), *std::move(files)};
    } else {
      // Fail closed: TLS was asked for, so nothing goes out in plaintext.
      std::fprintf(stderr,
                   "error: %s; every TLS handshake of this process will "
                   "fail\n",
                   std::string(files.status().message()).c_str());
      process_tls = ProcessTls{/*enabled=*/true, TlsCredentialFiles()};
    }
  }
  return *process_tls;
}

bool InsecureListeningAllowed() {
  int allowed = insecure_allowed.load();
  if (allowed < 0) {
    allowed = Variable("SLUICE_INSECURE") == "1" ? 1 : 0;
    int unread = -1;
    insecure_allowed.compare_exchange_strong(unread, allowed);
  }
  return insecure_allowed.load() == 1;
}

void AllowInsecureListening(bool allowed) {
  insecure_allowed.store(allowed ? 1 : 0);
}

}  // namespace sluice
