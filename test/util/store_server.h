// A rendezvous store (the KeyValueStore service) on a free loopback port,
// for collective tests.
#ifndef SLUICE_TEST_UTIL_STORE_SERVER_H_
#define SLUICE_TEST_UTIL_STORE_SERVER_H_

#include <memory>
#include <string>

#include "grpcpp/grpcpp.h"
#include "lib/collective/store_service.h"

namespace sluice::testing {

class StoreServer {
 public:
  explicit StoreServer(const ccl::StoreServiceOptions& options = {});
  ~StoreServer();

  // 127.0.0.1:<port>; empty when the server did not start.
  const std::string& address() const { return address_; }

 private:
  std::unique_ptr<grpc::Service> service_;
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
};

}  // namespace sluice::testing

#endif  // SLUICE_TEST_UTIL_STORE_SERVER_H_
