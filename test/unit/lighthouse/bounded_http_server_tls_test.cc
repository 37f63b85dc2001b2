// BoundedHttpServer over HTTPS: the handshake in its loop, a client
// without a certificate reading, and routes that act only for a client
// whose certificate verified against the CA; a client stalled mid-handshake
// is dropped at request_timeout while another one is served.
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "lib/lighthouse/bounded_http_server.h"
#include "test/util/test_certificates.h"

namespace sluice::lighthouse {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  std::stringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

HttpTlsFiles FilesOf(const TlsConfig& config) {
  return {ReadFile(config.cert_file), ReadFile(config.key_file),
          ReadFile(config.ca_file)};
}

class BoundedHttpServerTlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    ASSERT_NE(tmp, nullptr);
    auto made = testing::MakeTestCertificates(std::string(tmp) + "/certs");
    ASSERT_TRUE(made.ok()) << made.status();
    certs_ = *made;
  }

  // Serves GET /page to anyone and POST /act to a verified client only,
  // answering with its common name.
  std::unique_ptr<BoundedHttpServer> Serve(const HttpServerLimits& limits) {
    auto routes = std::make_unique<HttpRoutes>();
    HttpRoutes* seen = routes.get();
    routes->Get("/page", [](const httplib::Request&, httplib::Response& out) {
      out.set_content("the page", "text/plain");
    });
    routes->Post("/act", [seen](const httplib::Request&,
                                httplib::Response& out) {
      if (!seen->client().verified) {
        out.status = 403;
        out.set_content("no client certificate", "text/plain");
        return;
      }
      out.set_content("acted for " + seen->client().common_name, "text/plain");
    });
    auto server = BoundedHttpServer::Start("127.0.0.1", 0, std::move(routes),
                                           limits, FilesOf(certs_.good));
    EXPECT_TRUE(server.ok()) << server.status();
    return server.ok() ? *std::move(server) : nullptr;
  }

  // A client that checks the server against the CA and presents `config`'s
  // certificate when given.
  std::unique_ptr<httplib::SSLClient> Client(int port,
                                             const TlsConfig* config) {
    auto client =
        config == nullptr
            ? std::make_unique<httplib::SSLClient>("127.0.0.1", port)
            : std::make_unique<httplib::SSLClient>(
                  "127.0.0.1", port, config->cert_file, config->key_file);
    client->set_ca_cert_path(certs_.ca_file.c_str());
    client->enable_server_certificate_verification(true);
    client->set_connection_timeout(5);
    client->set_read_timeout(5);
    return client;
  }

  testing::TestCertificates certs_;
};

TEST_F(BoundedHttpServerTlsTest, ServesAClientWithoutCertificate) {
  auto server = Serve(HttpServerLimits());
  ASSERT_NE(server, nullptr);
  auto client = Client(server->port(), nullptr);
  auto got = client->Get("/page");
  ASSERT_TRUE(got) << httplib::to_string(got.error());
  EXPECT_EQ(got->status, 200);
  EXPECT_EQ(got->body, "the page");
  // A second request on the same connection.
  got = client->Get("/page");
  ASSERT_TRUE(got) << httplib::to_string(got.error());
  EXPECT_EQ(got->body, "the page");
}

TEST_F(BoundedHttpServerTlsTest, RefusesAPostWithoutCertificate) {
  auto server = Serve(HttpServerLimits());
  ASSERT_NE(server, nullptr);
  auto got = Client(server->port(), nullptr)->Post("/act", "", "text/plain");
  ASSERT_TRUE(got) << httplib::to_string(got.error());
  EXPECT_EQ(got->status, 403);
  EXPECT_EQ(got->body, "no client certificate");
}

TEST_F(BoundedHttpServerTlsTest, ActsForAVerifiedCertificate) {
  auto server = Serve(HttpServerLimits());
  ASSERT_NE(server, nullptr);
  auto got =
      Client(server->port(), &certs_.good)->Post("/act", "", "text/plain");
  ASSERT_TRUE(got) << httplib::to_string(got.error());
  EXPECT_EQ(got->status, 200);
  EXPECT_EQ(got->body, "acted for good");
}

TEST_F(BoundedHttpServerTlsTest, RefusesCertificatesThatDoNotVerify) {
  auto server = Serve(HttpServerLimits());
  ASSERT_NE(server, nullptr);
  for (const TlsConfig* config : {&certs_.expired, &certs_.other_ca}) {
    auto got = Client(server->port(), config)->Post("/act", "", "text/plain");
    ASSERT_TRUE(got) << config->cert_file << ": "
                     << httplib::to_string(got.error());
    EXPECT_EQ(got->status, 403) << config->cert_file;
  }
}

TEST_F(BoundedHttpServerTlsTest, RefusesAPlainHttpClient) {
  auto server = Serve(HttpServerLimits());
  ASSERT_NE(server, nullptr);
  httplib::Client plain("127.0.0.1", server->port());
  plain.set_read_timeout(5);
  EXPECT_FALSE(plain.Get("/page"));
}

TEST_F(BoundedHttpServerTlsTest, DropsAClientStalledInTheHandshake) {
  HttpServerLimits limits;
  limits.request_timeout = absl::Milliseconds(500);
  auto server = Serve(limits);
  ASSERT_NE(server, nullptr);
  const int stalled = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(server->port()));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(
      connect(stalled, reinterpret_cast<sockaddr*>(&address), sizeof(address)),
      0);
  // The first bytes of a ClientHello record, and nothing more.
  const char hello_start[] = {0x16, 0x03, 0x01, 0x02};
  ASSERT_EQ(send(stalled, hello_start, sizeof(hello_start), MSG_NOSIGNAL),
            static_cast<ssize_t>(sizeof(hello_start)));
  const absl::Time start = absl::Now();

  auto got = Client(server->port(), nullptr)->Get("/page");
  ASSERT_TRUE(got) << httplib::to_string(got.error());
  EXPECT_EQ(got->body, "the page");

  pollfd polled = {stalled, POLLIN, 0};
  ASSERT_EQ(poll(&polled, 1, 5000), 1) << "the stalled client was kept";
  char byte;
  EXPECT_LE(recv(stalled, &byte, 1, 0), 0);
  const absl::Duration held = absl::Now() - start;
  EXPECT_GE(held, absl::Milliseconds(400));
  EXPECT_LT(held, absl::Seconds(3));
  close(stalled);
}

}  // namespace
}  // namespace sluice::lighthouse
