// The rendezvous store over loopback gRPC: keys under generations, waiting
// gets, the memory bound and the dropping of old generations.
#include "lib/collective/store_service.h"

#include <memory>
#include <string>
#include <thread>

#include "absl/time/clock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "lib/collective/store_service.grpc.pb.h"
#include "test/util/store_server.h"

namespace sluice::ccl {
namespace {

class StoreServiceTest : public ::testing::Test {
 protected:
  explicit StoreServiceTest(const StoreServiceOptions& options = {})
      : server_(options),
        stub_(proto::KeyValueStore::NewStub(grpc::CreateChannel(
            server_.address(), grpc::InsecureChannelCredentials()))) {}

  grpc::Status Set(const std::string& key, const std::string& value) {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
    proto::SetRequest request;
    request.set_key(key);
    request.set_value(value);
    proto::SetResponse response;
    return stub_->Set(&context, request, &response);
  }

  grpc::Status Get(std::vector<std::string> keys, bool wait,
                   absl::Duration timeout, proto::GetResponse* response) {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
    proto::GetRequest request;
    for (const std::string& key : keys) request.add_keys(key);
    request.set_wait(wait);
    return stub_->Get(&context, request, response);
  }

  testing::StoreServer server_;
  std::unique_ptr<proto::KeyValueStore::Stub> stub_;
};

TEST_F(StoreServiceTest, GetsWhatWasSet) {
  ASSERT_TRUE(Set("gen/1/a", "alpha").ok());
  ASSERT_TRUE(Set("gen/1/b", std::string("\0b", 2)).ok());
  proto::GetResponse response;
  ASSERT_TRUE(
      Get({"gen/1/b", "gen/1/a"}, false, absl::Seconds(5), &response).ok());
  ASSERT_EQ(response.values_size(), 2);
  EXPECT_EQ(response.values(0), std::string("\0b", 2));
  EXPECT_EQ(response.values(1), "alpha");
}

TEST_F(StoreServiceTest, GenerationsDoNotShareKeys) {
  ASSERT_TRUE(Set("gen/1/rank0", "old").ok());
  proto::GetResponse response;
  grpc::Status status =
      Get({"gen/2/rank0"}, false, absl::Seconds(5), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(status.error_message().find("gen/2/rank0"), std::string::npos);
}

TEST_F(StoreServiceTest, RefusesKeysOutsideAGeneration) {
  for (const std::string key :
       {"rank0", "gen/x/a", "gen/-1/a", "gen/3/", "gen//a"}) {
    grpc::Status status = Set(key, "v");
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << key;
    EXPECT_NE(status.error_message().find("gen/<generation>/<name>"),
              std::string::npos);
  }
}

TEST_F(StoreServiceTest, WaitingGetReturnsWhenTheKeysAreSet) {
  std::thread setter([this] {
    absl::SleepFor(absl::Milliseconds(200));
    EXPECT_TRUE(Set("gen/4/x", "1").ok());
    absl::SleepFor(absl::Milliseconds(100));
    EXPECT_TRUE(Set("gen/4/y", "2").ok());
  });
  absl::Time start = absl::Now();
  proto::GetResponse response;
  grpc::Status status =
      Get({"gen/4/x", "gen/4/y"}, true, absl::Seconds(10), &response);
  setter.join();
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(290));
  ASSERT_EQ(response.values_size(), 2);
  EXPECT_EQ(response.values(1), "2");
}

grpc::Status Agree(proto::KeyValueStore::Stub& stub, int rank, int size,
                   bool succeeded, int64_t window_ms,
                   proto::AgreeResponse* response) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  proto::AgreeRequest request;
  request.set_key("gen/6/partial/1/agreement");
  request.set_rank(rank);
  request.set_size(size);
  request.set_succeeded(succeeded);
  request.set_window_ms(window_ms);
  return stub.Agree(&context, request, response);
}

std::vector<int> Contributors(const proto::AgreeResponse& response) {
  return std::vector<int>(response.contributors().begin(),
                          response.contributors().end());
}

// Every rank that comes gets the same answer, as soon as the last one
// comes; one that failed its part makes it not all succeeded.
TEST_F(StoreServiceTest, AgreeAnswersEveryRankAlike) {
  std::vector<proto::AgreeResponse> responses(3);
  std::vector<grpc::Status> statuses(3);
  std::vector<std::thread> ranks;
  const absl::Time start = absl::Now();
  for (int rank = 0; rank < 3; ++rank) {
    ranks.emplace_back([&, rank] {
      statuses[rank] = Agree(*stub_, rank, 3, /*succeeded=*/rank != 1,
                             /*window_ms=*/5000, &responses[rank]);
    });
  }
  for (std::thread& rank : ranks) rank.join();
  EXPECT_LT(absl::Now() - start, absl::Seconds(4));
  for (int rank = 0; rank < 3; ++rank) {
    ASSERT_TRUE(statuses[rank].ok()) << statuses[rank].error_message();
    EXPECT_EQ(Contributors(responses[rank]), (std::vector<int>{0, 1, 2}));
    EXPECT_FALSE(responses[rank].all_succeeded());
  }
}

// Two of three come: the store decides a window after the first, without
// the third, and tells the third so when it comes later.
TEST_F(StoreServiceTest, AgreeDecidesWithoutARankThatDoesNotComeInTime) {
  std::vector<proto::AgreeResponse> responses(2);
  std::vector<grpc::Status> statuses(2);
  std::vector<std::thread> ranks;
  const absl::Time start = absl::Now();
  for (int rank = 0; rank < 2; ++rank) {
    ranks.emplace_back([&, rank] {
      statuses[rank] = Agree(*stub_, rank, 3, true, 300, &responses[rank]);
    });
  }
  for (std::thread& rank : ranks) rank.join();
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(290));
  for (int rank = 0; rank < 2; ++rank) {
    ASSERT_TRUE(statuses[rank].ok()) << statuses[rank].error_message();
    EXPECT_EQ(Contributors(responses[rank]), (std::vector<int>{0, 1}));
    EXPECT_FALSE(responses[rank].all_succeeded());
  }
  proto::AgreeResponse late;
  ASSERT_TRUE(Agree(*stub_, 2, 3, true, 300, &late).ok());
  EXPECT_EQ(Contributors(late), (std::vector<int>{0, 1}));
}

TEST_F(StoreServiceTest, AgreeRefusesARankOutsideTheSizeOrNoWindow) {
  proto::AgreeResponse response;
  grpc::Status outside = Agree(*stub_, 3, 3, true, 100, &response);
  EXPECT_EQ(outside.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(outside.error_message().find("rank 3 of 3"), std::string::npos)
      << outside.error_message();
  EXPECT_EQ(Agree(*stub_, 0, 3, true, 0, &response).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(StoreServiceTest, WaitingGetEndsAtItsDeadline) {
  proto::GetResponse response;
  absl::Time start = absl::Now();
  grpc::Status status =
      Get({"gen/4/never"}, true, absl::Milliseconds(300), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

class BoundedStoreTest : public StoreServiceTest {
 protected:
  static StoreServiceOptions Options() {
    StoreServiceOptions options;
    options.max_bytes = 100;
    options.keep_generations = 2;
    return options;
  }
  BoundedStoreTest() : StoreServiceTest(Options()) {}
};

TEST_F(BoundedStoreTest, RefusesPastTheMemoryBound) {
  ASSERT_TRUE(Set("gen/1/a", std::string(80, 'a')).ok());
  grpc::Status status = Set("gen/1/b", std::string(30, 'b'));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(status.error_message().find("bound of 100"), std::string::npos)
      << status.error_message();
  // Replacing a key counts only the difference.
  EXPECT_TRUE(Set("gen/1/a", std::string(60, 'a')).ok());
  EXPECT_TRUE(Set("gen/1/b", std::string(25, 'b')).ok());
}

TEST_F(BoundedStoreTest, DropsGenerationsOlderThanTheNewestKept) {
  ASSERT_TRUE(Set("gen/1/a", std::string(80, 'a')).ok());
  ASSERT_TRUE(Set("gen/2/a", "2").ok());
  // A third generation drops the first, and its bytes.
  ASSERT_TRUE(Set("gen/3/a", std::string(80, 'c')).ok());
  proto::GetResponse response;
  grpc::Status status = Get({"gen/1/a"}, true, absl::Seconds(5), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::ABORTED);
  EXPECT_NE(status.error_message().find("generation 1 was dropped"),
            std::string::npos)
      << status.error_message();
  EXPECT_EQ(Set("gen/1/b", "late").error_code(), grpc::StatusCode::ABORTED);
  EXPECT_TRUE(
      Get({"gen/2/a", "gen/3/a"}, false, absl::Seconds(5), &response).ok());
}

TEST_F(BoundedStoreTest, AWaitingGetOfADroppedGenerationEnds) {
  ASSERT_TRUE(Set("gen/1/a", "1").ok());
  std::thread newer([this] {
    absl::SleepFor(absl::Milliseconds(200));
    EXPECT_TRUE(Set("gen/2/a", "2").ok());
    EXPECT_TRUE(Set("gen/3/a", "3").ok());
  });
  proto::GetResponse response;
  grpc::Status status =
      Get({"gen/1/never"}, true, absl::Seconds(10), &response);
  newer.join();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::ABORTED);
}

// The lighthouse's store: generations it did not issue are refused, set
// and got, with the reason its owner gives.
class OwnedStoreTest : public StoreServiceTest {
 protected:
  static StoreServiceOptions Options() {
    StoreServiceOptions options;
    options.refuse_generation = [](int64_t generation) -> std::string {
      if (generation >= 5) return "";
      return "quorum " + std::to_string(generation) + " is not mine";
    };
    return options;
  }
  OwnedStoreTest() : StoreServiceTest(Options()) {}
};

TEST_F(OwnedStoreTest, RefusesGenerationsItsOwnerDidNotIssue) {
  grpc::Status status = Set("gen/4/a", "4");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::ABORTED);
  EXPECT_EQ(status.error_message(), "store: quorum 4 is not mine");
  proto::GetResponse response;
  const absl::Time start = absl::Now();
  status = Get({"gen/4/a"}, true, absl::Seconds(10), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::ABORTED);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  ASSERT_TRUE(Set("gen/5/a", "5").ok());
  EXPECT_TRUE(Get({"gen/5/a"}, false, absl::Seconds(5), &response).ok());
}

}  // namespace
}  // namespace sluice::ccl
