// The tfrt_dht tensor kernels on what the MLIR verifier keeps out of
// compiled .mlir programs but an executable from elsewhere can still hold:
// negative or mistyped dimensions, a rank other than the name's, values of
// the wrong type. Each is an error value naming the op, and an op that
// fails leaves its tensor as it was.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/bef/format.h"
#include "sluice/bef/sbf_reader.h"
#include "sluice/bef/sbf_writer.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/kernel/kernel_frame_builder.h"
#include "sluice/kernels/tensor_kernels.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "test/util/kernel_test_host.h"

namespace sluice {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using bef::AttributeType;

class DenseHostTensorKernelsTest : public ::testing::Test {
 protected:
  DenseHostTensorKernelsTest()
      : host_("s", DecodedLocation{"prog.mlir", 3, 8}) {
    EXPECT_TRUE(RegisterTensorKernels(&host_.registry()).ok());
  }

  // An executable whose attribute section holds what `build` adds; returns
  // the data of the attribute `build` returns the reference of.
  template <typename Build>
  const void* MakeAttribute(Build build) {
    bef::SbfWriter writer;
    const uint32_t reference = build(writer);
    bytes_ = writer.Finish();
    absl::StatusOr<bef::SbfProgram> program = bef::ReadSbf(bytes_);
    EXPECT_TRUE(program.ok()) << program.status();
    program_ = *std::move(program);
    return program_.AttributeData(reference);
  }

  // An array attribute of i64 dimensions.
  const void* Dims(std::vector<int64_t> dims) {
    return MakeAttribute([&](bef::SbfWriter& w) {
      std::vector<uint32_t> elements;
      for (int64_t dim : dims) {
        elements.push_back(w.AddScalar<int64_t>(AttributeType::kI64, dim));
      }
      return w.AddArrayAttribute(elements);
    });
  }

  // Runs kernel `name` with the one attribute `attribute` and no arguments.
  RCReference<AsyncValue> Create(const std::string& name,
                                 const void* attribute) {
    KernelFrameBuilder frame = host_.Frame(name);
    frame.SetAttributeSection(program_.attributes_section)
        .AddAttribute(attribute)
        .SetNumResults(1);
    host_.Invoke(frame, name);
    return frame.result(0).CopyRef();
  }

  DenseHostTensor I32Tensor(std::vector<int32_t> values) {
    absl::StatusOr<DenseHostTensor> tensor =
        DenseHostTensor::FromValues<int32_t>(
            TensorShape{static_cast<int64_t>(values.size())}, values,
            host_.host_context()->allocator());
    EXPECT_TRUE(tensor.ok()) << tensor.status();
    return *std::move(tensor);
  }

  test_util::KernelTestHost host_;
  std::vector<uint8_t> bytes_;
  bef::SbfProgram program_;
};

TEST_F(DenseHostTensorKernelsTest, CreateMakesAZeroedTensorOfTheShape) {
  RCReference<AsyncValue> tensor =
      Create("tfrt_dht.create_uninitialized_tensor.i64.2", Dims({2, 3}));
  ASSERT_TRUE(tensor->IsConcrete());
  const DenseHostTensor& dht = tensor->get<DenseHostTensor>();
  EXPECT_EQ(dht.dtype(), DType::kI64);
  EXPECT_EQ(dht.shape(), (TensorShape{2, 3}));
  EXPECT_THAT(dht.values<int64_t>(), ElementsAre(0, 0, 0, 0, 0, 0));
  EXPECT_THAT(host_.diagnostics(), ::testing::IsEmpty());
}

TEST_F(DenseHostTensorKernelsTest, CreateRefusesANegativeDimension) {
  RCReference<AsyncValue> tensor =
      Create("tfrt_dht.create_uninitialized_tensor.f32.2", Dims({-1, 2}));
  ASSERT_TRUE(tensor->IsError());
  EXPECT_EQ(tensor->GetError().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(tensor->GetError().message(),
            "tfrt_dht.create_uninitialized_tensor: shape [-1, 2] has a "
            "negative dimension");
  EXPECT_THAT(host_.diagnostics(), ElementsAre(HasSubstr("prog.mlir:3:8")));
}

TEST_F(DenseHostTensorKernelsTest, CreateRefusesARankOtherThanItsName) {
  RCReference<AsyncValue> tensor =
      Create("tfrt_dht.create_uninitialized_tensor.i32.1", Dims({2, 2}));
  ASSERT_TRUE(tensor->IsError());
  EXPECT_EQ(tensor->GetError().message(),
            "tfrt_dht.create_uninitialized_tensor: the op creates a tensor of "
            "rank 1 but 'shape' has 2 dimensions");
}

TEST_F(DenseHostTensorKernelsTest, CreateRefusesDimensionsThatAreNotI64) {
  const void* dims = MakeAttribute([](bef::SbfWriter& w) {
    const uint32_t two = w.AddScalar<int32_t>(AttributeType::kI32, 2);
    return w.AddArrayAttribute({two});
  });
  RCReference<AsyncValue> tensor =
      Create("tfrt_dht.create_uninitialized_tensor.bool.1", dims);
  ASSERT_TRUE(tensor->IsError());
  EXPECT_EQ(tensor->GetError().message(),
            "tfrt_dht.create_uninitialized_tensor: dimension 0 is an attribute "
            "of type i32; dimensions are i64");
}

TEST_F(DenseHostTensorKernelsTest, SetChecksEveryValueBeforeWritingAny) {
  const void* values = MakeAttribute([](bef::SbfWriter& w) {
    const uint32_t one = w.AddScalar<int32_t>(AttributeType::kI32, 1);
    const uint32_t half = w.AddScalar<float>(AttributeType::kF32, 0.5f);
    return w.AddArrayAttribute({one, half});
  });
  AsyncValueRef<DenseHostTensor> tensor =
      MakeAvailableAsyncValueRef<DenseHostTensor>(I32Tensor({7, 8}));
  KernelFrameBuilder frame =
      host_.Frame("tfrt_dht.set_tensor_with_constant_values.i32");
  frame.AddArg(tensor.CopyRCRef())
      .AddAvailableArg<Chain>()
      .SetAttributeSection(program_.attributes_section)
      .AddAttribute(values)
      .SetNumResults(1);
  host_.Invoke(frame, "tfrt_dht.set_tensor_with_constant_values.i32");
  ASSERT_TRUE(frame.result(0)->IsError());
  EXPECT_EQ(frame.result(0)->GetError().message(),
            "tfrt_dht.set_tensor_with_constant_values: value 1 is an attribute "
            "of type f32, the tensor holds i32");
  EXPECT_THAT(tensor->values<int32_t>(), ElementsAre(7, 8));
}

TEST_F(DenseHostTensorKernelsTest,
       SetWithValuesChecksEveryValueBeforeWritingAny) {
  AsyncValueRef<DenseHostTensor> tensor =
      MakeAvailableAsyncValueRef<DenseHostTensor>(I32Tensor({7, 8}));
  KernelFrameBuilder frame = host_.Frame("tfrt_dht.set_tensor_with_values.i32");
  frame.AddArg(tensor.CopyRCRef())
      .AddAvailableArg<Chain>()
      .AddAvailableArg<int32_t>(1)
      .AddAvailableArg<int64_t>(2)
      .SetNumResults(1);
  host_.Invoke(frame, "tfrt_dht.set_tensor_with_values.i32");
  ASSERT_TRUE(frame.result(0)->IsError());
  EXPECT_EQ(frame.result(0)->GetError().message(),
            "tfrt_dht.set_tensor_with_values: value 1 is not of type i32");
  EXPECT_THAT(tensor->values<int32_t>(), ElementsAre(7, 8));
}

// A bool attribute is one byte; any nonzero byte is true, and the tensor
// stores it as 1, so i1 elements stay 0 or 1 whatever the executable holds.
TEST_F(DenseHostTensorKernelsTest, FillStoresI1AsZeroOrOne) {
  absl::StatusOr<DenseHostTensor> bools = DenseHostTensor::Create(
      DType::kI1, TensorShape{3}, host_.host_context()->allocator());
  ASSERT_TRUE(bools.ok());
  AsyncValueRef<DenseHostTensor> tensor =
      MakeAvailableAsyncValueRef<DenseHostTensor>(*std::move(bools));
  KernelFrameBuilder frame =
      host_.Frame("tfrt_dht.fill_tensor_with_constant.bool");
  frame.AddArg(tensor.CopyRCRef())
      .AddAvailableArg<Chain>()
      .AddAttribute(frame.attribute_buffer().AddScalar<uint8_t>(2))
      .SetNumResults(1);
  host_.Invoke(frame, "tfrt_dht.fill_tensor_with_constant.bool");
  ASSERT_TRUE(frame.result(0)->IsConcrete());
  uint8_t bytes[3];
  std::memcpy(bytes, tensor->raw_data(), sizeof(bytes));
  EXPECT_THAT(bytes, ElementsAre(1, 1, 1));
}

TEST_F(DenseHostTensorKernelsTest, MakeTensorSharesTheBuffer) {
  RCReference<HostBuffer> buffer =
      HostBuffer::Allocate(8, host_.host_context()->allocator());
  ASSERT_TRUE(buffer);
  KernelFrameBuilder frame = host_.Frame("tfrt_dht.make_tensor.i32");
  frame.AddAvailableArg<RCReference<HostBuffer>>(buffer.CopyRef())
      .AddAvailableArg<TensorShape>(TensorShape{2})
      .AddAvailableArg<Chain>()
      .SetNumResults(2);
  host_.Invoke(frame, "tfrt_dht.make_tensor.i32");
  ASSERT_TRUE(frame.result(0)->IsConcrete());
  const DenseHostTensor& tensor = frame.result(0)->get<DenseHostTensor>();
  EXPECT_EQ(tensor.raw_data(), buffer->data());
  EXPECT_EQ(tensor.buffer().get(), buffer.get());
  EXPECT_TRUE(frame.result(1)->IsConcrete());
}

// Byte 2 would read as true here; a peer refuses it in a tensor message.
// Both apply one rule and say so in the same words (tensor_codec_test
// expects them after "tensor message (i1 [4]): ").
TEST_F(DenseHostTensorKernelsTest,
       MakeTensorRefusesI1BytesOtherThanZeroAndOne) {
  RCReference<HostBuffer> buffer =
      HostBuffer::Allocate(4, host_.host_context()->allocator());
  ASSERT_TRUE(buffer);
  std::memcpy(buffer->data(), "\1\0\2\1", 4);
  for (const char* op :
       {"tfrt_dht.make_tensor.i1", "tfrt_dht.make_tensor.bool"}) {
    KernelFrameBuilder frame = host_.Frame(op);
    frame.AddAvailableArg<RCReference<HostBuffer>>(buffer.CopyRef())
        .AddAvailableArg<TensorShape>(TensorShape{4})
        .AddAvailableArg<Chain>()
        .SetNumResults(2);
    host_.Invoke(frame, op);
    ASSERT_TRUE(frame.result(0)->IsError()) << op;
    EXPECT_EQ(frame.result(0)->GetError().code(),
              absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(frame.result(0)->GetError().message(),
              "tfrt_dht.make_tensor: i1 element 2 holds byte 2: an i1 element "
              "is 0 or 1");
  }
  // Bytes 0 and 1 make a tensor over the same buffer.
  std::memcpy(buffer->data(), "\1\0\0\1", 4);
  KernelFrameBuilder frame = host_.Frame("tfrt_dht.make_tensor.i1");
  frame.AddAvailableArg<RCReference<HostBuffer>>(buffer.CopyRef())
      .AddAvailableArg<TensorShape>(TensorShape{4})
      .AddAvailableArg<Chain>()
      .SetNumResults(2);
  host_.Invoke(frame, "tfrt_dht.make_tensor.i1");
  ASSERT_TRUE(frame.result(0)->IsConcrete());
  EXPECT_EQ(frame.result(0)->get<DenseHostTensor>().raw_data(), buffer->data());
}

}  // namespace
}  // namespace sluice
