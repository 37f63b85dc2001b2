// Mutual TLS on the rendezvous store of collective groups (served in this
// process, as the lighthouse serves it; called by Gloo's and NCCL's ranks)
// and on a replica's healing service, on 127.0.0.1. With certificates of
// one CA the ranks meet and the state arrives. A client that presents no
// certificate is refused by the server. A plaintext client, a client
// certificate of another CA or an expired one, a server certificate the
// client does not trust and a plaintext server are each refused at once,
// not at the end of the connect timeout, with an error that names the
// server and says the handshake failed, classified fatal.
// tls_launcher_test.cc does the same for the launcher's services;
// tls_test.cc for the worker, whose server also serves the variables.
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "lib/collective/nccl_fake_api.h"
#include "lib/collective/nccl_group_internal.h"
#include "lib/collective/store_service.h"
#include "lib/ft/heal_client.h"
#include "lib/ft/heal_server.h"
#include "lib/support/grpc_credentials.h"
#include "sluice/collective/gloo_group.h"
#include "sluice/support/tls.h"
#include "test/integration/tls_fixture.h"

namespace sluice::testing {
namespace {

// A rendezvous store on a free 127.0.0.1 port, with the TLS of the process
// when it is made.
class Store {
 public:
  Store() : service_(ccl::NewStoreService()) {
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", NewServerCredentials(), &port);
    builder.RegisterService(service_.get());
    server_ = builder.BuildAndStart();
    if (server_ != nullptr && port != 0) {
      address_ = absl::StrCat("127.0.0.1:", port);
    }
  }
  ~Store() {
    if (server_ != nullptr) server_->Shutdown(std::chrono::system_clock::now());
  }

  // Empty when the server did not start.
  const std::string& address() const { return address_; }

 private:
  std::unique_ptr<grpc::Service> service_;
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
};

class StoreTlsTest : public TlsFixture {
 protected:
  StoreTlsTest() {
    environment_.api = &api_;
    environment_.watchdog = &watchdog_;
    environment_.device_tensors = false;
  }
  ~StoreTlsTest() override {
    // The watchdog lets go of a group's communicator on its own thread.
    const absl::Time give_up = absl::Now() + kDeadline;
    while (watchdog_.watched() > 0 && absl::Now() < give_up) {
      absl::SleepFor(absl::Milliseconds(1));
    }
    EXPECT_EQ(watchdog_.watched(), 0);
  }

  // The store with `server`'s TLS, then the process's set to `client`.
  void Start(const TlsConfig& server, const TlsConfig& client) {
    ASSERT_TRUE(SetTlsConfig(server).ok());
    store_ = std::make_unique<Store>();
    ASSERT_FALSE(store_->address().empty());
    ASSERT_TRUE(SetTlsConfig(client).ok());
  }

  ccl::GlooGroupOptions Gloo(int rank, int size) const {
    ccl::GlooGroupOptions options;
    options.store_address = store_->address();
    options.rank = rank;
    options.size = size;
    options.generation = 1;
    options.connect_timeout = kDeadline;
    return options;
  }

  absl::StatusOr<RCReference<ccl::NcclGroup>> Nccl() {
    ccl::NcclGroupOptions options;
    options.store_address = store_->address();
    options.generation = 2;
    options.connect_timeout = kDeadline;
    return ccl::CreateNcclGroupIn(options, environment_);
  }

  std::unique_ptr<Store> store_;
  ccl::FakeNcclApi api_;
  ccl::NcclWatchdog watchdog_;
  ccl::NcclGroupEnvironment environment_;
};

// Rank 1 finds rank 0's address only through the store.
TEST_F(StoreTlsTest, GlooRanksMeetOverMutualTls) {
  ASSERT_NO_FATAL_FAILURE(Start(certificates().good, certificates().good));
  absl::StatusOr<RCReference<ccl::CollectiveGroup>> second;
  std::thread rank1([&] { second = ccl::CreateGlooGroup(Gloo(1, 2)); });
  absl::StatusOr<RCReference<ccl::CollectiveGroup>> first =
      ccl::CreateGlooGroup(Gloo(0, 2));
  rank1.join();
  EXPECT_TRUE(first.ok()) << first.status();
  EXPECT_TRUE(second.ok()) << second.status();
}

// Rank 0 sets the ncclUniqueId in the store.
TEST_F(StoreTlsTest, AnNcclRankSetsItsIdOverMutualTls) {
  ASSERT_NO_FATAL_FAILURE(Start(certificates().good, certificates().good));
  absl::StatusOr<RCReference<ccl::NcclGroup>> group = Nccl();
  EXPECT_TRUE(group.ok()) << group.status();
}

TEST_F(StoreTlsTest, AClientWithoutACertificateIsRefused) {
  ASSERT_NO_FATAL_FAILURE(Start(certificates().good, certificates().good));
  EXPECT_EQ(CallOverTls(store_->address(), &certificates().good),
            grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(CallOverTls(store_->address(), nullptr),
            grpc::StatusCode::UNAVAILABLE);
}

TEST_P(StoreTlsTest, AGlooRankIsRefused) {
  ASSERT_NO_FATAL_FAILURE(Start(ServerTls(GetParam()), ClientTls(GetParam())));
  const absl::Time start = absl::Now();
  absl::StatusOr<RCReference<ccl::CollectiveGroup>> group =
      ccl::CreateGlooGroup(Gloo(0, 1));
  ExpectRefused(group.status(), absl::Now() - start,
                absl::StrCat("connecting rank 0 of 1 (generation 1) through "
                             "the store at ",
                             store_->address(), " failed: rendezvous store: "));
}

TEST_P(StoreTlsTest, AnNcclRankIsRefused) {
  ASSERT_NO_FATAL_FAILURE(Start(ServerTls(GetParam()), ClientTls(GetParam())));
  const absl::Time start = absl::Now();
  absl::StatusOr<RCReference<ccl::NcclGroup>> group = Nccl();
  ExpectRefused(
      group.status(), absl::Now() - start,
      absl::StrCat("reaching the store at ", store_->address(), " failed: "));
}

INSTANTIATE_TEST_SUITE_P(Refusals, StoreTlsTest,
                         ::testing::ValuesIn(AllRefusals()), RefusalName);

class HealTlsTest : public TlsFixture {
 protected:
  // Replica "replica-a" serving with `server`'s TLS, then the process's set
  // to `client`.
  void Start(const TlsConfig& server, const TlsConfig& client) {
    ASSERT_TRUE(SetTlsConfig(server).ok());
    absl::StatusOr<std::unique_ptr<ft::HealServer>> started =
        ft::HealServer::Start(
            "127.0.0.1", "replica-a",
            [this](bool) -> absl::StatusOr<ft::ServedState> {
              served_.fetch_add(1);
              return ft::ServedState{5, "the state of step 5"};
            });
    ASSERT_TRUE(started.ok()) << started.status();
    server_ = *std::move(started);
    ASSERT_TRUE(SetTlsConfig(client).ok());
  }

  absl::StatusOr<ft::ServedState> Fetch() {
    return ft::FetchState({"replica-a", server_->address()}, "replica-b", 5,
                          absl::Now() + kDeadline);
  }

  std::unique_ptr<ft::HealServer> server_;
  std::atomic<int> served_{0};
};

TEST_F(HealTlsTest, TheStateArrivesOverMutualTls) {
  ASSERT_NO_FATAL_FAILURE(Start(certificates().good, certificates().good));
  absl::StatusOr<ft::ServedState> fetched = Fetch();
  ASSERT_TRUE(fetched.ok()) << fetched.status();
  EXPECT_EQ(fetched->step, 5);
  EXPECT_EQ(fetched->bytes, "the state of step 5");
}

TEST_F(HealTlsTest, AClientWithoutACertificateIsRefused) {
  ASSERT_NO_FATAL_FAILURE(Start(certificates().good, certificates().good));
  EXPECT_EQ(CallOverTls(server_->address(), &certificates().good),
            grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(CallOverTls(server_->address(), nullptr),
            grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(served_.load(), 0);
}

TEST_P(HealTlsTest, ARecoveringReplicaIsRefused) {
  ASSERT_NO_FATAL_FAILURE(Start(ServerTls(GetParam()), ClientTls(GetParam())));
  const absl::Time start = absl::Now();
  absl::StatusOr<ft::ServedState> fetched = Fetch();
  ExpectRefused(fetched.status(), absl::Now() - start,
                absl::StrCat("healing from replica replica-a at ",
                             server_->address(), " failed: "));
  EXPECT_EQ(served_.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(Refusals, HealTlsTest,
                         ::testing::ValuesIn(AllRefusals()), RefusalName);

}  // namespace
}  // namespace sluice::testing
