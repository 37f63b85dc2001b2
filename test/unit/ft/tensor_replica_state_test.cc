#include "lib/ft/tensor_replica_state.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice::ft {
namespace {

using ::testing::HasSubstr;

class TensorReplicaStateTest : public ::testing::Test {
 protected:
  std::vector<DenseHostTensor> MakeTensors() {
    std::vector<DenseHostTensor> tensors;
    const std::vector<float> w = {1.5f, -2.0f, 3.25f, 0.0f, 7.0f, -1.0f};
    tensors.push_back(*DenseHostTensor::FromValues<float>(TensorShape({2, 3}),
                                                          w, allocator_.get()));
    const std::vector<int64_t> step = {42};
    tensors.push_back(*DenseHostTensor::FromValues<int64_t>(
        TensorShape({}), step, allocator_.get()));
    const std::vector<uint8_t> mask = {1, 0, 1};
    tensors.push_back(*DenseHostTensor::Create(DType::kI1, TensorShape({3}),
                                               allocator_.get()));
    std::memcpy(tensors.back().raw_data(), mask.data(), 3);
    tensors.push_back(*DenseHostTensor::Create(DType::kF64, TensorShape({0, 4}),
                                               allocator_.get()));
    return tensors;
  }

  std::unique_ptr<HostAllocator> allocator_ = CreateMallocAllocator();
};

TEST_F(TensorReplicaStateTest, SaveThenLoadGivesEqualTensors) {
  TensorReplicaState source(allocator_.get());
  source.Set(MakeTensors());
  absl::StatusOr<std::string> bytes = source.Save();
  ASSERT_TRUE(bytes.ok()) << bytes.status();

  TensorReplicaState target(allocator_.get());
  ASSERT_TRUE(target.Load(*bytes).ok());
  const std::vector<DenseHostTensor> expected = MakeTensors();
  const std::vector<DenseHostTensor> loaded = target.Get();
  ASSERT_EQ(loaded.size(), expected.size());
  for (size_t i = 0; i < loaded.size(); ++i) {
    EXPECT_TRUE(TensorsEqual(loaded[i], expected[i])) << "tensor #" << i;
    // Its own buffer, not the source's.
    if (loaded[i].num_bytes() > 0) {
      EXPECT_NE(loaded[i].raw_data(), source.Get()[i].raw_data());
    }
  }
  EXPECT_EQ(loaded[0].values<float>()[2], 3.25f);
  EXPECT_EQ(loaded[1].values<int64_t>()[0], 42);
}

TEST_F(TensorReplicaStateTest, DamagedBytesAreRefusedAndKeepTheState) {
  TensorReplicaState source(allocator_.get());
  source.Set(MakeTensors());
  const std::string bytes = *source.Save();

  TensorReplicaState target(allocator_.get());
  target.Set(MakeTensors());
  struct Case {
    std::string bytes;
    std::string error;
  };
  std::string bad_dtype = bytes;
  bad_dtype[8] = 9;  // the first tensor's dtype
  std::string bad_i1 = bytes;
  // The i1 tensor's first element: header 8, f32 [2,3] 2+16+8+24,
  // i64 [] 2+8+8, i1 [3] 2+8+8.
  bad_i1[8 + 50 + 18 + 18] = 2;
  const std::vector<Case> cases = {
      {"", "do not start with the \"SLTS\" header"},
      {"XLTS" + bytes.substr(4), "do not start with the \"SLTS\" header"},
      {bad_dtype, "tensor #0: unknown dtype 9"},
      {bytes.substr(0, 40), "tensor #0: truncated: 24 bytes announced"},
      {bytes + "x", "1 bytes after the last tensor"},
      {bad_i1, "tensor #2: an i1 element is not 0 or 1"},
  };
  for (const Case& c : cases) {
    absl::Status loaded = target.Load(c.bytes);
    EXPECT_EQ(loaded.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(loaded.message()), HasSubstr(c.error));
  }
  EXPECT_TRUE(TensorsEqual(target.Get()[0], MakeTensors()[0]));
}

TEST_F(TensorReplicaStateTest, AnUnassignedTensorCannotBeSaved) {
  TensorReplicaState state(allocator_.get());
  state.Set({DenseHostTensor()});
  absl::StatusOr<std::string> bytes = state.Save();
  EXPECT_EQ(bytes.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bytes.status().message()),
              HasSubstr("tensor #0 was never assigned"));
}

}  // namespace
}  // namespace sluice::ft
