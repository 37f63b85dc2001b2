// Tensors through a remote call to a real worker process: a 4 MiB f32
// tensor comes back from an identity function bit for bit, and a tensor
// over the message limit fails on the sending side, with an error that
// names its size and the limit, before anything is sent.
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/compiler/compile_program.h"
#include "sluice/distributed/remote_client.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "test/integration/remote_test_util.h"
#include "test/integration/worker_fixture.h"

namespace sluice::dist::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kProgram[] = R"mlir(
func.func @identity(%x: !t.tensor) -> !t.tensor {
  tfrt.return %x : !t.tensor
}

func.func @swap(%x: !t.tensor, %y: !t.tensor) -> (!t.tensor, !t.tensor) {
  tfrt.return %y, %x : !t.tensor, !t.tensor
}
)mlir";

class TensorCallTest : public WorkerFixture {
 protected:
  void Start(RpcOptions options = RpcOptions()) {
    ASSERT_NO_FATAL_FAILURE(StartCluster(1, options));
    absl::StatusOr<std::vector<uint8_t>> compiled =
        CompileProgram(kProgram, "tensor_call.mlir");
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    absl::StatusOr<RemoteProgram> program = RegisterNow(task(0), *compiled);
    ASSERT_TRUE(program.ok()) << program.status();
    program_ = *std::move(program);
  }

  // `n` f32 elements of random bits, NaNs and denormals included.
  DenseHostTensor RandomF32(int64_t n, uint32_t seed) {
    DenseHostTensor tensor = *DenseHostTensor::Create(
        DType::kF32, TensorShape({n / 1024, 1024}), host_->allocator());
    std::mt19937 random(seed);
    auto* words = static_cast<uint32_t*>(tensor.raw_data());
    for (int64_t i = 0; i < n; ++i) words[i] = random();
    return tensor;
  }

  static RCReference<AsyncValue> Value(DenseHostTensor tensor) {
    return MakeAvailableAsyncValueRef<DenseHostTensor>(std::move(tensor))
        .ReleaseRCRef();
  }

  RemoteProgram program_;
};

TEST_F(TensorCallTest, A4MiBTensorComesBackBitIdentical) {
  ASSERT_NO_FATAL_FAILURE(Start());
  const DenseHostTensor sent = RandomF32(1 << 20, 11);  // 4 MiB
  std::vector<RCReference<AsyncValue>> results =
      CallNow(task(0), *program_.GetFunction("identity"), Args(Value(sent)));
  ASSERT_FALSE(results[0]->IsError()) << results[0]->GetError();
  const DenseHostTensor& received = results[0]->get<DenseHostTensor>();
  EXPECT_EQ(received.dtype(), DType::kF32);
  EXPECT_EQ(received.shape(), sent.shape());
  ASSERT_EQ(received.num_bytes(), size_t{4} << 20);
  EXPECT_EQ(
      std::memcmp(received.raw_data(), sent.raw_data(), received.num_bytes()),
      0);
}

TEST_F(TensorCallTest, TensorsOfEveryDTypeTravelBothWays) {
  ASSERT_NO_FATAL_FAILURE(Start());
  const bool flags[] = {true, false, true};
  DenseHostTensor i1 = *DenseHostTensor::FromValues<bool>(
      TensorShape({3}), flags, host_->allocator());
  const std::vector<int64_t> big = {int64_t{1} << 62, -5};
  DenseHostTensor i64 = *DenseHostTensor::FromValues<int64_t>(
      TensorShape({2, 1}), big, host_->allocator());
  std::vector<RCReference<AsyncValue>> results = CallNow(
      task(0), *program_.GetFunction("swap"), Args(Value(i1), Value(i64)));
  ASSERT_FALSE(results[0]->IsError()) << results[0]->GetError();
  ASSERT_FALSE(results[1]->IsError()) << results[1]->GetError();
  EXPECT_TRUE(TensorsEqual(results[0]->get<DenseHostTensor>(), i64));
  EXPECT_TRUE(TensorsEqual(results[1]->get<DenseHostTensor>(), i1));
}

TEST_F(TensorCallTest, ATensorOverTheLimitFailsBeforeItIsSent) {
  RpcOptions options;
  options.max_message_bytes = 1 << 20;
  ASSERT_NO_FATAL_FAILURE(Start(options));
  RCReference<AsyncValue> tensor = Value(RandomF32(1 << 20, 3));
  AsyncValue* arguments[] = {tensor.get()};
  std::vector<RCReference<AsyncValue>> results =
      task(0)->Call(*program_.GetFunction("identity"), arguments, nullptr);
  // Failed at once, in the call itself: no answer could have come yet.
  ASSERT_TRUE(results[0]->IsError());
  const absl::Status& error = results[0]->GetError();
  EXPECT_EQ(error.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(error.message(),
              HasSubstr("remote call of 'identity' on task "
                        "/job:worker/task:0: the request is "));
  EXPECT_THAT(error.message(),
              HasSubstr("bytes, over the limit of 1048576 bytes "
                        "(max_message_bytes); argument 0 takes "));
  EXPECT_THAT(error.message(), HasSubstr("a !t.tensor f32 [1024, 1024]"));
}

}  // namespace
}  // namespace sluice::dist::testing
