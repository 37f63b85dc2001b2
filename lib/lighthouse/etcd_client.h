// EtcdClient: the few etcd v3 calls the lighthouses need (leases, get, put,
// compare-and-swap transactions), over etcd's JSON gateway (POST /v3/...,
// keys and values base64, 64-bit integers as strings).
//
// Every request has a timeout, and its connection the process's liveness
// bound (sluice/support/liveness.h): TCP gives up on an etcd that went
// silent (a vanished host, a partition) within LivenessTimeout() + 1 s
// whatever the request's timeout. Endpoints are tried in turn, starting with
// the last one that answered; an endpoint that cannot be reached, or that
// answers that it is unavailable, passes the request to the next one. When
// none answers the call fails with UNAVAILABLE naming every endpoint.
//
// An https:// endpoint is dialed with the process's mutual TLS files
// (sluice/support/tls.h, as at Create): the client presents its certificate
// and accepts only an etcd certificate of the CA naming the host dialed. A
// handshake that fails passes the request on like an unreachable endpoint,
// the error saying that the TLS handshake failed and why.
#ifndef SLUICE_LIB_LIGHTHOUSE_ETCD_CLIENT_H_
#define SLUICE_LIB_LIGHTHOUSE_ETCD_CLIENT_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "sluice/support/tls.h"

namespace sluice::lighthouse {

class EtcdTls;

struct EtcdKeyValue {
  std::string key;
  std::string value;
  int64_t create_revision = 0;
  int64_t mod_revision = 0;
  int64_t lease = 0;  // 0 when the key has none
};

// One comparison of a transaction; all must hold for its puts to happen.
struct EtcdCompare {
  enum class Target { kValue, kCreateRevision, kModRevision };

  static EtcdCompare ValueIs(std::string key, std::string value);
  // create_revision 0 means "the key does not exist".
  static EtcdCompare CreateRevisionIs(std::string key, int64_t revision);
  static EtcdCompare ModRevisionIs(std::string key, int64_t revision);

  std::string key;
  Target target = Target::kValue;
  std::string value;
  int64_t revision = 0;
};

struct EtcdPut {
  std::string key;
  std::string value;
  int64_t lease = 0;  // 0: the key outlives every lease
};

struct EtcdTxnResult {
  bool succeeded = false;  // every comparison held and the puts happened
  int64_t revision = 0;    // the store's revision after the transaction
};

class EtcdClient {
 public:
  // `endpoints` are "http://host:port" or "https://host:port" (no scheme
  // means http); INVALID_ARGUMENT for an empty list, a malformed endpoint,
  // or an https one when the process has no TLS configured (or TLS files
  // OpenSSL cannot use). The liveness bound is LivenessTimeout() and the TLS
  // files CurrentTls() as they are now.
  static absl::StatusOr<std::unique_ptr<EtcdClient>> Create(
      std::vector<std::string> endpoints, absl::Duration request_timeout);
  // The same with `tls` in place of the process's.
  static absl::StatusOr<std::unique_ptr<EtcdClient>> Create(
      std::vector<std::string> endpoints, absl::Duration request_timeout,
      const ProcessTls& tls);

  ~EtcdClient();

  // "http://a:2379,http://b:2379" → its endpoints.
  static std::vector<std::string> SplitEndpoints(const std::string& list);

  // A lease of `ttl` (whole seconds, at least 1); its id.
  absl::StatusOr<int64_t> GrantLease(absl::Duration ttl);
  // Renews the lease; its remaining TTL in seconds, 0 when it has expired.
  absl::StatusOr<int64_t> KeepAlive(int64_t lease);
  absl::Status RevokeLease(int64_t lease);

  // The key, or nullopt when it does not exist.
  absl::StatusOr<std::optional<EtcdKeyValue>> Get(const std::string& key);
  absl::Status Put(const EtcdPut& put);
  absl::StatusOr<EtcdTxnResult> Txn(const std::vector<EtcdCompare>& compares,
                                    const std::vector<EtcdPut>& on_success);

  // "http://a:2379, http://b:2379", for messages.
  std::string DescribeEndpoints() const;

 private:
  struct Endpoint {
    std::string host;
    int port = 0;
    bool https = false;
    std::string url;  // as given, for messages
  };

  EtcdClient(std::vector<Endpoint> endpoints, absl::Duration request_timeout,
             absl::Duration liveness, std::unique_ptr<const EtcdTls> tls);

  // POSTs `request` to `path` on the endpoints in turn; the reply (a JSON
  // object), or the error etcd answered with (its gRPC code, which absl
  // shares).
  absl::StatusOr<nlohmann::json> Post(const std::string& path,
                                      const nlohmann::json& request);

  const std::vector<Endpoint> endpoints_;
  const absl::Duration request_timeout_;
  const absl::Duration liveness_;  // LivenessTimeout() at Create
  // The TLS files for the https endpoints; null when there are none.
  const std::unique_ptr<const EtcdTls> tls_;
  std::atomic<size_t> preferred_{0};  // the endpoint that answered last
};

}  // namespace sluice::lighthouse

#endif  // SLUICE_LIB_LIGHTHOUSE_ETCD_CLIENT_H_
