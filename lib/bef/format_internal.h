// Helpers shared by the SBF reader and writer; not part of the public API.
#ifndef SLUICE_LIB_BEF_FORMAT_INTERNAL_H_
#define SLUICE_LIB_BEF_FORMAT_INTERNAL_H_

#include <cstdint>
#include <vector>

#include "sluice/bef/format.h"

namespace sluice {
namespace bef {
namespace internal {

// Kernels read attribute data in place, so the file's little-endian layout
// must be the host's.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "SBF attributes are read in place and assume a little-endian "
              "host");

// Section ids and names used in error messages.
const char* SectionName(uint32_t id);

// Codes 1..13: the types a scalar entry or a dense array element may have.
bool IsScalarAttributeType(uint32_t code);

// True for every code the format defines, dense arrays included.
bool IsKnownAttributeType(uint32_t code);

// Scalars, type and symbol references, complex numbers and unit have a fixed
// element count; strings and arrays do not (returns false for them).
bool FixedAttributeCount(uint32_t code, uint32_t* count);

inline uint32_t LoadLe32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

inline void AppendLe32(std::vector<uint8_t>* out, uint32_t value) {
  out->push_back(static_cast<uint8_t>(value));
  out->push_back(static_cast<uint8_t>(value >> 8));
  out->push_back(static_cast<uint8_t>(value >> 16));
  out->push_back(static_cast<uint8_t>(value >> 24));
}

inline uint64_t AlignTo(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

}  // namespace internal
}  // namespace bef
}  // namespace sluice

#endif  // SLUICE_LIB_BEF_FORMAT_INTERNAL_H_
