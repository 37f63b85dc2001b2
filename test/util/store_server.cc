#include "test/util/store_server.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "lib/support/grpc_liveness.h"

namespace sluice::testing {

StoreServer::StoreServer(const ccl::StoreServiceOptions& options)
    : service_(ccl::NewStoreService(options)) {
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  AddLivenessArguments(&builder);
  builder.RegisterService(service_.get());
  server_ = builder.BuildAndStart();
  if (server_ != nullptr && port != 0) {
    address_ = absl::StrCat("127.0.0.1:", port);
  }
}

StoreServer::~StoreServer() {
  if (server_ == nullptr) return;
  // Waiting Gets end at their deadlines; cancel them now instead.
  server_->Shutdown(std::chrono::system_clock::now());
}

}  // namespace sluice::testing
