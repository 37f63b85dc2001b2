// A program's identity on a worker: both sides compute it from the SBF
// bytes, so a client knows a program's id before the worker answers and
// never sends the same bytes to a task twice.
#ifndef SLUICE_LIB_DISTRIBUTED_PROGRAM_FINGERPRINT_H_
#define SLUICE_LIB_DISTRIBUTED_PROGRAM_FINGERPRINT_H_

#include <cstdint>

#include "absl/types/span.h"
#include "llvm/Support/xxhash.h"

namespace sluice::dist {

inline uint64_t ProgramFingerprint(absl::Span<const uint8_t> bytes) {
  return llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(bytes.data(), bytes.size()));
}

}  // namespace sluice::dist

#endif  // SLUICE_LIB_DISTRIBUTED_PROGRAM_FINGERPRINT_H_
