// The references the value codec carries: variable handles, which travel as
// plain values and are checked like tensors when they arrive, and resource
// references, which name a value kept on the receiving task.
#include <cstdint>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/distributed/value_codec.h"
#include "sluice/distributed/resource_ref.h"
#include "sluice/distributed/variable_handle.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/host_allocator.h"

namespace sluice::dist {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

HostAllocator* Allocator() {
  static HostAllocator* const allocator = CreateMallocAllocator().release();
  return allocator;
}

proto::Value Encoded(const VariableHandle& handle) {
  proto::Value wire;
  absl::Status encoded = EncodeValue(
      *MakeAvailableAsyncValueRef<VariableHandle>(handle).GetAsyncValue(),
      &wire);
  EXPECT_TRUE(encoded.ok()) << encoded;
  return wire;
}

// A wire variable reference as a peer might send it.
proto::Value WireVariable(std::string task, std::string name, uint32_t dtype,
                          std::vector<int64_t> dims) {
  proto::Value wire;
  proto::VariableRef* ref = wire.mutable_variable();
  ref->set_task(std::move(task));
  ref->set_name(std::move(name));
  ref->set_dtype(dtype);
  for (int64_t dim : dims) ref->add_dims(dim);
  return wire;
}

absl::Status DecodeError(const proto::Value& wire) {
  RCReference<AsyncValue> decoded = DecodeValue(wire, "t", Allocator());
  if (!decoded->IsError()) return absl::OkStatus();
  return decoded->GetError();
}

TEST(ReferenceCodecTest, AVariableHandleRoundTripsAsTfrtDistVariable) {
  VariableHandle handle;
  handle.task = "/job:ps/task:1";
  handle.name = "dense/kernel";
  handle.dtype = DType::kI64;
  handle.shape = TensorShape({3, 0, 7});
  proto::Value wire = Encoded(handle);
  EXPECT_EQ(WireTypeName(wire), "!tfrt_dist.variable");
  EXPECT_EQ(wire.variable().dtype(), 2u);  // i64's number, as Tensor.dtype
  EXPECT_THAT(wire.variable().dims(), ElementsAre(3, 0, 7));

  RCReference<AsyncValue> decoded =
      DecodeValue(wire, "/job:worker/task:0", Allocator());
  ASSERT_TRUE(decoded->IsType<VariableHandle>());
  const VariableHandle& received = decoded->get<VariableHandle>();
  EXPECT_EQ(received.task, "/job:ps/task:1");
  EXPECT_EQ(received.name, "dense/kernel");
  EXPECT_EQ(received.dtype, DType::kI64);
  EXPECT_EQ(received.shape, TensorShape({3, 0, 7}));
}

TEST(ReferenceCodecTest, AScalarVariableRoundTrips) {
  VariableHandle handle;
  handle.task = "/job:ps/task:0";
  handle.name = "step";
  handle.dtype = DType::kF64;
  RCReference<AsyncValue> decoded =
      DecodeValue(Encoded(handle), "t", Allocator());
  ASSERT_TRUE(decoded->IsType<VariableHandle>());
  EXPECT_EQ(decoded->get<VariableHandle>().shape.rank(), 0);
  EXPECT_EQ(decoded->get<VariableHandle>().dtype, DType::kF64);
}

TEST(ReferenceCodecTest, MalformedVariableReferencesDecodeToErrors) {
  struct Case {
    proto::Value wire;
    std::string expected;
  };
  const Case cases[] = {
      {WireVariable("/job:ps/task:0", "w", 42, {2}), "has unknown dtype 42"},
      {WireVariable("/job:ps/task:0", "w", 1u << 20, {2}),
       "has unknown dtype 1048576"},
      {WireVariable("/job:ps/task:0", "w", 3, {2, -1}),
       "'w' on task '/job:ps/task:0' has an invalid shape"},
      {WireVariable("/job:ps/task:0", "w", 3, std::vector<int64_t>(33, 1)),
       "has an invalid shape"},
      {WireVariable("/job:ps/task:0", "w", 3,
                    {int64_t{1} << 40, int64_t{1} << 40}),
       "has an invalid shape"},
      {WireVariable("/job:ps/task:0", "", 3, {2}), "has an empty name"},
      {WireVariable("ps0", "w", 3, {2}), "on task 'ps0' names no task"},
  };
  for (const Case& c : cases) {
    absl::Status error = DecodeError(c.wire);
    EXPECT_EQ(error.code(), absl::StatusCode::kInvalidArgument)
        << c.expected << ": " << error;
    EXPECT_THAT(error.message(), HasSubstr("variable reference"));
    EXPECT_THAT(error.message(), HasSubstr(c.expected));
  }
}

TEST(ReferenceCodecTest, AResourceRefTravelsAsAReference) {
  proto::Value wire;
  ASSERT_TRUE(
      EncodeValue(*MakeAvailableAsyncValueRef<ResourceRef>(ResourceRef{77})
                       .GetAsyncValue(),
                  &wire)
          .ok());
  ASSERT_TRUE(wire.has_resource());
  EXPECT_EQ(wire.resource().id(), 77u);
  EXPECT_EQ(WireTypeName(wire), "resource");
  RCReference<AsyncValue> decoded = DecodeValue(wire, "t", Allocator());
  ASSERT_TRUE(decoded->IsType<ResourceRef>());
  EXPECT_EQ(decoded->get<ResourceRef>().id, 77u);
}

}  // namespace
}  // namespace sluice::dist
