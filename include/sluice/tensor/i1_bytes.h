// The rule for i1 elements that come as raw bytes (a buffer a program
// wrote through another view, a tensor message from a peer): each is one
// byte, 0 or 1. Loading any other byte as a C++ bool is undefined, and
// reading it as "nonzero is true" would let byte 2 equal 1 here while a
// peer refuses it, so every path that makes an i1 tensor from raw bytes
// checks them with this one function and refuses them with its message.
#ifndef SLUICE_TENSOR_I1_BYTES_H_
#define SLUICE_TENSOR_I1_BYTES_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace sluice {

// OK when every byte is 0 or 1; otherwise InvalidArgument naming the first
// that is not: "i1 element 2 holds byte 7: an i1 element is 0 or 1".
// Callers put what they were making in front.
absl::Status CheckI1Bytes(absl::Span<const uint8_t> bytes);

}  // namespace sluice

#endif  // SLUICE_TENSOR_I1_BYTES_H_
