// The status page of a sluice_lighthouse that runs with TLS, in headless
// Chromium (which has no client certificate): the page comes over HTTPS,
// each member's row has a drain and a kill button, and clicking kill shows
// the lighthouse's refusal. A screenshot of the refusal goes to the test's
// outputs (lighthouse_status_https.png).
#include <stdlib.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/integration/ha/chromium_devtools.h"
#include "test/integration/ha/ha_cluster.h"
#include "test/util/test_certificates.h"

namespace sluice::lighthouse::testing {
namespace {

using ::testing::StartsWith;

// Waits for replica_0's buttons, clicks kill, and settles with the class
// and text of #action-result once the answer shows: "refused|REASON".
constexpr char kClickKill[] = R"js(
new Promise((resolve, reject) => {
  const started = Date.now();
  const row = 'tr[data-replica-id="replica_0"] ';
  const find = () => {
    const kill = document.querySelector(row + "button.kill");
    const drain = document.querySelector(row + "button.drain");
    if (!kill || !drain) {
      if (Date.now() - started > 30000) {
        return reject(new Error("no drain and kill buttons on replica_0"));
      }
      return setTimeout(find, 100);
    }
    kill.click();
    const read = () => {
      const shown = document.getElementById("action-result");
      if (shown.hidden) return setTimeout(read, 50);
      resolve(shown.className + "|" + shown.textContent.trim());
    };
    read();
  };
  find();
})
)js";

TEST(StatusPageHttpsChromiumTest, ShowsButtonsAndTheRefusalOfAKill) {
  const char* tmp = getenv("TEST_TMPDIR");
  ASSERT_NE(tmp, nullptr);
  const std::string dir = absl::StrCat(tmp, "/certificates");
  auto certs = sluice::testing::MakeTestCertificates(dir);
  ASSERT_TRUE(certs.ok()) << certs.status();
  auto replica_cert = sluice::testing::MakeNamedCertificate(dir, "replica_0");
  ASSERT_TRUE(replica_cert.ok()) << replica_cert.status();

  absl::StatusOr<LighthouseProcess> lighthouse = StartLighthouse(
      "lighthouse",
      {"--address=127.0.0.1:0", "--min_replicas=1",
       "--tls_cert=" + certs->good.cert_file,
       "--tls_key=" + certs->good.key_file, "--tls_ca=" + certs->ca_file});
  ASSERT_TRUE(lighthouse.ok()) << lighthouse.status();
  ASSERT_THAT(lighthouse->status_url, StartsWith("https://127.0.0.1:"));
  absl::StatusOr<std::unique_ptr<LoggedProcess>> replica = LoggedProcess::Start(
      "replica replica_0",
      {"/usr/bin/env", "SLUICE_TLS_CERT=" + replica_cert->cert_file,
       "SLUICE_TLS_KEY=" + replica_cert->key_file,
       "SLUICE_TLS_CA=" + replica_cert->ca_file,
       "test/integration/ha/replica_child", "--replica_id=replica_0",
       "--lighthouses=" + lighthouse->address});
  ASSERT_TRUE(replica.ok()) << replica.status();
  ASSERT_TRUE((*replica)->WaitForLine("quorum ", absl::Seconds(30)).ok())
      << (*replica)->Tail() << "\n"
      << lighthouse->process->Tail();

  const char* outputs = getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  ASSERT_NE(outputs, nullptr);
  PageScript script;
  script.url = lighthouse->status_url;
  script.expression = kClickKill;
  script.screenshot_path =
      absl::StrCat(outputs, "/lighthouse_status_https.png");
  // The lighthouse's certificate is of the test's own CA.
  script.flags = {"--ignore-certificate-errors"};
  absl::StatusOr<std::string> shown = Evaluate(script);
  ASSERT_TRUE(shown.ok()) << shown.status();
  EXPECT_EQ(*shown,
            "refused|drain and kill need a client certificate of the "
            "cluster's CA");
  // The refused kill left the replica alone.
  EXPECT_FALSE(absl::StrContains(lighthouse->process->Tail(1000),
                                 "killed replica replica_0"))
      << lighthouse->process->Tail(1000);
}

}  // namespace
}  // namespace sluice::lighthouse::testing
