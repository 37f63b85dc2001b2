// The healing service and its client in one process over loopback gRPC:
// the state arrives whole and checked; a bit flipped on the way, a short
// stream, a peer at another step, a dead peer and a slow one are each a
// retryable error that names the peer replica and its address.
#include <memory>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "lib/ft/heal_client.h"
#include "lib/ft/heal_server.h"
#include "lib/ft/heal_service.grpc.pb.h"
#include "lib/support/crc32.h"
#include "sluice/support/failure.h"
#include "sluice/support/fault_point.h"

namespace sluice::ft {
namespace {

using ::testing::HasSubstr;

// 5 MiB and a bit: six chunks, the last one short.
std::string MakeState() {
  std::mt19937 random(11);
  std::string bytes(5 * kHealChunkBytes + 123, '\0');
  for (char& c : bytes) c = static_cast<char>(random());
  return bytes;
}

class HealTest : public ::testing::Test {
 protected:
  void SetUp() override {
    state_ = MakeState();
    absl::StatusOr<std::unique_ptr<HealServer>> server = HealServer::Start(
        "127.0.0.1", "replica-a", [this](bool) -> absl::StatusOr<ServedState> {
          return ServedState{5, state_};
        });
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    peer_ = {"replica-a", server_->address()};
  }
  void TearDown() override { FaultInjector::Clear(); }

  absl::StatusOr<ServedState> Fetch(
      int64_t step, absl::Duration timeout = absl::Seconds(20)) {
    return FetchState(peer_, "replica-b", step, absl::Now() + timeout);
  }

  // The error names the peer and its address and is retryable.
  void ExpectPeerError(const absl::Status& status, absl::StatusCode code,
                       const std::string& why) {
    EXPECT_EQ(status.code(), code) << status;
    EXPECT_THAT(std::string(status.message()),
                HasSubstr(absl::StrCat("healing from replica replica-a at ",
                                       peer_.address, " failed: ")));
    EXPECT_THAT(std::string(status.message()), HasSubstr(why));
    EXPECT_EQ(Classify(status), FailureClass::kRetryable);
  }

  std::string state_;
  std::unique_ptr<HealServer> server_;
  HealPeer peer_;
};

TEST_F(HealTest, TheStateArrivesWholeAtItsStep) {
  EXPECT_THAT(server_->address(), HasSubstr("127.0.0.1:"));
  absl::StatusOr<ServedState> fetched = Fetch(5);
  ASSERT_TRUE(fetched.ok()) << fetched.status();
  EXPECT_EQ(fetched->step, 5);
  EXPECT_EQ(fetched->bytes.size(), state_.size());
  EXPECT_EQ(Crc32(fetched->bytes), Crc32(state_));
  EXPECT_TRUE(fetched->bytes == state_);
}

TEST_F(HealTest, AnEmptyStateArrivesToo) {
  state_.clear();
  absl::StatusOr<ServedState> fetched = Fetch(5);
  ASSERT_TRUE(fetched.ok()) << fetched.status();
  EXPECT_EQ(fetched->bytes, "");
}

TEST_F(HealTest, ABitFlippedOnTheWayFailsTheChecksum) {
  ASSERT_TRUE(FaultInjector::Set("manager.heal.send=error@nth=3").ok());
  absl::StatusOr<ServedState> fetched = Fetch(5);
  ExpectPeerError(fetched.status(), absl::StatusCode::kDataLoss,
                  "checksum mismatch over 5243003 bytes");
  // Only that transfer was damaged.
  fetched = Fetch(5);
  ASSERT_TRUE(fetched.ok()) << fetched.status();
  EXPECT_TRUE(fetched->bytes == state_);
}

TEST_F(HealTest, APeerAtAnotherStepRefuses) {
  absl::StatusOr<ServedState> fetched = Fetch(7);
  ExpectPeerError(fetched.status(), absl::StatusCode::kFailedPrecondition,
                  "replica replica-a is at step 5, not at step 7 that replica "
                  "replica-b heals to");
}

// A replica healing in the background takes a later step, never an
// earlier one.
TEST_F(HealTest, AtLeastTakesALaterStepButNoEarlierOne) {
  absl::StatusOr<ServedState> fetched = FetchState(
      peer_, "replica-b", 3, absl::Now() + absl::Seconds(20), /*at_least=*/true);
  ASSERT_TRUE(fetched.ok()) << fetched.status();
  EXPECT_EQ(fetched->step, 5);
  EXPECT_EQ(fetched->bytes, state_);
  fetched = FetchState(peer_, "replica-b", 7, absl::Now() + absl::Seconds(20),
                       /*at_least=*/true);
  ExpectPeerError(fetched.status(), absl::StatusCode::kFailedPrecondition,
                  "replica replica-a is at step 5, before step 7 that replica "
                  "replica-b heals to");
}

TEST_F(HealTest, ADeadPeerIsUnavailable) {
  server_.reset();
  absl::StatusOr<ServedState> fetched = Fetch(5, absl::Seconds(5));
  EXPECT_EQ(Classify(fetched.status()), FailureClass::kRetryable);
  EXPECT_THAT(std::string(fetched.status().message()),
              HasSubstr(absl::StrCat("healing from replica replica-a at ",
                                     peer_.address, " failed")));
}

TEST_F(HealTest, ASlowPeerMissesTheDeadline) {
  ASSERT_TRUE(FaultInjector::Set("manager.heal.send=delay:2000@nth=2").ok());
  const absl::Time start = absl::Now();
  absl::StatusOr<ServedState> fetched = Fetch(5, absl::Milliseconds(300));
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
  ExpectPeerError(fetched.status(), absl::StatusCode::kDeadlineExceeded,
                  "without a checksum");
}

// A service that announces more bytes than it sends.
class ShortStreamService final : public proto::Heal::Service {
  grpc::Status FetchState(
      grpc::ServerContext*, const proto::FetchStateRequest* request,
      grpc::ServerWriter<proto::StateChunk>* writer) override {
    proto::StateChunk chunk;
    chunk.mutable_header()->set_replica_id("replica-a");
    chunk.mutable_header()->set_step(request->step());
    chunk.mutable_header()->set_total_bytes(10);
    writer->Write(chunk);
    chunk.set_data("12345");
    writer->Write(chunk);
    chunk.mutable_trailer()->set_crc32(Crc32("12345"));
    writer->Write(chunk);
    return grpc::Status::OK;
  }
};

TEST(HealShortStreamTest, AShortStreamIsRefused) {
  ShortStreamService service;
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(port, 0);
  const HealPeer peer{"replica-a", absl::StrCat("127.0.0.1:", port)};
  absl::StatusOr<ServedState> fetched =
      FetchState(peer, "replica-b", 3, absl::Now() + absl::Seconds(20));
  EXPECT_EQ(fetched.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(
      std::string(fetched.status().message()),
      HasSubstr(absl::StrCat("healing from replica replica-a at ", peer.address,
                             " failed: it sent 5 of the 10 bytes it "
                             "announced")));
  EXPECT_EQ(Classify(fetched.status()), FailureClass::kRetryable);
  server->Shutdown();
}

}  // namespace
}  // namespace sluice::ft
