// Tensors for checkpoint tests, the same in every process for a seed, and
// their bit-for-bit comparison.
#ifndef SLUICE_TEST_UTIL_CHECKPOINT_TENSORS_H_
#define SLUICE_TEST_UTIL_CHECKPOINT_TENSORS_H_

#include <cstdint>
#include <map>
#include <string>

#include "gtest/gtest.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice {
namespace test_util {

using TensorMap = std::map<std::string, DenseHostTensor>;

// Every dtype, with the values a byte-order or conversion bug would change:
// extreme integers, NaNs with payloads (quiet and signalling, both signs),
// -0, infinities, subnormals; rank 0 and empty tensors; and one larger
// tensor of seeded random bits per floating-point dtype. Different seeds
// give different contents under the same names.
TensorMap CheckpointTestTensors(uint32_t seed, HostAllocator* allocator);

// Same names, and per name the same dtype, shape and bytes (so a NaN equals
// a NaN with the same payload, unlike TensorsEqual).
::testing::AssertionResult BitIdentical(const TensorMap& expected,
                                        const TensorMap& actual);

// A new empty directory under the test's temporary directory.
std::string MakeTempDirectory();

}  // namespace test_util
}  // namespace sluice

#endif  // SLUICE_TEST_UTIL_CHECKPOINT_TENSORS_H_
