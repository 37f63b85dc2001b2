// A program's identity on a worker: both sides compute it from the SBF
// bytes, so a client knows a program's id before the worker answers and
// never sends the same bytes to a task twice.
#ifndef SLUICE_LIB_DISTRIBUTED_PROGRAM_FINGERPRINT_H_
#define SLUICE_LIB_DISTRIBUTED_PROGRAM_FINGERPRINT_H_

#include <xxhash.h>

#include <cstdint>

#include "absl/types/span.h"

namespace sluice::dist {

// XXH3's 64-bit hash with seed 0. A client and a worker of different builds
// must agree on it: program_fingerprint_test pins its values.
inline uint64_t ProgramFingerprint(absl::Span<const uint8_t> bytes) {
  return XXH3_64bits(bytes.data(), bytes.size());
}

}  // namespace sluice::dist

#endif  // SLUICE_LIB_DISTRIBUTED_PROGRAM_FINGERPRINT_H_
