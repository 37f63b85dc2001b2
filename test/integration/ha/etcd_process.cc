#include "test/integration/ha/etcd_process.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace sluice::lighthouse::testing {
namespace {

constexpr absl::Duration kHealthTimeout = absl::Seconds(30);

std::string TempRoot() {
  const char* dir = getenv("TEST_TMPDIR");
  return dir != nullptr && *dir != '\0' ? dir : "/tmp";
}

}  // namespace

bool EtcdProcess::Healthy() const {
  std::unique_ptr<httplib::ClientImpl> client;
  if (tls_.has_value()) {
    auto tls_client = std::make_unique<httplib::SSLClient>(
        "127.0.0.1", client_port_, tls_->cert_file, tls_->key_file);
    tls_client->set_ca_cert_path(tls_->ca_file.c_str());
    client = std::move(tls_client);
  } else {
    client = std::make_unique<httplib::ClientImpl>("127.0.0.1", client_port_);
  }
  client->set_connection_timeout(std::chrono::milliseconds(300));
  client->set_read_timeout(std::chrono::milliseconds(500));
  httplib::Result result = client->Get("/health");
  return result && result->status == 200 &&
         absl::StrContains(result->body, "\"health\":\"true\"");
}

absl::StatusOr<int> PickFreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) {
    return absl::InternalError(absl::StrCat("socket: ", strerror(errno)));
  }
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    const int error = errno;
    close(fd);
    return absl::InternalError(
        absl::StrCat("binding a free port: ", strerror(error)));
  }
  close(fd);
  return ntohs(address.sin_port);
}

absl::StatusOr<std::unique_ptr<EtcdProcess>> EtcdProcess::Start(
    std::optional<TlsConfig> tls) {
  absl::Status last;
  // A picked port may be taken by someone else before etcd binds it.
  for (int attempt = 0; attempt < 3; ++attempt) {
    absl::StatusOr<int> client_port = PickFreePort();
    absl::StatusOr<int> peer_port = PickFreePort();
    if (!client_port.ok()) return client_port.status();
    if (!peer_port.ok()) return peer_port.status();
    std::string dir = TempRoot() + "/etcd.XXXXXX";
    if (mkdtemp(dir.data()) == nullptr) {
      return absl::InternalError(
          absl::StrCat("mkdtemp ", dir, ": ", strerror(errno)));
    }
    std::unique_ptr<EtcdProcess> etcd(
        new EtcdProcess(dir, *client_port, *peer_port, tls));
    last = etcd->Launch();
    if (last.ok()) return etcd;
  }
  return last;
}

absl::Status EtcdProcess::Launch() {
  const std::string client = endpoint();
  const std::string peer = absl::StrCat("http://127.0.0.1:", peer_port_);
  std::vector<std::string> argv = {"/usr/bin/etcd",
                                   "--name=test",
                                   "--data-dir=" + data_dir_ + "/data",
                                   "--listen-client-urls=" + client,
                                   "--advertise-client-urls=" + client,
                                   "--listen-peer-urls=" + peer,
                                   "--initial-advertise-peer-urls=" + peer,
                                   "--initial-cluster=test=" + peer,
                                   "--log-level=warn"};
  if (tls_.has_value()) {
    argv.insert(
        argv.end(),
        {"--cert-file=" + tls_->cert_file, "--key-file=" + tls_->key_file,
         "--client-cert-auth", "--trusted-ca-file=" + tls_->ca_file});
  }
  absl::StatusOr<std::unique_ptr<LoggedProcess>> process =
      LoggedProcess::Start(absl::StrCat("etcd on ", client), std::move(argv));
  if (!process.ok()) return process.status();
  process_ = *std::move(process);
  const absl::Time deadline = absl::Now() + kHealthTimeout;
  while (absl::Now() < deadline) {
    if (Healthy()) return absl::OkStatus();
    if (process_->WaitForExit(absl::Milliseconds(100))) {
      return absl::UnavailableError(absl::StrCat(
          "etcd exited before it was healthy:\n", process_->Tail()));
    }
  }
  return absl::DeadlineExceededError(absl::StrCat(
      "etcd on ", client, " not healthy within ",
      absl::FormatDuration(kHealthTimeout), ":\n", process_->Tail()));
}

EtcdProcess::~EtcdProcess() {
  process_.reset();
  std::error_code ignored;
  std::filesystem::remove_all(data_dir_, ignored);
}

std::string EtcdProcess::endpoint() const {
  return absl::StrCat(tls_.has_value() ? "https" : "http",
                      "://127.0.0.1:", client_port_);
}

void EtcdProcess::Kill() {
  if (process_ != nullptr) process_->Kill();
  process_.reset();
}

absl::Status EtcdProcess::Restart() {
  Kill();
  return Launch();
}

}  // namespace sluice::lighthouse::testing
