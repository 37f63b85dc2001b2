// Random tensors from an explicit seed. The same seed, dtype and shape give
// the same bits on every run and every machine: the generator is
// Philox4x32-10, and the transforms from its bits to samples use IEEE
// arithmetic alone (no std:: distribution, whose algorithm each standard
// library chooses, and no libm transcendental, whose last bit each C library
// chooses). Element i depends only on the seed and i, so a tensor's values
// are a prefix of those of any larger tensor drawn with the same seed.
//
// Uniform samples. f32: element i is word i % 4 of Philox block i / 4 (the
// counter is the block index, the key the seed); its top 24 bits, u / 2^24,
// give a fraction in [0, 1). f64: element i takes words 2(i % 2) and
// 2(i % 2) + 1 of block i / 2, their top 53 bits making the fraction. The
// sample is low + (high - low) * fraction computed in double and rounded to
// the dtype; a sample that rounds up to `high` becomes the largest value
// below it.
//
// Normal samples (Box-Muller). Elements 2p and 2p + 1 come from block p:
// words 0 and 1 make a 53-bit u1 in (0, 1], words 2 and 3 a 53-bit t in
// [0, 1); with r = sqrt(-2 ln u1), they are mean + stddev * r cos(2 pi t)
// and mean + stddev * r sin(2 pi t), computed in double. An f32 tensor
// holds the f64 tensor's values of the same seed, rounded.
#ifndef SLUICE_TENSOR_RANDOM_H_
#define SLUICE_TENSOR_RANDOM_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "sluice/tensor/dtype.h"
#include "sluice/tensor/tensor_shape.h"

namespace sluice {

// Uniform in [low, high), f32 or f64; low and high are rounded to the dtype
// first. InvalidArgument unless low < high, both finite and high - low
// finite.
absl::StatusOr<DenseHostTensor> RandomUniform(DType dtype, TensorShape shape,
                                              double low, double high,
                                              uint64_t seed,
                                              HostAllocator* allocator);

// Normal with `mean` and `stddev`, f32 or f64. InvalidArgument unless both
// are finite and stddev >= 0.
absl::StatusOr<DenseHostTensor> RandomNormal(DType dtype, TensorShape shape,
                                             double mean, double stddev,
                                             uint64_t seed,
                                             HostAllocator* allocator);

}  // namespace sluice

#endif  // SLUICE_TENSOR_RANDOM_H_
