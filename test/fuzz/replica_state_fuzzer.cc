// Fuzz target for the replica state a recovering replica heals from
// (ParseTensors in lib/ft/tensor_replica_state.h): the bytes a peer sends,
// which are never trusted. Any input either fails with an InvalidArgument
// or loads into tensors whose buffers hold exactly their elements (i1
// elements 0 or 1); saved again, the state is the input byte for byte.
//
// In the test suite, seeded_fuzz_driver.cc runs this target on states
// SerializeTensors writes and deterministic mutations of them; to fuzz it
// for real with libFuzzer, see build_libfuzzer_target.sh.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/ft/tensor_replica_state.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "sluice/tensor/dtype.h"
#include "sluice/tensor/tensor_shape.h"
#include "test/fuzz/fuzz_target.h"

namespace sluice {
namespace ft {
namespace {

using fuzz::Require;

HostAllocator* Allocator() {
  static HostAllocator* const allocator = CreateMallocAllocator().release();
  return allocator;
}

void CheckOneInput(std::string_view bytes) {
  TensorReplicaState state(Allocator());
  absl::Status loaded = state.Load(bytes);
  if (!loaded.ok()) {
    Require(absl::IsInvalidArgument(loaded),
            "bad replica state is InvalidArgument");
    Require(state.Get().empty(), "a failed load leaves the state as it was");
    return;
  }
  for (const DenseHostTensor& tensor : state.Get()) {
    Require(tensor.raw_data() != nullptr || tensor.num_elements() == 0,
            "a loaded tensor has a buffer for its elements");
    const size_t size = tensor.num_bytes();
    Require(size == static_cast<size_t>(tensor.num_elements()) *
                        DTypeSize(tensor.dtype()),
            "a loaded tensor's bytes are its elements");
    const auto* data = static_cast<const uint8_t*>(tensor.raw_data());
    if (tensor.dtype() == DType::kI1) {
      for (size_t i = 0; i < size; ++i) {
        Require(data[i] <= 1, "an i1 element is 0 or 1");
      }
    }
  }
  absl::StatusOr<std::string> saved = state.Save();
  Require(saved.ok() && *saved == bytes,
          "a loaded state saves to the bytes it came from");
}

DenseHostTensor Tensor(DType dtype, std::vector<int64_t> dims) {
  absl::StatusOr<TensorShape> shape = TensorShape::Create(dims);
  Require(shape.ok(), "a seed's shape is valid");
  absl::StatusOr<DenseHostTensor> tensor =
      DenseHostTensor::Create(dtype, *shape, Allocator());
  Require(tensor.ok(), "a seed's tensor is made");
  auto* data = static_cast<uint8_t*>(tensor->raw_data());
  for (size_t i = 0; i < tensor->num_bytes(); ++i) {
    data[i] = dtype == DType::kI1 ? i % 2 : static_cast<uint8_t>(i * 37 + 1);
  }
  return *tensor;
}

}  // namespace
}  // namespace ft

namespace fuzz {

TargetSeeds FuzzTargetSeeds() {
  using ft::Tensor;
  const std::vector<std::vector<DenseHostTensor>> states = {
      {},
      {Tensor(DType::kF32, {2, 3})},
      {Tensor(DType::kI1, {5}), Tensor(DType::kI32, {}),
       Tensor(DType::kI64, {1, 2}), Tensor(DType::kF32, {3}),
       Tensor(DType::kF64, {2, 1, 2})},
      {Tensor(DType::kF64, {0, 7}), Tensor(DType::kI32, {1, 1, 1, 1, 1, 1})},
  };
  TargetSeeds target;
  for (const std::vector<DenseHostTensor>& tensors : states) {
    absl::StatusOr<std::string> bytes = ft::SerializeTensors(tensors);
    Require(bytes.ok(), "a seed state serializes");
    target.seeds.push_back(*bytes);
  }
  target.tokens = {"SLTS", std::string("\0\0\0\0", 4),
                   std::string("\x20\0\0\0\0\0\0\0", 8)};
  return target;
}

}  // namespace fuzz
}  // namespace sluice

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sluice::ft::CheckOneInput(sluice::fuzz::AsText(data, size));
  return 0;
}
