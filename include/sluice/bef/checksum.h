// The checksum of an SBF file (docs/format.md): a CRC-32 of the whole file,
// read with the header's checksum field as zero. ReadSbf refuses a file
// whose stored checksum differs, so a damaged file is an error rather than a
// different program.
#ifndef SLUICE_BEF_CHECKSUM_H_
#define SLUICE_BEF_CHECKSUM_H_

#include <cstdint>

#include "absl/types/span.h"

namespace sluice {
namespace bef {

// The checksum `bytes` should carry. `bytes` must hold at least the
// header (kHeaderSize bytes).
uint32_t ComputeSbfChecksum(absl::Span<const uint8_t> bytes);

// The checksum the header of `bytes` stores; at least a header's worth of
// bytes, as above.
uint32_t StoredSbfChecksum(absl::Span<const uint8_t> bytes);

// Stores ComputeSbfChecksum(bytes) in the header, for tools and tests that
// change a file after SbfWriter wrote it. Does nothing to a file shorter
// than the header.
void UpdateSbfChecksum(absl::Span<uint8_t> bytes);

}  // namespace bef
}  // namespace sluice

#endif  // SLUICE_BEF_CHECKSUM_H_
