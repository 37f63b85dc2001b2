// The tfrt_dht buffer kernels: what the lit tests cannot see (alignment,
// zeroed bytes) and the tensor without a buffer no op makes.
#include <cstdint>
#include <cstring>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/kernel/kernel_frame_builder.h"
#include "sluice/kernels/tensor_kernels.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "sluice/tensor/host_buffer.h"
#include "test/util/kernel_test_host.h"

namespace sluice {
namespace {

using ::testing::Each;

class BufferKernelsTest : public ::testing::Test {
 protected:
  BufferKernelsTest() {
    EXPECT_TRUE(RegisterTensorKernels(&host_.registry()).ok());
  }

  test_util::KernelTestHost host_;
};

TEST_F(BufferKernelsTest, AllocateAlignsAndZeroes) {
  for (int64_t alignment : {1, 8, 256, 4096}) {
    KernelFrameBuilder frame = host_.Frame("tfrt_dht.allocate_buffer");
    frame.AddAvailableArg<int64_t>(100)
        .AddAvailableArg<int64_t>(alignment)
        .SetNumResults(1);
    host_.Invoke(frame, "tfrt_dht.allocate_buffer");
    ASSERT_TRUE(frame.result(0)->IsConcrete()) << alignment;
    const RCReference<HostBuffer>& buffer =
        frame.result(0)->get<RCReference<HostBuffer>>();
    EXPECT_EQ(buffer->size(), 100u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer->data()) %
                  static_cast<uintptr_t>(alignment),
              0u)
        << alignment;
    std::vector<uint8_t> bytes(100);
    std::memcpy(bytes.data(), buffer->data(), bytes.size());
    EXPECT_THAT(bytes, Each(0)) << alignment;
  }
}

// A slice keeps the bytes alive after every other reference is gone.
TEST_F(BufferKernelsTest, SliceOutlivesItsParentValue) {
  RCReference<HostBuffer> parent =
      HostBuffer::Allocate(16, host_.host_context()->allocator());
  ASSERT_TRUE(parent);
  std::memset(parent->data(), 0x5a, 16);
  KernelFrameBuilder frame = host_.Frame("tfrt_dht.get_buffer_slice");
  frame.AddAvailableArg<RCReference<HostBuffer>>(std::move(parent))
      .AddAvailableArg<int64_t>(4)
      .AddAvailableArg<int64_t>(8)
      .SetNumResults(1);
  host_.Invoke(frame, "tfrt_dht.get_buffer_slice");
  RCReference<AsyncValue> slice = frame.result(0).CopyRef();
  frame.results().clear();
  ASSERT_TRUE(slice->IsConcrete());
  const RCReference<HostBuffer>& bytes = slice->get<RCReference<HostBuffer>>();
  ASSERT_EQ(bytes->size(), 8u);
  EXPECT_EQ(static_cast<const uint8_t*>(bytes->data())[7], 0x5a);
}

TEST_F(BufferKernelsTest, GetBufferOfATensorWithoutOneIsAnError) {
  KernelFrameBuilder frame = host_.Frame("tfrt_dht.get_buffer");
  frame.AddAvailableArg<DenseHostTensor>()
      .AddAvailableArg<Chain>()
      .SetNumResults(2);
  host_.Invoke(frame, "tfrt_dht.get_buffer");
  ASSERT_TRUE(frame.result(0)->IsError());
  EXPECT_EQ(frame.result(0)->GetError().message(),
            "tfrt_dht.get_buffer: the tensor of shape [] has no buffer");
  EXPECT_TRUE(frame.result(1)->IsError());
}

}  // namespace
}  // namespace sluice
